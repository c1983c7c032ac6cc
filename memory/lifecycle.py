"""Lifecycle jobs: consolidation, decay and forgetting, purge, knowledge-base flagging.

Forgetting on purpose is part of the product: a store that only grows becomes slow,
contradictory and polluting. Every job is idempotent (it selects by current state, so a re-run
finds nothing left to do), bounded per run (`ENGRAM_LIFECYCLE_BATCH`), logs what it changed and
writes an audit entry per changed memory in the same transaction.

Decay rules (thresholds in settings, all "no hit" = no recall hit since N days, counted from the
last access or, never accessed, from creation):
1. no hit in 30 days and effective importance < 0.3 → archived
2. no hit in 90 days and effective importance < 0.5 → archived
3. no hit in 180 days and confidence < 0.7 → purge_pending (physically deleted after a grace)
4. plans whose valid_to has passed → expired
Effective importance = importance × 0.5 ** (idle days / half-life of the category). Pinned
memories and key attributes (identity, allergies and other safety facts) never decay.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from pgvector.django import CosineDistance

from accounts.services import subject_scope_for_actor
from audit.services import Actor, audit_record
from memory import decisions
from memory.models import Memory, Observation
from memory.services import evidence_entry, with_evidence

logger = logging.getLogger(__name__)

RULE_ARCHIVE_LOW = "archive_low_importance"
RULE_ARCHIVE_MID = "archive_mid_importance"
RULE_PURGE = "purge_low_confidence"
RULE_EXPIRE_PLAN = "expire_finished_plan"
DECAY_RULES = (RULE_EXPIRE_PLAN, RULE_ARCHIVE_LOW, RULE_ARCHIVE_MID, RULE_PURGE)

# Identity and safety facts are kept whatever their age (allergies, health conditions,
# medication, emergency contacts, names and identity).
_KEY_ATTRIBUTE = re.compile(
    r"过敏|哮喘|糖尿病|高血压|心脏病|癫痫|孕|药|禁忌|急救|紧急联系|血型|名字|姓名|身份|"
    r"allerg|asthma|diabet|epilep|pregnan|medication|medicine|blood type|emergency contact|"
    r"heart condition|intoleran|\bname\b",
    re.IGNORECASE,
)
_KEY_SLOTS = ("allergy", "health", "identity", "name")


def is_key_attribute(memory: Memory) -> bool:
    if memory.decay_exempt:
        return True
    if memory.slot and memory.slot.split(":")[0] in _KEY_SLOTS:
        return True
    return bool(_KEY_ATTRIBUTE.search(memory.content))


def idle_days(memory: Memory, now: dt.datetime) -> float:
    reference = memory.last_accessed_at or memory.created_at
    return max(0.0, (now - reference).total_seconds() / 86400)


def effective_importance(memory: Memory, now: dt.datetime) -> float:
    if memory.pinned or is_key_attribute(memory):
        return float(memory.importance)
    if memory.decay_rate:  # a per-memory rate per day overrides the defaults
        half_life = math.log(2) / memory.decay_rate
    elif memory.kind == Memory.Kind.EPISODIC:  # things that happened stay worth keeping longer
        half_life = settings.ENGRAM_DECAY_HALF_LIFE_DAYS["episodic"]
    else:
        half_life = settings.ENGRAM_DECAY_HALF_LIFE_DAYS.get(memory.category, 180)
    return float(memory.importance) * 0.5 ** (idle_days(memory, now) / half_life)


@dataclass
class DecayChange:
    memory_id: int
    subject_id: int
    rule: str
    new_status: str
    content_preview: str
    effective_importance: float


@dataclass
class DecayReport:
    changes: list[DecayChange] = field(default_factory=list)
    dry_run: bool = False

    def by_rule(self) -> dict[str, int]:
        counts = dict.fromkeys(DECAY_RULES, 0)
        for change in self.changes:
            counts[change.rule] += 1
        return counts


def _idle_since(days: int, now: dt.datetime) -> Q:
    cutoff = now - dt.timedelta(days=days)
    return Q(last_accessed_at__lt=cutoff) | Q(last_accessed_at__isnull=True, created_at__lt=cutoff)


def _decay_candidates(now: dt.datetime) -> Iterator[tuple[str, Memory]]:
    """(rule, memory) for every memory a rule applies to; the first matching rule wins, in
    order of strength: finished plans, purge, then the two archive rules."""
    columns = (
        "id",
        "kind",
        "subject_id",
        "tenant_id",
        "category",
        "content",
        "importance",
        "confidence",
        "status",
        "pinned",
        "decay_exempt",
        "decay_rate",
        "slot",
        "last_accessed_at",
        "created_at",
        "valid_to",
    )
    live = Memory.objects.filter(pinned=False).only(*columns)
    limit = settings.ENGRAM_LIFECYCLE_BATCH
    seen: set[int] = set()

    plans = live.filter(
        status__in=[Memory.Status.ACTIVE, Memory.Status.NEEDS_REVIEW],
        category=Memory.Category.PLAN,
        valid_to__lt=now,
    ).order_by("valid_to")[:limit]
    for memory in plans:
        seen.add(memory.pk)
        yield RULE_EXPIRE_PLAN, memory

    purge_rows = live.filter(
        _idle_since(settings.ENGRAM_DECAY_PURGE_DAYS, now),
        confidence__lt=settings.ENGRAM_DECAY_PURGE_CONFIDENCE,
        status__in=[Memory.Status.ACTIVE, Memory.Status.ARCHIVED, Memory.Status.OBSERVED],
    ).order_by(Coalesce("last_accessed_at", "created_at"))[:limit]
    for memory in purge_rows:
        if memory.pk not in seen and not is_key_attribute(memory):
            seen.add(memory.pk)
            yield RULE_PURGE, memory

    rules = (
        (
            RULE_ARCHIVE_LOW,
            settings.ENGRAM_DECAY_ARCHIVE_LOW_DAYS,
            settings.ENGRAM_DECAY_ARCHIVE_LOW_IMPORTANCE,
        ),
        (
            RULE_ARCHIVE_MID,
            settings.ENGRAM_DECAY_ARCHIVE_MID_DAYS,
            settings.ENGRAM_DECAY_ARCHIVE_MID_IMPORTANCE,
        ),
    )
    for rule, days, threshold in rules:
        # Effective importance ≤ stored importance, so the SQL bound only narrows the scan.
        rows = live.filter(_idle_since(days, now), status=Memory.Status.ACTIVE).order_by(
            Coalesce("last_accessed_at", "created_at")
        )[:limit]
        for memory in rows:
            if memory.pk in seen or is_key_attribute(memory):
                continue
            if effective_importance(memory, now) < threshold:
                seen.add(memory.pk)
                yield rule, memory


RULE_STATUS = {
    RULE_EXPIRE_PLAN: Memory.Status.EXPIRED,
    RULE_ARCHIVE_LOW: Memory.Status.ARCHIVED,
    RULE_ARCHIVE_MID: Memory.Status.ARCHIVED,
    RULE_PURGE: Memory.Status.PURGE_PENDING,
}


def memories_decay(
    *, actor: Actor, dry_run: bool = False, now: dt.datetime | None = None
) -> DecayReport:
    """Apply the decay rules (or, with dry_run, only report what would change)."""
    now = now or timezone.now()
    report = DecayReport(dry_run=dry_run)
    for rule, memory in _decay_candidates(now):
        new_status = RULE_STATUS[rule]
        report.changes.append(
            DecayChange(
                memory_id=memory.pk,
                subject_id=memory.subject_id,
                rule=rule,
                new_status=new_status,
                content_preview=memory.content[:60],
                effective_importance=round(effective_importance(memory, now), 3),
            )
        )
        if dry_run:
            continue
        with transaction.atomic():
            # Compare-and-set on the status we read: a concurrent change wins.
            updated = Memory.objects.filter(pk=memory.pk, status=memory.status).update(
                status=new_status,
                status_changed_at=now,
                change_reason=rule,
            )
            if updated:
                audit_record(
                    actor=actor,
                    action=f"memory.{new_status}",
                    target=memory,
                    tenant_id=memory.tenant_id,
                    subject_id=memory.subject_id,
                    reason=rule,
                    changed_fields=["status"],
                )
    if not dry_run and report.changes:
        logger.info("decay: %s", report.by_rule())
    return report


def memories_purge(*, actor: Actor, now: dt.datetime | None = None) -> int:
    """Physically delete memories left `purge_pending` for longer than the grace period."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(days=settings.ENGRAM_PURGE_GRACE_DAYS)
    rows = list(
        Memory.objects.filter(
            status=Memory.Status.PURGE_PENDING, status_changed_at__lte=cutoff
        ).values_list("pk", "tenant_id", "subject_id")[: settings.ENGRAM_LIFECYCLE_BATCH]
    )
    for pk, tenant_id, subject_id in rows:
        with transaction.atomic():
            Memory.objects.filter(superseded_by_id=pk).update(superseded_by=None)
            deleted, _ = Memory.objects.filter(pk=pk, status=Memory.Status.PURGE_PENDING).delete()
            if deleted:
                audit_record(
                    actor=actor,
                    action="memory.purge",
                    target_type="memory.memory",
                    target_id=pk,
                    tenant_id=tenant_id,
                    subject_id=subject_id,
                    reason="decay: purge grace period over",
                )
    if rows:
        logger.info("purge: deleted %d memories", len(rows))
    return len(rows)


def memories_consolidate(*, actor: Actor, limit: int | None = None) -> int:
    """Merge near-duplicate active memories of one subject (same category, cosine ≥ 0.85,
    overlapping entities) that slipped past ingest (e.g. written concurrently by different
    paths or before a model change).

    Version chains stay whole: the survivor is the duplicate that has a history (a corrected or
    superseded-into version), which keeps its content, version, change reason and evidence
    and absorbs the other; two duplicates that each have a history are left alone (merging
    would cut one chain). Without histories, the newer duplicate folds into the older one.
    """
    limit = limit or settings.ENGRAM_LIFECYCLE_BATCH
    merged = 0
    recent = (
        Memory.objects.filter(status=Memory.Status.ACTIVE)
        .exclude(kind=Memory.Kind.EPISODIC)
        .exclude(embedding__isnull=True)
        .defer("search_vector")
        .order_by("-id")[:limit]
    )
    for memory in recent:
        twin = _older_twin(memory)
        if twin is None:
            continue
        with transaction.atomic():
            locked = list(
                Memory.objects.select_for_update()
                .filter(pk__in=[memory.pk, twin.pk], status=Memory.Status.ACTIVE)
                .defer("embedding", "search_vector")
                .order_by("pk")
            )
            if len(locked) != 2:
                continue
            pair = _survivor_and_duplicate(*locked)
            if pair is None:
                continue
            _fold_into(*pair, actor=actor)
        merged += 1
    if merged:
        logger.info("consolidation: merged %d duplicates", merged)
    return merged


def has_history(memory: Memory) -> bool:
    """Part of a version chain: it replaced an earlier version (and is its current head)."""
    return memory.version > 1 or memory.supersedes_id is not None


def _survivor_and_duplicate(older: Memory, newer: Memory) -> tuple[Memory, Memory] | None:
    """Which of two duplicates stays: the one with a history, else the older; None when both
    have one."""
    if has_history(older) and has_history(newer):
        return None
    if has_history(newer):
        return newer, older
    return older, newer


def _fold_into(survivor: Memory, duplicate: Memory, *, actor: Actor) -> None:
    """The duplicate (never part of a chain) becomes evidence of the survivor and is deleted;
    the survivor's own content, version, change reason and evidence are kept."""
    survivor.evidence = with_evidence(
        survivor.evidence,
        evidence_entry(
            event_id=duplicate.source_event_id,
            quote=duplicate.source_quote,
            at=duplicate.observed_at,
        ),
    )
    survivor.merge_count += 1 + duplicate.merge_count
    survivor.hit_count += duplicate.hit_count
    survivor.importance = max(survivor.importance, duplicate.importance)
    survivor.confidence = max(survivor.confidence, duplicate.confidence)
    survivor.entities = list(dict.fromkeys([*survivor.entities, *duplicate.entities]))[:50]
    survivor.pinned = survivor.pinned or duplicate.pinned
    survivor.save(
        update_fields=[
            "evidence",
            "merge_count",
            "hit_count",
            "importance",
            "confidence",
            "entities",
            "pinned",
            "updated_at",
        ]
    )
    Observation.objects.filter(memory=duplicate).update(memory=survivor)
    duplicate_id = duplicate.pk
    duplicate.delete()
    audit_record(
        actor=actor,
        action="memory.merge",
        target=survivor,
        tenant_id=survivor.tenant_id,
        subject_id=survivor.subject_id,
        reason=f"consolidation: merged duplicate {duplicate_id}",
        changed_fields=["evidence", "merge_count"],
    )


def _older_twin(memory: Memory) -> Memory | None:
    compatible = decisions.COMPATIBLE.get(memory.category, {memory.category})
    neighbours = (
        Memory.objects.filter(
            subject_id=memory.subject_id,
            status=Memory.Status.ACTIVE,
            category__in=list(compatible),
            pk__lt=memory.pk,
        )
        .exclude(kind=Memory.Kind.EPISODIC)
        .annotate(distance=CosineDistance("embedding", memory.embedding))
        .filter(distance__lte=1 - decisions.DEDUPE_SIMILARITY)
        .defer("embedding", "search_vector")
        .order_by("distance")[:5]
    )
    for other in neighbours:
        if memory.slot and other.slot and memory.slot != other.slot:
            continue
        if not memory.entities or not other.entities or set(memory.entities) & set(other.entities):
            return other
    return None


def memories_flag_for_document(*, tenant_id: int, doc_id: str, actor: Actor) -> int:
    """A knowledge-base document changed: every memory linked to it needs review — of the
    subjects the actor may change (a restricted agent: its granted subjects only)."""
    memories = list(
        Memory.objects.filter(
            subject_scope_for_actor(actor=actor, tenant_id=tenant_id),
            tenant_id=tenant_id,
            linked_doc_id=doc_id,
            status__in=[Memory.Status.ACTIVE, Memory.Status.OBSERVED],
        ).only("pk", "subject_id", "tenant_id", "status")
    )
    now = timezone.now()
    for memory in memories:
        with transaction.atomic():
            Memory.objects.filter(pk=memory.pk).update(
                status=Memory.Status.NEEDS_REVIEW,
                status_changed_at=now,
                change_reason=f"linked document {doc_id} updated"[:200],
            )
            Observation.objects.create(
                tenant_id=tenant_id,
                subject_id=memory.subject_id,
                kind=Observation.Kind.NEEDS_REVIEW,
                memory_id=memory.pk,
                reason=f"linked document {doc_id} was updated; re-check the memory"[:300],
            )
            audit_record(
                actor=actor,
                action="memory.needs_review",
                target=memory,
                tenant_id=tenant_id,
                subject_id=memory.subject_id,
                reason=f"document {doc_id} updated",
                changed_fields=["status"],
            )
    return len(memories)


FUSION_PROMPT = (
    "Two statements about the same person contradict each other. Write ONE short, "
    "self-contained, declarative sentence that states what is most likely true now, keeping "
    "concrete words (names, numbers, dates) and the language of the statements. If the newer "
    "statement is only a possibility, keep the older fact and mention the possibility. Answer "
    'with JSON only: {"content": "..."}'
)


def observations_propose_fusions(*, actor: Actor, limit: int = 20) -> int:
    """With an LLM configured, attach a fused statement to pending conflict observations as a
    proposal for the reviewer (shown in the queue, used by "edit, then accept"); nothing is
    overwritten. Each observation is asked once; failures are logged and skipped."""
    if not (settings.OPENAI_API_KEY and settings.ENGRAM_EXTRACTOR == "llm"):
        return 0
    import json

    from openai import OpenAIError

    from memory.llm import chat_json

    pending = (
        Observation.objects.filter(
            status=Observation.Status.PENDING, kind=Observation.Kind.CONFLICT
        )
        .exclude(candidate__has_key="fusion")
        .select_related("memory")
        .prefetch_related("related_memories")
        .order_by("created_at")[:limit]
    )
    proposed = 0
    for observation in pending:
        related = list(observation.related_memories.all())
        if observation.memory is None or not related:
            continue
        older, newer = related[0], observation.memory
        try:
            payload = chat_json(
                system=FUSION_PROMPT,
                user=json.dumps(
                    {
                        "older": {
                            "content": older.content,
                            "date": older.observed_at.date().isoformat(),
                        },
                        "newer": {
                            "content": newer.content,
                            "date": newer.observed_at.date().isoformat(),
                            "confidence": newer.confidence,
                        },
                    },
                    ensure_ascii=False,
                ),
            )
            content = payload.get("content", "")
        except (OpenAIError, ValueError, AttributeError):
            logger.warning(
                "fusion proposal failed for observation %s", observation.pk, exc_info=True
            )
            continue
        if not isinstance(content, str) or not content.strip():
            continue
        from memory import pii

        with transaction.atomic():
            candidate = dict(observation.candidate)
            candidate["fusion"] = {
                "content": pii.redact(content.strip()[:2000]).text,
                "model": settings.ENGRAM_LLM_MODEL,
            }
            Observation.objects.filter(pk=observation.pk).update(candidate=candidate)
            audit_record(
                actor=actor,
                action="observation.fusion_proposed",
                target=observation,
                tenant_id=observation.tenant_id,
                subject_id=observation.subject_id,
                changed_fields=["candidate"],
            )
        proposed += 1
    return proposed
