"""Deadlock victims are retried, in the API and in the recall-trace task.

PostgreSQL itself raises the error: a trigger raises SQLSTATE 40P01 (deadlock_detected)
for the first N inserts into a table, counted with a sequence (which a rollback does not
reset), the way a real deadlock aborts a transaction."""

import uuid

import pytest
from django.db import OperationalError, connection

from audit.models import AuditEntry
from audit.services import SYSTEM
from core.db_retry import run_with_db_retry
from memory.models import Memory, RecallTrace
from memory.services import subject_get_or_create
from memory.tasks import record_recall

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def deadlock_first_inserts():
    """deadlock_first_inserts(table, n): the next n inserts into `table` are deadlock victims."""
    made = []

    def install(table: str, victims: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute("CREATE SEQUENCE IF NOT EXISTS test_deadlock_seq")
            cursor.execute(
                f"""
                CREATE OR REPLACE FUNCTION test_deadlock_victim() RETURNS trigger AS $$
                BEGIN
                    IF nextval('test_deadlock_seq') <= {int(victims)} THEN
                        RAISE EXCEPTION 'deadlock detected (test)' USING ERRCODE = '40P01';
                    END IF;
                    RETURN NEW;
                END; $$ LANGUAGE plpgsql;
                CREATE TRIGGER test_deadlock_victim BEFORE INSERT ON {table}
                    FOR EACH ROW EXECUTE FUNCTION test_deadlock_victim();
                """
            )
        made.append(table)

    yield install
    with connection.cursor() as cursor:
        for table in made:
            cursor.execute(f"DROP TRIGGER IF EXISTS test_deadlock_victim ON {table}")
        cursor.execute("DROP FUNCTION IF EXISTS test_deadlock_victim()")
        cursor.execute("DROP SEQUENCE IF EXISTS test_deadlock_seq")


def _trace(subject):
    return {
        "trace_id": str(uuid.uuid4()),
        "subject_id": subject.pk,
        "agent_id": None,
        "query": "q",
        "route": "hybrid",
        "parameters": {},
        "candidates": [],
        "selected_ids": [],
        "context": "",
        "token_count": 0,
        "timings_ms": {},
        "total_ms": 1.0,
    }


def test_the_api_retries_a_deadlock_victim(cast, deadlock_first_inserts):
    deadlock_first_inserts("memory_memory", 2)
    response = cast.alice_client.post(
        "/api/v1/subjects/retry-me/memories",
        {"content": "The user likes green tea", "category": "preference"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert Memory.objects.filter(subject__external_id="retry-me").count() == 1
    assert AuditEntry.objects.filter(action="memory.create").count() == 1


def test_the_api_answers_503_when_the_deadlocks_persist(cast, deadlock_first_inserts):
    deadlock_first_inserts("memory_memory", 1000)
    response = cast.alice_client.post(
        "/api/v1/subjects/retry-me/memories",
        {"content": "The user likes green tea", "category": "preference"},
        format="json",
    )
    assert response.status_code == 503
    assert response["Retry-After"].isdigit()
    assert response.json()["error"]["code"] == "service_unavailable"
    assert "retry" in response.json()["error"]["message"]


def test_the_recall_task_retries_instead_of_losing_the_trace(cast, deadlock_first_inserts):
    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="traced", actor=SYSTEM)
    deadlock_first_inserts("memory_recalltrace", 2)
    trace = _trace(subject)
    record_recall.delay(trace, {"type": "system", "id": "system"})
    assert RecallTrace.objects.filter(trace_id=trace["trace_id"]).exists()
    assert AuditEntry.objects.filter(action="memory.recall", subject_id=subject.pk).count() == 1


def test_it_does_not_retry_inside_an_outer_transaction(deadlock_first_inserts, cast):
    from django.db import transaction

    deadlock_first_inserts("memory_subject", 1)
    with pytest.raises(OperationalError), transaction.atomic():
        run_with_db_retry(
            lambda: subject_get_or_create(tenant=cast.tenant_a, external_id="x", actor=SYSTEM)
        )
