import pytest
from engram import (
    AuthenticationError,
    Engram,
    EventInput,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
)

from memory.models import Event, Memory, Subject
from tests.factories import days_ago, make_memory

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_appends_events_and_returns_the_extraction(alice_sdk):
    result = alice_sdk.append_events(
        "wang.fang",
        [
            {"role": "user", "content": "I always prefer aisle seats on flights."},
            EventInput(role="assistant", content="Noted!", client_event_id="a-1"),
        ],
        session_id="chat-1",
        extract="sync",
    )
    assert result.extraction.status == "done"
    assert any("aisle" in m.content.lower() for m in result.extraction.memories)
    assert [e.role for e in result.events] == ["user", "assistant"]
    # The client names events that came without an id, so a retry cannot store them twice.
    assert result.events[0].client_event_id.startswith("sdk-")
    assert result.events[1].client_event_id == "a-1"
    assert Event.objects.filter(subject__external_id="wang.fang").count() == 2


def test_it_pages_through_memories_and_events(cast, alice_sdk):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="pager")
    for n in range(7):
        make_memory(subject, f"fact number {n}", created_at=days_ago(10 - n))
    alice_sdk.append_events(
        "pager",
        [{"role": "user", "content": f"turn {n}"} for n in range(5)],
        session_id="s",
        extract="none",
    )

    first = alice_sdk.list_memories("pager", limit=3)
    assert len(first.items) == 3 and first.next_cursor
    contents = [m.content for m in alice_sdk.iter_memories("pager", page_size=3)]
    assert contents == [f"fact number {n}" for n in reversed(range(7))]  # newest first
    assert [e.content for e in alice_sdk.iter_events("pager", page_size=2)] == [
        f"turn {n}" for n in range(5)
    ]


def test_it_recalls_the_context_for_a_query(alice_sdk):
    alice_sdk.append_events(
        "wang.fang",
        [{"role": "user", "content": "我不吃辣，以后推荐餐厅记得避开辣味。"}],
        session_id="chat-1",
        extract="sync",
    )
    recall = alice_sdk.recall("wang.fang", "周末帮我推荐个餐厅", token_budget=400)
    assert recall.memories and "辣" in recall.memories[0].content
    assert "辣" in recall.context
    assert recall.trace_id and recall.token_count > 0
    assert 0 <= recall.memories[0].signals.semantic <= 1


def test_it_corrects_a_memory_and_shows_its_history(alice_sdk):
    created = alice_sdk.create_memory(
        "wang.fang", content="The user lives in Shanghai.", category="profile"
    )
    assert created.action == "created"
    original = created.memory

    corrected = alice_sdk.correct_memory(
        "wang.fang", original.id, content="The user lives in Beijing.", reason="moved"
    )
    assert corrected.version == original.version + 1
    assert corrected.supersedes == original.id
    assert alice_sdk.get_memory("wang.fang", original.id).status == "superseded"
    history = alice_sdk.memory_history("wang.fang", corrected.id)
    assert [m.content for m in history] == [
        "The user lives in Shanghai.",
        "The user lives in Beijing.",
    ]


def test_it_deletes_a_memory(alice_sdk):
    memory = alice_sdk.create_memory("wang.fang", content="Has a cat.", category="fact").memory
    alice_sdk.delete_memory("wang.fang", memory.id)
    with pytest.raises(NotFoundError) as raised:
        alice_sdk.get_memory("wang.fang", memory.id)
    assert raised.value.code == "not_found"
    assert not Memory.objects.filter(pk=memory.id).exists()


def test_it_erases_a_subject_and_returns_the_receipt(alice_sdk):
    alice_sdk.append_events(
        "leaving",
        [{"role": "user", "content": "I always prefer window seats."}],
        session_id="s",
        extract="sync",
    )
    receipt = alice_sdk.erase_subject("leaving")
    assert receipt.complete, receipt.residue
    assert receipt.deleted["memory_event"] == 1
    assert alice_sdk.list_memories("leaving").items == []
    assert not Subject.objects.filter(external_id="leaving").exists()


def test_it_raises_the_error_shape_for_a_bad_request(alice_sdk):
    with pytest.raises(InvalidRequestError) as raised:
        alice_sdk.append_events("wang.fang", [{"role": "robot", "content": "beep"}], session_id="s")
    error = raised.value
    assert (error.status_code, error.code) == (400, "invalid")
    assert "role" in error.fields["events"]["0"]
    assert error.request_id  # the server's X-Request-ID, for its logs


def test_it_raises_authentication_error_for_a_bad_key(live_server):
    with (
        Engram(live_server.url, api_key="egk_nope_nope") as client,
        pytest.raises(AuthenticationError) as raised,
    ):
        client.list_memories("wang.fang")
    assert (raised.value.status_code, raised.value.code) == (401, "not_authenticated")


def test_it_raises_not_found_for_another_tenants_memory(cast, alice_sdk, live_server):
    memory = alice_sdk.create_memory("wang.fang", content="Has a dog.", category="fact").memory
    with Engram(live_server.url, api_key=cast.charlie_key) as charlie, pytest.raises(NotFoundError):
        charlie.get_memory("wang.fang", memory.id)


def test_it_raises_permission_denied_without_the_scope(cast, live_server):
    with (
        Engram(live_server.url, api_key=cast.bob_key) as bob,
        pytest.raises(PermissionDeniedError) as raised,
    ):
        bob.append_events("granted-1", [{"role": "user", "content": "hi"}], session_id="s")
    assert raised.value.code == "permission_denied"
