"""Console reads for subjects and memories, always scoped to the staff member's tenants.

Fetch helpers answer 404 for anything outside those tenants (exactly as if it did not exist);
list selectors filter by tenant themselves. Every list is built from a constant number of
queries, whatever the number of rows (counts come from one aggregated query, not per row).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Max, Min, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.http import Http404
from pgvector.django import CosineDistance

from accounts.models import Agent
from audit.models import AuditEntry
from console.access import tenant_ids_for
from memory.embeddings import get_embedder
from memory.models import Event, Memory, RecallTrace, Subject
from memory.selectors import memory_keyword_condition

# Memory counts shown per subject in the list (one aggregated query).
COUNTED_STATUSES = (
    Memory.Status.ACTIVE,
    Memory.Status.OBSERVED,
    Memory.Status.NEEDS_REVIEW,
    Memory.Status.SUPERSEDED,
    Memory.Status.EXPIRED,
)
EVENTS_PER_SESSION = 20  # the timeline shows the latest turns of each session
RECALL_HITS = 10
AUDIT_ENTRIES = 50

SEARCH_KEYWORD = "keyword"
SEARCH_SEMANTIC = "semantic"


# --------------------------------------------------------------------------- fetch helpers


def subject_get_for_staff(*, user: Any, pk: int) -> Subject:
    """The subject, or 404 when it does not exist or belongs to a tenant the user cannot see."""
    subject = (
        Subject.objects.filter(pk=pk, tenant_id__in=tenant_ids_for(user))
        .select_related("tenant")
        .first()
    )
    if subject is None:
        raise Http404("No such subject.")
    return subject


def memory_get_for_staff(*, user: Any, pk: int) -> Memory:
    """The memory (with subject and source event), or 404 outside the user's tenants."""
    memory = (
        Memory.objects.filter(pk=pk, tenant_id__in=tenant_ids_for(user))
        .select_related("subject__tenant", "source_event")
        .defer("embedding", "search_vector")
        .first()
    )
    if memory is None:
        raise Http404("No such memory.")
    return memory


def event_get_for_staff(*, user: Any, pk: int) -> Event:
    event = (
        Event.objects.filter(pk=pk, subject__tenant_id__in=tenant_ids_for(user))
        .select_related("subject")
        .first()
    )
    if event is None:
        raise Http404("No such event.")
    return event


# --------------------------------------------------------------------------- subjects


def subject_list(
    *, tenant_ids: list[int], q: str = "", tenant_id: int | None = None
) -> QuerySet[Subject]:
    """Subjects with memory counts by status, most recently active first.

    `q` matches the external id or the display name (case-insensitive substring).
    """
    queryset = Subject.objects.filter(tenant_id__in=tenant_ids)
    if tenant_id is not None:
        queryset = queryset.filter(tenant_id=tenant_id)
    if q:
        queryset = queryset.filter(Q(external_id__icontains=q) | Q(display_name__icontains=q))
    counts = {
        f"n_{status}": Count("memories", filter=Q(memories__status=status))
        for status in COUNTED_STATUSES
    }
    return (
        queryset.select_related("tenant")
        .annotate(n_memories=Count("memories"), **counts)
        .order_by(F("last_activity_at").desc(nulls_last=True), "external_id", "pk")
    )


# --------------------------------------------------------------------------- memories


def subject_memories(
    *,
    subject: Subject,
    status: str = "",
    category: str = "",
    kind: str = "",
    min_confidence: float | None = None,
    max_confidence: float | None = None,
    q: str = "",
    mode: str = SEARCH_KEYWORD,
) -> QuerySet[Memory]:
    """A subject's memories, filtered; newest first, or nearest first for a semantic search.

    A semantic search embeds `q` (one embedder call) and orders by cosine distance over the
    subject's rows (exact search, like recall); memories without an embedding drop out.
    """
    queryset = Memory.objects.filter(subject=subject).defer("embedding", "search_vector")
    if status:
        queryset = queryset.filter(status=status)
    if category:
        queryset = queryset.filter(category=category)
    if kind:
        queryset = queryset.filter(kind=kind)
    if min_confidence is not None:
        queryset = queryset.filter(confidence__gte=min_confidence)
    if max_confidence is not None:
        queryset = queryset.filter(confidence__lte=max_confidence)
    if q and mode == SEARCH_SEMANTIC:
        vector = get_embedder().embed_one(q)
        return (
            queryset.filter(embedding__isnull=False)
            .annotate(distance=CosineDistance("embedding", vector))
            .order_by("distance", "-pk")
        )
    if q:
        queryset = queryset.filter(memory_keyword_condition(q))
    return queryset.order_by("-created_at", "-pk")


# --------------------------------------------------------------------------- events


@dataclass
class Session:
    session_id: str
    started_at: Any
    last_at: Any
    event_count: int
    events: list[Event] = field(default_factory=list)

    @property
    def hidden_count(self) -> int:
        return max(self.event_count - len(self.events), 0)


def subject_sessions(*, subject: Subject) -> QuerySet:
    """The subject's sessions (id, first and last event time, size), newest session first."""
    return (
        Event.objects.filter(subject=subject)
        .values("session_id")
        .annotate(started_at=Min("occurred_at"), last_at=Max("occurred_at"), n=Count("id"))
        .order_by("-last_at", "session_id")
    )


def sessions_with_events(
    *, subject: Subject, sessions: list[dict[str, Any]], per_session: int = EVENTS_PER_SESSION
) -> list[Session]:
    """The latest `per_session` events of each given session, in one query (window function)."""
    ids = [row["session_id"] for row in sessions]
    events = (
        Event.objects.filter(subject=subject, session_id__in=ids)
        .annotate(
            rank=Window(
                RowNumber(),
                partition_by=[F("session_id")],
                order_by=[F("occurred_at").desc(), F("id").desc()],
            )
        )
        .filter(rank__lte=per_session)
        .only("pk", "subject_id", "session_id", "role", "type", "content", "occurred_at")
        .order_by("occurred_at", "id")
    )
    by_session: dict[str, list[Event]] = {session_id: [] for session_id in ids}
    for event in events:
        by_session[event.session_id].append(event)
    return [
        Session(
            session_id=row["session_id"],
            started_at=row["started_at"],
            last_at=row["last_at"],
            event_count=row["n"],
            events=by_session[row["session_id"]],
        )
        for row in sessions
    ]


# --------------------------------------------------------------------------- memory detail


@dataclass
class MemoryDetail:
    memory: Memory
    history: list[Memory]
    recall_hits: list[RecallTrace]
    audit_entries: list[AuditEntry]
    actor_names: dict[tuple[str, str], str]


def memory_detail(*, memory: Memory) -> MemoryDetail:
    """Everything the detail panel shows, in a fixed number of queries.

    1. the version chain (`lineage`), oldest first;
    2. the latest recalls that selected this memory;
    3. audit entries about any version of the chain, newest first, with actor names.
    """
    from memory.selectors import memory_history

    history = memory_history(memory=memory)
    recall_hits = list(
        RecallTrace.objects.filter(subject_id=memory.subject_id, selected_ids__contains=[memory.pk])
        .select_related("agent")
        .only(
            "pk",
            "trace_id",
            "query",
            "route",
            "created_at",
            "total_ms",
            "agent__name",
            "subject_id",
            "tenant_id",
        )
        .order_by("-created_at", "-pk")[:RECALL_HITS]
    )
    version_ids = [str(version.pk) for version in history] or [str(memory.pk)]
    audit_entries = list(
        AuditEntry.objects.filter(target_type="memory.memory", target_id__in=version_ids)
        .select_related("text")
        .order_by("-id")[:AUDIT_ENTRIES]
    )
    return MemoryDetail(
        memory=memory,
        history=history,
        recall_hits=recall_hits,
        audit_entries=audit_entries,
        actor_names=actor_names(audit_entries),
    )


def actor_names(entries: list[AuditEntry]) -> dict[tuple[str, str], str]:
    """(actor_type, actor_id) → a readable name, for users and agents (two queries at most)."""
    user_ids = {e.actor_id for e in entries if e.actor_type == AuditEntry.ActorType.USER}
    agent_ids = {e.actor_id for e in entries if e.actor_type == AuditEntry.ActorType.AGENT}
    names: dict[tuple[str, str], str] = {}
    digits = [pk for pk in user_ids if pk.isdigit()]
    if digits:
        User = get_user_model()
        for pk, username in User.objects.filter(pk__in=digits).values_list(
            "pk", User.USERNAME_FIELD
        ):
            names[(AuditEntry.ActorType.USER, str(pk))] = username
    digits = [pk for pk in agent_ids if pk.isdigit()]
    if digits:
        for pk, name in Agent.objects.filter(pk__in=digits).values_list("pk", "name"):
            names[(AuditEntry.ActorType.AGENT, str(pk))] = f"agent {name}"
    return names
