"""The transactional outbox: how every Celery task is sent.

    outbox_enqueue(task=..., args=[...])   inside the caller's transaction; published on commit
    outbox_send(task=..., args=[...])      for callers outside a transaction; published now
    outbox_relay()                         the beat task: publish whatever is still waiting

A request never blocks on the broker: publishing has bounded timeouts and no connection
retries (CELERY_BROKER_TRANSPORT_OPTIONS), and after one broker failure a process stops
trying on its request path for RELAY_BACKOFF_SECONDS (the beat relay catches up once the
broker is back). Delivery is at least once; every task is idempotent (claims, status guards).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Sequence
from typing import Any

import redis
from celery import Task, current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Min, Q
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from core.models import OutboxMessage

logger = logging.getLogger(__name__)

RELAY_BACKOFF_SECONDS = 5
RELAY_CLAIM_SECONDS = 60
RELAY_BATCH = 500
BROKER_ERRORS = (KombuOperationalError, redis.RedisError, OSError)

# broker URL → monotonic time until which the request path does not try it again
_broker_down_until: dict[str, float] = {}


def outbox_enqueue(
    *,
    task: Task,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    relay_on_commit: bool = True,
    subject_id: int | None = None,
) -> OutboxMessage:
    """Store a message for `task` in the current transaction; publish it after commit.

    With relay_on_commit=False the caller publishes it itself (`outbox_relay(ids=[...])`)
    once its own transaction has ended.
    """
    message = OutboxMessage.objects.create(
        task=task.name, args=list(args), kwargs=kwargs or {}, subject_id=subject_id
    )
    if relay_on_commit:
        # robust: a failed relay must not turn a committed request into an error.
        transaction.on_commit(lambda: outbox_relay(ids=[message.pk]), robust=True)
    return message


def outbox_send(
    *,
    task: Task,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    subject_id: int | None = None,
) -> None:
    """Store and publish now: for callers that are not inside a transaction of their own."""
    message = outbox_enqueue(
        task=task, args=args, kwargs=kwargs, relay_on_commit=False, subject_id=subject_id
    )
    outbox_relay(ids=[message.pk])


def outbox_relay(*, ids: Sequence[int] | None = None, limit: int = RELAY_BATCH) -> int:
    """Publish waiting messages oldest first; returns how many reached the broker.

    1. Claim the rows (compare-and-set on `claimed_until`; rows another relay holds are
       skipped) in a short transaction, so that no transaction stays open while publishing.
    2. Publish each one, stopping at the first broker failure.
    3. Delete the published rows and release the others with the error.
    `ids` (the request path) are not tried while this process saw the broker fail recently.
    """
    broker = current_app.conf.broker_write_url or current_app.conf.broker_url or ""
    if ids is not None and _broker_down_until.get(broker, 0.0) > time.monotonic():
        return 0
    claimed = _claim(ids=ids, limit=limit)
    sent: list[int] = []
    failed: dict[int, str] = {}
    for position, message in enumerate(claimed):
        try:
            current_app.tasks[message.task].apply_async(
                args=message.args,
                kwargs=message.kwargs,
                task_id=str(message.task_id),
                retry=False,
            )
        except BROKER_ERRORS as exc:
            _broker_down_until[broker] = time.monotonic() + RELAY_BACKOFF_SECONDS
            logger.warning("broker unavailable; outbox messages wait for the relay")
            _release([m.pk for m in claimed[position:]], f"{type(exc).__name__}: {exc}")
            break
        except Exception as exc:  # one bad message must not hold up the rest
            logger.exception("outbox message %s could not be published", message.pk)
            failed[message.pk] = f"{type(exc).__name__}: {exc}"
            continue
        sent.append(message.pk)
    if sent:
        _broker_down_until.pop(broker, None)
        OutboxMessage.objects.filter(pk__in=sent).delete()
    for pk, error in failed.items():
        _release([pk], error)
    return len(sent)


def _release(ids: Sequence[int], error: str) -> None:
    OutboxMessage.objects.filter(pk__in=list(ids)).update(
        claimed_until=None, last_error=error[:200]
    )


def _claim(*, ids: Sequence[int] | None, limit: int) -> list[OutboxMessage]:
    now = timezone.now()
    with transaction.atomic():
        waiting = (
            OutboxMessage.objects.select_for_update(skip_locked=True)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .order_by("pk")
        )
        if ids is not None:
            waiting = waiting.filter(pk__in=list(ids))
        claimed = list(waiting[:limit])
        if claimed:
            OutboxMessage.objects.filter(pk__in=[m.pk for m in claimed]).update(
                claimed_until=now + dt.timedelta(seconds=RELAY_CLAIM_SECONDS),
                attempts=F("attempts") + 1,
            )
    return claimed


def outbox_waiting_args(*, task: Task) -> list[list[Any]]:
    """The arguments of `task`'s messages not yet published (normally none)."""
    return list(OutboxMessage.objects.filter(task=task.name).values_list("args", flat=True))


def outbox_oldest_waiting() -> dt.datetime | None:
    """When the oldest unpublished message was stored (None: the outbox is empty)."""
    return OutboxMessage.objects.aggregate(oldest=Min("created_at"))["oldest"]


def outbox_backlog() -> dict[str, Any]:
    """For /healthz: how many messages wait and for how long (stuck relay → not ok)."""
    waiting = OutboxMessage.objects.count()
    oldest = outbox_oldest_waiting()
    age = (timezone.now() - oldest).total_seconds() if oldest else 0.0
    return {
        "ok": age <= settings.ENGRAM_WORKER_HEARTBEAT_TTL,
        "waiting": waiting,
        "oldest_seconds": round(age, 1),
    }
