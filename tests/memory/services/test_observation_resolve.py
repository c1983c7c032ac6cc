import pytest
from django.utils import timezone

from audit.services import SYSTEM
from core.exceptions import ApplicationError
from memory.extraction.base import Candidate
from memory.models import Memory, Observation, Subject
from memory.services import memory_ingest, observation_resolve


@pytest.fixture
def conflict(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    earlier = timezone.now() - timezone.timedelta(days=2)
    old = memory_ingest(
        subject=subject,
        occurred_at=earlier,
        actor=SYSTEM,
        candidate=Candidate(
            content="用户出差默认住亚朵",
            category="preference",
            slot="hotel",
            values=["亚朵"],
            confidence=0.8,
        ),
    ).memory
    result = memory_ingest(
        subject=subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户出差也许改住丽思卡尔顿",
            category="preference",
            slot="hotel",
            values=["丽思卡尔顿"],
            confidence=0.85,
        ),
    )
    assert result.action == "observed"
    assert result.observation.kind == "conflict"
    return old, result.memory, result.observation


def test_accepting_a_conflict_supersedes_the_old_version(conflict):
    old, candidate, observation = conflict
    observation_resolve(observation=observation, decision="accept", actor=SYSTEM, note="ok")
    old.refresh_from_db()
    candidate.refresh_from_db()
    assert candidate.status == "active" and candidate.version == old.version + 1
    assert candidate.supersedes_id == old.pk and candidate.lineage == old.lineage
    assert old.status == "superseded" and old.superseded_by_id == candidate.pk
    assert Observation.objects.get(pk=observation.pk).status == "accepted"


def test_rejecting_keeps_the_old_memory_and_archives_the_candidate(conflict):
    old, candidate, observation = conflict
    observation_resolve(observation=observation, decision="reject", actor=SYSTEM)
    old.refresh_from_db()
    candidate.refresh_from_db()
    assert old.status == "active" and candidate.status == "archived"


def test_merge_folds_the_candidate_into_the_related_memory(conflict):
    old, candidate, observation = conflict
    observation_resolve(observation=observation, decision="merge", actor=SYSTEM)
    old.refresh_from_db()
    assert old.merge_count == 1 and not Memory.objects.filter(pk=candidate.pk).exists()
    assert Observation.objects.get(pk=observation.pk).status == "merged"


def test_edit_then_accept_changes_the_content_and_redacts(conflict):
    _, candidate, observation = conflict
    observation_resolve(
        observation=observation,
        decision="edit",
        actor=SYSTEM,
        content="用户出差改住全季，电话 13812345678",
    )
    candidate.refresh_from_db()
    assert candidate.status == "active" and "[PHONE]" in candidate.content


def test_an_observation_is_resolved_once(conflict):
    _, _, observation = conflict
    observation_resolve(observation=observation, decision="reject", actor=SYSTEM)
    with pytest.raises(ApplicationError, match="already resolved"):
        observation_resolve(observation=observation, decision="accept", actor=SYSTEM)
