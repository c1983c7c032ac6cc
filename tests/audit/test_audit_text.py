"""Audit entries hold ids and codes; a person's words (a reason, a client's request id, a
document id) live in an erasable side table that erasing the subject deletes."""

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry, AuditEntryText
from audit.selectors import audit_chain_verify
from audit.services import SYSTEM, Actor, audit_record
from memory.extraction.base import Candidate
from memory.services import memory_delete, memory_ingest, subject_get_or_create
from privacy.services import subject_erase

WORDS = "Jane said her boss Mr Dubois shouts at her"


def _chained_rows_containing(text: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM audit_auditentry a WHERE row_to_json(a)::text LIKE %s",
            [f"%{text}%"],
        )
        return cursor.fetchone()[0]


def test_it_keeps_free_text_out_of_the_chained_row(cast):
    actor = Actor(type="agent", id="7", request_id="jane-doe-ticket-42")
    entry = audit_record(
        actor=actor,
        action="memory.needs_review",
        target_type="knowledge.document",
        target_id="contract-jane-doe",
        tenant_id=cast.tenant_a.pk,
        subject_id=1,
        reason=WORDS,
    )
    row = AuditEntry.objects.get(pk=entry.pk)
    assert (row.reason_code, row.request_id, row.target_id) == ("", "", "")
    text = AuditEntryText.objects.get(entry=entry)
    assert (text.reason, text.request_id, text.target_ref) == (
        WORDS,
        "jane-doe-ticket-42",
        "contract-jane-doe",
    )
    assert AuditEntry.objects.select_related("text").get(pk=entry.pk).reason == WORDS


def test_it_keeps_ids_and_codes_in_the_chained_row(cast):
    request_id = "0f" * 16
    entry = audit_record(
        actor=Actor(type="agent", id="7", request_id=request_id),
        action="subject.erase",
        target_id=12345,
        tenant_id=cast.tenant_a.pk,
        reason_code="privacy_case:3f1c2d9e-0000-4000-8000-000000000000",
    )
    row = AuditEntry.objects.get(pk=entry.pk)
    assert (row.request_id, row.target_id) == (request_id, "12345")
    assert row.reason_code.startswith("privacy_case:")
    assert not AuditEntryText.objects.filter(entry=entry).exists()


def test_it_refuses_free_text_as_a_reason_code(cast):
    with pytest.raises(ValueError, match="short code"):
        audit_record(actor=SYSTEM, action="x", reason_code="Jane said so")


def test_erasure_deletes_the_persons_words_from_the_audit_log(cast):
    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="jane", actor=SYSTEM)
    memory = memory_ingest(
        subject=subject,
        candidate=Candidate(content="The user works at Acme", category="fact", confidence=0.9),
        occurred_at=timezone.now(),
        actor=SYSTEM,
    ).memory
    memory_delete(
        memory=memory, actor=Actor(type="user", id="1", request_id="jane-req-1"), reason=WORDS
    )
    assert AuditEntryText.objects.filter(subject_id=subject.pk, reason=WORDS).exists()

    receipt = subject_erase(subject=subject, actor=SYSTEM)

    assert receipt["deleted"]["audit_auditentrytext"] >= 1
    assert receipt["residue_total"] == 0
    assert not AuditEntryText.objects.filter(subject_id=subject.pk).exists()
    assert _chained_rows_containing("Dubois") == 0
    assert _chained_rows_containing("jane-req-1") == 0
    assert AuditEntry.objects.filter(subject_id=subject.pk, action="memory.delete").exists()
    assert audit_chain_verify().ok


def test_the_api_keeps_a_clients_request_id_erasable(cast):
    client = cast.alice_client
    response = client.post(
        "/api/v1/subjects/jane/memories",
        {"content": "The user likes green tea", "category": "preference"},
        format="json",
        HTTP_X_REQUEST_ID="jane-doe-visit",
    )
    assert response.status_code == 201
    assert _chained_rows_containing("jane-doe-visit") == 0
    assert AuditEntryText.objects.filter(request_id="jane-doe-visit").exists()
    assert client.delete("/api/v1/subjects/jane").status_code == 200
    assert not AuditEntryText.objects.filter(request_id="jane-doe-visit").exists()
    assert audit_chain_verify().ok


def test_the_console_audit_viewer_shows_the_text_until_erasure(cast, staff_user):
    from django.test import Client

    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="jane", actor=SYSTEM)
    audit_record(
        actor=SYSTEM,
        action="subject.pause",
        target=subject,
        tenant_id=subject.tenant_id,
        subject_id=subject.pk,
        reason=WORDS,
    )
    staff_user.is_superuser = True
    staff_user.save()
    browser = Client()
    browser.force_login(staff_user)
    url = reverse("console-audit")
    assert WORDS in browser.get(url).content.decode()
    csv = b"".join(browser.get(reverse("console-audit-csv")).streaming_content).decode()
    assert WORDS in csv

    subject_erase(subject=subject, actor=SYSTEM)

    assert WORDS not in browser.get(url).content.decode()
    csv = b"".join(browser.get(reverse("console-audit-csv")).streaming_content).decode()
    assert WORDS not in csv and "subject.pause" in csv
