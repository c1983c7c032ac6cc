"""Every state change of personal data: subjects, events, memories, the review queue.

The API, the console, Celery tasks and management commands all call these functions. Each one
writes its audit entry inside the same transaction as the change. Slow work (extraction,
embeddings) runs outside transactions; the decision itself runs in a short transaction that
locks the subject row, so concurrent writers for one subject never duplicate or lose a supersede.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import reduce
from operator import or_
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from pgvector import Vector
from pgvector.django import CosineDistance

from accounts.models import Agent, Tenant
from accounts.services import subject_access_check, subject_create_check
from audit.models import AuditEntry
from audit.services import Actor, audit_chain_held, audit_record
from core.exceptions import ApplicationError, NotFound, SubjectPaused
from core.outbox import outbox_enqueue, outbox_relay, outbox_send, outbox_waiting_args
from memory import aliases, decisions, pii, textsearch
from memory.embeddings import get_embedder
from memory.extraction import topics
from memory.extraction.base import Candidate, ExtractionError, KnownMemory, Turn
from memory.language.dates import schedule_values
from memory.models import Event, Memory, Observation, RecallTrace, Subject
from memory.recall import trace_candidate_stripped
from memory.tasks import extract_events as extract_events_task
from memory.tasks import record_recall as record_recall_task

logger = logging.getLogger(__name__)

# Memories that take part in dedupe and conflict checks.
LIVE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.OBSERVED, Memory.Status.NEEDS_REVIEW)
# How many earlier turns of the session the extractor sees as context.
CONTEXT_TURNS = 6
# Nearest memories (by embedding) compared with a new candidate, besides its slot mates.
DECISION_NEIGHBOURS = 20
# nearest episodes weighed too: one that changed a state ("旧车卖了，提了辆海豹") is what a later
# statement may answer anew (decisions.holds_a_state)
DECISION_EPISODES = 5
MAX_EXTRACTION_ATTEMPTS = 3

MSG_PAUSED = "Memory is paused for this subject; nothing was stored."
MSG_GRANT_OTHER_TENANT = "An agent can only be granted subjects of its own tenant."
MSG_NOT_CURRENT = "Only the current version of a memory can be corrected (this one is {status})."


# --------------------------------------------------------------------------- subjects


def subject_get_or_create(*, tenant: Tenant, external_id: str, actor: Actor) -> Subject:
    """The subject addressed by the agent's id; created (and audited) on first write.

    An agent actor must be allowed to write to it (grants); a restricted agent never creates
    subjects."""
    subject = Subject.objects.filter(tenant=tenant, external_id=external_id).first()
    if subject is not None:
        subject_access_check(actor=actor, subject=subject)
        return subject
    subject_create_check(actor=actor, tenant_id=tenant.pk)
    try:
        with transaction.atomic():
            subject = Subject.objects.create(tenant=tenant, external_id=external_id)
            audit_record(
                actor=actor,
                action="subject.create",
                target=subject,
                tenant_id=tenant.pk,
                subject_id=subject.pk,
            )
            return subject
    except IntegrityError:  # created concurrently by another request
        return Subject.objects.get(tenant=tenant, external_id=external_id)


def _check_access(actor: Actor, owned: Memory | Observation) -> None:
    """Grant check for a change of one memory or review item; its subject is loaded only when
    the actor is an agent (staff and system actors are checked by their doors)."""
    if actor.type == AuditEntry.ActorType.AGENT:
        subject_access_check(actor=actor, subject=owned.subject)


def subject_set_paused(
    *, subject: Subject, paused: bool, actor: Actor, reason: str = ""
) -> Subject:
    subject_access_check(actor=actor, subject=subject)
    with transaction.atomic():
        subject.paused = paused
        subject.paused_at = timezone.now() if paused else None
        subject.save(update_fields=["paused", "paused_at", "updated_at"])
        audit_record(
            actor=actor,
            action="subject.pause" if paused else "subject.resume",
            target=subject,
            tenant_id=subject.tenant_id,
            subject_id=subject.pk,
            reason=reason,
            changed_fields=["paused"],
        )
    return subject


def _ensure_not_paused(subject: Subject) -> None:
    if subject.paused:
        raise SubjectPaused()


# --------------------------------------------------------------------------- events


@dataclass
class EventInput:
    role: str
    content: str
    occurred_at: dt.datetime | None = None
    client_event_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    type: str = Event.Type.MESSAGE


@dataclass
class EventsAppendResult:
    subject: Subject
    events: list[Event]
    new_event_ids: list[int]


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


def events_append(
    *,
    tenant: Tenant,
    external_id: str,
    session_id: str,
    events: Sequence[EventInput],
    extract: str,
    actor: Actor,
) -> EventsAppendResult:
    """Store events in one transaction before anything else; re-posted client ids are no-ops.

    1. Resolve (or create) the subject; a paused subject refuses writes (423).
    2. Return stored events for known `client_event_id`s, insert the rest.
    3. `async`: the extraction message is stored in the outbox in the same transaction (the
       events are `queued`) and published after commit; while the broker is down it waits
       there and the relay publishes it later — nothing accepted is lost, nothing blocks.
    """
    existing_subject = Subject.objects.filter(tenant=tenant, external_id=external_id).first()
    if existing_subject is not None:
        # grants before the pause state: an ungranted subject does not exist for the agent
        subject_access_check(actor=actor, subject=existing_subject)
        _ensure_not_paused(existing_subject)
    subject = existing_subject or subject_get_or_create(
        tenant=tenant, external_id=external_id, actor=actor
    )
    now = timezone.now()
    initial_status = {
        "none": Event.ExtractionStatus.SKIPPED,
        "sync": Event.ExtractionStatus.QUEUED,
        "async": Event.ExtractionStatus.QUEUED,
    }[extract]

    for attempt in range(2):
        try:
            with transaction.atomic():
                stored, new_ids = _insert_events(
                    subject=subject,
                    session_id=session_id,
                    events=events,
                    status=initial_status,
                    now=now,
                )
                if new_ids:
                    Subject.objects.filter(pk=subject.pk).update(last_activity_at=now)
                    audit_record(
                        actor=actor,
                        action="event.append",
                        target=subject,
                        tenant_id=tenant.pk,
                        subject_id=subject.pk,
                        reason=f"{len(new_ids)} event(s) in session",
                        changed_fields=["events"],
                    )
                if extract == "async" and new_ids:
                    outbox_enqueue(task=extract_events_task, args=[new_ids], subject_id=subject.pk)
            break
        except IntegrityError:
            # A concurrent request stored the same client_event_id first: retry once, and
            # this time the rows are found as existing.
            if attempt == 1:
                raise
    return EventsAppendResult(subject=subject, events=stored, new_event_ids=new_ids)


def _insert_events(
    *,
    subject: Subject,
    session_id: str,
    events: Sequence[EventInput],
    status: str,
    now: dt.datetime,
) -> tuple[list[Event], list[int]]:
    client_ids = [e.client_event_id for e in events if e.client_event_id]
    known = (
        {
            ev.client_event_id: ev
            for ev in Event.objects.filter(subject=subject, client_event_id__in=client_ids)
        }
        if client_ids
        else {}
    )
    to_create: list[Event] = []
    order: list[Event] = []
    seen_in_request: dict[str, Event] = {}
    for item in events:
        cid = item.client_event_id
        if cid and cid in known:
            order.append(known[cid])
            continue
        if cid and cid in seen_in_request:
            order.append(seen_in_request[cid])
            continue
        event = Event(
            subject=subject,
            session_id=session_id,
            role=item.role,
            type=item.type,
            content=item.content,
            occurred_at=item.occurred_at or now,
            client_event_id=cid,
            metadata=item.metadata or {},
            content_hash=content_hash(item.content),
            extraction_status=status,
        )
        if cid:
            seen_in_request[cid] = event
        to_create.append(event)
        order.append(event)
    created = Event.objects.bulk_create(to_create) if to_create else []
    return order, [event.pk for event in created]


def enqueue_extraction(event_ids: Iterable[int]) -> None:
    """Hand events to a worker through the outbox (called outside a transaction)."""
    ids = list(event_ids)
    with transaction.atomic():
        Event.objects.filter(pk__in=ids, extraction_status=Event.ExtractionStatus.PENDING).update(
            extraction_status=Event.ExtractionStatus.QUEUED
        )
        message = outbox_enqueue(task=extract_events_task, args=[ids], relay_on_commit=False)
    outbox_relay(ids=[message.pk])


def events_sweep_pending(*, older_than_seconds: int, limit: int = 1000) -> int:
    """Queue events left `pending` (a crashed inline extraction), `queued` too long (the
    broker lost the message, e.g. a Redis restart) or `running` past the lease (the worker was
    killed mid-extraction: `_reclaim_abandoned`). Events whose message still waits in the
    outbox are skipped: it has not even been published yet."""
    _reclaim_abandoned(lease_seconds=settings.ENGRAM_EXTRACTION_LEASE, limit=limit)
    cutoff = timezone.now() - dt.timedelta(seconds=older_than_seconds)
    waiting = outbox_waiting_args(task=extract_events_task)
    stale = list(
        Event.objects.filter(
            extraction_status__in=[Event.ExtractionStatus.PENDING, Event.ExtractionStatus.QUEUED],
            received_at__lte=cutoff,
        )
        .exclude(pk__in={pk for args in waiting for pk in args[0]})
        .order_by("received_at")
        .values_list("pk", flat=True)[:limit]
    )
    for start in range(0, len(stale), 100):
        enqueue_extraction(stale[start : start + 100])
    return len(stale)


def _reclaim_abandoned(*, lease_seconds: int, limit: int) -> int:
    """Events a worker claimed and never finished — killed by the hard time limit, the OOM
    killer or a lost host, so neither done nor failed — go back to `pending` for another
    attempt, or to `failed` (visible, with the reason) after the last one. A live worker
    finishes or fails its claim well inside the lease (the task's hard time limit)."""
    cutoff = timezone.now() - dt.timedelta(seconds=lease_seconds)
    with transaction.atomic():
        abandoned = list(
            Event.objects.select_for_update(skip_locked=True)
            .filter(extraction_status=Event.ExtractionStatus.RUNNING, claimed_at__lte=cutoff)
            .values_list("pk", "extraction_attempts")[:limit]
        )
        final = [pk for pk, attempts in abandoned if attempts >= MAX_EXTRACTION_ATTEMPTS]
        again = [pk for pk, attempts in abandoned if attempts < MAX_EXTRACTION_ATTEMPTS]
        Event.objects.filter(pk__in=final).update(
            extraction_status=Event.ExtractionStatus.FAILED,
            extraction_error=f"abandoned by its worker {MAX_EXTRACTION_ATTEMPTS} times",
        )
        Event.objects.filter(pk__in=again).update(extraction_status=Event.ExtractionStatus.PENDING)
    if abandoned:
        logger.warning("reclaimed %d abandoned extraction(s), %d failed", len(again), len(final))
    return len(again)


# --------------------------------------------------------------------------- extraction


@dataclass
class WriteResult:
    action: str  # created | merged | superseded | observed | ignored
    memory: Memory | None
    observation: Observation | None = None
    reason: str = ""


def _claim_events(event_ids: Sequence[int]) -> list[Event]:
    """Compare-and-set claim: only one worker processes an event."""
    with transaction.atomic():
        claimed = list(
            Event.objects.select_for_update(skip_locked=True)
            .filter(
                pk__in=list(event_ids),
                extraction_status__in=[
                    Event.ExtractionStatus.PENDING,
                    Event.ExtractionStatus.QUEUED,
                ],
            )
            .select_related("subject")
            .order_by("occurred_at", "pk")
        )
        if claimed:
            Event.objects.filter(pk__in=[e.pk for e in claimed]).update(
                extraction_status=Event.ExtractionStatus.RUNNING,
                extraction_attempts=F("extraction_attempts") + 1,
                claimed_at=timezone.now(),
            )
    return claimed


def events_extract(
    *, event_ids: Sequence[int], actor: Actor, retry_raises: bool = False
) -> list[WriteResult]:
    """Extract memories from the given events (those not already taken by another worker).

    1. Claim the events (pending/queued → running).
    2. Per subject and session: build turns with a few earlier turns as context, run the
       extractor outside any transaction, embed the candidates in one batch.
    3. Write each candidate through `memory_ingest` (the one decision service).
    4. Mark the events done — or failed with a visible error.
    """
    from memory.extraction import get_extractor

    events = _claim_events(event_ids)
    results: list[WriteResult] = []
    groups: dict[tuple[int, str], list[Event]] = {}
    for event in events:
        groups.setdefault((event.subject_id, event.session_id), []).append(event)
    extractor = get_extractor()
    for (_, session_id), group in groups.items():
        subject = group[0].subject
        try:
            if subject.paused:
                _finish_events(group, Event.ExtractionStatus.SKIPPED, extractor.name)
                continue
            context = list(
                Event.objects.filter(
                    subject=subject, session_id=session_id, occurred_at__lte=group[0].occurred_at
                )
                .exclude(pk__in=[e.pk for e in group])
                .order_by("-occurred_at", "-pk")
                .only("pk", "role", "content", "occurred_at")[:CONTEXT_TURNS]
            )[::-1]
            all_events = context + group
            turns = [
                Turn(role=e.role, content=e.content, event_id=e.pk, occurred_at=e.occurred_at)
                for e in all_events
            ]
            if not any(e.role == Event.Role.USER for e in group):
                _finish_events(group, Event.ExtractionStatus.DONE, extractor.name)
                continue
            known = (
                _known_memories(subject, [e.content for e in group if e.role == Event.Role.USER])
                if getattr(extractor, "wants_known", False)
                else None
            )
            extraction = extractor.extract(turns, new_from=len(context), known=known)
            candidates = [c for c in extraction.candidates if 0 <= c.source_index < len(turns)]
            valid = []
            for candidate in candidates:
                try:
                    validate_candidate(candidate)
                except ApplicationError as exc:
                    logger.warning("skipped an invalid candidate: %s", exc.message)
                    continue
                valid.append(_redacted_candidate(candidate))
            embeddings = _embed([c.content for c in valid])
            # One transaction (one commit, one subject lock) for the whole group; each
            # candidate takes the one write decision (`_ingest_locked`, as memory_ingest).
            subject_access_check(actor=actor, subject=subject)
            with transaction.atomic(), audit_chain_held():
                locked = _lock_subject(subject)
                for candidate, vector in zip(valid, embeddings, strict=True):
                    source = all_events[candidate.source_index]
                    results.append(
                        _ingest_locked(
                            locked,
                            candidate,
                            source.occurred_at,
                            actor,
                            source_event=source,
                            embedding=vector,
                        )
                    )
                _finish_events(group, Event.ExtractionStatus.DONE, extractor.name, extraction.usage)
        except ExtractionError as exc:
            logger.warning("extraction failed for events %s: %s", [e.pk for e in group], exc)
            _finish_events(group, Event.ExtractionStatus.FAILED, extractor.name, error=str(exc))
        except SubjectPaused:
            _finish_events(group, Event.ExtractionStatus.SKIPPED, extractor.name)
        except Exception as exc:
            # Unknown failure: back to pending for a retry, failed after the last attempt.
            final = all(e.extraction_attempts + 1 >= MAX_EXTRACTION_ATTEMPTS for e in group)
            status = Event.ExtractionStatus.FAILED if final else Event.ExtractionStatus.PENDING
            _finish_events(group, status, extractor.name, error=f"{type(exc).__name__}: {exc}")
            logger.exception("extraction crashed for events %s", [e.pk for e in group])
            # A Celery task re-raises to retry; inline callers (sync API) get the events back
            # as `pending` for the sweeper instead of an error: nothing accepted is lost.
            if retry_raises and not final:
                raise
    return results


def _known_memories(subject: Subject, texts: list[str]) -> list[KnownMemory]:
    """The subject's active memories most related to what the user just said (at most
    llm.MAX_KNOWN, nearest first), for an extractor that decides against what is known."""
    from memory.extraction.llm import MAX_KNOWN

    if not texts:
        return []
    vector = _embed(["\n".join(texts)])[0]
    rows = (
        Memory.objects.filter(subject=subject, status=Memory.Status.ACTIVE)
        .exclude(kind=Memory.Kind.EPISODIC)
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")
        .only("pk", "content")[:MAX_KNOWN]
    )
    return [KnownMemory(id=m.pk, content=m.content) for m in rows]


def _finish_events(
    events: Sequence[Event],
    status: str,
    extractor: str,
    usage: dict[str, int] | None = None,
    error: str = "",
) -> None:
    Event.objects.filter(pk__in=[e.pk for e in events]).update(
        extraction_status=status,
        extracted_at=timezone.now(),
        extractor=extractor[:64],
        extraction_usage=usage or {},
        extraction_error=error[:2000],
    )
    for event in events:
        event.extraction_status = status


def events_mark_failed(*, event_ids: Sequence[int], error: str) -> None:
    """Final failure of an extraction task (its `on_failure`): visible, not silent."""
    Event.objects.filter(
        pk__in=list(event_ids),
        extraction_status__in=[Event.ExtractionStatus.RUNNING, Event.ExtractionStatus.QUEUED],
    ).update(extraction_status=Event.ExtractionStatus.FAILED, extraction_error=error[:2000])


class _Embedding(Vector):
    """A vector serialised for SQL once: the decision queries and the insert all send it."""

    def to_text(self) -> str:
        text = getattr(self, "_text", None)
        if text is None:
            text = self._text = super().to_text()
        return text


def _embed(texts: list[str]) -> list[Any]:
    if not texts:
        return []
    matrix = get_embedder().embed(texts)
    return [_Embedding(row) for row in matrix]


# --------------------------------------------------------------------------- the write decision


_DECISION_FIELDS = (
    "id",
    "category",
    "kind",
    "content",
    "entities",
    "slot",
    "slot_values",
    "confidence",
    "observed_at",
    "status",
)


_DECISION_COLUMNS = ", ".join(
    f"m.{Memory._meta.get_field(name).column}" for name in _DECISION_FIELDS
)
# The nearest live memories and the nearest active episodes in one round trip, the query
# vector sent once: written out because the ORM's union of two annotated querysets costs
# twice the query itself to build, on the hottest path of extraction.
_NEAREST_SQL = f"""
WITH query AS (SELECT %(vector)s::vector AS v)
(SELECT {_DECISION_COLUMNS}, m.embedding <=> query.v AS distance
   FROM {Memory._meta.db_table} m, query
  WHERE m.subject_id = %(subject)s AND m.status = ANY(%(live)s) AND m.kind <> %(episodic)s
  ORDER BY distance LIMIT %(neighbours)s)
UNION ALL
(SELECT {_DECISION_COLUMNS}, m.embedding <=> query.v AS distance
   FROM {Memory._meta.db_table} m, query
  WHERE m.subject_id = %(subject)s AND m.status = %(active)s AND m.kind = %(episodic)s
  ORDER BY distance LIMIT %(episodes)s)
"""  # noqa: S608 - table and column names come from the model, values are bound


def _nearest_for_decision(subject_id: int, embedding: Any) -> list[dict[str, Any]]:
    vector = embedding.to_text() if isinstance(embedding, Vector) else Vector(embedding).to_text()
    with connection.cursor() as cursor:
        cursor.execute(
            _NEAREST_SQL,
            {
                "vector": vector,
                "subject": subject_id,
                "live": list(LIVE_STATUSES),
                "active": Memory.Status.ACTIVE,
                "episodic": Memory.Kind.EPISODIC,
                "neighbours": DECISION_NEIGHBOURS,
                "episodes": DECISION_EPISODES,
            },
        )
        names = [*_DECISION_FIELDS, "distance"]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _existing_for_decision(
    subject: Subject, candidate: Candidate, embedding: Any
) -> tuple[list[decisions.ExistingMemory], dict[int, float]]:
    """The subject's live memories that could duplicate or contradict the candidate: the
    nearest neighbours by embedding plus its slot mates and the memory an extractor named, and
    the nearest episodes (only those that hold a state count: `decisions.holds_a_state`)
    (similarity computed in SQL so the vectors never travel to Python). Plain values, not model
    instances: the decision needs a few fields of twenty rows; the one it acts on is loaded
    afterwards."""
    base = Memory.objects.filter(subject=subject, status__in=LIVE_STATUSES).exclude(
        kind=Memory.Kind.EPISODIC
    )
    rows: dict[int, dict[str, Any]] = {}
    everything = False
    if embedding is not None:
        found = _nearest_for_decision(subject.pk, embedding)
        for row in found:
            rows[row["id"]] = row
        # fewer than the limit: that was every live memory, slot mates and target included
        everything = sum(row["kind"] != Memory.Kind.EPISODIC for row in found) < DECISION_NEIGHBOURS
    # slot mates and the memory an extractor named, where the neighbours may have missed them
    wanted = [Q(slot=candidate.slot)] if candidate.slot else []
    if candidate.target_id:
        wanted.append(Q(pk=candidate.target_id))
    if wanted and not everything:
        others = base.filter(reduce(or_, wanted)).exclude(pk__in=list(rows))
        if embedding is not None:
            others = others.annotate(distance=CosineDistance("embedding", embedding))
        for row in others.values(
            *_DECISION_FIELDS, *(["distance"] if embedding is not None else [])
        ):
            rows[row["id"]] = row
    similarity = {
        pk: 1.0 - float(row["distance"])
        for pk, row in rows.items()
        if row.get("distance") is not None
    }
    existing = [
        decisions.ExistingMemory(
            id=row["id"],
            category=row["category"],
            kind=row["kind"],
            content=row["content"],
            entities=list(row["entities"]),
            slot=row["slot"],
            values=list(row["slot_values"]),
            confidence=row["confidence"],
            occurred_at=row["observed_at"],
            status=row["status"],
        )
        for row in rows.values()
    ]
    return existing, similarity


def _redacted_candidate(candidate: Candidate) -> Candidate:
    # against the quote too: what a rewrite left of an identifier the quote holds goes as well
    secret = pii.identifier_groups(candidate.source_quote)

    def redact(text: str) -> str:
        return pii.redact_against(text, secret).text if text else text

    return replace(
        candidate,
        content=redact(candidate.content),
        source_quote=redact(candidate.source_quote),
        values=[redact(v) for v in candidate.values],
        entities=[redact(e) for e in candidate.entities],
        context_topics=[redact(t) for t in candidate.context_topics],
    )


def _search_text(candidate: Candidate) -> str:
    """Keyword-search tokens: the content plus the words naming its slot's topic."""
    topic = " ".join(aliases.slot_topic_terms(candidate.slot))
    return textsearch.search_document(f"{candidate.content} {topic}".strip())


def validate_candidate(candidate: Candidate) -> None:
    errors: dict[str, list[str]] = {}
    if not candidate.content or not candidate.content.strip():
        errors["content"] = ["This field may not be blank."]
    if candidate.category not in Memory.Category.values:
        errors["category"] = [f"Choose one of {', '.join(Memory.Category.values)}."]
    if candidate.kind not in Memory.Kind.values:
        errors["kind"] = [f"Choose one of {', '.join(Memory.Kind.values)}."]
    for name in ("importance", "confidence"):
        value = getattr(candidate, name)
        if not isinstance(value, int | float) or not 0 <= value <= 1:
            errors[name] = ["Must be a number between 0 and 1."]
    if errors:
        raise ApplicationError("invalid", "The memory is invalid; see fields.", fields=errors)


def memory_ingest(
    *,
    subject: Subject,
    candidate: Candidate,
    occurred_at: dt.datetime,
    actor: Actor,
    source_event: Event | None = None,
    embedding: list[float] | None = None,
    linked_doc_id: str = "",
    pinned: bool = False,
) -> WriteResult:
    """The one write decision service: validate → redact → dedupe → conflict → store.

    1. Validate, then redact PII from everything that will be stored in the memory.
    2. Embed (unless given) outside the transaction.
    3. In a transaction holding the subject's row lock (serialises writers per subject):
       load slot mates and nearest neighbours, ask `decisions.decide`, apply the decision:
       create (active), merge into the existing memory, supersede the older version, or
       store as `observed` with an Observation (conflict / low confidence).
    4. Audit entry in the same transaction.
    """
    subject_access_check(actor=actor, subject=subject)
    validate_candidate(candidate)
    candidate = _redacted_candidate(candidate)
    if embedding is None:
        embedding = _embed([candidate.content])[0]
    with transaction.atomic():
        locked = _lock_subject(subject)
        return _ingest_locked(
            locked,
            candidate,
            occurred_at,
            actor,
            source_event=source_event,
            embedding=embedding,
            linked_doc_id=linked_doc_id,
            pinned=pinned,
        )


def _lock_subject(subject: Subject) -> Subject:
    """The subject's row, locked for the transaction (serialises its writers); refuses a
    paused subject."""
    locked = Subject.objects.select_for_update().get(pk=subject.pk)
    _ensure_not_paused(locked)
    return locked


def _ingest_locked(
    locked: Subject,
    candidate: Candidate,
    occurred_at: dt.datetime,
    actor: Actor,
    *,
    source_event: Event | None,
    embedding: Any,
    linked_doc_id: str = "",
    pinned: bool = False,
) -> WriteResult:
    """The decision and its writes for a valid, redacted candidate, inside a transaction
    that holds the subject's row lock (`_lock_subject`)."""
    search_text = _search_text(candidate)
    existing, similarity = _existing_for_decision(locked, candidate, embedding)
    decision = decisions.decide(candidate, occurred_at, existing, similarity)
    acted_on = [decision.target_id, *decision.also_supersede] if decision.target_id else []
    rows = Memory.objects.in_bulk([pk for pk in acted_on if pk]) if acted_on else {}
    target = rows.get(decision.target_id) if decision.target_id else None
    fields = {
        "source_event": source_event,
        "embedding": embedding,
        "search_text": search_text,
        "linked_doc_id": linked_doc_id,
        "pinned": pinned,
    }
    if decision.action == decisions.MERGE and target is not None and decision.update_content:
        # The same statement restated with more detail: a new version, not a silent edit.
        return _apply_supersede(
            locked, target, candidate, occurred_at, actor, decision, fields, carry_evidence=True
        )
    if decision.action == decisions.MERGE and target is not None:
        return _apply_merge(target, candidate, occurred_at, source_event, actor, decision)
    if decision.action == decisions.SUPERSEDE and target is not None:
        result = _apply_supersede(locked, target, candidate, occurred_at, actor, decision, fields)
        for extra_id in decision.also_supersede:
            if extra_id in rows and extra_id != target.pk:
                _retire(rows[extra_id], result.memory, occurred_at, actor, decision.reason)
        if decision.keeps:
            _keep_apart(locked, target, decision.keeps, result.memory, actor)
        return result
    if decision.action in (decisions.OBSERVE_CONFLICT, decisions.OBSERVE_LOW_CONFIDENCE):
        return _apply_observe(locked, target, candidate, occurred_at, actor, decision, fields)
    memory = _new_memory(locked, candidate, occurred_at, Memory.Status.ACTIVE, fields)
    _audit_memory(actor, "memory.create", memory, decision.reason)
    return WriteResult(action="created", memory=memory, reason=decision.reason)


def _new_memory(
    subject: Subject,
    candidate: Candidate,
    occurred_at: dt.datetime,
    status: str,
    fields: dict[str, Any],
    **overrides: Any,
) -> Memory:
    triple = candidate.triple or ("", "", "")
    memory = Memory(
        tenant_id=subject.tenant_id,
        subject=subject,
        kind=candidate.kind,
        category=candidate.category,
        content=candidate.content,
        entities=list(dict.fromkeys(candidate.entities))[:50],
        importance=round(float(candidate.importance), 4),
        confidence=round(float(candidate.confidence), 4),
        status=status,
        source_quote=candidate.source_quote[:2000],
        observed_at=occurred_at,
        valid_from=occurred_at,
        valid_to=candidate.valid_to,
        slot=candidate.slot[:120],
        slot_values=[v[:120] for v in candidate.values][:20],
        fact_subject=triple[0][:200],
        fact_predicate=triple[1][:200],
        fact_object=triple[2][:200],
        embedding_model=get_embedder().name,
        **fields,
    )
    for key, value in overrides.items():
        setattr(memory, key, value)
    memory.save()
    return memory


def _audit_memory(
    actor: Actor, action: str, memory: Memory, reason: str = "", changed: Iterable[str] = ()
) -> None:
    audit_record(
        actor=actor,
        action=action,
        target=memory,
        tenant_id=memory.tenant_id,
        subject_id=memory.subject_id,
        reason=reason,
        changed_fields=changed,
    )


EVIDENCE_LIMIT = 50  # evidence items kept per memory


def evidence_entry(*, event_id: int | None, quote: str, at: dt.datetime) -> dict[str, Any]:
    """One piece of merged evidence: where a statement was made again, and when."""
    return {"event_id": event_id, "quote": quote[:500], "at": at.isoformat()}


def with_evidence(evidence: list[dict[str, Any]], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The evidence list plus one entry, keeping the latest EVIDENCE_LIMIT."""
    return [*evidence, entry][-EVIDENCE_LIMIT:]


def _apply_merge(
    target: Memory,
    candidate: Candidate,
    occurred_at: dt.datetime,
    source_event: Event | None,
    actor: Actor,
    decision: decisions.Decision,
) -> WriteResult:
    """Same statement again: keep one memory, remember the new evidence."""
    evidence = list(target.evidence)
    if len(evidence) < EVIDENCE_LIMIT:
        evidence.append(
            evidence_entry(
                event_id=source_event.pk if source_event else None,
                quote=candidate.source_quote,
                at=occurred_at,
            )
        )
    target.evidence = evidence
    target.merge_count += 1
    target.importance = max(target.importance, round(float(candidate.importance), 4))
    target.confidence = max(target.confidence, round(float(candidate.confidence), 4))
    target.entities = list(dict.fromkeys([*target.entities, *candidate.entities]))[:50]
    target.save(
        update_fields=[
            "evidence",
            "merge_count",
            "importance",
            "confidence",
            "entities",
            "updated_at",
        ]
    )
    _audit_memory(
        actor, "memory.merge", target, decision.reason, ["evidence", "importance", "confidence"]
    )
    return WriteResult(action="merged", memory=target, reason=decision.reason)


# A clause ends at CJK/ASCII punctuation, or at ". " unless the period closes a title (Dr.).
_CLAUSE = re.compile(
    r".+?(?:[，,；;。！？!?]\s*|(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)\.\s+|$)", re.S
)
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9+#-]{3,}")


def content_without_old_values(
    content: str, old_values: Iterable[str], new_values: Iterable[str], old_content: str = ""
) -> str:
    """The new version states the current value only: clauses that name a value being
    replaced go ("换成移动的了，电信太贵" → "换成移动的了"; "早上推送改成七点，八点太晚" →
    "早上推送改成七点"); the source quote keeps them. A clause names an old value when it
    names one of `old_values`, or when every concrete value it names (a name, a model, a
    clock time) and every noun is one `old_content` names too, while another clause names a
    new value. A clause stating the change itself stays when no other clause states the new
    state ("不用钉钉了"), and goes otherwise ("salsa 那个班停了，现在改成周四学 bachata" → "现在改成
    周四学 bachata"). Unchanged when nothing would be left or no clause names an old value."""
    from memory.extraction.rules.markers import CHANGE_RE

    new = [v.lstrip("!").casefold() for v in new_values if v]
    needles: set[str] = set()
    for value in (v.lstrip("!") for v in old_values if v):
        if value.casefold() in new:
            continue
        # "Dr. Alvarez" is also named as just "Alvarez".
        for needle in {value, *_LATIN_NAME.findall(value)}:
            if len(needle) >= 2 and not any(needle.casefold() in n for n in new):
                needles.add(needle.casefold())
    old_atoms = _concrete_atoms(old_content) if old_content else set()
    fresh = [n for n in new if len(n) >= 2 and n not in old_content.casefold()]
    clauses = [c for c in _CLAUSE.findall(content) if c]

    atoms = [_concrete_atoms(c) for c in clauses]
    # naming only old values is stale when another clause names a new one: a clause that
    # repeats what still holds ("对 以后都这样，comments用英文") is no replaced value
    replaced = any(a - old_atoms for a in atoms)
    stale = [
        any(n in c.casefold() for n in needles)
        or (
            replaced
            and bool(a)
            and a <= old_atoms
            and not _new_nouns(c, old_content)
            # the new value as a bare figure is no atom ("budget 8000 以内"), still the news
            and not any(n in c.casefold() for n in fresh)
        )
        for c, a in zip(clauses, atoms, strict=True)
    ]
    if not any(stale):
        return content
    states_change = any(
        CHANGE_RE.search(c) or a - old_atoms
        for c, a, old in zip(clauses, atoms, stale, strict=True)
        if not old
    )
    kept = [
        c
        for c, old in zip(clauses, stale, strict=True)
        if not old or (CHANGE_RE.search(c) and not states_change)
    ]
    if len(kept) == len(clauses) or not kept:
        return content
    text = "".join(kept).rstrip(" ，,；;")
    if len(text) < 4:
        return content
    for opening, closing in ("（）", "()"):  # a dropped clause may have held the closing one
        text += closing * (text.count(opening) - text.count(closing))
    if content.rstrip()[-1:] in "。.!！" and text[-1:] not in "。.!！":
        text += content.rstrip()[-1]
    return text


def _new_nouns(clause: str, old_content: str) -> list[str]:
    """Nouns of the clause the old statement does not name ("改成去奥体中心学游泳" after
    "在少年宫学拉丁舞"): the clause says something new, whatever values it repeats."""
    from memory.extraction.dialogue import head_nouns

    old = old_content.casefold()
    return [n for n in head_nouns(clause) if n.casefold() not in old]


def _concrete_atoms(text: str) -> set[str]:
    """Values a clause names that say which one: names and models as written, clock times and
    weekdays ("8点" and "八点" are both 08:00) — not words of judgement ("太晚"), not bare
    counts."""
    # value_atoms holds topics.literal_names too; one segmentation serves both
    names = {
        v.casefold()
        for v in topics.value_atoms(text)
        if re.search(r"[A-Za-z0-9]", v) and not v.isdigit()  # "2 kids" is no value replaced
    }
    clock = {v for v in schedule_values(text) if re.match(r"\d|周", v)}
    return names | clock


def _apply_supersede(
    subject: Subject,
    old: Memory,
    candidate: Candidate,
    occurred_at: dt.datetime,
    actor: Actor,
    decision: decisions.Decision,
    fields: dict[str, Any],
    carry_evidence: bool = False,
) -> WriteResult:
    carried: dict[str, Any] = {}
    if decision.content:
        # the statement the user took back, put right: it is what will be recalled
        candidate, fields = _rewritten(candidate, fields, decision.content)
    elif not carry_evidence:
        # names as written, not the lexicon's canonical entities (those name the topic both
        # versions share: "周会" is not a value the new one replaces)
        old_values = list(old.slot_values) or topics.literal_names(old.content)
        new_values = list(candidate.values) or topics.literal_names(candidate.content)
        current = content_without_old_values(candidate.content, old_values, new_values, old.content)
        candidate, fields = _rewritten(candidate, fields, current)
    if carry_evidence:
        carried = {
            "evidence": with_evidence(
                old.evidence,
                evidence_entry(
                    event_id=old.source_event_id, quote=old.source_quote, at=old.observed_at
                ),
            ),
            "merge_count": old.merge_count + 1,
            "hit_count": old.hit_count,
            "importance": max(old.importance, round(float(candidate.importance), 4)),
            "pinned": old.pinned or fields["pinned"],
        }
    new = _new_memory(
        subject,
        candidate,
        occurred_at,
        Memory.Status.ACTIVE,
        fields,
        version=old.version + 1,
        supersedes=old,
        lineage=old.lineage,
        change_reason=decision.reason[:200],
        **carried,
    )
    _retire(old, new, occurred_at, actor, decision.reason)
    _audit_memory(actor, "memory.supersede", new, decision.reason, ["version", "supersedes"])
    return WriteResult(action="superseded", memory=new, reason=decision.reason)


def _keep_apart(subject: Subject, old: Memory, content: str, new: Memory, actor: Actor) -> Memory:
    """What a superseded memory said besides the answer `new` replaced, as an active memory of
    its own, from the same source and as old as it."""
    candidate = Candidate(
        content=content,
        category=old.category,
        kind=old.kind,
        entities=list(old.entities),
        importance=old.importance,
        confidence=old.confidence,
        source_quote=old.source_quote,
    )
    fields = {
        "source_event_id": old.source_event_id,
        "embedding": _embed([content])[0],
        "search_text": _search_text(candidate),
    }
    reason = f"kept from #{old.pk}: #{new.pk} answers the rest anew"[:200]
    kept = _new_memory(
        subject,
        candidate,
        old.observed_at,
        Memory.Status.ACTIVE,
        fields,
        valid_from=old.valid_from,
        change_reason=reason,
    )
    _audit_memory(actor, "memory.create", kept, reason)
    return kept


def _rewritten(
    candidate: Candidate, fields: dict[str, Any], content: str
) -> tuple[Candidate, dict[str, Any]]:
    """The candidate written with other content: search text and embedding follow the content
    that will be recalled. Unchanged when the content is the candidate's own."""
    if content == candidate.content:
        return candidate, fields
    candidate = replace(candidate, content=content)
    return candidate, {
        **fields,
        "search_text": _search_text(candidate),
        "embedding": _embed([content])[0],
    }


def _retire(old: Memory, new: Memory, at: dt.datetime, actor: Actor, reason: str) -> None:
    old.status = Memory.Status.SUPERSEDED
    old.superseded_by = new
    old.valid_to = at
    old.save(update_fields=["status", "superseded_by", "valid_to", "updated_at"])
    # Open review items about the retired version are moot now.
    Observation.objects.filter(memory=old, status=Observation.Status.PENDING).update(
        status=Observation.Status.REJECTED,
        resolved_at=timezone.now(),
        note="superseded by a newer version",
    )
    _audit_memory(actor, "memory.retire", old, reason, ["status", "superseded_by", "valid_to"])


def _apply_observe(
    subject: Subject,
    related: Memory | None,
    candidate: Candidate,
    occurred_at: dt.datetime,
    actor: Actor,
    decision: decisions.Decision,
    fields: dict[str, Any],
) -> WriteResult:
    kind = (
        Observation.Kind.CONFLICT
        if decision.action == decisions.OBSERVE_CONFLICT
        else Observation.Kind.LOW_CONFIDENCE
    )
    memory = _new_memory(subject, candidate, occurred_at, Memory.Status.OBSERVED, fields)
    observation = Observation.objects.create(
        tenant_id=subject.tenant_id,
        subject=subject,
        kind=kind,
        memory=memory,
        candidate=_candidate_payload(candidate, occurred_at),
        reason=decision.reason[:300],
    )
    if related is not None:
        observation.related_memories.add(related)
    _audit_memory(actor, "memory.observe", memory, decision.reason)
    return WriteResult(
        action="observed", memory=memory, observation=observation, reason=decision.reason
    )


def _candidate_payload(candidate: Candidate, occurred_at: dt.datetime) -> dict[str, Any]:
    return {
        "content": candidate.content,
        "category": candidate.category,
        "kind": candidate.kind,
        "entities": candidate.entities,
        "importance": candidate.importance,
        "confidence": candidate.confidence,
        "slot": candidate.slot,
        "values": candidate.values,
        "source_quote": candidate.source_quote,
        "occurred_at": occurred_at.isoformat(),
    }


# --------------------------------------------------------------------------- direct edits


def memory_create(
    *,
    subject: Subject,
    content: str,
    actor: Actor,
    category: str = Memory.Category.FACT,
    kind: str = Memory.Kind.SEMANTIC,
    entities: Sequence[str] = (),
    importance: float = 0.5,
    confidence: float = 0.9,
    occurred_at: dt.datetime | None = None,
    source_event: Event | None = None,
    source_event_id: int | None = None,
    linked_doc_id: str = "",
    pinned: bool = False,
) -> WriteResult:
    """A memory a caller states directly, without extraction: `POST …/memories`, MCP
    `add_memory` and mem0's `infer=false` alike.

    It takes the one write path (`memory_ingest`): the conflict slot is derived as for
    extracted statements, PII is redacted, duplicates merge and contradictions supersede.
    `source_event_id` must name an event of this subject (400 otherwise)."""
    from memory.extraction.slots.derive import slot_for

    if source_event is None and source_event_id is not None:
        source_event = Event.objects.filter(pk=source_event_id, subject=subject).first()
        if source_event is None:
            raise ApplicationError(
                "invalid",
                "source_event_id is not an event of this subject.",
                fields={"source_event_id": ["Unknown event."]},
            )
    slot, values, found_entities = slot_for(content, category)
    candidate = Candidate(
        content=content,
        category=category,
        kind=kind,
        entities=[*entities, *found_entities],
        importance=importance,
        confidence=confidence,
        slot=slot,
        values=values,
        source_quote=source_event.content[:500] if source_event else "",
    )
    when = occurred_at or (source_event.occurred_at if source_event else timezone.now())
    return memory_ingest(
        subject=subject,
        candidate=candidate,
        occurred_at=when,
        source_event=source_event,
        actor=actor,
        linked_doc_id=linked_doc_id,
        pinned=pinned,
    )


def memory_correct(
    *,
    memory: Memory,
    actor: Actor,
    content: str | None = None,
    reason: str = "correction",
    **changes: Any,
) -> Memory:
    """A correction makes a new version; the old one is superseded (never overwritten)."""
    _check_access(actor, memory)
    allowed = {
        "category",
        "kind",
        "entities",
        "importance",
        "confidence",
        "pinned",
        "linked_doc_id",
    }
    unknown = set(changes) - allowed
    if unknown:
        raise ApplicationError("invalid", f"Cannot change {', '.join(sorted(unknown))}.")
    new_content = content if content is not None else memory.content
    candidate = Candidate(
        content=new_content,
        category=changes.get("category", memory.category),
        kind=changes.get("kind", memory.kind),
        entities=list(changes.get("entities", memory.entities)),
        importance=changes.get("importance", memory.importance),
        confidence=changes.get("confidence", memory.confidence),
        slot=memory.slot,
        values=list(memory.slot_values),
        source_quote=memory.source_quote,
    )
    validate_candidate(candidate)
    candidate = _redacted_candidate(candidate)
    embedding = _embed([candidate.content])[0] if candidate.content != memory.content else None
    now = timezone.now()
    with transaction.atomic():
        # of=self: Subject orders by tenant slug, so a bare FOR UPDATE would lock the tenant too.
        Subject.objects.select_for_update(of=("self",)).filter(pk=memory.subject_id).first()
        old = Memory.objects.select_for_update().filter(pk=memory.pk).first()
        if old is None:  # deleted (or merged away) since the caller loaded it
            raise NotFound("No such memory.")
        if old.status in (Memory.Status.SUPERSEDED, Memory.Status.PURGE_PENDING):
            raise ApplicationError(
                "not_current", MSG_NOT_CURRENT.format(status=old.status), status_code=409
            )
        fields = {
            "source_event_id": old.source_event_id,
            "embedding": embedding if embedding is not None else _stored_embedding(old),
            "search_text": _search_text(candidate),
            "linked_doc_id": changes.get("linked_doc_id", old.linked_doc_id),
            "pinned": changes.get("pinned", old.pinned),
        }
        status = old.status if old.status != Memory.Status.OBSERVED else Memory.Status.ACTIVE
        new = _new_memory(
            old.subject,
            candidate,
            now,
            status,
            fields,
            version=old.version + 1,
            supersedes=old,
            lineage=old.lineage,
            change_reason=reason[:200],
            evidence=old.evidence,
            hit_count=old.hit_count,
            observed_at=old.observed_at,
        )
        changed = [
            name
            for name in (
                "content",
                "category",
                "kind",
                "entities",
                "importance",
                "confidence",
                "pinned",
                "linked_doc_id",
            )
            if getattr(new, name) != getattr(old, name)
        ]
        _retire(old, new, now, actor, reason)
        _audit_memory(actor, "memory.correct", new, reason, changed)
    return new


def _stored_embedding(memory: Memory) -> Any:
    return Memory.objects.filter(pk=memory.pk).values_list("embedding", flat=True).first()


def memory_delete(*, memory: Memory, actor: Actor, reason: str = "") -> None:
    """Physical delete: the row and its embedding are gone; the audit entry keeps only ids."""
    _check_access(actor, memory)
    with transaction.atomic():
        tenant_id, subject_id, memory_id = memory.tenant_id, memory.subject_id, memory.pk
        # Corrections lock the subject too: a version written meanwhile is committed before
        # the links below are cleared (else its `supersedes` fails the FK at COMMIT).
        Subject.objects.select_for_update(of=("self",)).filter(pk=subject_id).first()
        # Keep the chain consistent for the remaining versions.
        Memory.objects.filter(superseded_by_id=memory_id).update(superseded_by=None)
        Memory.objects.filter(pk=memory_id).delete()
        audit_record(
            actor=actor,
            action="memory.delete",
            target_type="memory.memory",
            target_id=memory_id,
            tenant_id=tenant_id,
            subject_id=subject_id,
            reason=reason,
        )


def memory_record_read(
    *,
    actor: Actor,
    subject: Subject | None,
    action: str,
    target_id: Any = "",
    tenant_id: int | None = None,
) -> None:
    """Reads of personal data leave an audit entry too."""
    with transaction.atomic():
        audit_record(
            actor=actor,
            action=action,
            target_type="memory.subject" if not target_id else "memory.memory",
            target_id=target_id or (subject.pk if subject else ""),
            tenant_id=subject.tenant_id if subject else tenant_id,
            subject_id=subject.pk if subject else None,
        )


def agent_subject_ungrant(*, agent: Agent, subject: Subject, actor: Actor) -> None:
    """Take a subject away from a restricted agent."""
    from guardian.shortcuts import remove_perm

    with transaction.atomic():
        remove_perm("memory.access_subject", agent.user, subject)
        audit_record(
            actor=actor,
            action="agent.ungrant_subject",
            target=agent,
            tenant_id=agent.tenant_id,
            subject_id=subject.pk,
        )


def agent_subject_grant(*, agent: Agent, subject: Subject, actor: Actor) -> None:
    """Allow a restricted agent to see one subject (django-guardian object permission)."""
    from guardian.shortcuts import assign_perm

    if subject.tenant_id != agent.tenant_id:
        raise ApplicationError("invalid_grant", MSG_GRANT_OTHER_TENANT)
    with transaction.atomic():
        assign_perm("memory.access_subject", agent.user, subject)
        audit_record(
            actor=actor,
            action="agent.grant_subject",
            target=agent,
            tenant_id=agent.tenant_id,
            subject_id=subject.pk,
        )


# --------------------------------------------------------------------------- recall side effects


def recall_record(*, trace: dict[str, Any], actor: Actor) -> RecallTrace | None:
    """Store a recall trace, bump hit counts of the returned memories, audit the read.

    Runs after the answer was sent (a task; inline only when the broker is down). Skips
    silently when the subject was erased meanwhile.
    """
    subject = Subject.objects.filter(pk=trace["subject_id"]).first()
    if subject is None:
        return None
    try:  # the grant may have been taken away since the answer was sent
        subject_access_check(actor=actor, subject=subject)
    except NotFound:
        return None
    selected = [int(pk) for pk in trace["selected_ids"]]
    now = timezone.now()
    with transaction.atomic():
        row, created = RecallTrace.objects.get_or_create(
            trace_id=trace["trace_id"],
            defaults={
                "tenant_id": subject.tenant_id,
                "subject": subject,
                "agent_id": trace.get("agent_id"),
                "query": trace["query"],
                "route": trace["route"],
                "parameters": trace["parameters"],
                "candidates": [trace_candidate_stripped(c) for c in trace["candidates"]],
                "selected_ids": selected,
                "token_count": trace["token_count"],
                "timings_ms": trace["timings_ms"],
                "total_ms": trace["total_ms"],
            },
        )
        if not created:  # a re-delivered task: already recorded
            return row
        if selected:
            Memory.objects.filter(pk__in=selected, subject=subject).update(
                hit_count=F("hit_count") + 1, last_accessed_at=now
            )
        audit_record(
            actor=actor,
            action="memory.recall",
            target=row,
            tenant_id=subject.tenant_id,
            subject_id=subject.pk,
            changed_fields=["hit_count"] if selected else [],
        )
    return row


def recall_record_later(*, trace: dict[str, Any], actor: Actor) -> None:
    """Record the trace after the answer, through the outbox (it waits there while the
    broker is down, instead of costing the request an inline write or a timeout)."""
    outbox_send(
        task=record_recall_task,
        args=[
            trace,
            {"type": actor.type, "id": actor.id, "request_id": actor.request_id, "ip": actor.ip},
        ],
        subject_id=trace.get("subject_id"),
    )


# --------------------------------------------------------------------------- maintenance


def memories_reembed(
    *, actor: Actor, force: bool = False, batch_size: int = 256, progress: Any = None
) -> int:
    """Re-embed memories whose embedding came from another model (or all with `force`).

    Works in id order and in batches (embedding outside the transaction, one short write
    transaction per batch), so it can be interrupted and re-run; returns the number updated.
    """
    embedder = get_embedder()
    queryset = (
        Memory.objects.all() if force else Memory.objects.exclude(embedding_model=embedder.name)
    )
    total = queryset.count()
    done, last_id = 0, 0
    while True:
        batch = list(
            queryset.filter(pk__gt=last_id)
            .order_by("pk")
            .values_list("pk", "content", "tenant_id", "subject_id")[:batch_size]
        )
        if not batch:
            break
        vectors = embedder.embed([content for _, content, _, _ in batch])
        with transaction.atomic():
            for (pk, _, _, _), vector in zip(batch, vectors, strict=True):
                Memory.objects.filter(pk=pk).update(
                    embedding=vector.tolist(), embedding_model=embedder.name
                )
            for tenant_id, subject_id in sorted({(t, s) for _, _, t, s in batch}):
                audit_record(
                    actor=actor,
                    action="memory.reembed",
                    target_type="memory.subject",
                    target_id=subject_id,
                    tenant_id=tenant_id,
                    subject_id=subject_id,
                    reason=f"embedding model {embedder.name}",
                    changed_fields=["embedding"],
                )
        done += len(batch)
        last_id = batch[-1][0]
        if progress is not None:
            progress(done, total)
    return done


# --------------------------------------------------------------------------- staff actions

REVIEW_ACCEPTED_CONFIDENCE = 0.8  # a human confirmed it
MSG_ALREADY_RESOLVED = "This observation was already resolved ({status})."
MSG_NO_RELATED = "There is no related memory to merge into."


def memory_set_pinned(*, memory: Memory, pinned: bool, actor: Actor, reason: str) -> Memory:
    """Pinned memories never decay (a flag, not a new version)."""
    _check_access(actor, memory)
    with transaction.atomic():
        memory.pinned = pinned
        memory.save(update_fields=["pinned", "updated_at"])
        _audit_memory(actor, "memory.pin" if pinned else "memory.unpin", memory, reason, ["pinned"])
    return memory


def memory_expire(*, memory: Memory, actor: Actor, reason: str) -> Memory:
    """No longer true (e.g. a finished plan): kept for history, never recalled."""
    _check_access(actor, memory)
    with transaction.atomic():
        memory.status = Memory.Status.EXPIRED
        memory.valid_to = timezone.now()
        memory.change_reason = reason[:200]
        memory.save(update_fields=["status", "valid_to", "change_reason", "updated_at"])
        _audit_memory(actor, "memory.expire", memory, reason, ["status", "valid_to"])
    return memory


def observation_resolve(
    *,
    observation: Observation,
    decision: str,
    actor: Actor,
    user: Any = None,
    note: str = "",
    content: str | None = None,
) -> Observation:
    """Resolve a review item; the outcome feeds the version chain like an automatic decision.

    - `accept`: the observed memory becomes active (confidence raised to at least 0.8); for a
      conflict it supersedes the related memory (version + 1, old one `superseded`).
    - `edit`: correct the content first, then accept.
    - `reject`: the candidate is archived (never recalled); the related memory stays.
    - `merge`: the candidate's evidence is folded into the related memory and the candidate
      row is deleted.
    """
    if decision not in ("accept", "edit", "reject", "merge"):
        raise ApplicationError("invalid", f"Unknown decision {decision!r}.")
    _check_access(actor, observation)
    now = timezone.now()
    with transaction.atomic():
        locked = Observation.objects.select_for_update().get(pk=observation.pk)
        if locked.status != Observation.Status.PENDING:
            raise ApplicationError(
                "already_resolved",
                MSG_ALREADY_RESOLVED.format(status=locked.status),
                status_code=409,
            )
        memory = (
            Memory.objects.select_for_update().filter(pk=locked.memory_id).first()
            if locked.memory_id
            else None
        )
        related = list(locked.related_memories.select_for_update().filter(status__in=LIVE_STATUSES))
        if decision in ("accept", "edit") and memory is not None:
            if decision == "edit" and content:
                redacted = pii.redact(content).text
                memory.content = redacted
                memory.search_text = _search_text(
                    Candidate(content=redacted, category=memory.category, slot=memory.slot)
                )
                memory.embedding = _embed([redacted])[0]
            _accept(locked, memory, related, now, actor, note)
            status = Observation.Status.ACCEPTED
        elif decision == "merge":
            if memory is None or not related:
                raise ApplicationError("invalid", MSG_NO_RELATED)
            target = related[0]
            target.evidence = with_evidence(
                target.evidence,
                evidence_entry(
                    event_id=memory.source_event_id,
                    quote=memory.source_quote,
                    at=memory.observed_at,
                ),
            )
            target.merge_count += 1
            target.save(update_fields=["evidence", "merge_count", "updated_at"])
            locked.memory = None
            locked.save(update_fields=["memory"])
            merged_id = memory.pk
            memory.delete()
            _audit_memory(actor, "memory.merge", target, note or "merged in review", ["evidence"])
            audit_record(
                actor=actor,
                action="memory.delete",
                target_type="memory.memory",
                target_id=merged_id,
                tenant_id=target.tenant_id,
                subject_id=target.subject_id,
                reason="merged in review",
            )
            status = Observation.Status.MERGED
        else:  # reject (or nothing left to accept)
            if memory is not None and memory.status == Memory.Status.OBSERVED:
                memory.status = Memory.Status.ARCHIVED
                memory.change_reason = "rejected in review"
                memory.save(update_fields=["status", "change_reason", "updated_at"])
                _audit_memory(
                    actor, "memory.archive", memory, note or "rejected in review", ["status"]
                )
            elif memory is not None and locked.kind == Observation.Kind.NEEDS_REVIEW:
                memory.status = Memory.Status.EXPIRED
                memory.valid_to = now
                memory.save(update_fields=["status", "valid_to", "updated_at"])
                _audit_memory(
                    actor, "memory.expire", memory, note or "rejected in review", ["status"]
                )
            status = Observation.Status.REJECTED
        locked.status = status
        locked.resolved_at = now
        locked.resolved_by = user
        locked.note = note[:2000]
        locked.save(update_fields=["status", "resolved_at", "resolved_by", "note", "updated_at"])
        audit_record(
            actor=actor,
            action=f"observation.{status}",
            target=locked,
            tenant_id=locked.tenant_id,
            subject_id=locked.subject_id,
            reason=note,
            changed_fields=["status"],
        )
    return locked


def _accept(
    observation: Observation,
    memory: Memory,
    related: list[Memory],
    now: dt.datetime,
    actor: Actor,
    note: str,
) -> None:
    memory.status = Memory.Status.ACTIVE
    memory.confidence = max(memory.confidence, REVIEW_ACCEPTED_CONFIDENCE)
    memory.change_reason = (note or "accepted in review")[:200]
    if observation.kind == Observation.Kind.CONFLICT and related:
        old = related[0]
        memory.version = old.version + 1
        memory.supersedes = old
        memory.lineage = old.lineage
        memory.save()
        for previous in related:
            _retire(previous, memory, now, actor, note or "superseded in review")
    else:
        memory.save()
    _audit_memory(
        actor, "memory.accept", memory, note or "accepted in review", ["status", "confidence"]
    )
