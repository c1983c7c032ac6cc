"""Data-subject requests: open, approve, execute (access / rectification / erasure /
restriction), erase a subject with a residue scan, redact an event, build and clean exports.

Erasure deletes physically, in one transaction, every row that holds the subject's data —
events (through the trigger's audited erasure mode), memories and their embeddings,
observations, recall traces, object permissions, exports — and then proves it with a residue
scan of every table. Audit entries stay: they hold ids and field names, never content.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core import signing
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import Tenant
from accounts.services import subject_access_check
from audit.models import AuditEntry
from audit.services import Actor, audit_record
from core.exceptions import ApplicationError
from memory.models import Event, Memory, Observation, RecallTrace, Subject
from memory.services import content_hash, subject_set_paused
from privacy.models import DataSubjectRequest

logger = logging.getLogger(__name__)

EXPORT_SALT = "engram.privacy.export"
# Marked for translation (gettext_noop keeps the English value): the console and the person's
# page show them through gettext.
MSG_CONFIRM = gettext_noop("Type the subject id exactly to confirm the erasure.")
MSG_NEEDS_APPROVAL = gettext_noop("Erasure needs a second privacy officer's approval first.")
MSG_SELF_APPROVAL = gettext_noop(
    "A second privacy officer must approve (not the one who opened the case)."
)
MSG_NOT_OPEN = "This case is {status}; it cannot be executed again."
MSG_SUBJECT_GONE = gettext_noop("The subject of this case no longer exists.")
# Columns that keep the subject's numeric id on purpose (content-free audit trail, the case).
RETAINED_ID_COLUMNS = {
    ("audit_auditentry", "subject_id"),
    ("privacy_datasubjectrequest", "subject_pk"),
}
FINGERPRINT_LENGTH = 16
MAX_FINGERPRINTS = 50


# --------------------------------------------------------------------------- cases


def case_open(
    *,
    tenant: Tenant,
    subject: Subject,
    kind: str,
    requested_by_type: str,
    requested_by_id: str,
    actor: Actor,
    notes: str = "",
    lift: bool = False,
) -> DataSubjectRequest:
    if kind not in DataSubjectRequest.Kind.values:
        raise ApplicationError("invalid", f"Unknown request kind {kind!r}.")
    with transaction.atomic():
        case = DataSubjectRequest.objects.create(
            tenant=tenant,
            subject_pk=subject.pk,
            subject_label=subject.external_id,
            kind=kind,
            requested_by_type=requested_by_type,
            requested_by_id=str(requested_by_id)[:64],
            notes=notes,
            lift=lift,
            status=(
                DataSubjectRequest.Status.AWAITING_APPROVAL
                if kind == DataSubjectRequest.Kind.ERASURE
                and settings.ENGRAM_ERASURE_REQUIRES_APPROVAL
                else DataSubjectRequest.Status.OPEN
            ),
        )
        audit_record(
            actor=actor,
            action=f"privacy.{kind}.open",
            target=case,
            tenant_id=tenant.pk,
            subject_id=subject.pk,
        )
    return case


def case_approve(*, case: DataSubjectRequest, user: Any, actor: Actor) -> DataSubjectRequest:
    """Second privacy officer's approval of an erasure (when the setting requires it)."""
    if case.requested_by_type == DataSubjectRequest.Requester.STAFF and case.requested_by_id == str(
        user.pk
    ):
        raise ApplicationError("approval_invalid", MSG_SELF_APPROVAL, status_code=403)
    with transaction.atomic():
        case.approved_by = user
        if case.status == DataSubjectRequest.Status.AWAITING_APPROVAL:
            case.status = DataSubjectRequest.Status.OPEN
        case.save(update_fields=["approved_by", "status", "updated_at"])
        audit_record(
            actor=actor,
            action="privacy.erasure.approve",
            target=case,
            tenant_id=case.tenant_id,
            subject_id=case.subject_pk,
        )
    return case


def case_reject(*, case: DataSubjectRequest, actor: Actor, reason: str) -> DataSubjectRequest:
    with transaction.atomic():
        case.status = DataSubjectRequest.Status.REJECTED
        case.notes = (case.notes + f"\nRejected: {reason}").strip()
        case.save(update_fields=["status", "notes", "updated_at"])
        audit_record(
            actor=actor,
            action=f"privacy.{case.kind}.reject",
            target=case,
            tenant_id=case.tenant_id,
            subject_id=case.subject_pk,
            reason=reason,
        )
    return case


def _case_subject(case: DataSubjectRequest) -> Subject:
    subject = Subject.objects.filter(pk=case.subject_pk, tenant_id=case.tenant_id).first()
    if subject is None:
        raise ApplicationError("subject_gone", MSG_SUBJECT_GONE, status_code=409)
    return subject


def case_execute(
    *,
    case: DataSubjectRequest,
    actor: Actor,
    confirm_subject_id: str | None = None,
) -> DataSubjectRequest:
    """Carry a case out. Erasure and restriction finish here; access builds the export in a
    Celery task (progress on the case); rectification is done memory by memory through
    `memory_correct` / `event_redact` and closed here."""
    if case.status not in (DataSubjectRequest.Status.OPEN, DataSubjectRequest.Status.FAILED):
        if case.status == DataSubjectRequest.Status.AWAITING_APPROVAL:
            raise ApplicationError("needs_approval", MSG_NEEDS_APPROVAL, status_code=409)
        raise ApplicationError(
            "case_closed", MSG_NOT_OPEN.format(status=case.status), status_code=409
        )
    subject = _case_subject(case)
    kind = case.kind
    if kind == DataSubjectRequest.Kind.ERASURE:
        if confirm_subject_id is not None and confirm_subject_id != subject.external_id:
            raise ApplicationError(
                "confirmation_mismatch", MSG_CONFIRM, fields={"confirm_subject_id": [MSG_CONFIRM]}
            )
        if settings.ENGRAM_ERASURE_REQUIRES_APPROVAL and case.approved_by_id is None:
            raise ApplicationError("needs_approval", MSG_NEEDS_APPROVAL, status_code=409)
        subject_erase(subject=subject, actor=actor, case=case)
    elif kind == DataSubjectRequest.Kind.RESTRICTION:
        subject_set_paused(
            subject=subject,
            paused=not case.lift,
            actor=actor,
            reason=f"privacy case {case.public_id}",
        )
        _complete(case, actor, {"paused": not case.lift})
    elif kind == DataSubjectRequest.Kind.RECTIFICATION:
        corrected = AuditEntry.objects.filter(
            subject_id=subject.pk,
            action__in=["memory.correct", "event.redact"],
            created_at__gte=case.received_at,
        ).count()
        _complete(case, actor, {"corrections": corrected})
    else:
        _start_export(case, actor)
    case.refresh_from_db()
    return case


def _complete(case: DataSubjectRequest, actor: Actor, receipt: dict[str, Any]) -> None:
    with transaction.atomic():
        DataSubjectRequest.objects.filter(pk=case.pk).update(
            status=DataSubjectRequest.Status.COMPLETED,
            executed_at=timezone.now(),
            executed_by_type=actor.type,
            executed_by_id=actor.id,
            progress=100,
            progress_note="done",
            receipt=receipt,
        )
        audit_record(
            actor=actor,
            action=f"privacy.{case.kind}.execute",
            target=case,
            tenant_id=case.tenant_id,
            subject_id=case.subject_pk,
        )


# --------------------------------------------------------------------------- erasure


def subject_erase(
    *,
    subject: Subject,
    actor: Actor,
    case: DataSubjectRequest | None = None,
) -> dict[str, Any]:
    """Physically delete everything about one subject and prove it with a residue scan.

    1. Collect content fingerprints (memory and event content) before deleting.
    2. In one transaction: lock the subject, delete observations, recall traces, memories
       (embeddings go with the rows), events (trigger's erasure mode), object permissions and
       the subject row; unlink export files; open a case if none was given; audit.
    3. Scan every table for the subject's id and the fingerprints; the receipt lists rows
       deleted per table and the residue found (which must be zero).
    """
    subject_access_check(actor=actor, subject=subject)  # grants: 404 for an ungranted agent
    started = timezone.now()
    clock = time.perf_counter()
    timings: dict[str, float] = {}
    tenant_id, subject_pk, external_id = subject.tenant_id, subject.pk, subject.external_id
    fingerprints = _fingerprints(subject)
    timings["fingerprints"] = _lap(clock)
    export_paths = list(
        DataSubjectRequest.objects.filter(subject_pk=subject_pk)
        .exclude(export_path="")
        .values_list("export_path", flat=True)
    )
    end_user_id = subject.end_user_id
    deleted: dict[str, int] = {}
    with transaction.atomic():
        Subject.objects.select_for_update().filter(pk=subject_pk).first()
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL engram.event_write = 'erase'")
            statements = [
                (
                    "memory_observation_related_memories",
                    "DELETE FROM memory_observation_related_memories WHERE observation_id IN "
                    "(SELECT id FROM memory_observation WHERE subject_id = %s)",
                ),
                ("memory_observation", "DELETE FROM memory_observation WHERE subject_id = %s"),
                ("memory_recalltrace", "DELETE FROM memory_recalltrace WHERE subject_id = %s"),
                ("memory_memory", "DELETE FROM memory_memory WHERE subject_id = %s"),
                ("memory_event", "DELETE FROM memory_event WHERE subject_id = %s"),
            ]
            for table, sql in statements:
                cursor.execute(sql, [subject_pk])
                deleted[table] = cursor.rowcount
        content_type = ContentType.objects.get_for_model(Subject)
        from guardian.models import GroupObjectPermission, UserObjectPermission

        perms = 0
        for model in (UserObjectPermission, GroupObjectPermission):
            perms += model.objects.filter(
                content_type=content_type, object_pk=str(subject_pk)
            ).delete()[0]
        deleted["guardian_object_permissions"] = perms
        Subject.objects.filter(pk=subject_pk).delete()
        deleted["memory_subject"] = 1
        if end_user_id is not None:
            from django.contrib.auth import get_user_model

            # The person's own sign-in account is their data too (staff accounts never are).
            _, per_model = (
                get_user_model()
                .objects.filter(pk=end_user_id, is_staff=False, is_superuser=False)
                .delete()
            )
            deleted["auth_user"] = per_model.get(get_user_model()._meta.label, 0)
        DataSubjectRequest.objects.filter(subject_pk=subject_pk).update(
            subject_label="", export_path="", export_expires_at=None
        )
        if case is None:
            case = DataSubjectRequest.objects.create(
                tenant_id=tenant_id,
                subject_pk=subject_pk,
                kind=DataSubjectRequest.Kind.ERASURE,
                requested_by_type=(
                    DataSubjectRequest.Requester.AGENT
                    if actor.type == "agent"
                    else DataSubjectRequest.Requester.STAFF
                ),
                requested_by_id=actor.id,
            )
        audit_record(
            actor=actor,
            action="subject.erase",
            target_type="memory.subject",
            target_id=subject_pk,
            tenant_id=tenant_id,
            subject_id=subject_pk,
            reason=f"privacy case {case.public_id}",
            changed_fields=sorted(table for table, n in deleted.items() if n),
        )
        _clear_cached_keys(subject_pk)
    timings["delete"] = _lap(clock) - timings["fingerprints"]
    files = _unlink(export_paths)
    residue = residue_scan(
        subject_pk=subject_pk, external_id=external_id, fingerprints=fingerprints
    )
    timings["residue_scan"] = _lap(clock) - timings["delete"] - timings["fingerprints"]
    receipt = {
        "case_id": str(case.public_id),
        "subject_pk": subject_pk,
        "started_at": started.isoformat(),
        "completed_at": timezone.now().isoformat(),
        "deleted": deleted,
        "export_files_deleted": files,
        "residue": residue,
        "residue_total": sum(residue.values()),
        "audit_entries_retained": AuditEntry.objects.filter(subject_id=subject_pk).count(),
        "timings_ms": {name: round(value, 1) for name, value in timings.items()},
    }
    _complete(case, actor, receipt)
    return receipt


def _lap(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _fingerprints(subject: Subject) -> list[str]:
    """Distinctive snippets of the subject's content (middle of the longest texts)."""
    texts = list(
        Memory.objects.filter(subject=subject)
        .order_by("-id")
        .values_list("content", flat=True)[:MAX_FINGERPRINTS]
    )
    texts += [
        e.content
        for e in Event.objects.filter(subject=subject)
        .only("content")
        .order_by("-id")[:MAX_FINGERPRINTS]
    ]
    snippets: list[str] = []
    for text in sorted(set(texts), key=len, reverse=True):
        text = " ".join(text.split())
        if len(text) < 8:
            continue
        middle = max(0, (len(text) - FINGERPRINT_LENGTH) // 2)
        snippet = text[middle : middle + FINGERPRINT_LENGTH]
        if snippet not in snippets:
            snippets.append(snippet)
        if len(snippets) >= MAX_FINGERPRINTS:
            break
    return snippets


def residue_scan(*, subject_pk: int, external_id: str, fingerprints: list[str]) -> dict[str, int]:
    """Rows anywhere in the database that still point at the subject or hold its content.

    Id columns named subject_id / subject_pk (except the retained, content-free ones),
    guardian object permissions, the external id in `external_id` columns, and the content
    fingerprints in every text or JSON column of every table."""
    found: dict[str, int] = {}
    patterns = [f"%{_like_escape(snippet)}%" for snippet in fingerprints]
    subject_ct = ContentType.objects.get_for_model(Subject).pk
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        )
        columns = cursor.fetchall()
        by_table: dict[str, list[tuple[str, str]]] = {}
        for table, column, data_type in columns:
            by_table.setdefault(table, []).append((column, data_type))
        for table, cols in by_table.items():
            conditions: list[str] = []
            params: list[Any] = []
            for column, data_type in cols:
                quoted = connection.ops.quote_name(column)
                if (
                    column in ("subject_id", "subject_pk")
                    and (table, column) not in RETAINED_ID_COLUMNS
                    and data_type in ("bigint", "integer")
                ):
                    conditions.append(f"{quoted} = %s")
                    params.append(subject_pk)
                elif column == "external_id":
                    conditions.append(f"{quoted} = %s")
                    params.append(external_id)
                elif patterns and data_type in ("text", "character varying", "jsonb", "json"):
                    conditions.append(f"{quoted}::text LIKE ANY(%s)")
                    params.append(patterns)
            if table.startswith("guardian_") and any(c == "object_pk" for c, _ in cols):
                conditions.append("(content_type_id = %s AND object_pk = %s)")
                params += [subject_ct, str(subject_pk)]
            if not conditions:
                continue
            cursor.execute(
                f"SELECT count(*) FROM {connection.ops.quote_name(table)} "  # noqa: S608
                f"WHERE {' OR '.join(conditions)}",
                params,
            )
            count = cursor.fetchone()[0]
            if count:
                found[table] = count
    return found


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _clear_cached_keys(subject_pk: int) -> None:
    from django.core.cache import cache

    try:
        cache.delete_many([f"subject:{subject_pk}", f"profile:{subject_pk}"])
    except Exception:  # noqa: BLE001 - a cache outage must not block an erasure
        logger.warning("cache unavailable while erasing subject %s", subject_pk)


def _unlink(paths: list[str]) -> int:
    removed = 0
    for path in paths:
        try:
            os.remove(path)
            removed += 1
        except FileNotFoundError:
            continue
        html_path = Path(path).with_suffix(".html")
        if html_path.exists():
            html_path.unlink()
    return removed


# --------------------------------------------------------------------------- rectification


def event_redact(
    *,
    event: Event,
    actor: Actor,
    reason: str,
    replacement: str | None = None,
) -> Event:
    """The one audited path that may change an event's content: replace it (by default with
    its PII-redacted version)."""
    from memory import pii

    new_content = replacement if replacement is not None else pii.redact(event.content).text
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL engram.event_write = 'redact'")
        Event.objects.filter(pk=event.pk).update(
            content=new_content, content_hash=content_hash(new_content)
        )
        audit_record(
            actor=actor,
            action="event.redact",
            target=event,
            tenant_id=event.subject.tenant_id,
            subject_id=event.subject_id,
            reason=reason,
            changed_fields=["content"],
        )
    event.refresh_from_db()
    return event


# --------------------------------------------------------------------------- access export


def _start_export(case: DataSubjectRequest, actor: Actor) -> None:
    from privacy.tasks import build_export as build_export_task

    with transaction.atomic():
        DataSubjectRequest.objects.filter(pk=case.pk).update(
            status=DataSubjectRequest.Status.RUNNING,
            progress=1,
            progress_note="queued",
            executed_by_type=actor.type,
            executed_by_id=actor.id,
        )
        audit_record(
            actor=actor,
            action="privacy.access.execute",
            target=case,
            tenant_id=case.tenant_id,
            subject_id=case.subject_pk,
        )
    try:
        build_export_task.delay(case.pk)
    except Exception:  # noqa: BLE001 - broker down: build inline rather than lose the request
        logger.warning("broker unavailable; building export for case %s inline", case.pk)
        export_build(case_id=case.pk)


def _progress(case_id: int, percent: int, note: str) -> None:
    DataSubjectRequest.objects.filter(pk=case_id).update(progress=percent, progress_note=note)


def subject_export_data(*, subject: Subject) -> dict[str, Any]:
    """Everything about one subject, and nothing about anyone else."""
    memories = (
        Memory.objects.filter(subject=subject)
        .defer("embedding", "search_vector", "search_text")
        .order_by("id")
    )
    return {
        "subject": {
            "id": subject.external_id,
            "display_name": subject.display_name,
            "paused": subject.paused,
            "created_at": subject.created_at.isoformat(),
        },
        "events": [
            {
                "id": e.pk,
                "session_id": e.session_id,
                "role": e.role,
                "type": e.type,
                "content": e.content,
                "occurred_at": e.occurred_at.isoformat(),
                "metadata": e.metadata,
            }
            for e in Event.objects.filter(subject=subject).order_by("occurred_at", "id")
        ],
        "memories": [
            {
                "id": m.pk,
                "kind": m.kind,
                "category": m.category,
                "content": m.content,
                "status": m.status,
                "version": m.version,
                "supersedes": m.supersedes_id,
                "superseded_by": m.superseded_by_id,
                "entities": m.entities,
                "importance": m.importance,
                "confidence": m.confidence,
                "source_event_id": m.source_event_id,
                "source_quote": m.source_quote,
                "valid_from": m.valid_from.isoformat(),
                "valid_to": m.valid_to.isoformat() if m.valid_to else None,
                "created_at": m.created_at.isoformat(),
            }
            for m in memories
        ],
        "observations": [
            {
                "id": o.pk,
                "kind": o.kind,
                "status": o.status,
                "memory_id": o.memory_id,
                "reason": o.reason,
                "created_at": o.created_at.isoformat(),
            }
            for o in Observation.objects.filter(subject=subject).order_by("id")
        ],
        "recall_traces": [
            {
                "id": str(t.trace_id),
                "query": t.query,
                "route": t.route,
                "selected_ids": t.selected_ids,
                "created_at": t.created_at.isoformat(),
            }
            for t in RecallTrace.objects.filter(subject=subject).order_by("id")
        ],
        "audit_entries": [
            {
                "action": a.action,
                "actor_type": a.actor_type,
                "target_type": a.target_type,
                "target_id": a.target_id,
                "reason": a.reason,
                "changed_fields": a.changed_fields,
                "created_at": a.created_at.isoformat(),
            }
            for a in AuditEntry.objects.filter(subject_id=subject.pk).order_by("id")
        ],
    }


def export_build(*, case_id: int) -> str:
    """Build the JSON + HTML export of an access case, reporting progress on the case."""
    case = DataSubjectRequest.objects.get(pk=case_id)
    subject = _case_subject(case)
    _progress(case_id, 10, "collecting data")
    data = subject_export_data(subject=subject)
    data["case"] = {"id": str(case.public_id), "generated_at": timezone.now().isoformat()}
    _progress(case_id, 60, "writing files")
    directory = Path(settings.ENGRAM_EXPORT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    token = hashlib.sha256(f"{case.public_id}{os.urandom(16).hex()}".encode()).hexdigest()[:24]
    path = directory / f"export-{case.pk}-{token}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    path.with_suffix(".html").write_text(export_html(data), encoding="utf-8")
    expires = timezone.now() + dt.timedelta(hours=settings.ENGRAM_EXPORT_RETENTION_HOURS)
    DataSubjectRequest.objects.filter(pk=case_id).update(
        export_path=str(path), export_expires_at=expires
    )
    _complete(
        case,
        _executor(case),
        {
            "events": len(data["events"]),
            "memories": len(data["memories"]),
            "observations": len(data["observations"]),
            "recall_traces": len(data["recall_traces"]),
            "audit_entries": len(data["audit_entries"]),
            "expires_at": expires.isoformat(),
        },
    )
    return str(path)


def _executor(case: DataSubjectRequest) -> Actor:
    case.refresh_from_db()
    return Actor(type=case.executed_by_type or "system", id=case.executed_by_id or "export")


def export_failed(*, case_id: int, error: str) -> None:
    DataSubjectRequest.objects.filter(pk=case_id).update(
        status=DataSubjectRequest.Status.FAILED, progress_note=error[:200]
    )


def export_html(data: dict[str, Any]) -> str:
    """A readable, self-contained HTML version of the export."""
    esc = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>Engram export {esc(data['subject']['id'])}</title>",
        "<style>body{font:15px/1.5 system-ui,sans-serif;max-width:900px;margin:2rem auto;"
        "padding:0 1rem}td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;"
        "vertical-align:top}table{border-collapse:collapse;width:100%}</style></head><body>",
        f"<h1>Data export · {esc(data['subject']['id'])}</h1>",
        f"<p>Generated {esc(data['case']['generated_at'])}</p>",
        "<h2>Memories</h2><table><tr><th>Category</th><th>Content</th><th>Status</th>"
        "<th>Version</th><th>Since</th></tr>",
    ]
    for memory in data["memories"]:
        parts.append(
            f"<tr><td>{esc(memory['category'])}</td><td>{esc(memory['content'])}</td>"
            f"<td>{esc(memory['status'])}</td><td>{memory['version']}</td>"
            f"<td>{esc(memory['valid_from'][:10])}</td></tr>"
        )
    parts.append(
        "</table><h2>Conversation events</h2><table><tr><th>When</th><th>Role</th>"
        "<th>Content</th></tr>"
    )
    for event in data["events"]:
        parts.append(
            f"<tr><td>{esc(event['occurred_at'][:16])}</td><td>{esc(event['role'])}</td>"
            f"<td>{esc(event['content'])}</td></tr>"
        )
    parts.append(
        "</table><h2>Audit trail</h2><table><tr><th>When</th><th>Action</th><th>By</th></tr>"
    )
    for entry in data["audit_entries"]:
        parts.append(
            f"<tr><td>{esc(entry['created_at'][:16])}</td><td>{esc(entry['action'])}"
            f"</td><td>{esc(entry['actor_type'])}</td></tr>"
        )
    parts.append("</table></body></html>")
    return "".join(parts)


def export_link_token(case: DataSubjectRequest) -> str:
    return signing.dumps({"case": str(case.public_id)}, salt=EXPORT_SALT)


def export_case_from_token(token: str) -> DataSubjectRequest:
    """The case of a download link, or a 404-style error when forged or expired."""
    try:
        payload = signing.loads(
            token, salt=EXPORT_SALT, max_age=settings.ENGRAM_EXPORT_LINK_MAX_AGE
        )
    except signing.BadSignature as exc:
        raise ApplicationError(
            "link_expired", "This download link is invalid or has expired.", status_code=404
        ) from exc
    case = DataSubjectRequest.objects.filter(public_id=payload.get("case")).first()
    if case is None or not case.export_path or not Path(case.export_path).exists():
        raise ApplicationError(
            "link_expired", "This export is no longer available.", status_code=404
        )
    return case


def exports_cleanup(*, actor: Actor, now: dt.datetime | None = None) -> int:
    """Delete export files past their retention (a beat job)."""
    now = now or timezone.now()
    cases = list(
        DataSubjectRequest.objects.exclude(export_path="").filter(export_expires_at__lte=now)
    )
    for case in cases:
        _unlink([case.export_path])
        with transaction.atomic():
            DataSubjectRequest.objects.filter(pk=case.pk).update(
                export_path="", export_expires_at=None
            )
            audit_record(
                actor=actor,
                action="privacy.export.delete",
                target=case,
                tenant_id=case.tenant_id,
                subject_id=case.subject_pk,
                reason="retention period over",
            )
    return len(cases)
