"""Concurrent writers for one subject: the subject row lock serialises decisions."""

import threading

import pytest
from django.db import connection
from django.utils import timezone

from audit.services import SYSTEM
from memory.extraction.base import Candidate
from memory.models import Memory, Subject
from memory.services import memory_ingest

pytestmark = pytest.mark.django_db(transaction=True)


def run_in_threads(count, target):
    barrier = threading.Barrier(count)
    errors = []

    def worker(index):
        try:
            barrier.wait()
            target(index)
        except Exception as exc:  # noqa: BLE001 - re-raised in the main thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def test_concurrent_duplicates_end_as_one_memory(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="race")

    def write(_):
        memory_ingest(
            subject=subject,
            occurred_at=timezone.now(),
            actor=SYSTEM,
            candidate=Candidate(
                content="用户不吃辣",
                category="preference",
                slot="diet",
                values=["!辣"],
                confidence=0.8,
            ),
        )

    run_in_threads(6, write)
    memories = Memory.objects.filter(subject=subject)
    assert memories.count() == 1
    assert memories.get().merge_count == 5


def test_concurrent_firm_updates_never_leave_two_active_versions(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="race2")
    earlier = timezone.now() - timezone.timedelta(days=1)
    memory_ingest(
        subject=subject,
        occurred_at=earlier,
        actor=SYSTEM,
        candidate=Candidate(
            content="用户出差默认订汉庭酒店",
            category="preference",
            slot="hotel",
            values=["汉庭"],
            confidence=0.7,
        ),
    )

    def write(index):
        memory_ingest(
            subject=subject,
            occurred_at=timezone.now(),
            actor=SYSTEM,
            candidate=Candidate(
                content="用户出差酒店统一订全季",
                category="preference",
                slot="hotel",
                values=["全季"],
                confidence=0.95,
            ),
        )

    run_in_threads(4, write)
    active = Memory.objects.filter(subject=subject, status="active")
    assert active.count() == 1
    assert "全季" in active.get().content
    old = Memory.objects.get(subject=subject, content__contains="汉庭")
    assert old.status == "superseded" and old.superseded_by_id == active.get().pk
