"""Audited writers under real concurrency (real threads, real PostgreSQL).

Before the fix `audit_record` took one global chain lock in the middle of each transaction and
the deferred foreign-key checks ran at COMMIT while it was held, so a writer holding a subject
row lock (memory write, erasure) and a writer holding the chain lock waited for each other:
PostgreSQL broke the cycle with `deadlock detected` (SQLSTATE 40P01).
"""

import threading
import uuid

import pytest
from django.db import OperationalError, connection
from django.test import RequestFactory
from django.utils import timezone

from audit.models import AuditEntry
from audit.selectors import audit_chain_verify
from audit.services import SYSTEM
from memory.extraction.base import Candidate
from memory.models import RecallTrace, Subject
from memory.services import (
    EventInput,
    events_append,
    memory_ingest,
    recall_record,
    subject_get_or_create,
)
from privacy.portal import portal_link_for
from privacy.services import subject_erase

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8
ROUNDS = 6


def _run_in_threads(count, target):
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def worker(index):
        try:
            barrier.wait()
            target(index)
        except BaseException as exc:  # noqa: BLE001 - reported in the main thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def _trace(subject, selected):
    return {
        "trace_id": str(uuid.uuid4()),
        "subject_id": subject.pk,
        "agent_id": None,
        "query": "where does the user live",
        "route": "hybrid",
        "parameters": {},
        "candidates": [],
        "selected_ids": selected,
        "context": "",
        "token_count": 0,
        "timings_ms": {},
        "total_ms": 1.0,
    }


def test_it_does_not_deadlock_audited_writers_of_one_tenant(cast):
    shared = [
        subject_get_or_create(tenant=cast.tenant_a, external_id=f"shared-{i}", actor=SYSTEM)
        for i in range(2)
    ]
    seeded = {
        subject.pk: memory_ingest(
            subject=subject,
            candidate=Candidate(content="The user lives in Lyon", category="fact", confidence=0.9),
            occurred_at=timezone.now(),
            actor=SYSTEM,
        ).memory.pk
        for subject in shared
    }
    request = RequestFactory().post("/")
    traces_written: list[str] = []

    def work(index):
        for round_ in range(ROUNDS):
            subject = shared[(index + round_) % len(shared)]
            step = (index + round_) % 4
            if step == 0:
                memory_ingest(
                    subject=subject,
                    candidate=Candidate(
                        content=f"The user likes tea number {index}-{round_}",
                        category="preference",
                        confidence=0.9,
                    ),
                    occurred_at=timezone.now(),
                    actor=SYSTEM,
                )
            elif step == 1:
                events_append(
                    tenant=cast.tenant_a,
                    external_id=subject.external_id,
                    session_id="s",
                    events=[EventInput(role="user", content=f"hello {index}-{round_}")],
                    extract="none",
                    actor=SYSTEM,
                )
            elif step == 2:
                trace = _trace(subject, [seeded[subject.pk]])
                recall_record(trace=trace, actor=SYSTEM)
                traces_written.append(trace["trace_id"])
                portal_link_for(subject=subject, request=request, actor=SYSTEM)
            else:
                doomed = subject_get_or_create(
                    tenant=cast.tenant_a, external_id=f"doomed-{index}-{round_}", actor=SYSTEM
                )
                events_append(
                    tenant=cast.tenant_a,
                    external_id=doomed.external_id,
                    session_id="s",
                    events=[EventInput(role="user", content="erase me")],
                    extract="none",
                    actor=SYSTEM,
                )
                subject_erase(subject=Subject.objects.get(pk=doomed.pk), actor=SYSTEM)

    errors = _run_in_threads(THREADS, work)

    deadlocks = [e for e in errors if isinstance(e, OperationalError)]
    assert not deadlocks, f"{len(deadlocks)} deadlocks, first: {deadlocks[0]}"
    assert not errors, errors[0]
    assert RecallTrace.objects.filter(trace_id__in=traces_written).count() == len(traces_written)
    assert AuditEntry.objects.filter(action="memory.recall").count() == len(traces_written)
    assert audit_chain_verify().ok
