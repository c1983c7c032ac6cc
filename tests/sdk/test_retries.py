"""Retries and idempotency through a real fault-injecting proxy (tests/sdk/faulty_proxy.py)."""

import time

import pytest
from engram import (
    NO_RETRIES,
    ConnectionFailedError,
    Engram,
    RetryPolicy,
    ServerError,
    ServiceUnavailableError,
)

from memory.models import Event, Memory
from tests.sdk.conftest import FAST_RETRY
from tests.sdk.faulty_proxy import FaultyProxy

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS_PATH = "/api/v1/subjects/wang.fang/events"


def sdk(proxy, cast, retry=FAST_RETRY):
    return Engram(proxy.url, api_key=cast.alice_key, timeout=30, retry=retry)


def test_it_retries_a_503_until_the_server_answers(cast, live_server):
    with FaultyProxy(live_server.url, ["503", "503"]) as proxy, sdk(proxy, cast) as client:
        page = client.list_memories("wang.fang")
    assert page.items == []
    assert len(proxy.requests) == 3


def test_it_waits_as_long_as_retry_after_says(cast, live_server):
    proxy = FaultyProxy(live_server.url, ["503"], retry_after="1")
    with proxy, sdk(proxy, cast) as client:
        started = time.monotonic()
        client.list_memories("wang.fang")
        elapsed = time.monotonic() - started
    assert elapsed >= 1.0  # the backoff alone would have waited ~10 ms
    assert len(proxy.requests) == 2


def test_it_backs_off_exponentially_without_retry_after(cast, live_server):
    retry = RetryPolicy(max_retries=3, backoff_base=0.2, backoff_max=5)
    proxy = FaultyProxy(live_server.url, ["503", "503", "503"], retry_after=None)
    with proxy, sdk(proxy, cast, retry) as client:
        started = time.monotonic()
        client.list_memories("wang.fang")
        elapsed = time.monotonic() - started
    # 0.2 + 0.4 + 0.8 s, each scaled by a jitter factor in [0.5, 1]
    assert 0.7 <= elapsed < 3.0
    assert len(proxy.requests) == 4


def test_it_raises_the_last_503_when_the_retries_are_used_up(cast, live_server):
    with (
        FaultyProxy(live_server.url, ["503"] * 10) as proxy,
        sdk(proxy, cast) as client,
        pytest.raises(ServiceUnavailableError) as raised,
    ):
        client.recall("wang.fang", "anything")
    assert raised.value.code == "service_unavailable"
    assert raised.value.retry_after == 0
    assert len(proxy.requests) == FAST_RETRY.max_retries + 1


def test_it_retries_a_429_on_a_write(cast, live_server):
    with FaultyProxy(live_server.url, ["429"]) as proxy, sdk(proxy, cast) as client:
        result = client.create_memory("wang.fang", content="Has a cat.", category="fact")
    assert result.action == "created"
    assert Memory.objects.filter(subject__external_id="wang.fang").count() == 1
    assert len(proxy.requests) == 2


def test_it_does_not_resend_a_memory_create_after_a_502(cast, live_server):
    with (
        FaultyProxy(live_server.url, ["502"]) as proxy,
        sdk(proxy, cast) as client,
        pytest.raises(ServerError) as raised,
    ):
        client.create_memory("wang.fang", content="Has a cat.", category="fact")
    assert raised.value.status_code == 502
    assert len(proxy.requests) == 1  # a gateway error says nothing about whether it was done


def test_a_retried_event_post_after_a_lost_response_stores_the_event_once(cast, live_server):
    with FaultyProxy(live_server.url, ["drop"]) as proxy, sdk(proxy, cast) as client:
        result = client.append_events(
            "wang.fang",
            [{"role": "user", "content": "I always prefer aisle seats on flights."}],
            session_id="chat-1",
            extract="sync",
        )
    assert proxy.requests == [("POST", EVENTS_PATH)] * 2
    stored = Event.objects.get(subject__external_id="wang.fang")
    assert [e.id for e in result.events] == [stored.pk]
    assert result.events[0].client_event_id == stored.client_event_id
    # The first (lost) answer carried the extraction; the memory exists once.
    assert Memory.objects.filter(subject__external_id="wang.fang", status="active").count() == 1


def test_without_retries_a_lost_response_raises_but_the_event_was_stored(cast, live_server):
    # The control for the test above: the proxy really drops the answer after the server
    # stored the event.
    with (
        FaultyProxy(live_server.url, ["drop"]) as proxy,
        sdk(proxy, cast, NO_RETRIES) as client,
        pytest.raises(ConnectionFailedError),
    ):
        client.append_events("wang.fang", [{"role": "user", "content": "hello"}], session_id="s")
    assert Event.objects.filter(subject__external_id="wang.fang").count() == 1


def test_it_does_not_resend_a_correction_after_a_lost_response(cast, live_server):
    with Engram(live_server.url, api_key=cast.alice_key) as direct:
        memory = direct.create_memory("wang.fang", content="Lives in Paris.", category="profile")
    with (
        FaultyProxy(live_server.url, ["drop"]) as proxy,
        sdk(proxy, cast) as client,
        pytest.raises(ConnectionFailedError),
    ):
        client.correct_memory("wang.fang", memory.memory.id, content="Lives in Rome.")
    assert len(proxy.requests) == 1
    assert Memory.objects.filter(subject__external_id="wang.fang").count() == 2


def test_it_retries_when_the_server_is_not_listening_yet(cast, live_server):
    # Nothing listens on the proxy's port after it closed: a connect error, always safe.
    with FaultyProxy(live_server.url, []) as proxy:
        url = proxy.url
    retry = RetryPolicy(max_retries=2, backoff_base=0.01)
    with (
        Engram(url, api_key=cast.alice_key, retry=retry) as client,
        pytest.raises(ConnectionFailedError),
    ):
        client.list_memories("wang.fang")
