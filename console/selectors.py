"""Console reads and aggregates, always scoped to the tenants the staff member may see."""

from memory.models import Memory, Observation, Subject


def overview_counts(*, tenant_ids: list[int]) -> dict[str, int]:
    return {
        "subjects": Subject.objects.filter(tenant_id__in=tenant_ids).count(),
        "memories": Memory.objects.filter(tenant_id__in=tenant_ids).count(),
        "pending_observations": Observation.objects.filter(
            tenant_id__in=tenant_ids, status=Observation.Status.PENDING
        ).count(),
    }
