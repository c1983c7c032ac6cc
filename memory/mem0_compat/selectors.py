"""Reads for the mem0 door. Every query starts from the agent's own scope: its tenant, and for
a restricted agent only the subjects it was granted — exactly as `memory.selectors` does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from accounts.models import Agent
from accounts.permissions import agent_granted_subjects
from core.exceptions import NotFound
from memory import selectors
from memory.models import Memory, Subject

# What mem0 calls "the memories": the current statements, not old versions or purged ones.
CURRENT_STATUSES = (
    Memory.Status.ACTIVE,
    Memory.Status.OBSERVED,
    Memory.Status.NEEDS_REVIEW,
)
# Following superseded_by from an id a client kept; a chain is short, this only bounds a loop.
MAX_VERSION_HOPS = 100


def _visible_subjects(agent: Agent) -> QuerySet[Subject]:
    subjects = Subject.objects.filter(tenant_id=agent.tenant_id)
    if agent.restricted_to_granted_subjects:
        subjects = subjects.filter(pk__in=agent_granted_subjects(agent).values("pk"))
    return subjects


def memories_for_agent(
    *, agent: Agent, condition: Q, user_id: str | None, any_status: bool = False
) -> QuerySet[Memory]:
    """The agent's current memories matching a parsed mem0 filter, newest first.

    A filter pinned to one `user_id` goes through `subject_for_agent` (id validation, 404 for
    an ungranted subject); a filter status overrides the default of current versions only."""
    queryset = Memory.objects.filter(tenant_id=agent.tenant_id)
    if user_id is not None:
        subject = selectors.subject_for_agent(agent=agent, external_id=user_id)
        if subject is None:
            return Memory.objects.none()
        queryset = queryset.filter(subject=subject)
    elif agent.restricted_to_granted_subjects:
        queryset = queryset.filter(subject__in=_visible_subjects(agent))
    if not any_status:
        queryset = queryset.filter(status__in=CURRENT_STATUSES)
    return (
        queryset.filter(condition)
        .select_related("subject", "source_event")
        .defer("embedding", "search_vector", "search_text", "source_event__content")
        .order_by("-created_at", "-pk")
    )


def memory_current_for_agent(*, agent: Agent, memory_id: str) -> Memory:
    """The current version of the memory a mem0 id names (404 for anything not visible).

    mem0 ids stay valid across corrections: an id of an older version leads, through
    `superseded_by`, to the version in force, as a mem0 client expects of an updated id."""
    if not memory_id.isdigit() or len(memory_id) > 18:
        raise NotFound("No such memory.")
    pk = int(memory_id)
    for _ in range(MAX_VERSION_HOPS):
        external_id = (
            Memory.objects.filter(pk=pk, tenant_id=agent.tenant_id)
            .values_list("subject__external_id", flat=True)
            .first()
        )
        if external_id is None:
            raise NotFound("No such memory.")
        memory = selectors.memory_get_for_agent(agent=agent, external_id=external_id, memory_id=pk)
        if memory.superseded_by_id is None:
            return memory
        pk = memory.superseded_by_id
    raise NotFound("No such memory.")


def memory_with_source(memory: Memory) -> Memory:
    """The memory with its source event's session and metadata (for the mem0 shape)."""
    return (
        Memory.objects.filter(pk=memory.pk)
        .select_related("subject", "source_event")
        .defer("embedding", "search_vector", "search_text", "source_event__content")
        .get()
    )


def recalled_memories(*, subject: Subject, ids: list[int], condition: Q) -> dict[int, Memory]:
    """Recalled memories (of a subject already checked for the agent) that also match the
    rest of a mem0 filter, with their source events: one query."""
    rows = (
        Memory.objects.filter(subject=subject, pk__in=ids)
        .filter(condition)
        .select_related("subject", "source_event")
        .defer("embedding", "search_vector", "search_text", "source_event__content")
    )
    return {memory.pk: memory for memory in rows}


@dataclass
class Entity:
    name: str
    total_memories: int
    created_at: Any
    updated_at: Any


def entities_for_agent(*, agent: Agent) -> list[Entity]:
    """The subjects (mem0 "users") the agent may see, with their current memory counts."""
    rows = (
        _visible_subjects(agent)
        .annotate(
            total=Count("memories", filter=Q(memories__status__in=CURRENT_STATUSES)),
            last=Max("memories__updated_at"),
        )
        .order_by("external_id")
        .values_list("external_id", "total", "created_at", "last", "updated_at")
    )
    return [
        Entity(name=name, total_memories=total, created_at=created, updated_at=last or updated)
        for name, total, created, last, updated in rows
    ]


def subject_for_entity(*, agent: Agent, user_id: str) -> Subject:
    subject = selectors.subject_for_agent(agent=agent, external_id=user_id)
    if subject is None:
        raise NotFound("No such user.")
    return subject
