"""A batch of writes in one transaction takes its tenant's chain lock and reads the chain's tail
once (`audit_chain_held`), and the chain still verifies — also with extraction workers of one
tenant writing at the same time (real threads, real PostgreSQL)."""

import threading

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from audit.selectors import audit_chain_verify
from audit.services import SYSTEM, audit_chain_held, audit_record
from memory.services import EventInput, events_append, events_extract


def _lock_queries(captured) -> int:
    return sum("pg_advisory_xact_lock" in q["sql"] for q in captured.captured_queries)


@pytest.mark.django_db
def test_a_batch_takes_the_chain_lock_once(cast):
    with CaptureQueriesContext(connection) as captured, transaction.atomic(), audit_chain_held():
        for i in range(5):
            audit_record(
                actor=SYSTEM,
                action="test.batch",
                target_type="test",
                target_id=str(i),
                tenant_id=cast.tenant_a.pk,
                reason=f"entry {i}",
            )
        # another tenant's chain has a lock of its own
        audit_record(actor=SYSTEM, action="test.batch", tenant_id=cast.tenant_b.pk)
    assert _lock_queries(captured) == 2
    entries = list(
        AuditEntry.objects.filter(action="test.batch", tenant_id=cast.tenant_a.pk).order_by("pk")
    )
    assert [e.prev_hash for e in entries[1:]] == [e.entry_hash for e in entries[:-1]]
    assert audit_chain_verify().ok


@pytest.mark.django_db
def test_a_batch_writes_its_entries_together_and_nothing_when_it_fails(cast):
    with CaptureQueriesContext(connection) as captured, transaction.atomic(), audit_chain_held():
        for i in range(4):
            audit_record(
                actor=SYSTEM,
                action="test.together",
                target_type="test",
                target_id=str(i),
                tenant_id=cast.tenant_a.pk,
                reason=f"entry {i}",
            )
        assert not AuditEntry.objects.filter(action="test.together").exists()
    inserts = [q for q in captured.captured_queries if q["sql"].startswith("INSERT INTO")]
    assert len(inserts) == 2, [q["sql"][:60] for q in inserts]  # the entries, their texts
    entries = list(AuditEntry.objects.filter(action="test.together").order_by("pk"))
    assert [e.target_id for e in entries] == ["0", "1", "2", "3"]
    assert all(e.text.reason == f"entry {i}" for i, e in enumerate(entries))
    assert audit_chain_verify().ok

    with pytest.raises(RuntimeError), transaction.atomic(), audit_chain_held():
        audit_record(actor=SYSTEM, action="test.failed", tenant_id=cast.tenant_a.pk, reason="x")
        raise RuntimeError("the change fails")
    assert not AuditEntry.objects.filter(action="test.failed").exists()


@pytest.mark.django_db
def test_each_entry_outside_a_batch_takes_the_lock(cast):
    with CaptureQueriesContext(connection) as captured, transaction.atomic():
        for _ in range(3):
            audit_record(actor=SYSTEM, action="test.single", tenant_id=cast.tenant_a.pk)
    assert _lock_queries(captured) == 3


def test_a_batch_needs_the_callers_transaction():
    with pytest.raises(RuntimeError), audit_chain_held():
        pass


@pytest.mark.django_db(transaction=True)
def test_concurrent_extraction_keeps_the_chain_whole(cast):
    turns = [
        "I moved to Lisbon last month and I work at a bakery now.",
        "我每天早上喝一杯美式，不加糖。",
        "My daughter Ana is allergic to peanuts.",
    ]
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def worker(index: int) -> None:
        try:
            barrier.wait()
            for round_ in range(3):
                appended = events_append(
                    tenant=cast.tenant_a,
                    external_id=f"chain-{index}",
                    session_id=f"s{round_}",
                    events=[EventInput(role="user", content=t) for t in turns],
                    extract="sync",
                    actor=SYSTEM,
                )
                events_extract(event_ids=appended.new_event_ids, actor=SYSTEM)
        except BaseException as exc:  # noqa: BLE001 - reported in the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
    assert AuditEntry.objects.filter(action="memory.create").count() >= 4
    assert audit_chain_verify().ok
