"""Reads for the console's privacy pages: data-subject cases and the audit log.

Everything is scoped to the staff member's tenants: a case or audit entry of another tenant is
never listed and answers 404 when addressed directly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import BooleanField, Case, Q, QuerySet, Value, When
from django.http import Http404
from django.utils import timezone

from accounts.models import StaffTenantAccess
from audit.models import AuditEntry
from console.access import tenant_ids_for
from memory.models import Subject
from privacy.models import DataSubjectRequest

CLOSED_STATUSES = (DataSubjectRequest.Status.COMPLETED, DataSubjectRequest.Status.REJECTED)
AUDIT_CSV_COLUMNS = (
    "id",
    "created_at",
    "actor_type",
    "actor_id",
    "action",
    "target_type",
    "target_id",
    "tenant_id",
    "subject_id",
    "request_id",
    "ip",
    "reason",
    "changed_fields",
    "entry_hash",
    "reason_code",
    "client_request_id",
    "target_ref",
)
# Free text is read from the erasable side table (empty once the subject was erased).
_AUDIT_CSV_LOOKUPS = {
    "reason": "text__reason",
    "client_request_id": "text__request_id",
    "target_ref": "text__target_ref",
}
CSV_BATCH = 2000


def _overdue_condition(now: dt.datetime) -> Q:
    return Q(due_at__lt=now) & ~Q(status__in=CLOSED_STATUSES)


# --------------------------------------------------------------------------- cases


def case_list(
    *,
    tenant_ids: list[int],
    kind: str | None = None,
    status: str | None = None,
    tenant_id: int | None = None,
    overdue_only: bool = False,
    now: dt.datetime | None = None,
) -> QuerySet[DataSubjectRequest]:
    """Cases of the given tenants, newest first, each annotated with `is_overdue` (past its
    due date and neither completed nor rejected)."""
    now = now or timezone.now()
    queryset = DataSubjectRequest.objects.filter(tenant_id__in=tenant_ids).select_related(
        "tenant", "approved_by"
    )
    if kind:
        queryset = queryset.filter(kind=kind)
    if status:
        queryset = queryset.filter(status=status)
    if tenant_id is not None:
        queryset = queryset.filter(tenant_id=tenant_id)
    if overdue_only:
        queryset = queryset.filter(_overdue_condition(now))
    return queryset.annotate(
        is_overdue=Case(
            When(_overdue_condition(now), then=Value(True)),
            default=Value(False),
            output_field=BooleanField(),
        )
    ).order_by("-received_at", "-id")


def case_overdue_count(*, tenant_ids: list[int], now: dt.datetime | None = None) -> int:
    return DataSubjectRequest.objects.filter(
        _overdue_condition(now or timezone.now()), tenant_id__in=tenant_ids
    ).count()


def case_get_for_staff(*, user: Any, public_id: Any) -> DataSubjectRequest:
    """The case, or 404 when it does not exist or belongs to a tenant the user cannot see."""
    case = (
        case_list(tenant_ids=tenant_ids_for(user))
        .filter(public_id=public_id)
        .select_related("tenant", "approved_by")
        .first()
    )
    if case is None:
        raise Http404("No such case.")
    return case


def case_subject(case: DataSubjectRequest) -> Subject | None:
    """The case's subject while it still exists (an erasure removes it)."""
    return Subject.objects.filter(pk=case.subject_pk, tenant_id=case.tenant_id).first()


def subject_for_case_open(*, tenant_id: int, external_id: str) -> Subject | None:
    return Subject.objects.filter(tenant_id=tenant_id, external_id=external_id).first()


# Receipt keys shown as the erasure proof rather than as plain receipt rows.
PROOF_KEYS = frozenset({"residue", "residue_total", "shared_text", "shared_text_total"})


@dataclass
class ErasureProof:
    """An erasure receipt's residue, told apart from other people's identical text."""

    residue: list[tuple[str, int]]
    residue_total: int
    shared_text: list[tuple[str, int]]
    shared_text_total: int
    # Receipts written before the two were told apart counted both as residue.
    mixed: bool


def erasure_proof(receipt: dict[str, Any]) -> ErasureProof | None:
    """The proof part of an erasure receipt (None for receipts of other kinds)."""
    if "residue_total" not in receipt:
        return None
    residue = receipt.get("residue") or {}
    shared = receipt.get("shared_text") or {}
    return ErasureProof(
        residue=sorted(residue.items()),
        residue_total=int(receipt.get("residue_total") or 0),
        shared_text=sorted(shared.items()),
        shared_text_total=int(receipt.get("shared_text_total") or 0),
        mixed="shared_text" not in receipt,
    )


def receipt_rows(
    receipt: dict[str, Any], prefix: str = "", skip: frozenset[str] = PROOF_KEYS
) -> list[tuple[str, Any]]:
    """A receipt flattened to (label, value) rows: nested dicts become "deleted › table".
    The proof keys are left out (see `erasure_proof`)."""
    rows: list[tuple[str, Any]] = []
    for key, value in receipt.items():
        if not prefix and key in skip:
            continue
        label = f"{prefix} › {key}" if prefix else str(key)
        if isinstance(value, dict):
            if value:
                rows.extend(receipt_rows(value, label))
            else:
                rows.append((label, "—"))
        elif isinstance(value, list):
            rows.append((label, ", ".join(str(item) for item in value) or "—"))
        else:
            rows.append((label, value))
    return rows


# --------------------------------------------------------------------------- audit


def sees_all_tenants(user: Any) -> bool:
    """Superusers and staff without a tenant limit also see entries that have no tenant."""
    return (
        user.is_superuser or not StaffTenantAccess.objects.filter(user=user, limited=True).exists()
    )


def audit_entries(
    *,
    user: Any,
    actor_type: str | None = None,
    actor_id: str | None = None,
    action: str | None = None,
    subject: str | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
) -> QuerySet[AuditEntry]:
    """Audit entries the staff member may see, newest first.

    `action` matches a prefix ("privacy." lists every privacy action). `subject` is a
    subject's external id (resolved inside the user's tenants) or its number, which still
    works after the subject was erased."""
    tenant_ids = tenant_ids_for(user)
    scope = Q(tenant_id__in=tenant_ids)
    if sees_all_tenants(user):
        scope |= Q(tenant_id__isnull=True)
    queryset = AuditEntry.objects.filter(scope).select_related("text")
    if actor_type:
        queryset = queryset.filter(actor_type=actor_type)
    if actor_id:
        queryset = queryset.filter(actor_id=actor_id)
    if action:
        queryset = queryset.filter(action__startswith=action)
    if subject:
        pks = list(
            Subject.objects.filter(tenant_id__in=tenant_ids, external_id=subject).values_list(
                "pk", flat=True
            )
        )
        condition = Q(subject_id__in=pks)
        if subject.isdigit():
            condition |= Q(subject_id=int(subject))
        queryset = queryset.filter(condition)
    if since:
        queryset = queryset.filter(created_at__gte=since)
    if until:
        queryset = queryset.filter(created_at__lte=until)
    return queryset.order_by("-id")


def audit_csv_rows(queryset: QuerySet[AuditEntry]) -> Iterator[list[Any]]:
    """The header, then one row per entry, read in batches (server-side cursor)."""
    yield list(AUDIT_CSV_COLUMNS)
    lookups = [_AUDIT_CSV_LOOKUPS.get(column, column) for column in AUDIT_CSV_COLUMNS]
    for values in queryset.values_list(*lookups).iterator(chunk_size=CSV_BATCH):
        row = list(values)
        row[1] = row[1].isoformat()
        row[12] = " ".join(row[12] or [])
        yield [_csv_cell(value) for value in row]


def _csv_cell(value: Any) -> Any:
    """Empty for None; text that a spreadsheet would run as a formula gets a leading quote."""
    if value is None:
        return ""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
