"""The two reads MCP needs that the REST API does not: mem0's tools address a memory or an
event by id alone, and list the caller's subjects. Both stay inside the agent's tenant and
grants; the memory itself is then loaded by memory.selectors.memory_get_for_agent."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from accounts.models import Agent
from accounts.permissions import agent_granted_subjects, agent_may_access_subject
from core.exceptions import NotFound
from memory.models import Event, Memory, Subject


def memory_subject_external_id(*, agent: Agent, memory_id: int) -> str:
    """The external id of the subject owning memory `memory_id` in the agent's tenant (404
    otherwise: another tenant's memory does not exist for this agent)."""
    external_id = (
        Subject.objects.filter(tenant_id=agent.tenant_id, memories__pk=memory_id)
        .values_list("external_id", flat=True)
        .first()
    )
    if external_id is None:
        raise NotFound("No such memory.")
    return external_id


def subjects_for_agent(*, agent: Agent, limit: int = 200) -> QuerySet:
    """The subjects the agent can see (its tenant; a restricted agent only granted ones),
    with their memory counts, most recently active first."""
    queryset = Subject.objects.filter(tenant_id=agent.tenant_id)
    if agent.restricted_to_granted_subjects:
        queryset = queryset.filter(pk__in=agent_granted_subjects(agent).values("pk"))
    return queryset.annotate(memory_count=Count("memories")).order_by("-last_activity_at", "-pk")[
        :limit
    ]


def events_for_agent(*, agent: Agent, event_ids: list[int]) -> list[Event]:
    """The agent's events among `event_ids`; 404 unless every one is in its tenant and
    granted (a mixed list reveals nothing about the others)."""
    events = list(
        Event.objects.filter(pk__in=event_ids, subject__tenant_id=agent.tenant_id)
        .select_related("subject")
        .defer("content")
        .order_by("pk")
    )
    if len(events) != len(set(event_ids)) or not all(
        agent_may_access_subject(agent, event.subject) for event in events
    ):
        raise NotFound("No such event.")
    return events


def memories_from_events(*, subject: Subject, event_ids: list[int]) -> list[Memory]:
    """The subject's memories extracted from these events (an add's results), oldest first."""
    return list(
        Memory.objects.filter(subject=subject, source_event_id__in=event_ids)
        .select_related("subject")
        .defer("embedding", "search_vector")
        .order_by("pk")
    )
