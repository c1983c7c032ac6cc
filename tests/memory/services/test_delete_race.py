"""Deleting a memory while it is being corrected: the delete waits for the correction (both
lock the subject row) and then unlinks the new version, instead of failing the foreign key at
COMMIT (a 500 the schema fuzzer found)."""

import threading
import time

import pytest
from django.db import connection, transaction

from audit.services import SYSTEM
from memory.models import Memory, Subject
from memory.services import memory_correct, memory_delete
from tests.factories import make_memory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_delete_racing_a_correction_unlinks_the_new_version(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="race")
    v1 = make_memory(subject, "The user prefers aisle seats", category="preference")
    corrected = threading.Event()
    release = threading.Event()
    errors: list[Exception] = []

    def correct():
        try:
            with transaction.atomic():
                memory_correct(memory=v1, content="The user prefers window seats", actor=SYSTEM)
                corrected.set()
                release.wait(10)  # keep the correction's locks until the delete is waiting
        except Exception as exc:  # noqa: BLE001 - re-raised in the main thread below
            errors.append(exc)
        finally:
            connection.close()

    def delete():
        try:
            memory_delete(memory=Memory.objects.get(pk=v1.pk), actor=SYSTEM)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    correcting = threading.Thread(target=correct)
    correcting.start()
    assert corrected.wait(10)
    deleting = threading.Thread(target=delete)
    deleting.start()
    time.sleep(0.5)  # the delete is now blocked on a lock the correction holds
    release.set()
    correcting.join(10)
    deleting.join(10)

    assert errors == []
    assert not Memory.objects.filter(pk=v1.pk).exists()
    v2 = Memory.objects.get(subject=subject)
    assert v2.version == 2 and v2.supersedes_id is None and v2.status == "active"
