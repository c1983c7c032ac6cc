"""Console privacy pages: cases and the audit viewer. Privacy officers (and admins) only;
staff limited to some tenants never see another tenant's cases or audit entries."""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import SYSTEM
from memory.models import Subject
from privacy.models import DataSubjectRequest
from privacy.services import case_open
from tests.privacy.conftest import client_for


def open_case(person, kind="access", tenant=None, **extra):
    return case_open(
        tenant=tenant or person.subject.tenant,
        subject=person.subject,
        kind=kind,
        requested_by_type="staff",
        requested_by_id=extra.pop("requested_by_id", "0"),
        actor=SYSTEM,
        **extra,
    )


def case_urls(case):
    return [
        reverse("console-privacy-case", args=[case.public_id]),
        reverse("console-privacy-case-export", args=[case.public_id]),
    ]


def post_urls(case):
    return [
        reverse(name, args=[case.public_id])
        for name in (
            "console-privacy-case-execute",
            "console-privacy-case-approve",
            "console-privacy-case-reject",
        )
    ]


def test_viewers_and_operators_get_403_everywhere(person_a, viewer_a, operator_a):
    case = open_case(person_a)
    pages = [
        reverse("console-privacy-cases"),
        reverse("console-privacy-case-open"),
        reverse("console-audit"),
        reverse("console-audit-csv"),
        *case_urls(case),
    ]
    for user in (viewer_a, operator_a):
        client = client_for(user)
        for url in pages:
            assert client.get(url).status_code == 403, url
        for url in post_urls(case):
            assert (
                client.post(url, {"reason": "x", "confirm_subject_id": "person-a"}).status_code
                == 403
            )
    case.refresh_from_db()
    assert case.status == "open"


def test_anonymous_visitors_are_sent_to_sign_in(client, person_a):
    case = open_case(person_a)
    for url in [reverse("console-privacy-cases"), reverse("console-audit"), *case_urls(case)]:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_end_users_get_403_on_console_privacy_pages(person_a):
    case = open_case(person_a)
    client = person_a.client()
    for url in [reverse("console-privacy-cases"), reverse("console-audit"), *case_urls(case)]:
        assert client.get(url).status_code == 403


def test_another_tenants_case_is_404(person_a, person_c, officer_a, officer_b):
    case_a, case_c = open_case(person_a), open_case(person_c)
    client = client_for(officer_b)
    for url in case_urls(case_a):
        assert client.get(url).status_code == 404
    for url in post_urls(case_a):
        assert client.post(url, {"reason": "x"}).status_code == 404
    listing = client.get(reverse("console-privacy-cases")).content.decode()
    assert "person-c" in listing and "person-a" not in listing
    assert client_for(officer_a).get(case_urls(case_c)[0]).status_code == 404
    case_a.refresh_from_db()
    assert case_a.status == "open"


def test_the_list_filters_by_kind_status_and_tenant(person_a, person_b, person_c, root):
    open_case(person_a, kind="access")
    open_case(person_b, kind="restriction")
    open_case(person_c, kind="access")
    client = client_for(root)
    body = client.get(reverse("console-privacy-cases"), {"kind": "restriction"}).content.decode()
    assert "person-b" in body and "person-a" not in body
    body = client.get(
        reverse("console-privacy-cases"), {"tenant": person_c.subject.tenant_id}
    ).content.decode()
    assert "person-c" in body and "person-b" not in body
    body = client.get(reverse("console-privacy-cases"), {"status": "completed"}).content.decode()
    assert "No cases match." in body


def test_overdue_cases_are_highlighted(person_a, person_b, officer_a):
    late = open_case(person_a)
    done_late = open_case(person_b, kind="rectification")
    past = timezone.now() - dt.timedelta(days=1)
    DataSubjectRequest.objects.filter(pk__in=[late.pk, done_late.pk]).update(due_at=past)
    DataSubjectRequest.objects.filter(pk=done_late.pk).update(status="completed")
    on_time = open_case(person_b, kind="access")
    client = client_for(officer_a)
    fragment = client.get(
        reverse("console-privacy-cases"), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="case-rows"
    ).content.decode()
    assert "<html" not in fragment
    rows = {
        str(case.public_id): fragment.split(str(case.public_id))[0].rsplit("<tr", 1)[1]
        for case in (late, done_late, on_time)
    }
    assert "overdue" in rows[str(late.public_id)]
    assert "overdue" not in rows[str(done_late.public_id)]
    assert "overdue" not in rows[str(on_time.public_id)]
    only = client.get(reverse("console-privacy-cases"), {"overdue": "on"}).content.decode()
    assert str(late.public_id) in only and str(on_time.public_id) not in only
    assert "1 overdue" in client.get(reverse("console-privacy-cases")).content.decode()


def test_an_officer_opens_a_case_for_a_person(person_a, officer_a):
    client = client_for(officer_a)
    assert client.get(reverse("console-privacy-case-open")).status_code == 200
    response = client.post(
        reverse("console-privacy-case-open"),
        {
            "tenant": person_a.subject.tenant_id,
            "subject_id": "person-a",
            "kind": "restriction_lift",
            "notes": "Asked by phone; identity checked.",
        },
    )
    case = DataSubjectRequest.objects.get(subject_pk=person_a.subject.pk)
    assert response.status_code == 302
    assert response["Location"] == reverse("console-privacy-case", args=[case.public_id])
    assert case.kind == "restriction" and case.lift and case.requested_by_type == "staff"
    assert case.requested_by_id == str(officer_a.pk)
    assert AuditEntry.objects.filter(action="privacy.restriction.open", actor_id=str(officer_a.pk))


def test_opening_a_case_for_unknown_or_foreign_subjects_fails(person_a, person_c, officer_a):
    client = client_for(officer_a)
    unknown = client.post(
        reverse("console-privacy-case-open"),
        {"tenant": person_a.subject.tenant_id, "subject_id": "nobody", "kind": "access"},
    )
    assert unknown.status_code == 200 and "no subject with this id" in unknown.content.decode()
    foreign = client.post(
        reverse("console-privacy-case-open"),
        {"tenant": person_c.subject.tenant_id, "subject_id": "person-c", "kind": "erasure"},
    )
    assert foreign.status_code == 200
    assert not DataSubjectRequest.objects.exists()


def test_erasure_needs_the_typed_subject_id(person_a, officer_a):
    case = open_case(person_a, kind="erasure")
    client = client_for(officer_a)
    url = reverse("console-privacy-case-execute", args=[case.public_id])
    for wrong in ("", "person-b"):
        response = client.post(url, {"confirm_subject_id": wrong}, follow=True)
        assert "Type the subject id exactly" in response.content.decode()
    assert Subject.objects.filter(pk=person_a.subject.pk).exists()
    response = client.post(url, {"confirm_subject_id": "person-a"}, follow=True)
    body = response.content.decode()
    assert not Subject.objects.filter(pk=person_a.subject.pk).exists()
    case.refresh_from_db()
    assert case.status == "completed" and case.receipt["residue_total"] == 0
    assert 'id="residue-total"><strong>0</strong>' in body and "deleted › memory_memory" in body
    assert "(erased)" in body


def test_second_officer_approval(person_a, officer_a, officer_a2, settings):
    settings.ENGRAM_ERASURE_REQUIRES_APPROVAL = True
    case = open_case(person_a, kind="erasure", requested_by_id=str(officer_a.pk))
    approve = reverse("console-privacy-case-approve", args=[case.public_id])
    execute = reverse("console-privacy-case-execute", args=[case.public_id])
    page = client_for(officer_a).get(reverse("console-privacy-case", args=[case.public_id]))
    assert "Approve erasure" in page.content.decode()
    response = client_for(officer_a).post(approve, follow=True)
    assert "second privacy officer" in response.content.decode()
    case.refresh_from_db()
    assert case.status == "awaiting_approval"
    client_for(officer_a2).post(approve)
    case.refresh_from_db()
    assert case.status == "open" and case.approved_by == officer_a2
    client_for(officer_a).post(execute, {"confirm_subject_id": "person-a"})
    case.refresh_from_db()
    assert case.status == "completed"


def test_reject_needs_a_reason(person_a, officer_a):
    case = open_case(person_a)
    url = reverse("console-privacy-case-reject", args=[case.public_id])
    client_for(officer_a).post(url, {"reason": ""})
    case.refresh_from_db()
    assert case.status == "open"
    client_for(officer_a).post(url, {"reason": "identity not verified"})
    case.refresh_from_db()
    assert case.status == "rejected" and "identity not verified" in case.notes
    again = client_for(officer_a).post(
        reverse("console-privacy-case-execute", args=[case.public_id]), follow=True
    )
    assert "cannot be executed again" in again.content.decode()


def test_access_export_progress_and_download(person_a, officer_a):
    case = open_case(person_a, kind="access")
    client = client_for(officer_a)
    status_url = reverse("console-privacy-case", args=[case.public_id])
    DataSubjectRequest.objects.filter(pk=case.pk).update(status="running", progress=60)
    fragment = client.get(
        status_url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="case-status"
    ).content.decode()
    assert 'id="case-status"' in fragment and "<html" not in fragment
    assert 'hx-trigger="every 2s"' in fragment and 'value="60"' in fragment
    DataSubjectRequest.objects.filter(pk=case.pk).update(status="open", progress=0)
    client.post(reverse("console-privacy-case-execute", args=[case.public_id]))
    case.refresh_from_db()
    assert case.status == "completed"
    fragment = client.get(
        status_url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="case-status"
    ).content.decode()
    assert "hx-trigger" not in fragment and "memories" in fragment
    download = client.get(reverse("console-privacy-case-export", args=[case.public_id]))
    assert download.status_code == 200
    assert b"person-a" in b"".join(download.streaming_content)
    assert AuditEntry.objects.filter(action="console.privacy.export", actor_id=str(officer_a.pk))


def test_restriction_case_pauses_from_the_console(person_a, officer_a):
    case = open_case(person_a, kind="restriction")
    client_for(officer_a).post(reverse("console-privacy-case-execute", args=[case.public_id]))
    person_a.subject.refresh_from_db()
    assert person_a.subject.paused


# --------------------------------------------------------------------------- audit viewer


@pytest.fixture
def audit_world(person_a, person_b, person_c):
    open_case(person_a, kind="access")
    open_case(person_c, kind="access")
    return person_a, person_b, person_c


def test_the_audit_viewer_is_scoped_to_the_officers_tenants(audit_world, officer_a, root):
    rows = client_for(officer_a).get(reverse("console-audit"), {"action": "privacy."})
    assert rows.content.decode().count("privacy.access.open") == 1
    all_rows = client_for(root).get(reverse("console-audit"), {"action": "privacy."}).content
    assert all_rows.decode().count("privacy.access.open") == 2


def test_the_audit_viewer_filters(audit_world, officer_a):
    client = client_for(officer_a)
    body = client.get(reverse("console-audit"), {"subject": "person-b"}).content.decode()
    assert "privacy.access.open" not in body and "No entries match." not in body
    body = client.get(
        reverse("console-audit"), {"actor_type": "agent", "action": "privacy."}
    ).content.decode()
    assert "No entries match." in body
    future = (timezone.now() + dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    body = client.get(reverse("console-audit"), {"since": future}).content.decode()
    assert "No entries match." in body
    fragment = client.get(
        reverse("console-audit"),
        {"action": "privacy."},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="audit-rows",
    ).content.decode()
    assert 'id="audit-rows"' in fragment and "<html" not in fragment


def test_the_audit_viewer_paginates(audit_world, officer_a, monkeypatch):
    monkeypatch.setattr("console.views.privacy.AUDIT_PER_PAGE", 5)
    client = client_for(officer_a)
    total = AuditEntry.objects.filter(tenant_id=audit_world[0].subject.tenant_id).count()
    assert total > 5
    first = client.get(reverse("console-audit")).content.decode()
    assert "Page 1 of" in first
    second = client.get(reverse("console-audit"), {"page": 2})
    assert second.status_code == 200 and "Page 2 of" in second.content.decode()


def read_csv(response):
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"].startswith("attachment")
    text = b"".join(response.streaming_content).decode()
    return list(csv.reader(io.StringIO(text)))


def test_the_csv_export_holds_exactly_the_filtered_rows(audit_world, officer_a):
    person_a = audit_world[0]
    client = client_for(officer_a)
    rows = read_csv(client.get(reverse("console-audit-csv"), {"subject": "person-a"}))
    header, body = rows[0], rows[1:]
    assert header[:5] == ["id", "created_at", "actor_type", "actor_id", "action"]
    expected = AuditEntry.objects.filter(subject_id=person_a.subject.pk)
    assert {int(row[0]) for row in body} == set(expected.values_list("pk", flat=True))
    assert all(row[header.index("subject_id")] == str(person_a.subject.pk) for row in body)
    everything = read_csv(client.get(reverse("console-audit-csv")))[1:]
    assert everything and all(
        row[header.index("tenant_id")] == str(person_a.subject.tenant_id) for row in everything
    )
    assert AuditEntry.objects.filter(action="console.audit.export", actor_id=str(officer_a.pk))


def test_the_csv_export_neutralises_formulas(person_a, officer_a):
    from privacy.services import case_reject

    case = open_case(person_a)
    case_reject(case=case, actor=SYSTEM, reason='=HYPERLINK("http://evil")')
    rows = read_csv(
        client_for(officer_a).get(reverse("console-audit-csv"), {"action": "privacy.access.reject"})
    )
    assert rows[1][rows[0].index("reason")].startswith("'=")
