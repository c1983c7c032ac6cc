"""Single-use `/me/` links: the used nonce is kept in PostgreSQL, so a Redis restart, flush or
failover cannot make a used link sign in again."""

import datetime as dt
import threading

import pytest
import redis
import time_machine
from django.conf import settings
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from audit.services import SYSTEM
from core.exceptions import ApplicationError
from memory.services import subject_get_or_create
from privacy.models import PortalLinkNonce
from privacy.portal import portal_link_for, portal_nonces_prune, portal_token_consume


def token_for(subject, rf) -> str:
    url, _ = portal_link_for(subject=subject, request=rf.get("/"), actor=SYSTEM)
    return url.rstrip("/").rsplit("/", 1)[-1]


def test_it_refuses_a_used_link_after_the_redis_db_is_flushed(client, cast, rf):
    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="nonce-1", actor=SYSTEM)
    url = reverse("me-link", args=[token_for(subject, rf)])
    assert client.get(url).status_code == 302

    redis.Redis.from_url(settings.REDIS_TEST_URL).flushdb()  # what a Redis restart leaves

    replay = client.__class__().get(url)
    assert replay.status_code == 404
    assert PortalLinkNonce.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_it_lets_only_one_of_many_concurrent_uses_through(cast, rf):
    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="nonce-2", actor=SYSTEM)
    token = token_for(subject, rf)
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def use() -> None:
        barrier.wait()
        try:
            portal_token_consume(token)
            outcomes.append("signed in")
        except ApplicationError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=use) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused"] * 5 + ["signed in"]


def test_it_prunes_nonces_only_after_their_link_expired(cast, rf, settings):
    settings.ENGRAM_PORTAL_LINK_MAX_AGE = 60
    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="nonce-3", actor=SYSTEM)
    portal_token_consume(token_for(subject, rf))
    assert portal_nonces_prune() == 0
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=61)):
        assert portal_nonces_prune() == 1
    assert not PortalLinkNonce.objects.exists()


def test_the_prune_task_is_scheduled(db):
    from django.core.management import call_command
    from django_celery_beat.models import PeriodicTask

    call_command("setup_periodic_tasks")
    assert PeriodicTask.objects.filter(task="privacy.tasks.prune_portal_nonces").exists()
