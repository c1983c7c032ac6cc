"""Reads of the console's review part: the observation queue, recall traces and agents.

Every selector is scoped to the tenants the staff member may see (`console.access`); the
`*_get_for_staff` helpers raise `Http404` for anything outside them, exactly as if the row did
not exist (404 before 403: the view checks the role afterwards).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.http import Http404

from accounts.models import Agent
from console.access import tenant_ids_for
from memory.models import Memory, Observation, RecallTrace, Subject
from memory.recall import SIGNALS, RecallResult

QUEUE_PAGE_SIZE = 20
TRACE_PAGE_SIZE = 50
# Heavy columns no console list needs.
MEMORY_HEAVY = ("embedding", "search_text", "search_vector", "evidence")


# ------------------------------------------------------------------------------ queue


def _queue_base(*, tenant_ids: list[int], kind: str = "", tenant_id: int | None = None) -> Any:
    queryset = Observation.objects.filter(
        tenant_id__in=tenant_ids, status=Observation.Status.PENDING
    )
    if kind:
        queryset = queryset.filter(kind=kind)
    if tenant_id:
        queryset = queryset.filter(tenant_id=tenant_id)
    return queryset


def _with_sides(queryset: QuerySet[Observation]) -> QuerySet[Observation]:
    """Everything one queue item shows, in a constant number of queries (two)."""
    related = (
        Memory.objects.select_related("source_event")
        .defer(*MEMORY_HEAVY)
        .order_by("-version", "-pk")
    )
    return (
        queryset.select_related("tenant", "subject", "memory", "memory__source_event")
        .defer(*(f"memory__{name}" for name in MEMORY_HEAVY))
        .prefetch_related(Prefetch("related_memories", queryset=related))
        .order_by("created_at", "id")
    )


@dataclass
class QueuePage:
    items: list[Observation]
    total: int
    oldest_at: dt.datetime | None

    @property
    def last_id(self) -> int | str:
        return self.items[-1].pk if self.items else ""


def queue_page(*, tenant_ids: list[int], kind: str = "", tenant_id: int | None = None) -> QueuePage:
    """The oldest pending items (a window of QUEUE_PAGE_SIZE) and the size of the queue."""
    base = _queue_base(tenant_ids=tenant_ids, kind=kind, tenant_id=tenant_id)
    items = list(_with_sides(base)[:QUEUE_PAGE_SIZE])
    total = len(items) if len(items) < QUEUE_PAGE_SIZE else base.count()
    return QueuePage(items=items, total=total, oldest_at=items[0].created_at if items else None)


def queue_next_after(
    *,
    tenant_ids: list[int],
    after: Observation | None,
    kind: str = "",
    tenant_id: int | None = None,
) -> Observation | None:
    """The pending item that follows `after` in queue order (fills the window after a resolve)."""
    base = _queue_base(tenant_ids=tenant_ids, kind=kind, tenant_id=tenant_id)
    if after is not None:
        base = base.filter(
            Q(created_at__gt=after.created_at) | Q(created_at=after.created_at, id__gt=after.pk)
        )
    return _with_sides(base).first()


def queue_count(*, tenant_ids: list[int], kind: str = "", tenant_id: int | None = None) -> int:
    return _queue_base(tenant_ids=tenant_ids, kind=kind, tenant_id=tenant_id).count()


def observation_get_for_staff(*, user: Any, observation_id: int) -> Observation:
    """One observation of a tenant the staff member may see, or 404."""
    observation = (
        _with_sides(Observation.objects.filter(tenant_id__in=tenant_ids_for(user)))
        .filter(pk=observation_id)
        .first()
    )
    if observation is None:
        raise Http404("No such observation.")
    return observation


def observations_for_bulk(*, user: Any, ids: list[int]) -> list[Observation]:
    """Pending low-confidence items among `ids` that the staff member may see (others skipped)."""
    return list(
        Observation.objects.filter(
            pk__in=ids,
            tenant_id__in=tenant_ids_for(user),
            status=Observation.Status.PENDING,
            kind=Observation.Kind.LOW_CONFIDENCE,
        ).order_by("created_at", "id")
    )


def memory_version_chain(*, memory: Memory) -> list[Memory]:
    """The version chain of a memory after a review decision, oldest first (one query)."""
    return list(
        Memory.objects.filter(subject_id=memory.subject_id, lineage=memory.lineage)
        .defer(*MEMORY_HEAVY)
        .order_by("version", "pk")
    )


# ------------------------------------------------------------------------------ traces


@dataclass
class TraceFilters:
    agent_id: int | None = None
    subject: str = ""
    route: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None


def trace_list(*, tenant_ids: list[int], filters: TraceFilters) -> QuerySet[RecallTrace]:
    """Recall traces, newest first, without the heavy JSON columns (for the list page)."""
    queryset = (
        RecallTrace.objects.filter(tenant_id__in=tenant_ids)
        .select_related("agent", "subject", "tenant")
        .defer("candidates", "parameters", "timings_ms")
        .order_by("-created_at", "-id")
    )
    if filters.agent_id:
        queryset = queryset.filter(agent_id=filters.agent_id)
    if filters.subject:
        queryset = queryset.filter(subject__external_id=filters.subject)
    if filters.route:
        queryset = queryset.filter(route=filters.route)
    if filters.date_from:
        queryset = queryset.filter(created_at__date__gte=filters.date_from)
    if filters.date_to:
        queryset = queryset.filter(created_at__date__lte=filters.date_to)
    return queryset


def trace_get_for_staff(*, user: Any, trace_id: int) -> RecallTrace:
    trace = (
        RecallTrace.objects.filter(tenant_id__in=tenant_ids_for(user), pk=trace_id)
        .select_related("agent", "subject", "tenant")
        .first()
    )
    if trace is None:
        raise Http404("No such recall trace.")
    return trace


def trace_memory_texts(*, trace: RecallTrace, ids: list[int]) -> dict[int, str]:
    """The current text of the trace's memories that still exist, by id.

    A trace stores only ids (deleting a memory must leave no copy of its text), so pages join
    the text here; an id missing from the result is a memory deleted since."""
    return dict(
        Memory.objects.filter(subject_id=trace.subject_id, pk__in=ids).values_list("pk", "content")
    )


def trace_candidate_rows(*, trace: RecallTrace) -> list[dict[str, Any]]:
    """The stored candidates with their signal values in SIGNALS order and the memory's
    current text (`deleted` when it is gone), for the table."""
    candidates = [{**c, "id": int(c["id"])} for c in trace.candidates]
    texts = trace_memory_texts(trace=trace, ids=[c["id"] for c in candidates])
    return [
        {
            **c,
            "content": texts.get(c["id"], ""),
            "deleted": c["id"] not in texts,
            "values": [(c.get("signals") or {}).get(name) for name in SIGNALS],
        }
        for c in candidates
    ]


def trace_selected_rows(*, trace: RecallTrace) -> list[dict[str, Any]]:
    """What the recall returned, in order, with each memory's current text (or `deleted`)."""
    ids = [int(pk) for pk in trace.selected_ids]
    texts = trace_memory_texts(trace=trace, ids=ids)
    return [{"id": pk, "content": texts.get(pk, ""), "deleted": pk not in texts} for pk in ids]


def agents_for_filter(*, tenant_ids: list[int]) -> list[Agent]:
    return list(Agent.objects.filter(tenant_id__in=tenant_ids).select_related("tenant"))


@dataclass
class ReplayRow:
    id: int
    content: str
    category: str
    signals: dict[str, float]
    score: float
    selected: bool
    cut: str
    old_rank: int | None  # 1-based rank among the selected memories, None = not selected
    new_rank: int | None
    deleted: bool = False  # returned then, deleted since: the trace holds no text of it

    @property
    def signal_values(self) -> list[float | None]:
        return [self.signals.get(name) for name in SIGNALS]

    @property
    def change(self) -> str:
        if self.old_rank is None and self.new_rank is not None:
            return "added"
        if self.old_rank is not None and self.new_rank is None:
            return "dropped"
        if self.old_rank is not None and self.new_rank is not None:
            if self.new_rank < self.old_rank:
                return "up"
            if self.new_rank > self.old_rank:
                return "down"
            return "same"
        return ""

    @property
    def moved_by(self) -> int:
        if self.old_rank is None or self.new_rank is None:
            return 0
        return abs(self.old_rank - self.new_rank)


@dataclass
class ReplayDiff:
    rows: list[ReplayRow]
    added: list[ReplayRow]
    dropped: list[ReplayRow]
    moved: list[ReplayRow]
    unchanged: bool


def replay_diff(*, trace: RecallTrace, result: RecallResult) -> ReplayDiff:
    """Compare a replayed recall with the stored trace: newly included, dropped, rank moves.

    Dropped memories may no longer exist: their current text is joined by id, and one that
    was deleted is marked so (the trace keeps no copy of its text).
    """
    old_ranks = {int(pk): rank for rank, pk in enumerate(trace.selected_ids, start=1)}
    new_ranks = {item.memory.pk: rank for rank, item in enumerate(result.selected, start=1)}
    rows = [
        ReplayRow(
            id=item.memory.pk,
            content=item.memory.content,
            category=item.memory.category,
            signals=item.signals,
            score=item.score,
            selected=item.selected,
            cut=item.cut,
            old_rank=old_ranks.get(item.memory.pk),
            new_rank=new_ranks.get(item.memory.pk),
        )
        for item in result.candidates
    ]
    seen = {row.id for row in rows}
    stored = {int(c["id"]): c for c in trace.candidates}
    gone = [pk for pk in old_ranks if pk not in seen]
    texts = trace_memory_texts(trace=trace, ids=gone)
    for pk in gone:  # was returned then, is not even a candidate now
        rows.append(
            ReplayRow(
                id=pk,
                content=texts.get(pk, ""),
                deleted=pk not in texts,
                category=stored.get(pk, {}).get("category", ""),
                signals={},
                score=0.0,
                selected=False,
                cut="gone",
                old_rank=old_ranks[pk],
                new_rank=None,
            )
        )
    added = [row for row in rows if row.change == "added"]
    dropped = [row for row in rows if row.change == "dropped"]
    moved = [row for row in rows if row.change in ("up", "down")]
    return ReplayDiff(
        rows=rows,
        added=added,
        dropped=dropped,
        moved=moved,
        unchanged=not (added or dropped or moved),
    )


# ------------------------------------------------------------------------------ agents


def agent_list(*, tenant_ids: list[int]) -> list[Agent]:
    return list(
        Agent.objects.filter(tenant_id__in=tenant_ids)
        .select_related("tenant")
        .order_by("tenant__slug", "name")
    )


def agent_get_for_staff(*, user: Any, agent_id: int) -> Agent:
    agent = (
        Agent.objects.filter(tenant_id__in=tenant_ids_for(user), pk=agent_id)
        .select_related("tenant", "user")
        .first()
    )
    if agent is None:
        raise Http404("No such agent.")
    return agent


def agent_granted_subjects(*, agent: Agent) -> list[Subject]:
    """Subjects a restricted agent was granted (guardian `memory.access_subject`)."""
    if agent.user_id is None:
        return []
    from guardian.shortcuts import get_objects_for_user

    return list(
        get_objects_for_user(
            agent.user,
            "memory.access_subject",
            klass=Subject.objects.filter(tenant_id=agent.tenant_id),
            accept_global_perms=False,
        ).order_by("external_id")
    )


def subject_in_tenant(*, tenant_id: int, external_id: str) -> Subject | None:
    return Subject.objects.filter(tenant_id=tenant_id, external_id=external_id).first()
