import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import SYSTEM
from memory.models import Event, Memory, Observation, RecallTrace, Subject
from privacy.models import DataSubjectRequest
from privacy.services import (
    case_execute,
    case_open,
    event_redact,
    export_case_from_token,
    export_link_token,
    exports_cleanup,
)

EVENTS = "/api/v1/subjects/{}/events"


def converse(client, subject, lines):
    events = [{"role": "user", "content": line} for line in lines]
    response = client.post(
        EVENTS.format(subject),
        {"session_id": "s1", "events": events, "extract": "sync"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    client.post(f"/api/v1/subjects/{subject}/recall", {"query": "推荐餐厅"}, format="json")


@pytest.fixture
def people(cast):
    lines = {
        "alice-person": [
            "我不吃辣，以后推荐餐厅记得避开辣味。",
            "我在杭州做产品经理，手机 13812345678。",
        ],
        "bob-person": ["I always prefer aisle seats on flights.", "我是素食者，不吃肉。"],
    }
    for index in range(8):
        lines[f"other-{index}"] = [
            f"我喜欢第{index}号咖啡店的拿铁，每周去三次。",
            "以后帮我订酒店默认订全季。",
        ]
    for subject, said in lines.items():
        converse(cast.alice_client, subject, said)
    return {s.external_id: s for s in Subject.objects.filter(tenant=cast.tenant_a)}


def counts(subject_pk):
    return {
        "events": Event.objects.filter(subject_id=subject_pk).count(),
        "memories": Memory.objects.filter(subject_id=subject_pk).count(),
        "traces": RecallTrace.objects.filter(subject_id=subject_pk).count(),
    }


def test_erasure_leaves_no_rows_and_no_residue_and_spares_others(cast, people):
    target = people["alice-person"]
    others_before = {pk: counts(pk) for pk in (s.pk for s in people.values()) if pk != target.pk}
    assert counts(target.pk)["memories"] > 0
    response = cast.alice_client.delete("/api/v1/subjects/alice-person")
    assert response.status_code == 200, response.json()
    receipt = response.json()
    assert receipt["residue_total"] == 0 and receipt["residue"] == {}
    assert receipt["deleted"]["memory_event"] == 2
    assert receipt["deleted"]["memory_memory"] >= 1
    assert counts(target.pk) == {"events": 0, "memories": 0, "traces": 0}
    assert not Subject.objects.filter(pk=target.pk).exists()
    assert {pk: counts(pk) for pk in others_before} == others_before
    # the audit trail stays, content-free
    entries = AuditEntry.objects.filter(subject_id=target.pk)
    assert entries.filter(action="subject.erase").exists()
    for entry in entries:
        assert "辣" not in entry.reason and "13812345678" not in entry.reason
    case = DataSubjectRequest.objects.get(subject_pk=target.pk)
    assert case.status == "completed" and case.receipt["residue_total"] == 0


def test_the_residue_scan_finds_leftovers(cast, people):
    from privacy.services import residue_scan

    target = people["bob-person"]
    memory = Memory.objects.filter(subject=target).first()
    found = residue_scan(
        tenant_id=target.tenant_id,
        subject_pk=target.pk,
        external_id=target.external_id,
        fingerprints=[memory.content[2:14]],
    )
    assert found.residue["memory_memory"] >= 1 and found.residue["memory_event"] == 2
    assert found.residue["memory_subject"] == 1


def test_erase_requires_the_erase_scope_and_hides_other_tenants(cast, people):
    assert cast.charlie_client.delete("/api/v1/subjects/alice-person").status_code == 404
    assert cast.bob_client.delete("/api/v1/subjects/alice-person").status_code == 404
    assert cast.bob_client.delete("/api/v1/subjects/granted-1").status_code == 403
    assert cast.alice_client.delete("/api/v1/subjects/never-seen").status_code == 404
    assert Subject.objects.filter(external_id="alice-person").exists()


def test_console_erasure_needs_the_typed_subject_id(cast, people):
    subject = people["bob-person"]
    case = case_open(
        tenant=cast.tenant_a,
        subject=subject,
        kind="erasure",
        requested_by_type="staff",
        requested_by_id="1",
        actor=SYSTEM,
    )
    from core.exceptions import ApplicationError

    with pytest.raises(ApplicationError, match="Type the subject id"):
        case_execute(case=case, actor=SYSTEM, confirm_subject_id="wrong")
    assert Subject.objects.filter(pk=subject.pk).exists()
    case = case_execute(case=case, actor=SYSTEM, confirm_subject_id="bob-person")
    assert case.status == "completed" and not Subject.objects.filter(pk=subject.pk).exists()


def test_second_officer_approval_when_required(cast, people, settings, django_user_model):
    from core.exceptions import ApplicationError
    from privacy.services import case_approve

    settings.ENGRAM_ERASURE_REQUIRES_APPROVAL = True
    opener = django_user_model.objects.create_user("po1", is_staff=True)
    second = django_user_model.objects.create_user("po2", is_staff=True)
    subject = people["bob-person"]
    case = case_open(
        tenant=cast.tenant_a,
        subject=subject,
        kind="erasure",
        requested_by_type="staff",
        requested_by_id=str(opener.pk),
        actor=SYSTEM,
    )
    assert case.status == "awaiting_approval"
    with pytest.raises(ApplicationError, match="approval"):
        case_execute(case=case, actor=SYSTEM, confirm_subject_id="bob-person")
    with pytest.raises(ApplicationError, match="second privacy officer"):
        case_approve(case=case, user=opener, actor=SYSTEM)
    case_approve(case=case, user=second, actor=SYSTEM)
    case = case_execute(case=case, actor=SYSTEM, confirm_subject_id="bob-person")
    assert case.status == "completed"


def test_access_export_contains_everything_of_the_subject_and_nothing_else(cast, people):
    subject = people["alice-person"]
    case = case_open(
        tenant=cast.tenant_a,
        subject=subject,
        kind="access",
        requested_by_type="end_user",
        requested_by_id="x",
        actor=SYSTEM,
    )
    case = case_execute(case=case, actor=SYSTEM)
    assert case.status == "completed" and case.progress == 100
    data = json.loads(Path(case.export_path).read_text(encoding="utf-8"))
    assert data["subject"]["id"] == "alice-person"
    assert len(data["events"]) == Event.objects.filter(subject=subject).count()
    assert len(data["memories"]) == Memory.objects.filter(subject=subject).count()
    assert len(data["recall_traces"]) == RecallTrace.objects.filter(subject=subject).count()
    assert data["audit_entries"]
    text = json.dumps(data, ensure_ascii=False)
    assert "13812345678" in text  # the raw event keeps the original: it is theirs
    for other in ("bob-person", "aisle", "素食", "咖啡店"):
        assert other not in text
    assert Path(case.export_path).with_suffix(".html").exists()
    # the link works, then expires with the file
    token = export_link_token(case)
    assert export_case_from_token(token).pk == case.pk
    DataSubjectRequest.objects.filter(pk=case.pk).update(export_expires_at=case.received_at)
    assert exports_cleanup(actor=SYSTEM) == 1
    assert not Path(case.export_path).exists()


def test_erasure_deletes_export_files(cast, people):
    subject = people["alice-person"]
    case = case_execute(
        case=case_open(
            tenant=cast.tenant_a,
            subject=subject,
            kind="access",
            requested_by_type="staff",
            requested_by_id="1",
            actor=SYSTEM,
        ),
        actor=SYSTEM,
    )
    path = Path(case.export_path)
    assert path.exists()
    cast.alice_client.delete("/api/v1/subjects/alice-person")
    assert not path.exists() and not path.with_suffix(".html").exists()


def test_the_export_lists_recall_traces_by_memory_id_and_signals(cast, people):
    from privacy.services import subject_export_data

    subject = people["alice-person"]
    data = subject_export_data(subject=subject)
    trace = data["recall_traces"][0]
    stored = RecallTrace.objects.get(trace_id=trace["id"])
    assert [c["id"] for c in trace["candidates"]] == [c["id"] for c in stored.candidates]
    assert trace["candidates"] and all("signals" in c for c in trace["candidates"])
    assert not [c for c in trace["candidates"] if "content" in c]
    # the text of the memories the trace names is in the export once: under "memories"
    exported = {m["id"]: m["content"] for m in data["memories"]}
    assert set(trace["selected_ids"]) <= set(exported)


def test_restriction_blocks_writes_and_recalls_until_lifted(cast, people):
    subject = people["bob-person"]
    case_execute(
        case=case_open(
            tenant=cast.tenant_a,
            subject=subject,
            kind="restriction",
            requested_by_type="end_user",
            requested_by_id="x",
            actor=SYSTEM,
        ),
        actor=SYSTEM,
    )
    before = Event.objects.filter(subject=subject).count()
    response = cast.alice_client.post(
        EVENTS.format("bob-person"),
        {"session_id": "s", "events": [{"role": "user", "content": "new"}]},
        format="json",
    )
    assert response.status_code == 423
    assert response.json()["error"]["code"] == "subject_paused"
    assert Event.objects.filter(subject=subject).count() == before
    recall = cast.alice_client.post(
        "/api/v1/subjects/bob-person/recall", {"query": "seat"}, format="json"
    )
    assert recall.status_code == 423
    case_execute(
        case=case_open(
            tenant=cast.tenant_a,
            subject=subject,
            kind="restriction",
            requested_by_type="end_user",
            requested_by_id="x",
            lift=True,
            actor=SYSTEM,
        ),
        actor=SYSTEM,
    )
    assert (
        cast.alice_client.post(
            "/api/v1/subjects/bob-person/recall", {"query": "seat"}, format="json"
        ).status_code
        == 200
    )


def test_event_redaction_is_the_one_audited_path(cast, people):
    event = Event.objects.filter(subject=people["alice-person"], content__isnull=False).last()
    event_redact(event=event, actor=SYSTEM, reason="user asked")
    event.refresh_from_db()
    assert "13812345678" not in event.content and "[PHONE]" in event.content
    assert AuditEntry.objects.filter(action="event.redact", target_id=str(event.pk)).exists()


def test_audit_verify_catches_tampering_behind_the_applications_back(cast, people):
    call_command("audit_verify")
    victim = AuditEntry.objects.order_by("id")[3]
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_auditentry DISABLE TRIGGER audit_auditentry_append_only")
        cursor.execute("UPDATE audit_auditentry SET reason = 'tampered' WHERE id = %s", [victim.pk])
        cursor.execute("ALTER TABLE audit_auditentry ENABLE TRIGGER audit_auditentry_append_only")
    with pytest.raises(CommandError, match=f"broken at entry {victim.pk}"):
        call_command("audit_verify")


def test_observations_go_with_the_subject(cast, people):
    subject = people["bob-person"]
    cast.alice_client.post(
        "/api/v1/subjects/bob-person/memories",
        {"content": "The user might like jazz", "category": "preference", "confidence": 0.3},
        format="json",
    )
    assert Observation.objects.filter(subject=subject).exists()
    cast.alice_client.delete("/api/v1/subjects/bob-person")
    assert not Observation.objects.filter(subject_id=subject.pk).exists()


def test_an_event_stored_with_very_deep_metadata_does_not_break_the_export(cast, people):
    # metadata that deep is refused at the door now (core/validation.py); rows stored before
    # must still export
    subject = people["alice-person"]
    deep: dict = {"leaf": "bottom"}
    for _ in range(600):  # the pure-Python encoder of indent=2 gave up at a few hundred
        deep = {"k": deep}
    Event.objects.create(
        subject=subject,
        session_id="old",
        role="user",
        content="stored before metadata was validated",
        occurred_at=timezone.now(),
        metadata={"note": "kept", "deep": deep},
    )
    case = case_open(
        tenant=cast.tenant_a,
        subject=subject,
        kind="access",
        requested_by_type="end_user",
        requested_by_id="x",
        actor=SYSTEM,
    )
    case = case_execute(case=case, actor=SYSTEM)
    assert case.status == "completed"
    data = json.loads(Path(case.export_path).read_text(encoding="utf-8"))
    exported = next(e for e in data["events"] if e["metadata"].get("note") == "kept")
    assert "nested deeper than" in json.dumps(exported["metadata"])
