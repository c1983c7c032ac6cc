"""Data-subject requests: open, approve, execute (access / rectification / erasure /
restriction), erase a subject with a residue scan, redact an event, build and clean exports.

Erasure deletes physically, in one transaction, every row that holds the subject's data —
events (through the trigger's audited erasure mode), memories and their embeddings,
observations, recall traces, object permissions, exports — clears the subject's cache entries,
and then proves it with a residue scan of every table, the export files and the cache. The scan
tells the subject's own residue (must be zero) from the same words held by other people of the
tenant (reported apart: they belong to those people and stay). Audit entries stay: they hold
ids and field names, never content.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import json
import logging
import os
import time
from dataclasses import dataclass, field
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
from audit.services import Actor, audit_erase_subject_text, audit_record
from core.exceptions import ApplicationError
from memory.models import Event, Memory, Observation, RecallTrace, Subject
from memory.recall import rewrite_cache_clear, rewrite_cache_count, trace_candidate_stripped
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
# Of those, at most this many come from identifiers and reasons (session ids, client event ids,
# change reasons, linked document ids) rather than from the content itself.
MAX_IDENTIFIER_FINGERPRINTS = 10
MIN_FINGERPRINT_TEXT = 8
# Residue outside the database, named apart from table names in the receipt.
RESIDUE_EXPORT_FILES = "files:exports"
RESIDUE_REWRITE_CACHE = "redis:recall_rewrite"
RESIDUE_CACHE_UNCHECKED = "redis:unreachable"


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

    1. Collect fingerprints (memory and event content, session / client event ids, change
       reasons) before deleting.
    2. In one transaction: lock the subject, delete observations, recall traces, memories
       (embeddings and versions go with the rows), events (trigger's erasure mode), object
       permissions and the subject row; open a case if none was given; audit.
    3. After the commit: clear the subject's cache entries (query rewrites), unlink export
       files.
    4. Scan every table, the export files and the cache (`residue_scan`); the receipt lists
       rows deleted per table, the subject's residue (which must be zero) and, apart, how many
       rows of other people in the tenant hold the same words (`shared_text`, kept).
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
        # of=self: Subject orders by tenant slug, so a bare FOR UPDATE would lock the tenant too.
        Subject.objects.select_for_update(of=("self",)).filter(pk=subject_pk).first()
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
                # messages still waiting for the broker (a recall trace holds the query)
                ("core_outboxmessage", "DELETE FROM core_outboxmessage WHERE subject_id = %s"),
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
        # The free text of the subject's audit entries (reasons, client ids); the chained
        # entries themselves hold ids and codes only and stay.
        deleted["audit_auditentrytext"] = audit_erase_subject_text(subject_id=subject_pk)
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
            # A code, not free text: an erasable text row would itself be residue.
            reason_code=f"privacy_case:{case.public_id}",
            changed_fields=sorted(table for table, n in deleted.items() if n),
        )
    # After the commit: a recall running meanwhile re-checks the subject after caching
    # (memory.recall.cached_rewrite), so nothing it caches can outlive this clear.
    _clear_cached_keys(tenant_id=tenant_id, subject_pk=subject_pk)
    timings["delete"] = _lap(clock) - timings["fingerprints"]
    files = _unlink(export_paths)
    scan = residue_scan(
        tenant_id=tenant_id,
        subject_pk=subject_pk,
        external_id=external_id,
        end_user_id=end_user_id,
        fingerprints=fingerprints,
        export_paths=export_paths,
    )
    timings["residue_scan"] = _lap(clock) - timings["delete"] - timings["fingerprints"]
    receipt = {
        "case_id": str(case.public_id),
        "subject_pk": subject_pk,
        "started_at": started.isoformat(),
        "completed_at": timezone.now().isoformat(),
        "deleted": deleted,
        "export_files_deleted": files,
        "residue": scan.residue,
        "residue_total": scan.residue_total,
        "shared_text": scan.shared_text,
        "shared_text_total": scan.shared_text_total,
        "audit_entries_retained": AuditEntry.objects.filter(subject_id=subject_pk).count(),
        "timings_ms": {name: round(value, 1) for name, value in timings.items()},
    }
    _complete(case, actor, receipt)
    return receipt


def _lap(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _fingerprints(subject: Subject) -> list[str]:
    """Distinctive snippets of what the subject said and what was kept about them: the middle
    of the longest memory and event texts, and the subject's session ids, client event ids,
    change reasons and linked document ids (whole when short)."""
    memories = Memory.objects.filter(subject=subject).order_by("-id")
    events = Event.objects.filter(subject=subject).order_by("-id")
    identifiers = [
        *memories.exclude(change_reason="").values_list("change_reason", flat=True)[:10],
        *memories.exclude(linked_doc_id="").values_list("linked_doc_id", flat=True).distinct()[:5],
        *events.values_list("session_id", flat=True).distinct()[:10],
        *events.exclude(client_event_id=None).values_list("client_event_id", flat=True)[:20],
    ]
    texts = [
        *memories.values_list("content", flat=True)[:MAX_FINGERPRINTS],
        *memories.exclude(source_quote="").values_list("source_quote", flat=True)[:10],
        *events.values_list("content", flat=True)[:MAX_FINGERPRINTS],
    ]
    snippets: list[str] = []
    for group, limit in (
        (identifiers, MAX_IDENTIFIER_FINGERPRINTS),
        (texts, MAX_FINGERPRINTS),
    ):
        taken = 0
        for text in sorted({" ".join((t or "").split()) for t in group}, key=len, reverse=True):
            if len(text) < MIN_FINGERPRINT_TEXT:
                continue
            middle = max(0, (len(text) - FINGERPRINT_LENGTH) // 2)
            snippet = text[middle : middle + FINGERPRINT_LENGTH]
            if snippet not in snippets:
                snippets.append(snippet)
                taken += 1
            if taken >= limit or len(snippets) >= MAX_FINGERPRINTS:
                break
    return snippets


@dataclass
class ResidueScan:
    """What an erasure left: `residue` is the subject's own (rows still tied to them, rows
    nobody else owns that hold their words, export files, cache entries) and must be empty;
    `shared_text` counts rows of *other* subjects of the tenant holding the same words (a
    neighbour who said the same sentence): theirs, kept, and no sign of an incomplete erasure."""

    residue: dict[str, int] = field(default_factory=dict)
    shared_text: dict[str, int] = field(default_factory=dict)

    @property
    def residue_total(self) -> int:
        return sum(self.residue.values())

    @property
    def shared_text_total(self) -> int:
        return sum(self.shared_text.values())


SUBJECT_ID_COLUMNS = ("subject_id", "subject_pk")
TEXT_TYPES = ("text", "character varying", "jsonb", "json", "_text", "_varchar")


def residue_scan(
    *,
    tenant_id: int,
    subject_pk: int,
    external_id: str,
    fingerprints: list[str],
    end_user_id: int | None = None,
    export_paths: list[str] | None = None,
) -> ResidueScan:
    """Everything that still points at the subject or holds their words, after an erasure.

    1. Database, table by table (one query each). The subject's residue: rows whose
       subject_id / subject_pk is the subject (except the retained, content-free audit and case
       columns), the subject row, the person's account, guardian object permissions, the
       external id in the tenant's `external_id` columns, and rows holding a fingerprint in a
       text / JSON / array column unless another subject owns the row. A fingerprint in a row
       of another subject of the tenant counts as shared text; other tenants are not reported.
    2. Export files of the subject's cases that still exist.
    3. Cache: the subject's query-rewrite buckets."""
    scan = ResidueScan()
    _scan_tables(
        scan,
        tenant_id=tenant_id,
        subject_pk=subject_pk,
        external_id=external_id,
        end_user_id=end_user_id,
        fingerprints=fingerprints,
    )
    left = sum(
        1
        for path in export_paths or []
        for candidate in (Path(path), Path(path).with_suffix(".html"))
        if candidate.exists()
    )
    if left:
        scan.residue[RESIDUE_EXPORT_FILES] = left
    try:
        cached = rewrite_cache_count(tenant_id=tenant_id, subject_pk=subject_pk)
    except Exception:  # noqa: BLE001 - cannot prove the cache is clear: say so
        scan.residue[RESIDUE_CACHE_UNCHECKED] = 1
    else:
        if cached:
            scan.residue[RESIDUE_REWRITE_CACHE] = cached
    return scan


def _scan_tables(
    scan: ResidueScan,
    *,
    tenant_id: int,
    subject_pk: int,
    external_id: str,
    end_user_id: int | None,
    fingerprints: list[str],
) -> None:
    """Step 1 of `residue_scan`: one counting query per table (own, shared)."""
    patterns = [f"%{_like_escape(snippet)}%" for snippet in fingerprints]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name, data_type, udt_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        )
        by_table: dict[str, dict[str, str]] = {}
        for table, column, data_type, udt_name in cursor.fetchall():
            # Arrays by element type ("_text", "_varchar"): a bigint[] holds no words.
            by_table.setdefault(table, {})[column] = udt_name if data_type == "ARRAY" else data_type
        for table, cols in by_table.items():
            query = _table_scan_sql(
                table,
                cols,
                tenant_id=tenant_id,
                subject_pk=subject_pk,
                external_id=external_id,
                end_user_id=end_user_id,
                patterns=patterns,
            )
            if query is None:
                continue
            cursor.execute(*query)
            own_count, shared_count = cursor.fetchone()
            if own_count:
                scan.residue[table] = own_count
            if shared_count:
                scan.shared_text[table] = shared_count


def _table_scan_sql(
    table: str,
    cols: dict[str, str],
    *,
    tenant_id: int,
    subject_pk: int,
    external_id: str,
    end_user_id: int | None,
    patterns: list[str],
) -> tuple[str, list[Any]] | None:
    """The (own, shared) counting query of one table, or None when nothing applies.

    Each row is marked once (tied to the subject by id? holds a fingerprint? whose is it?) in a
    materialized CTE, so the costly LIKE runs once per row however the counts use it."""
    quote = connection.ops.quote_name
    subject_table = Subject._meta.db_table
    tied: list[str] = []
    params: list[Any] = []
    tenant_scoped = "tenant_id" in cols
    # The column that says whose row it is (the subject table's own id).
    owner = (
        "id"
        if table == subject_table
        else next((c for c in SUBJECT_ID_COLUMNS if cols.get(c) in ("bigint", "integer")), None)
    )
    if owner and (table, owner) not in RETAINED_ID_COLUMNS:
        tied.append(f"{quote(owner)} = %s")
        params.append(subject_pk)
    if table == _user_table() and end_user_id is not None:
        tied.append("id = %s")
        params.append(end_user_id)
    if "external_id" in cols:
        # External ids are unique per tenant only: another tenant's "u1" is someone else.
        tied.append(
            "(external_id = %s AND tenant_id = %s)" if tenant_scoped else "external_id = %s"
        )
        params += [external_id, tenant_id] if tenant_scoped else [external_id]
    if table.startswith("guardian_") and "object_pk" in cols:
        tied.append("(content_type_id = %s AND object_pk = %s)")
        params += [ContentType.objects.get_for_model(Subject).pk, str(subject_pk)]
    text_cols = [c for c, data_type in cols.items() if data_type in TEXT_TYPES]
    holds = " OR ".join(f"{quote(c)}::text LIKE ANY(%s)" for c in text_cols) if patterns else ""
    if not (tied or holds):
        return None
    params += [patterns] * len(text_cols) if holds else []
    if owner is None:
        # Nobody else can be shown to own the words: they count as the subject's.
        whose, same_tenant = "NULL::bigint", "false"
    else:
        whose = quote(owner)
        # Another subject's row holding the same words is theirs: reported apart, and only
        # within the tenant (what other tenants hold is not this receipt's business).
        same_tenant = (
            "tenant_id = %s"
            if tenant_scoped
            else f"{quote(owner)} IN (SELECT id FROM {quote(subject_table)} WHERE tenant_id = %s)"  # noqa: S608
        )
        params.append(tenant_id)
    sql = (
        f"WITH marked AS MATERIALIZED (SELECT ({' OR '.join(tied) or 'false'}) AS tied, "  # noqa: S608
        f"({holds or 'false'}) AS holds, {whose} AS whose, ({same_tenant}) AS same_tenant "
        f"FROM {quote(table)}) "
        "SELECT count(*) FILTER (WHERE tied OR (holds AND (whose = %s OR whose IS NULL))), "
        "count(*) FILTER (WHERE holds AND NOT tied AND whose <> %s AND same_tenant) "
        "FROM marked WHERE tied OR holds"
    )
    return sql, [*params, subject_pk, subject_pk]


def _user_table() -> str:
    from django.contrib.auth import get_user_model

    return get_user_model()._meta.db_table


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _clear_cached_keys(*, tenant_id: int, subject_pk: int) -> None:
    from django.core.cache import cache

    try:
        cache.delete_many([f"subject:{subject_pk}", f"profile:{subject_pk}"])
        rewrite_cache_clear(tenant_id=tenant_id, subject_pk=subject_pk)
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
    """Mark the case running and queue its build through the outbox (same transaction)."""
    from core.outbox import outbox_enqueue, outbox_relay
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
        message = outbox_enqueue(
            task=build_export_task,
            args=[case.pk],
            relay_on_commit=False,
            subject_id=case.subject_pk,
        )
    outbox_relay(ids=[message.pk])


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
                "metadata": export_safe_json(e.metadata),
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
                # ids and signals only: the memories' text is under "memories" while they exist
                "candidates": [trace_candidate_stripped(c) for c in t.candidates],
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
            for a in AuditEntry.objects.filter(subject_id=subject.pk)
            .select_related("text")
            .order_by("id")
        ],
    }


EXPORT_MAX_DEPTH = 32
DEEPER_THAN_EXPORT = f"(nested deeper than {EXPORT_MAX_DEPTH} levels; not shown)"


def export_safe_json(value: Any) -> Any:
    """A copy of a stored JSON document that any export can render: subtrees nested deeper
    than EXPORT_MAX_DEPTH become a note. Metadata is refused that deep since it is validated
    (core/validation.py), but rows stored before must not break a person's export for good.
    Iterative, so the depth of the input does not matter."""
    root: list[Any] = [None]
    stack: list[tuple[Any, list | dict, Any, int]] = [(value, root, 0, 1)]
    while stack:
        node, parent, key, depth = stack.pop()
        if isinstance(node, dict | list) and depth > EXPORT_MAX_DEPTH:
            parent[key] = DEEPER_THAN_EXPORT
        elif isinstance(node, dict):
            parent[key] = copy = dict.fromkeys(node)
            stack.extend((child, copy, k, depth + 1) for k, child in node.items())
        elif isinstance(node, list):
            parent[key] = copy = [None] * len(node)
            stack.extend((child, copy, i, depth + 1) for i, child in enumerate(node))
        else:
            parent[key] = node
    return root[0]


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
