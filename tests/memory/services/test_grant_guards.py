"""The grant check lives in the services that change things: whichever door calls them, an
agent actor changes nothing of a subject it may not see (another tenant's, or one not granted to
a restricted agent) and gets NotFound; staff and system actors are checked by their doors."""

import pytest
from django.test import RequestFactory
from django.utils import timezone

from accounts.services import agent_create
from audit.services import SYSTEM, actor_for_agent
from core.exceptions import ApplicationError, NotFound
from memory import services
from memory.extraction.base import Candidate
from memory.lifecycle import memories_flag_for_document
from memory.models import Event, Memory, Observation, RecallTrace, Subject
from privacy.portal import portal_link_for
from privacy.services import subject_erase
from tests.factories import make_memory

SECRET = "The user keeps a spare key under the blue flowerpot"


@pytest.fixture
def dave(cast):
    """A restricted agent that may write, granted only `granted-1`."""
    made = agent_create(
        tenant=cast.tenant_a,
        name="dave",
        scopes=["read", "write", "erase"],
        actor=SYSTEM,
        restricted_to_granted_subjects=True,
    )
    services.agent_subject_grant(agent=made.agent, subject=cast.granted_subject, actor=SYSTEM)
    return actor_for_agent(made.agent)


@pytest.fixture
def victim(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="victim")
    memory = make_memory(subject, SECRET, linked_doc_id="doc-1")
    Observation.objects.create(
        tenant=cast.tenant_a, subject=subject, kind=Observation.Kind.NEEDS_REVIEW, memory=memory
    )
    return subject


def state(subject):
    return {
        "subject": Subject.objects.filter(pk=subject.pk).values_list("paused").first(),
        "memories": sorted(
            Memory.objects.filter(subject=subject).values_list(
                "pk", "content", "status", "version", "pinned", "hit_count"
            )
        ),
        "events": Event.objects.filter(subject=subject).count(),
        "observations": sorted(
            Observation.objects.filter(subject=subject).values_list("pk", "status")
        ),
        "traces": RecallTrace.objects.filter(subject=subject).count(),
    }


def _memory(subject):
    return Memory.objects.select_related("subject").get(subject=subject)


WRITE_SERVICES = {
    "subject_get_or_create": lambda s, actor: services.subject_get_or_create(
        tenant=s.tenant, external_id=s.external_id, actor=actor
    ),
    "subject_set_paused": lambda s, actor: services.subject_set_paused(
        subject=s, paused=True, actor=actor
    ),
    "events_append": lambda s, actor: services.events_append(
        tenant=s.tenant,
        external_id=s.external_id,
        session_id="s1",
        events=[services.EventInput(role="user", content="hello")],
        extract="none",
        actor=actor,
    ),
    "memory_ingest": lambda s, actor: services.memory_ingest(
        subject=s,
        candidate=Candidate(content="The user likes chess", category="preference"),
        occurred_at=timezone.now(),
        actor=actor,
    ),
    "memory_correct": lambda s, actor: services.memory_correct(
        memory=_memory(s), content="The spare key is gone", actor=actor
    ),
    "memory_delete": lambda s, actor: services.memory_delete(memory=_memory(s), actor=actor),
    "memory_set_pinned": lambda s, actor: services.memory_set_pinned(
        memory=_memory(s), pinned=True, actor=actor, reason=""
    ),
    "memory_expire": lambda s, actor: services.memory_expire(
        memory=_memory(s), actor=actor, reason=""
    ),
    "observation_resolve": lambda s, actor: services.observation_resolve(
        observation=Observation.objects.get(subject=s), decision="reject", actor=actor
    ),
    "subject_erase": lambda s, actor: subject_erase(subject=s, actor=actor),
    "portal_link_for": lambda s, actor: portal_link_for(
        subject=s, request=RequestFactory().get("/"), actor=actor
    ),
}


@pytest.mark.parametrize("name", sorted(WRITE_SERVICES))
def test_a_restricted_agent_changes_nothing_of_an_ungranted_subject(dave, victim, name):
    before = state(victim)
    with pytest.raises(NotFound):
        WRITE_SERVICES[name](victim, dave)
    assert state(victim) == before


@pytest.mark.parametrize("name", sorted(WRITE_SERVICES))
def test_another_tenants_agent_changes_nothing(cast, victim, name):
    before = state(victim)
    with pytest.raises(NotFound):
        WRITE_SERVICES[name](victim, actor_for_agent(cast.charlie))
    assert state(victim) == before


@pytest.mark.parametrize("name", sorted(WRITE_SERVICES))
def test_the_granted_subject_stays_writable(cast, dave, name):
    subject = cast.granted_subject
    make_memory(subject, SECRET, linked_doc_id="doc-1")
    Observation.objects.create(
        tenant=cast.tenant_a, subject=subject, kind=Observation.Kind.NEEDS_REVIEW
    )
    WRITE_SERVICES[name](subject, dave)


def test_a_restricted_agent_never_creates_a_subject(cast, dave):
    with pytest.raises(NotFound):
        services.subject_get_or_create(tenant=cast.tenant_a, external_id="brand-new", actor=dave)
    assert not Subject.objects.filter(external_id="brand-new").exists()


def test_document_flagging_skips_ungranted_subjects(cast, dave, victim):
    granted = make_memory(
        cast.granted_subject, "The refund window is 30 days", linked_doc_id="doc-1"
    )
    before = state(victim)
    assert memories_flag_for_document(tenant_id=cast.tenant_a.pk, doc_id="doc-1", actor=dave) == 1
    assert state(victim) == before
    assert Memory.objects.get(pk=granted.pk).status == "needs_review"
    other_tenant = actor_for_agent(cast.charlie)
    assert (
        memories_flag_for_document(tenant_id=cast.tenant_a.pk, doc_id="doc-1", actor=other_tenant)
        == 0
    )


def test_a_recall_trace_of_an_ungranted_subject_is_not_recorded(dave, victim):
    memory = _memory(victim)
    trace = {
        "trace_id": "t-1",
        "subject_id": victim.pk,
        "selected_ids": [memory.pk],
        "query": "key",
        "route": "semantic",
        "parameters": {},
        "candidates": [],
        "context": "",
        "token_count": 0,
        "timings_ms": {},
        "total_ms": 1,
    }
    before = state(victim)
    assert services.recall_record(trace=trace, actor=dave) is None
    assert state(victim) == before


def test_a_grant_is_only_of_the_agents_own_tenant(cast):
    foreign = Subject.objects.create(tenant=cast.tenant_b, external_id="theirs")
    with pytest.raises(ApplicationError):
        services.agent_subject_grant(agent=cast.bob, subject=foreign, actor=SYSTEM)
