"""A database or broker outage answers 503 with Retry-After (the error shape on /api/), never
an HTML 500, and the service recovers by itself once the server is back."""

import contextlib
import json

import psycopg
import pytest
from django.db import close_old_connections, connection
from django.test import override_settings

from audit.services import SYSTEM
from memory.models import Event

MEMORIES = "/api/v1/subjects/{}/memories"


@contextlib.contextmanager
def database_down():
    """Point the connection at a port where no PostgreSQL listens: a real connect failure."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def assert_503_shape(response) -> None:
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    assert json.loads(response.content)["error"]["code"] == "service_unavailable"
    assert int(response["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_it_answers_503_json_with_retry_after_while_the_database_is_down(cast):
    client = cast.alice_client
    with database_down():
        assert_503_shape(client.get(MEMORIES.format("u1")))
        assert_503_shape(
            client.post(
                "/api/v1/subjects/u1/events",
                {"session_id": "s", "events": [{"role": "user", "content": "我不吃辣"}]},
                format="json",
            )
        )
        assert_503_shape(client.post("/api/v1/subjects/u1/recall", {"query": "x"}, format="json"))
    # Back: the next request reconnects by itself.
    assert client.get(MEMORIES.format("u1")).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_console_and_healthz_answer_503_while_the_database_is_down(client, staff_user):
    client.force_login(staff_user)
    with database_down():
        page = client.get("/console/")
        health = client.get("/healthz")
    assert page.status_code == 503 and int(page["Retry-After"]) > 0
    assert b"<html" not in page.content.lower()
    assert health.status_code == 503 and int(health["Retry-After"]) > 0
    body = health.json()
    assert body["database"]["ok"] is False and body["database"]["conn_health_checks"] is True
    assert body["outbox"]["ok"] is False


@pytest.mark.django_db(transaction=True)
def test_a_persistent_connection_killed_by_a_database_restart_is_replaced(cast):
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True
    Event.objects.exists()  # opens the persistent connection
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    with psycopg.connect(**{**params, "autocommit": True}) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    close_old_connections()  # what Django does at the start of every request
    assert Event.objects.exists() is False
    assert connection.connection.info.backend_pid != pid


def test_it_answers_503_json_when_redis_is_down_under_a_request(cast):
    with override_settings(
        CACHES={
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": "redis://127.0.0.1:1/0",
            }
        }
    ):
        from django.core.cache import cache
        from django.http import HttpRequest
        from rest_framework.views import APIView

        class NeedsTheCache(APIView):
            authentication_classes: list = []
            permission_classes: list = []

            def get(self, request):
                return cache.get("anything")

        request = HttpRequest()
        request.method = "GET"
        response = NeedsTheCache.as_view()(request)
    assert_503_shape(response.render())


@pytest.mark.django_db(transaction=True)
def test_a_deadlock_is_a_503_that_says_retry_not_database_down(cast):
    import threading

    from django.db import OperationalError, transaction

    from core.exception_handler import MSG_DATABASE_CONFLICT, outage_message
    from memory.models import Subject
    from memory.services import subject_get_or_create

    first, second = (
        subject_get_or_create(tenant=cast.tenant_a, external_id=name, actor=SYSTEM).pk
        for name in ("lock-1", "lock-2")
    )
    barrier = threading.Barrier(2)
    errors: list[Exception] = []

    def lock_in_order(order: tuple[int, int]) -> None:
        try:
            with transaction.atomic():
                Subject.objects.select_for_update().get(pk=order[0])
                barrier.wait()
                Subject.objects.select_for_update().get(pk=order[1])
        except OperationalError as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=lock_in_order, args=(order,))
        for order in ((first, second), (second, first))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 1
    assert outage_message(errors[0]) == MSG_DATABASE_CONFLICT


@pytest.mark.django_db(transaction=True)
def test_beat_keeps_its_schedule_through_a_database_outage_and_rereads_it_afterwards():
    import datetime

    from django.core.management import call_command
    from django_celery_beat.models import PeriodicTask

    from config.celery import app
    from core.beat import OutageTolerantDatabaseScheduler

    call_command("setup_periodic_tasks")
    scheduler = OutageTolerantDatabaseScheduler(app=app)
    names = set(scheduler.schedule)
    # The full re-read django-celery-beat forces every five minutes falls in the outage.
    scheduler._last_full_sync -= datetime.timedelta(minutes=6)
    with database_down():
        assert set(scheduler.schedule) == names
        assert set(scheduler.schedule) == names  # every tick of the outage
    # Back: the next tick re-reads, without waiting five more minutes (a queryset update sends
    # no change signal, so only the full re-read can see it).
    relay = "Relay outbox messages (after broker outages)"
    PeriodicTask.objects.filter(name=relay).update(enabled=False)
    assert set(scheduler.schedule) == names - {relay}
