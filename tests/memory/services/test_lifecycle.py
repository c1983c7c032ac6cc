import datetime as dt

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import SYSTEM
from memory.lifecycle import (
    RULE_ARCHIVE_LOW,
    RULE_ARCHIVE_MID,
    RULE_EXPIRE_PLAN,
    RULE_PURGE,
    memories_consolidate,
    memories_decay,
    memories_purge,
)
from memory.models import Memory, Observation, Subject
from tests.factories import make_memory

START = dt.datetime(2026, 1, 1, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def subject(cast):
    return Subject.objects.create(tenant=cast.tenant_a, external_id="u1")


def at(days):
    return time_machine.travel(START + dt.timedelta(days=days), tick=False)


def status_of(memory):
    return Memory.objects.get(pk=memory.pk).status


def test_each_decay_rule(subject):
    with at(0):
        low = make_memory(
            subject, "The user once mentioned liking kites", importance=0.25, category="fact"
        )
        mid = make_memory(
            subject, "The user has a cousin who likes jazz", importance=0.45, category="fact"
        )
        shaky = make_memory(
            subject, "The user may own a bicycle", importance=0.9, confidence=0.6, category="fact"
        )
        plan = make_memory(
            subject,
            "The user plans a trip to Lisbon",
            category="plan",
            importance=0.9,
            valid_to=START + dt.timedelta(days=10),
        )
        fresh = make_memory(subject, "The user prefers tea", importance=0.9, category="preference")
    with at(31):
        report = memories_decay(actor=SYSTEM)
    assert {c.memory_id: c.rule for c in report.changes} == {
        low.pk: RULE_ARCHIVE_LOW,
        plan.pk: RULE_EXPIRE_PLAN,
    }
    with at(91):
        memories_decay(actor=SYSTEM)
    assert status_of(mid) == "archived"
    with at(181):
        memories_decay(actor=SYSTEM)
    assert status_of(shaky) == "purge_pending"
    assert status_of(fresh) == "active"  # important, confident, slow-decaying preference
    # The purge happens only after the grace period.
    with at(200):
        assert memories_purge(actor=SYSTEM) == 0
    with at(212):
        assert memories_purge(actor=SYSTEM) == 1
    assert not Memory.objects.filter(pk=shaky.pk).exists()
    assert AuditEntry.objects.filter(action="memory.purge", target_id=str(shaky.pk)).exists()


def test_recall_hits_keep_memories_alive(subject):
    with at(0):
        memory = make_memory(subject, "The user collects stamps", importance=0.25)
    with at(25):
        Memory.objects.filter(pk=memory.pk).update(last_accessed_at=timezone.now())
    with at(40):
        memories_decay(actor=SYSTEM)
    assert status_of(memory) == "active"


def test_pinned_and_safety_facts_never_decay(subject):
    with at(0):
        pinned = make_memory(
            subject, "The user likes kites", importance=0.1, pinned=True, confidence=0.5
        )
        allergy = make_memory(
            subject, "用户对花生过敏", importance=0.2, confidence=0.5, category="profile"
        )
        name = make_memory(
            subject, "The user's name is Ada", importance=0.1, confidence=0.5, category="profile"
        )
    with at(400):
        report = memories_decay(actor=SYSTEM)
    assert report.changes == []
    assert {status_of(m) for m in (pinned, allergy, name)} == {"active"}


def test_decay_is_idempotent_and_dry_run_changes_nothing(subject, capsys):
    with at(0):
        memory = make_memory(subject, "The user once mentioned kites", importance=0.2)
    with at(40):
        call_command("memory_decay", "--dry-run")
        out = capsys.readouterr().out
        assert f"{RULE_ARCHIVE_LOW:<28} would change 1" in out
        assert status_of(memory) == "active"
        first = memories_decay(actor=SYSTEM)
        second = memories_decay(actor=SYSTEM)
    assert len(first.changes) == 1 and second.changes == []
    assert RULE_ARCHIVE_MID and RULE_PURGE  # every rule is exported for the command


def test_consolidation_merges_near_duplicates(subject):
    first = make_memory(
        subject, "The user prefers window seats", category="preference", entities=["座位"]
    )
    second = make_memory(
        subject, "The user prefers window seats", category="preference", entities=["座位"]
    )
    other = make_memory(subject, "The user lives in Berlin", category="profile")
    assert memories_consolidate(actor=SYSTEM) == 1
    assert Memory.objects.filter(pk=first.pk).get().merge_count == 1
    assert not Memory.objects.filter(pk=second.pk).exists()
    assert Memory.objects.filter(pk=other.pk).exists()
    assert memories_consolidate(actor=SYSTEM) == 0


def test_knowledge_update_flags_linked_memories(cast, subject):
    c = cast.alice_client
    body = c.post(
        "/api/v1/subjects/u1/memories",
        {
            "content": "The refund window is 30 days per the policy doc",
            "category": "fact",
            "linked_doc_id": "policy-7",
            "confidence": 0.9,
        },
        format="json",
    ).json()
    make_memory(subject, "Unrelated", linked_doc_id="other-doc")
    response = c.post("/api/v1/knowledge/policy-7/updated")
    assert response.status_code == 200 and response.json() == {"flagged": 1}
    memory = Memory.objects.get(pk=body["memory"]["id"])
    assert memory.status == "needs_review"
    assert Observation.objects.filter(memory=memory, kind="needs_review").exists()
    recall = c.post(
        "/api/v1/subjects/u1/recall", {"query": "What is the refund window?"}, format="json"
    ).json()
    assert "re-check the current document" in recall["context"]
    # another tenant's agent flags nothing here
    assert cast.charlie_client.post("/api/v1/knowledge/policy-7/updated").json() == {"flagged": 0}


def test_profile_shows_current_values_with_history_and_as_of(cast):
    c = cast.alice_client
    first = c.post(
        "/api/v1/subjects/u1/memories",
        {
            "content": "用户出差默认订汉庭酒店",
            "category": "preference",
            "confidence": 0.7,
            "occurred_at": "2026-01-01T10:00:00Z",
        },
        format="json",
    ).json()["memory"]
    c.patch(
        f"/api/v1/subjects/u1/memories/{first['id']}",
        {"content": "用户出差默认订全季酒店"},
        format="json",
    )
    profile = c.get("/api/v1/subjects/u1/profile").json()
    slot = next(s for s in profile["slots"] if "全季" in s["current"]["content"])
    assert [h["content"] for h in slot["history"]] == ["用户出差默认订汉庭酒店"]
    past = c.get("/api/v1/subjects/u1/profile", {"as_of": "2026-01-02T00:00:00Z"}).json()
    assert any("汉庭" in s["current"]["content"] for s in past["slots"])
    assert cast.bob_client.get("/api/v1/subjects/u1/profile").status_code == 404
    assert c.get("/api/v1/subjects/nobody/profile").json()["slots"] == []


def test_recall_as_of_answers_from_what_was_valid_then(cast):
    c = cast.alice_client
    first = c.post(
        "/api/v1/subjects/u1/memories",
        {
            "content": "The user's weekly meeting is on Monday",
            "category": "fact",
            "confidence": 0.9,
            "occurred_at": "2026-01-01T10:00:00Z",
        },
        format="json",
    ).json()["memory"]
    c.patch(
        f"/api/v1/subjects/u1/memories/{first['id']}",
        {"content": "The user's weekly meeting is on Wednesday"},
        format="json",
    )
    now = c.post(
        "/api/v1/subjects/u1/recall", {"query": "When is the weekly meeting?"}, format="json"
    ).json()
    then = c.post(
        "/api/v1/subjects/u1/recall",
        {"query": "When is the weekly meeting?", "as_of": "2026-01-02T00:00:00Z"},
        format="json",
    ).json()
    assert "Wednesday" in now["context"] and "Monday" not in now["context"]
    assert "Monday" in then["context"] and "Wednesday" not in then["context"]


def test_episodic_memories_and_per_memory_rates_use_their_own_half_life(subject):
    from memory.lifecycle import effective_importance

    with at(0):
        fact = make_memory(subject, "The user likes kites", importance=0.8, category="fact")
        episode = make_memory(
            subject,
            "The user ran a marathon on 2026-01-01",
            importance=0.8,
            category="fact",
            kind="episodic",
        )
        fast = make_memory(
            subject,
            "The user is in Lisbon this week",
            importance=0.8,
            category="fact",
            decay_rate=0.1,
        )
    now = START + dt.timedelta(days=180)
    assert round(effective_importance(fact, now), 2) == 0.4  # fact half-life 180 days
    assert effective_importance(episode, now) > 0.5  # episodic half-life 365 days
    assert effective_importance(fast, now) < 0.01  # 0.1 per day: half-life ~7 days
