import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.utils import InternalError, ProgrammingError
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from audit.models import AuditEntry
from audit.services import SYSTEM, audit_record
from core.health import write_heartbeat
from memory.models import Event, Memory, Subject

DB_REFUSALS = (InternalError, ProgrammingError, IntegrityError)


@pytest.fixture
def event(cast) -> Event:
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    return Event.objects.create(
        subject=subject,
        session_id="s1",
        role="user",
        content="我不吃辣",
        occurred_at=timezone.now(),
        content_hash="x",
    )


def test_it_has_the_vector_extension(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone() is not None


def test_it_refuses_to_update_event_content(event):
    with pytest.raises(DB_REFUSALS, match="append-only"), transaction.atomic():
        Event.objects.filter(pk=event.pk).update(content="changed")
    event.refresh_from_db()
    assert event.content == "我不吃辣"


def test_it_refuses_to_delete_events_outside_erasure(event):
    with pytest.raises(DB_REFUSALS, match="append-only"), transaction.atomic():
        Event.objects.filter(pk=event.pk).delete()
    assert Event.objects.filter(pk=event.pk).exists()


def test_it_allows_updating_extraction_bookkeeping(event):
    Event.objects.filter(pk=event.pk).update(extraction_status="done", extraction_attempts=1)
    event.refresh_from_db()
    assert event.extraction_status == "done"


def test_it_allows_deleting_events_on_the_erasure_path(event):
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL engram.event_write = 'erase'")
        Event.objects.filter(pk=event.pk).delete()
    assert not Event.objects.filter(pk=event.pk).exists()


def test_it_refuses_to_change_or_delete_audit_entries(db):
    entry = audit_record(actor=SYSTEM, action="test.action")
    with pytest.raises(DB_REFUSALS, match="append-only"), transaction.atomic():
        AuditEntry.objects.filter(pk=entry.pk).update(action="tampered")
    with (
        pytest.raises(DB_REFUSALS, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM audit_auditentry WHERE id = %s", [entry.pk])
    entry.refresh_from_db()
    assert entry.action == "test.action"


def test_it_chains_audit_entries(db):
    first = audit_record(actor=SYSTEM, action="one")
    second = audit_record(actor=SYSTEM, action="two")
    assert second.prev_hash == first.entry_hash
    assert first.entry_hash != second.entry_hash


@pytest.mark.parametrize("field,value", [("importance", 1.5), ("confidence", -0.1)])
def test_it_enforces_score_ranges_in_the_database(cast, field, value):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u2")
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.create(
            tenant=cast.tenant_a,
            subject=subject,
            category="fact",
            content="x",
            observed_at=now,
            valid_from=now,
            **{field: value},
        )


def test_it_keeps_subject_ids_unique_per_tenant(cast):
    Subject.objects.create(tenant=cast.tenant_a, external_id="same")
    Subject.objects.create(tenant=cast.tenant_b, external_id="same")
    with pytest.raises(IntegrityError), transaction.atomic():
        Subject.objects.create(tenant=cast.tenant_a, external_id="same")


def test_create_agent_prints_a_working_key(db, capsys):
    call_command("create_agent", "cli-bot", "--tenant", "newco", "--scopes", "read,write")
    key = capsys.readouterr().out.strip().splitlines()[-1]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    response = client.get("/api/v1/subjects/someone/memories")
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_create_agent_rejects_unknown_scopes(db):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="Unknown scope"):
        call_command("create_agent", "bad", "--tenant", "newco", "--scopes", "read,admin")


def test_healthz_reports_every_dependency(db, client):
    write_heartbeat()
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["database"]["ok"] and body["redis"]["ok"] and body["worker"]["ok"]
    assert body["vector"]["version"]


def test_healthz_answers_503_when_redis_is_down(db, client):
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["redis"]["ok"] is False


def test_login_page_is_served(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert b"csrfmiddlewaretoken" in response.content
