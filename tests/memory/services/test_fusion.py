import pytest
from django.utils import timezone

from audit.services import SYSTEM
from memory.extraction.base import Candidate
from memory.lifecycle import observations_propose_fusions
from memory.models import Memory, Observation, Subject
from memory.services import memory_ingest, observation_resolve

pytest_plugins = ["tests.fake_openai"]


@pytest.fixture
def conflict(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    memory_ingest(
        subject=subject,
        occurred_at=timezone.now() - timezone.timedelta(days=3),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户的网络采购预算是 6 万",
            category="fact",
            slot="budget",
            values=["60000"],
            confidence=0.85,
        ),
    )
    result = memory_ingest(
        subject=subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户的网络采购预算可能加到 10 万",
            category="fact",
            slot="budget",
            values=["100000"],
            confidence=0.5,
        ),
    )
    assert result.observation.kind == "conflict"
    return result.observation


def test_no_llm_no_proposals(conflict, settings):
    settings.OPENAI_API_KEY = ""
    assert observations_propose_fusions(actor=SYSTEM) == 0


def test_fusion_is_a_proposal_in_the_queue_not_an_overwrite(conflict, settings, fake_openai):
    settings.ENGRAM_EXTRACTOR = "llm"
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    fake_openai.queue_chat_json({"content": "用户的网络采购预算目前是 6 万，可能增加到 10 万"})
    assert observations_propose_fusions(actor=SYSTEM) == 1
    observation = Observation.objects.get(pk=conflict.pk)
    assert observation.status == "pending"
    assert "可能增加到 10 万" in observation.candidate["fusion"]["content"]
    assert Memory.objects.get(content="用户的网络采购预算是 6 万").status == "active"
    assert observations_propose_fusions(actor=SYSTEM) == 0  # asked once
    observation_resolve(
        observation=observation,
        decision="edit",
        actor=SYSTEM,
        content=observation.candidate["fusion"]["content"],
    )
    assert Memory.objects.get(content__contains="可能增加到").status == "active"
    assert Memory.objects.get(content="用户的网络采购预算是 6 万").status == "superseded"


def test_a_failing_model_is_skipped(conflict, settings, fake_openai):
    settings.ENGRAM_EXTRACTOR = "llm"
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    fake_openai.queue_chat("not json")
    assert observations_propose_fusions(actor=SYSTEM) == 0
    assert "fusion" not in Observation.objects.get(pk=conflict.pk).candidate
