import contextlib

import pytest

from memory.models import Event, Memory
from tests.conftest import error_code

URL = "/api/v1/subjects/{}/events"


def post_events(client, subject, events, extract="none", session="s1"):
    return client.post(
        URL.format(subject),
        {"session_id": session, "events": events, "extract": extract},
        format="json",
    )


def test_it_stores_events_and_returns_them(cast):
    response = post_events(
        cast.alice_client,
        "u1",
        [
            {
                "role": "user",
                "content": "你好",
                "client_event_id": "c1",
                "occurred_at": "2026-01-01T10:00:00Z",
            },
            {"role": "assistant", "content": "Hi!"},
        ],
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [e["content"] for e in body["events"]] == ["你好", "Hi!"]
    assert body["events"][0]["occurred_at"].startswith("2026-01-01T10:00:00")
    assert body["extraction"] == {"status": "skipped", "results": []}
    assert Event.objects.filter(subject__external_id="u1").count() == 2


def test_it_is_idempotent_on_client_event_id(cast):
    event = {"role": "user", "content": "我不吃辣", "client_event_id": "same"}
    first = post_events(cast.alice_client, "u1", [event]).json()
    second = post_events(cast.alice_client, "u1", [event, event]).json()
    assert Event.objects.filter(subject__external_id="u1").count() == 1
    assert {e["id"] for e in second["events"]} == {first["events"][0]["id"]}


def test_it_extracts_synchronously_in_chinese(cast):
    response = post_events(
        cast.alice_client,
        "u1",
        [
            {"role": "user", "content": "我不吃辣，以后推荐餐厅记得避开辣味。"},
        ],
        extract="sync",
    )
    body = response.json()
    assert body["extraction"]["status"] == "done"
    # the events say what became of them, as GET /events would
    assert [e["extraction_status"] for e in body["events"]] == ["done"]
    contents = [r["memory"]["content"] for r in body["extraction"]["results"]]
    assert any("辣" in c for c in contents), contents
    memory = Memory.objects.get(subject__external_id="u1", content__contains="辣")
    assert memory.status == "active"
    assert memory.source_event.content.startswith("我不吃辣")


def test_it_extracts_synchronously_in_english(cast):
    body = post_events(
        cast.alice_client,
        "u-en",
        [
            {"role": "user", "content": "I always prefer aisle seats on flights."},
        ],
        extract="sync",
    ).json()
    contents = [r["memory"]["content"] for r in body["extraction"]["results"]]
    assert any("aisle" in c.lower() for c in contents), contents


def test_it_does_not_remember_small_talk_or_assistant_claims(cast):
    body = post_events(
        cast.alice_client,
        "u1",
        [
            {"role": "user", "content": "谢谢，今天天气不错。"},
            {"role": "assistant", "content": "The user loves spicy food and lives in Paris."},
        ],
        extract="sync",
    ).json()
    assert body["extraction"]["results"] == []
    assert not Memory.objects.filter(subject__external_id="u1").exists()


@pytest.mark.django_db(transaction=True)
def test_async_extraction_runs_after_commit(cast):
    post_events(
        cast.alice_client,
        "u-async",
        [
            {"role": "user", "content": "我是素食者，推荐餐厅时注意。"},
        ],
        extract="async",
    )
    event = Event.objects.get(subject__external_id="u-async")
    assert event.extraction_status == "done"
    assert Memory.objects.filter(subject__external_id="u-async", content__contains="素").exists()


@contextlib.contextmanager
def broker_down():
    """Point Celery at a port where nothing listens: a real connection failure."""
    from config.celery import app

    saved = (app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager)
    app.conf.broker_url = app.conf.broker_write_url = "redis://127.0.0.1:1/0"
    app.conf.task_always_eager = False
    app._pool = None
    app.amqp._producer_pool = None
    try:
        yield
    finally:
        app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager = saved
        app._pool = None
        app.amqp._producer_pool = None


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_extraction_in_the_outbox_while_the_broker_is_down(cast):
    from core.models import OutboxMessage
    from core.outbox import outbox_relay

    with broker_down():
        response = post_events(
            cast.alice_client,
            "u-down",
            [{"role": "user", "content": "我不吃香菜。"}],
            extract="async",
        )
        assert response.status_code == 201
        event = Event.objects.get(subject__external_id="u-down")
        assert event.extraction_status == "queued"
        assert OutboxMessage.objects.get().args == [[event.pk]]
    # Broker back: the beat relay publishes the message and the event gets extracted.
    assert outbox_relay() == 1
    event.refresh_from_db()
    assert event.extraction_status == "done"
    assert Memory.objects.filter(subject__external_id="u-down", content__contains="香菜").exists()
    assert not OutboxMessage.objects.exists()


@pytest.mark.parametrize(
    "body,field",
    [
        ({"events": [{"role": "user", "content": "x"}]}, "session_id"),
        ({"session_id": "s", "events": []}, "events"),
        ({"session_id": "s", "events": [{"role": "robot", "content": "x"}]}, "events"),
        ({"session_id": "s", "events": [{"role": "user", "content": ""}]}, "events"),
        (
            {
                "session_id": "s",
                "events": [{"role": "user", "content": "x", "occurred_at": "yesterday"}],
            },
            "events",
        ),
        (
            {"session_id": "s", "events": [{"role": "user", "content": "x"}], "extract": "later"},
            "extract",
        ),
        ({"session_id": "s", "events": "nope"}, "events"),
    ],
)
def test_it_rejects_invalid_bodies_with_the_error_shape(cast, body, field):
    response = cast.alice_client.post(URL.format("u1"), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"]


def test_it_rejects_malformed_json(cast):
    response = cast.alice_client.post(
        URL.format("u1"), data="{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert error_code(response) == "malformed_json"


def test_it_rejects_too_many_events(cast, settings):
    settings.ENGRAM_MAX_EVENTS_PER_REQUEST = 3
    events = [{"role": "user", "content": f"m{i}"} for i in range(4)]
    response = post_events(cast.alice_client, "u1", events)
    assert response.status_code == 400
    assert "events" in response.json()["error"]["fields"]


def test_it_rejects_oversized_content(cast, settings):
    settings.ENGRAM_MAX_EVENT_CHARS = 10
    response = post_events(cast.alice_client, "u1", [{"role": "user", "content": "x" * 11}])
    assert response.status_code == 400
    assert Event.objects.count() == 0


def test_it_rejects_a_bad_subject_id(cast):
    response = post_events(
        cast.alice_client, "bad id with spaces", [{"role": "user", "content": "x"}]
    )
    assert response.status_code == 400
    assert error_code(response) == "invalid_subject_id"


def test_it_lists_events_with_cursor_pagination(cast):
    post_events(cast.alice_client, "u1", [{"role": "user", "content": f"m{i}"} for i in range(5)])
    post_events(cast.alice_client, "u1", [{"role": "user", "content": "other"}], session="s2")
    page = cast.alice_client.get(URL.format("u1"), {"session_id": "s1", "limit": 2}).json()
    seen = [e["content"] for e in page["results"]]
    while page["next"]:
        page = cast.alice_client.get(
            URL.format("u1"), {"session_id": "s1", "limit": 2, "cursor": page["next"]}
        ).json()
        seen += [e["content"] for e in page["results"]]
    assert seen == [f"m{i}" for i in range(5)]


def test_it_answers_empty_for_a_subject_never_written(cast):
    response = cast.alice_client.get(URL.format("nobody"))
    assert response.status_code == 200
    assert response.json() == {"results": [], "next": None}


def test_it_rejects_a_bad_cursor(cast):
    response = cast.alice_client.get(URL.format("u1"), {"cursor": "garbage!!"})
    assert response.status_code == 400
    assert error_code(response) == "invalid_cursor"


def test_outsiders_get_404_and_never_see_events(cast):
    post_events(cast.alice_client, "u1", [{"role": "user", "content": "secret"}])
    # charlie (another tenant) sees an empty, unrelated subject of his own tenant
    response = cast.charlie_client.get(URL.format("u1"))
    assert response.status_code == 200 and response.json()["results"] == []
    # bob (restricted by guardian) gets 404 for a subject not granted to him
    assert cast.bob_client.get(URL.format("u1")).status_code == 404
    assert cast.bob_client.get(URL.format("granted-1")).status_code == 200


def test_it_requires_the_write_scope(cast):
    response = post_events(cast.bob_client, "granted-1", [{"role": "user", "content": "x"}])
    assert response.status_code == 403
    assert error_code(response) == "permission_denied"


def test_it_requires_a_valid_key(cast):
    from rest_framework.test import APIClient

    assert APIClient().get(URL.format("u1")).status_code == 401
    response = cast.client("egk_AAAAAAAA_" + "b" * 32).get(URL.format("u1"))
    assert response.status_code == 401
    assert error_code(response) == "not_authenticated"


def test_revoked_keys_stop_working(cast):
    from accounts.services import agent_revoke
    from audit.services import SYSTEM

    agent_revoke(agent=cast.alice, actor=SYSTEM)
    assert cast.alice_client.get(URL.format("u1")).status_code == 401


def test_it_answers_413_for_an_oversized_body(cast, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    events = [{"role": "user", "content": "x" * 500} for _ in range(10)]
    response = post_events(cast.alice_client, "u1", events)
    assert response.status_code == 413
    assert error_code(response) == "payload_too_large"
    assert Event.objects.count() == 0


def test_an_extractor_crash_in_sync_mode_keeps_the_events_for_the_sweeper(cast, monkeypatch):
    from memory.extraction import get_extractor
    from memory.services import events_sweep_pending

    extractor = get_extractor()
    original = extractor.extract

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(extractor, "extract", crash)
    response = post_events(
        cast.alice_client,
        "u-crash",
        [{"role": "user", "content": "我对青霉素过敏。"}],
        extract="sync",
    )
    assert response.status_code == 201
    assert response.json()["extraction"]["status"] == "queued"
    assert response.json()["events"][0]["extraction_status"] == "pending"
    event = Event.objects.get(subject__external_id="u-crash")
    assert event.extraction_status == "pending" and "boom" in event.extraction_error
    monkeypatch.setattr(extractor, "extract", original)
    assert events_sweep_pending(older_than_seconds=0) == 1
    event.refresh_from_db()
    assert event.extraction_status == "done"
    assert Memory.objects.filter(
        subject__external_id="u-crash", content__contains="青霉素"
    ).exists()
