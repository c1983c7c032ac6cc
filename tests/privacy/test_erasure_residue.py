"""The erasure receipt tells the subject's own residue from other people's identical text,
and erasure leaves nothing of the person's words in Redis (the query-rewrite cache)."""

import pytest
import redis
from django.conf import settings
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.urls import reverse

from accounts.models import ROLE_PRIVACY_OFFICER
from audit.services import SYSTEM
from memory.models import Memory, Subject
from memory.recall import cached_rewrite, rewrite_cache_keys
from privacy.services import (
    RESIDUE_EXPORT_FILES,
    RESIDUE_REWRITE_CACHE,
    _fingerprints,
    case_open,
    residue_scan,
    subject_erase,
)
from tests.factories import make_staff
from tests.privacy.conftest import client_for, converse

pytest_plugins = ["tests.fake_openai"]

SENTENCE = "I always book the window seat on the night train to Vienna."
MARKER = "WOMBAT7731"


def erase(cast, external_id: str) -> dict:
    response = cast.alice_client.delete(f"/api/v1/subjects/{external_id}")
    assert response.status_code == 200, response.json()
    return response.json()


def redis_blobs() -> list[bytes]:
    """Every key and value of the test Redis database, as bytes."""
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    blobs = []
    for key in client.scan_iter(count=1000):
        blobs.append(key)
        if client.type(key) == b"string":
            blobs.append(client.get(key) or b"")
    return blobs


class TestSharedText:
    def test_a_neighbours_identical_sentence_is_shared_text_not_residue(self, cast):
        converse(cast.alice_client, "alice-p", [SENTENCE])
        converse(cast.alice_client, "neighbour", [SENTENCE])
        neighbour = Subject.objects.get(tenant=cast.tenant_a, external_id="neighbour")
        assert Memory.objects.filter(subject=neighbour).exists()

        receipt = erase(cast, "alice-p")

        assert receipt["residue"] == {} and receipt["residue_total"] == 0
        # event content is encrypted at rest: only the neighbour's memory shows the words
        assert receipt["shared_text"] == {"memory_memory": 1}
        assert receipt["shared_text_total"] == 1
        assert Memory.objects.filter(subject=neighbour).exists()  # theirs, kept

    def test_other_tenants_same_id_and_words_are_neither_residue_nor_reported(self, cast):
        converse(cast.alice_client, "same-id", [SENTENCE])
        converse(cast.charlie_client, "same-id", [SENTENCE])

        receipt = erase(cast, "same-id")

        assert receipt["residue_total"] == 0 and receipt["residue"] == {}
        assert receipt["shared_text"] == {} and receipt["shared_text_total"] == 0
        assert Subject.objects.filter(tenant=cast.tenant_b, external_id="same-id").exists()

    def test_the_subjects_own_words_in_a_row_nobody_owns_are_residue(self, cast, django_user_model):
        converse(cast.alice_client, "alice-p", [SENTENCE])
        subject = Subject.objects.get(tenant=cast.tenant_a, external_id="alice-p")
        fingerprints = _fingerprints(subject)
        LogEntry.objects.create(
            user=django_user_model.objects.create_user("admin-log"),
            content_type=ContentType.objects.get_for_model(Subject),
            object_id=str(subject.pk),
            object_repr="x",
            action_flag=CHANGE,
            change_message=f"pasted: {SENTENCE}",
        )
        subject_erase(subject=subject, actor=SYSTEM)
        scan = residue_scan(
            tenant_id=cast.tenant_a.pk,
            subject_pk=subject.pk,
            external_id="alice-p",
            fingerprints=fingerprints,
        )
        assert scan.residue == {"django_admin_log": 1} and scan.shared_text == {}

    def test_the_subjects_words_in_a_retained_row_of_theirs_are_residue(self, cast):
        converse(cast.alice_client, "alice-p", [SENTENCE])
        subject = Subject.objects.get(tenant=cast.tenant_a, external_id="alice-p")
        case = case_open(
            tenant=cast.tenant_a,
            subject=subject,
            kind="erasure",
            requested_by_type="staff",
            requested_by_id="1",
            notes=f"The person wrote: {SENTENCE}",
            actor=SYSTEM,
        )
        receipt = subject_erase(subject=subject, actor=SYSTEM, case=case)
        # the case keeps the subject's id on purpose, but not the person's words
        assert receipt["residue"] == {"privacy_datasubjectrequest": 1}

    def test_a_recall_trace_waiting_for_the_broker_is_erased_with_the_person(self, cast):
        from core.models import OutboxMessage
        from core.outbox import outbox_enqueue
        from memory.tasks import record_recall as record_recall_task

        converse(cast.alice_client, "alice-p", [SENTENCE])
        subject = Subject.objects.get(tenant=cast.tenant_a, external_id="alice-p")
        # the broker is down: the trace of a recall with the person's words waits in the outbox
        outbox_enqueue(
            task=record_recall_task,
            args=[{"subject_id": subject.pk, "query": f"night train to Vienna {MARKER}"}, {}],
            relay_on_commit=False,
            subject_id=subject.pk,
        )
        other = outbox_enqueue(task=record_recall_task, args=[{}, {}], relay_on_commit=False)

        receipt = erase(cast, "alice-p")

        assert receipt["residue_total"] == 0
        assert list(OutboxMessage.objects.values_list("pk", flat=True)) == [other.pk]

    def test_export_files_left_behind_are_residue(self, cast, tmp_path):
        left = tmp_path / "export-1.json"
        left.write_text("{}")
        scan = residue_scan(
            tenant_id=cast.tenant_a.pk,
            subject_pk=10**9,
            external_id="nobody",
            fingerprints=[],
            export_paths=[str(left), str(tmp_path / "gone.json")],
        )
        assert scan.residue == {RESIDUE_EXPORT_FILES: 1}


class TestConsoleReceipt:
    def test_the_case_page_shows_zero_residue_and_explains_shared_text(self, cast):
        converse(cast.alice_client, "alice-p", [SENTENCE])
        converse(cast.alice_client, "neighbour", [SENTENCE])
        receipt = erase(cast, "alice-p")
        officer = make_staff("po", role=ROLE_PRIVACY_OFFICER, tenants=[cast.tenant_a])
        page = client_for(officer).get(reverse("console-privacy-case", args=[receipt["case_id"]]))
        body = page.content.decode()
        assert page.status_code == 200
        assert 'id="residue-total"><strong>0</strong>' in body
        assert "still stored" not in body
        assert 'id="shared-text"' in body and "it is not residue" in body
        assert "residue_total" not in body  # the raw figure is not listed as a plain row


class TestRewriteCache:
    @pytest.fixture
    def rewriting(self, settings, fake_openai):
        settings.ENGRAM_RECALL_QUERY_REWRITE = True
        settings.OPENAI_API_KEY = "sk-test"
        settings.OPENAI_BASE_URL = fake_openai.base_url
        cache.clear()
        return fake_openai

    def test_erasure_leaves_nothing_of_the_persons_words_in_redis(self, cast, rewriting):
        converse(cast.alice_client, "alice-p", ["I prefer aisle seats."])
        rewriting.queue_chat_json({"query": f"seat preference of {MARKER}", "entities": [MARKER]})
        response = cast.alice_client.post(
            "/api/v1/subjects/alice-p/recall", {"query": f"where does {MARKER} sit"}, format="json"
        )
        assert response.status_code == 200
        assert any(MARKER.encode() in blob for blob in redis_blobs())  # cached, as it should be

        receipt = erase(cast, "alice-p")

        assert not any(MARKER.encode() in blob for blob in redis_blobs())
        assert RESIDUE_REWRITE_CACHE not in receipt["residue"]
        assert receipt["residue_total"] == 0

    def test_the_cache_is_per_subject(self, cast, rewriting):
        converse(cast.alice_client, "p1", ["I prefer aisle seats."])
        converse(cast.alice_client, "p2", ["I prefer window seats."])
        one, two = Subject.objects.filter(external_id__in=["p1", "p2"]).order_by("external_id")
        rewriting.queue_chat_json({"query": "seat of one", "entities": []})
        rewriting.queue_chat_json({"query": "seat of two", "entities": []})
        assert cached_rewrite(subject=one, query="my seat?") == ("seat of one", [])
        assert cached_rewrite(subject=two, query="my seat?") == ("seat of two", [])
        assert cached_rewrite(subject=one, query="my seat?") == ("seat of one", [])
        assert len(rewriting.requests_to("chat")) == 2

    def test_a_rewrite_finished_after_the_erasure_is_not_cached(self, cast, rewriting):
        converse(cast.alice_client, "alice-p", ["I prefer aisle seats."])
        stale = Subject.objects.get(external_id="alice-p")  # a recall that started before
        subject_erase(subject=Subject.objects.get(pk=stale.pk), actor=SYSTEM)
        rewriting.queue_chat_json({"query": f"seat of {MARKER}", "entities": []})

        assert cached_rewrite(subject=stale, query="my seat?") == (f"seat of {MARKER}", [])

        keys = rewrite_cache_keys(tenant_id=stale.tenant_id, subject_pk=stale.pk)
        assert cache.get_many(keys) == {}
        assert not any(MARKER.encode() in blob for blob in redis_blobs())
