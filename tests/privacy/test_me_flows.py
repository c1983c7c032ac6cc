"""/me/ end to end: correct, delete, pause/resume, download my data, forget everything."""

import json

from django.contrib.auth import get_user_model
from django.urls import reverse

from audit.models import AuditEntry
from memory.models import Event, Memory, Subject
from privacy.models import DataSubjectRequest
from privacy.services import export_link_token


def active(person):
    return Memory.objects.filter(subject=person.subject, status="active").order_by("id")


def test_it_groups_memories_with_friendly_headings_and_sources(person_a):
    body = person_a.client().get(reverse("me-home")).content.decode()
    memory = active(person_a).first()
    assert memory.content in body
    assert memory.source_quote and memory.source_quote in body
    assert "What you like and prefer" in body or "About you" in body


def test_it_shows_the_page_in_chinese(person_a):
    client = person_a.client()
    client.cookies["django_language"] = "zh-hans"
    response = client.get(reverse("me-home"))
    assert response.status_code == 200 and 'lang="zh-hans"' in response.content.decode()


def test_correcting_makes_a_new_version(person_a):
    memory = active(person_a).first()
    response = person_a.client().post(
        reverse("me-correct", args=[memory.pk]), {"content": "我能吃一点微辣"}
    )
    assert response.status_code == 302
    memory.refresh_from_db()
    assert memory.status == "superseded"
    new = Memory.objects.get(supersedes=memory)
    assert new.content == "我能吃一点微辣" and new.version == memory.version + 1
    entry = AuditEntry.objects.get(action="memory.correct", subject_id=person_a.subject.pk)
    assert entry.actor_type == "user" and entry.actor_id == str(person_a.user.pk)


def test_correcting_with_htmx_returns_the_list_fragment(person_a):
    memory = active(person_a).first()
    response = person_a.client().post(
        reverse("me-correct", args=[memory.pk]),
        {"content": "I like mild food"},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="memories"' in body and "<html" not in body
    assert "I like mild food" in body and "Thanks, we corrected it." in body


def test_an_empty_correction_changes_nothing(person_a):
    memory = active(person_a).first()
    person_a.client().post(reverse("me-correct", args=[memory.pk]), {"content": "   "})
    memory.refresh_from_db()
    assert memory.status == "active"


def test_a_superseded_memory_cannot_be_corrected_again(person_a):
    memory = active(person_a).first()
    client = person_a.client()
    client.post(reverse("me-correct", args=[memory.pk]), {"content": "v2"})
    assert (
        client.post(reverse("me-correct", args=[memory.pk]), {"content": "v3"}).status_code == 404
    )


def test_deleting_removes_the_row(person_a):
    memory = active(person_a).first()
    response = person_a.client().post(reverse("me-delete", args=[memory.pk]))
    assert response.status_code == 302
    assert not Memory.objects.filter(pk=memory.pk).exists()
    assert AuditEntry.objects.filter(action="memory.delete", target_id=str(memory.pk)).exists()


def test_pause_and_resume_are_restriction_cases(person_a):
    client = person_a.client()
    client.post(reverse("me-pause"), {"paused": "1"})
    person_a.subject.refresh_from_db()
    assert person_a.subject.paused
    case = DataSubjectRequest.objects.get(subject_pk=person_a.subject.pk, kind="restriction")
    assert case.status == "completed" and case.requested_by_type == "end_user" and not case.lift
    assert "Memory is paused." in client.get(reverse("me-home")).content.decode()
    client.post(reverse("me-pause"), {"paused": "0"})
    person_a.subject.refresh_from_db()
    assert not person_a.subject.paused
    assert DataSubjectRequest.objects.filter(
        subject_pk=person_a.subject.pk, kind="restriction", lift=True, status="completed"
    ).exists()


def test_download_my_data_end_to_end(person_a, person_b):
    client = person_a.client()
    response = client.post(reverse("me-export"))
    assert response.status_code == 302 and response["Location"] == reverse("me-export")
    case = DataSubjectRequest.objects.get(subject_pk=person_a.subject.pk, kind="access")
    assert case.status == "completed" and case.requested_by_type == "end_user"
    page = client.get(reverse("me-export")).content.decode()
    token = export_link_token(case)
    assert "/me/download/" in page and "hx-trigger" not in page
    download = client.get(reverse("me-download", args=[token]))
    assert download.status_code == 200
    assert download["Content-Disposition"].startswith("attachment")
    data = json.loads(b"".join(download.streaming_content))
    assert data["subject"]["id"] == "person-a"
    text = json.dumps(data, ensure_ascii=False)
    assert "不吃辣" in text and "aisle" not in text
    html = client.get(reverse("me-download", args=[token]) + "?format=html")
    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")
    assert "default-src 'none'" in html["Content-Security-Policy"]
    assert (
        AuditEntry.objects.filter(
            action="portal.export.download", subject_id=person_a.subject.pk
        ).count()
        == 2
    )


def test_export_progress_is_polled_until_completed(person_a):
    client = person_a.client()
    client.post(reverse("me-export"))
    case = DataSubjectRequest.objects.get(subject_pk=person_a.subject.pk, kind="access")
    DataSubjectRequest.objects.filter(pk=case.pk).update(status="running", progress=40)
    fragment = client.get(reverse("me-export"), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="export-status"' in fragment and "<html" not in fragment
    assert 'hx-trigger="every 2s"' in fragment and 'value="40"' in fragment
    DataSubjectRequest.objects.filter(pk=case.pk).update(status="completed", progress=100)
    done = client.get(reverse("me-export"), HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in done and "/me/download/" in done
    # while it runs, a second click does not start another case
    DataSubjectRequest.objects.filter(pk=case.pk).update(status="running")
    client.post(reverse("me-export"))
    assert DataSubjectRequest.objects.filter(subject_pk=person_a.subject.pk).count() == 1


def test_forget_everything_needs_the_confirmation_word(person_a):
    client = person_a.client()
    assert client.get(reverse("me-forget")).status_code == 200
    response = client.post(reverse("me-forget"), {"confirm": "yes"})
    assert response.status_code == 200 and "not the confirmation word" in response.content.decode()
    assert Subject.objects.filter(pk=person_a.subject.pk).exists()
    assert not DataSubjectRequest.objects.filter(kind="erasure").exists()


def test_forget_everything_erases_signs_out_and_shows_the_receipt(person_a, person_b):
    pk, user_pk = person_a.subject.pk, person_a.user.pk
    client = person_a.client()
    client.post(reverse("me-export"))  # an export file that must go too
    response = client.post(reverse("me-forget"), {"confirm": "forget"})
    assert response.status_code == 302 and response["Location"] == reverse("me-goodbye")
    assert not Subject.objects.filter(pk=pk).exists()
    assert not Event.objects.filter(subject_id=pk).exists()
    assert not get_user_model().objects.filter(pk=user_pk).exists()
    case = DataSubjectRequest.objects.get(subject_pk=pk, kind="erasure")
    assert case.status == "completed" and case.requested_by_type == "end_user"
    goodbye = client.get(reverse("me-goodbye"))
    body = goodbye.content.decode()
    assert goodbye.status_code == 200 and str(case.public_id) in body
    assert '<dd class="residue">0</dd>' in body
    assert client.get(reverse("me-home")).status_code == 302  # signed out
    assert Subject.objects.filter(pk=person_b.subject.pk).exists()


def test_forget_everything_waits_for_an_officer_when_required(person_a, settings):
    settings.ENGRAM_ERASURE_REQUIRES_APPROVAL = True
    client = person_a.client()
    response = client.post(reverse("me-forget"), {"confirm": "FORGET"})
    assert response.status_code == 200 and "privacy officer" in response.content.decode()
    assert Subject.objects.filter(pk=person_a.subject.pk).exists()
    client.post(reverse("me-forget"), {"confirm": "FORGET"})
    assert DataSubjectRequest.objects.filter(kind="erasure").count() == 1
