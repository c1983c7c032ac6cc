"""A restricted agent that may write (dave: read, write, erase; granted only "granted-1") changes
nothing of a subject it was not granted, through any write endpoint: 404, data unchanged."""

import pytest

from accounts.services import agent_create
from audit.services import SYSTEM
from memory.models import Event, Memory, Observation, Subject
from memory.services import agent_subject_grant
from tests.conftest import error_code

SECRET = "The user keeps a spare key under the blue flowerpot"
BASE = "/api/v1/subjects/victim"


@pytest.fixture
def dave(cast):
    made = agent_create(
        tenant=cast.tenant_a,
        name="dave",
        scopes=["read", "write", "erase"],
        actor=SYSTEM,
        restricted_to_granted_subjects=True,
    )
    agent_subject_grant(agent=made.agent, subject=cast.granted_subject, actor=SYSTEM)
    return cast.client(made.key)


@pytest.fixture
def victim_memory(cast):
    c = cast.alice_client
    body = c.post(
        f"{BASE}/memories",
        {"content": SECRET, "category": "fact", "linked_doc_id": "doc-1"},
        format="json",
    ).json()
    c.post(
        f"{BASE}/events",
        {"session_id": "s1", "extract": "none", "events": [{"role": "user", "content": SECRET}]},
        format="json",
    )
    return Memory.objects.get(pk=body["memory"]["id"])


def snapshot(subject_external_id="victim"):
    subject = Subject.objects.get(external_id=subject_external_id)
    memories = sorted(
        Memory.objects.filter(subject=subject).values_list(
            "pk", "content", "status", "version", "hit_count", "change_reason", "pinned"
        )
    )
    return {
        "memories": memories,
        "events": Event.objects.filter(subject=subject).count(),
        "observations": Observation.objects.filter(subject=subject).count(),
        "paused": subject.paused,
    }


WRITES = [
    ("post", "/events", {"session_id": "s", "events": [{"role": "user", "content": "hi"}]}),
    ("post", "/memories", {"content": "The user likes chess", "category": "preference"}),
    ("patch", "/memories/{id}", {"content": "The spare key is gone"}),
    ("delete", "/memories/{id}", None),
    ("post", "/recall", {"query": "spare key"}),  # bumps hit counts
    ("post", "/portal-link", None),
    ("delete", "", None),  # erasure
]


@pytest.mark.parametrize(("method", "tail", "body"), WRITES, ids=[f"{m} {t}" for m, t, _ in WRITES])
def test_it_answers_404_and_changes_nothing_of_an_ungranted_subject(
    cast, dave, victim_memory, method, tail, body
):
    before = snapshot()
    url = BASE + tail.format(id=victim_memory.pk)
    response = getattr(dave, method)(url, body, format="json")
    assert response.status_code == 404, response.content
    assert error_code(response) == "not_found"
    assert SECRET not in response.content.decode()
    assert snapshot() == before


def test_it_cannot_create_a_subject_by_writing_to_it(dave):
    body = {"session_id": "s", "events": [{"role": "user", "content": "hi"}]}
    response = dave.post("/api/v1/subjects/brand-new/events", body, format="json")
    assert response.status_code == 404
    assert not Subject.objects.filter(external_id="brand-new").exists()


def test_knowledge_update_flags_only_the_granted_subjects_memories(cast, dave, victim_memory):
    granted = cast.alice_client.post(
        "/api/v1/subjects/granted-1/memories",
        {"content": "The refund window is 30 days", "category": "fact", "linked_doc_id": "doc-1"},
        format="json",
    ).json()["memory"]
    before = snapshot()

    response = dave.post("/api/v1/knowledge/doc-1/updated")

    assert response.status_code == 200 and response.json() == {"flagged": 1}
    assert snapshot() == before
    assert Memory.objects.get(pk=victim_memory.pk).status == "active"
    assert Memory.objects.get(pk=granted["id"]).status == "needs_review"


def test_the_granted_subject_is_still_writable(cast, dave):
    response = dave.post(
        "/api/v1/subjects/granted-1/memories",
        {"content": "The user likes chess", "category": "preference"},
        format="json",
    )
    assert response.status_code == 201, response.content
    memory_id = response.json()["memory"]["id"]
    patched = dave.patch(
        f"/api/v1/subjects/granted-1/memories/{memory_id}",
        {"content": "The user loves chess"},
        format="json",
    )
    assert patched.status_code == 200, patched.content
