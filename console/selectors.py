"""Console reads and aggregates, always scoped to the tenants the staff member may see.

The dashboard aggregates each take one or two queries whatever the data size (grouped in the
database; Python only sums the few grouped rows), so the page stays fast with 100 k memories.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from accounts.models import Agent
from memory.models import Event, Memory, Observation, RecallTrace, Subject

HIGH_CONFIDENCE = 0.8
DASHBOARD_DAYS = 30
LATENCY_DAYS = 14
TOP_RECALLED = 10
LATEST_FAILURES = 5


def overview_counts(*, tenant_ids: list[int]) -> dict[str, int]:
    return {
        "subjects": Subject.objects.filter(tenant_id__in=tenant_ids).count(),
        "memories": Memory.objects.filter(tenant_id__in=tenant_ids).count(),
        "pending_observations": Observation.objects.filter(
            tenant_id__in=tenant_ids, status=Observation.Status.PENDING
        ).count(),
    }


@dataclass
class MemoryStats:
    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    by_category: dict[str, int] = field(default_factory=dict)  # live (active) memories
    active: int = 0
    active_high_confidence: int = 0
    per_day: list[tuple[dt.date, int]] = field(default_factory=list)  # zero-filled, oldest first

    @property
    def high_confidence_share(self) -> float | None:
        return self.active_high_confidence / self.active if self.active else None

    @property
    def new_in_period(self) -> int:
        return sum(n for _day, n in self.per_day)


def memory_stats(*, tenant_ids: list[int], days: int = DASHBOARD_DAYS) -> MemoryStats:
    """Memories by status, active ones by category, the high-confidence share and new memories
    per (local) day over `days` days — all from ONE scan: GROUP BY status, category, day.

    Why one raw query: each pass over a big tenant's memories is a (parallel) sequential scan
    of wide rows; grouping by (status, category, day-or-NULL) yields ~36 × (days + 1) groups
    from which Python derives every figure, instead of two or three scans.
    """
    today = timezone.localdate()
    start = today - dt.timedelta(days=days - 1)
    since = timezone.make_aware(dt.datetime.combine(start, dt.time.min))
    out = MemoryStats()
    counts: dict[dt.date, int] = {}
    if tenant_ids:
        sql = f"""
            SELECT status, category,
                   CASE WHEN created_at >= %s THEN (created_at AT TIME ZONE %s)::date END,
                   count(*), count(*) FILTER (WHERE confidence >= %s)
            FROM {Memory._meta.db_table}
            WHERE tenant_id = ANY(%s)
            GROUP BY 1, 2, 3
        """  # noqa: S608 - the table name is ours, every value is a parameter
        params = [since, timezone.get_current_timezone_name(), HIGH_CONFIDENCE, list(tenant_ids)]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        for status, category, day, n, high in rows:
            out.total += n
            out.by_status[status] = out.by_status.get(status, 0) + n
            if status == Memory.Status.ACTIVE:
                out.by_category[category] = out.by_category.get(category, 0) + n
                out.active += n
                out.active_high_confidence += high
            if day is not None:
                counts[day] = counts.get(day, 0) + n
    out.per_day = [
        (start + dt.timedelta(days=i), counts.get(start + dt.timedelta(days=i), 0))
        for i in range(days)
    ]
    return out


def queue_stats(*, tenant_ids: list[int]) -> dict[str, Any]:
    """Pending review items, open conflicts and the age of the oldest pending item (1 query)."""
    stats = Observation.objects.filter(
        tenant_id__in=tenant_ids, status=Observation.Status.PENDING
    ).aggregate(
        pending=Count("id"),
        conflicts=Count("id", filter=Q(kind=Observation.Kind.CONFLICT)),
        oldest=Min("created_at"),
    )
    stats["oldest_age"] = timezone.now() - stats["oldest"] if stats["oldest"] else None
    return stats


def top_recalled(*, tenant_ids: list[int], limit: int = TOP_RECALLED) -> list[Memory]:
    return list(
        Memory.objects.filter(tenant_id__in=tenant_ids, hit_count__gt=0)
        .select_related("subject")
        .only(
            "id",
            "content",
            "category",
            "status",
            "hit_count",
            "last_accessed_at",
            "subject__external_id",
            "subject__tenant_id",
        )
        .order_by("-hit_count", "-id")[:limit]
    )


def extraction_failures(*, tenant_ids: list[int], latest: int = LATEST_FAILURES) -> dict[str, Any]:
    """Events whose extraction failed: the count and the latest errors (2 queries)."""
    failed = Event.objects.filter(
        subject__tenant_id__in=tenant_ids, extraction_status=Event.ExtractionStatus.FAILED
    )
    return {
        "count": failed.count(),
        "latest": list(
            failed.select_related("subject")
            .only("id", "received_at", "extraction_error", "subject__external_id")
            .order_by("-received_at", "-id")[:latest]
        ),
    }


@dataclass
class LatencyDay:
    day: dt.date
    p50: float
    p95: float
    count: int


def recall_latency_per_day(*, tenant_ids: list[int], days: int = LATENCY_DAYS) -> list[LatencyDay]:
    """p50 / p95 of RecallTrace.total_ms per (local) day, with percentile_cont (1 query)."""
    if not tenant_ids:
        return []
    since = timezone.now() - dt.timedelta(days=days)
    sql = f"""
        SELECT (created_at AT TIME ZONE %s)::date AS day,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms),
               percentile_cont(0.95) WITHIN GROUP (ORDER BY total_ms),
               count(*)
        FROM {RecallTrace._meta.db_table}
        WHERE tenant_id = ANY(%s) AND created_at >= %s
        GROUP BY 1 ORDER BY 1
    """  # noqa: S608 - the table name is ours, every value is a parameter
    with connection.cursor() as cursor:
        cursor.execute(sql, [timezone.get_current_timezone_name(), list(tenant_ids), since])
        return [
            LatencyDay(day=row[0], p50=float(row[1]), p95=float(row[2]), count=row[3])
            for row in cursor.fetchall()
        ]


def agent_activity(*, tenant_ids: list[int], days: int = DASHBOARD_DAYS) -> list[Agent]:
    """Agents with their recalls over the last `days` days and last use (1 query)."""
    since = timezone.now() - dt.timedelta(days=days)
    return list(
        Agent.objects.filter(tenant_id__in=tenant_ids)
        .select_related("tenant")
        .annotate(
            recalls=Count("recall_traces", filter=Q(recall_traces__created_at__gte=since)),
            last_recall_at=Max("recall_traces__created_at"),
        )
        .order_by("-recalls", "tenant__slug", "name")
    )


def subject_count(*, tenant_ids: list[int]) -> int:
    return Subject.objects.filter(tenant_id__in=tenant_ids).count()
