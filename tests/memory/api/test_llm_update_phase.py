"""The LLM decides against what is known (mem0's update phase): it is shown the subject's related
active memories and answers add / update(memory id) / duplicate per candidate; the write
decision service applies that, still protecting against hedged and older statements."""

import json

import pytest

from memory.models import Event, Memory
from tests.memory.api.test_llm_pipeline import llm_settings  # noqa: F401 - shared fixture

pytest_plugins = ["tests.fake_openai"]

EVENTS = "/api/v1/subjects/{}/events"


@pytest.fixture
def llm(llm_settings):  # noqa: F811 - the shared fixture under a short name
    return llm_settings


def say(client, text, day):
    return client.post(
        EVENTS.format("u1"),
        {
            "session_id": f"s{day}",
            "extract": "sync",
            "events": [
                {"role": "user", "content": text, "occurred_at": f"2026-04-{day:02d}T08:00:00Z"}
            ],
        },
        format="json",
    )


def candidate(content, decision="add", memory_id=None, confidence=0.9, slot="", values=()):
    return {
        "content": content,
        "category": "fact",
        "kind": "semantic",
        "importance": 0.6,
        "confidence": confidence,
        "slot": slot,
        "values": list(values),
        "source_index": 0,
        "source_quote": content,
        "decision": decision,
        "memory_id": memory_id,
    }


def known_sent(fake):
    """The `known` memories of the last chat request, as the model saw them."""
    body = fake.requests_to("chat")[-1].json
    payload = json.loads(body["messages"][1]["content"].split("\n", 1)[1])
    return payload["known"]


@pytest.fixture
def commute(cast, llm):
    llm.queue_chat_json({"candidates": [candidate("The user bikes to work every day.")]})
    assert say(cast.alice_client, "I bike to work every day", 1).status_code == 201
    return Memory.objects.get(subject__external_id="u1")


def test_the_model_sees_the_related_known_memories(cast, llm, commute):
    llm.queue_chat_json({"candidates": []})
    say(cast.alice_client, "my knee is bad now", 2)
    assert known_sent(llm) == [{"id": commute.pk, "content": "The user bikes to work every day."}]


def test_update_supersedes_the_named_memory(cast, llm, commute):
    new = candidate("The user takes the light rail to work now.", "update", commute.pk)
    llm.queue_chat_json({"candidates": [new]})
    say(cast.alice_client, "gave that up, light rail now", 2)
    commute.refresh_from_db()
    assert commute.status == "superseded"
    current = Memory.objects.get(subject__external_id="u1", status="active")
    assert current.content == "The user takes the light rail to work now."
    assert current.supersedes_id == commute.pk and current.version == 2


def test_a_hedged_update_is_only_observed(cast, llm, commute):
    maybe = candidate("The user might take the light rail.", "update", commute.pk, confidence=0.4)
    llm.queue_chat_json({"candidates": [maybe]})
    say(cast.alice_client, "might take the light rail, not sure", 2)
    commute.refresh_from_db()
    assert commute.status == "active"
    assert (
        Memory.objects.get(subject__external_id="u1", status="observed").content == maybe["content"]
    )


def test_duplicate_merges_into_the_named_memory(cast, llm, commute):
    again = candidate("The user cycles to the office daily.", "duplicate", commute.pk)
    llm.queue_chat_json({"candidates": [again]})
    say(cast.alice_client, "yeah I cycle to the office daily", 2)
    assert Memory.objects.filter(subject__external_id="u1").count() == 1
    commute.refresh_from_db()
    assert commute.status == "active" and commute.merge_count == 1


def test_add_creates_alongside(cast, llm, commute):
    llm.queue_chat_json({"candidates": [candidate("The user's cat is called Mochi.", "add")]})
    say(cast.alice_client, "our cat Mochi says hi", 2)
    assert Memory.objects.filter(subject__external_id="u1", status="active").count() == 2


@pytest.mark.parametrize(
    "bad",
    [
        {"decision": "update", "memory_id": 999999},
        {"decision": "update", "memory_id": None},
        {"decision": "replace", "memory_id": None},
        {"decision": "add", "memory_id": 1},
    ],
)
def test_a_decision_about_an_unknown_memory_is_a_visible_failure(cast, llm, commute, bad):
    for _ in range(3):  # every attempt of the retry budget answers the same
        llm.queue_chat_json({"candidates": [{**candidate("The user walks now."), **bad}]})
    body = say(cast.alice_client, "I walk now", 2).json()
    assert body["extraction"]["status"] == "failed"
    event = Event.objects.filter(subject__external_id="u1").order_by("-pk").first()
    assert "memory_id" in event.extraction_error or "decision" in event.extraction_error
    commute.refresh_from_db()
    assert commute.status == "active"
