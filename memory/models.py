"""The memory model: subjects, the append-only event stream, the memory index, the review
queue and recall traces.

Events are append-only in the database (see the trigger in migration 0002); memories are
versioned through `supersedes` / `superseded_by` instead of being overwritten.
"""

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from pgvector.django import VectorField

from accounts.models import Agent, Tenant
from core.crypto import EncryptedTextField
from core.models import BaseModel

EMBEDDING_DIM = 512


class Subject(BaseModel):
    """A person agents remember things about, addressed by the agent's own id string."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="subjects")
    external_id = models.CharField(max_length=128)
    display_name = models.CharField(max_length=200, blank=True)
    paused = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)
    end_user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="subject",
    )

    class Meta:
        ordering = ["tenant", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "external_id"], name="subject_external_id_unique_per_tenant"
            )
        ]
        permissions = [("access_subject", "Agent may read and write this subject")]

    def __str__(self) -> str:
        return self.external_id


class Event(models.Model):
    """One conversation event. Never updated: content columns are protected by a trigger."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        TOOL = "tool"
        SYSTEM = "system"

    class Type(models.TextChoices):
        MESSAGE = "message"
        TOOL_CALL = "tool_call"
        TOOL_RESULT = "tool_result"
        NOTE = "note"

    class ExtractionStatus(models.TextChoices):
        PENDING = "pending"  # stored, not yet handed to a worker
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        SKIPPED = "skipped"

    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="events")
    session_id = models.CharField(max_length=128)
    role = models.CharField(max_length=16, choices=Role.choices)
    type = models.CharField(max_length=16, choices=Type.choices, default=Type.MESSAGE)
    content = EncryptedTextField()  # encrypted at rest (core/crypto.py)
    occurred_at = models.DateTimeField()
    received_at = models.DateTimeField(auto_now_add=True)
    client_event_id = models.CharField(max_length=128, null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    content_hash = models.CharField(max_length=64)
    extraction_status = models.CharField(
        max_length=16, choices=ExtractionStatus.choices, default=ExtractionStatus.PENDING
    )
    extraction_attempts = models.PositiveSmallIntegerField(default=0)
    # when a worker claimed it (`running`): a claim older than the lease was abandoned
    claimed_at = models.DateTimeField(null=True, blank=True)
    extraction_error = models.TextField(blank=True)
    extracted_at = models.DateTimeField(null=True, blank=True)
    extractor = models.CharField(max_length=64, blank=True)
    extraction_usage = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["occurred_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subject", "client_event_id"],
                condition=Q(client_event_id__isnull=False),
                name="event_client_id_unique_per_subject",
            ),
        ]
        indexes = [
            # GET /events?session_id=… and the session context window
            models.Index(
                fields=["subject", "session_id", "occurred_at", "id"], name="event_session"
            ),
            models.Index(fields=["subject", "id"], name="event_subject_cursor"),
            # the sweeper: events left pending / queued when the broker was down
            models.Index(
                fields=["received_at"],
                condition=Q(extraction_status__in=["pending", "queued"]),
                name="event_extraction_backlog",
            ),
            # the sweeper: claims a killed worker never finished
            models.Index(
                fields=["claimed_at"],
                condition=Q(extraction_status="running"),
                name="event_extraction_claimed",
            ),
        ]

    def __str__(self) -> str:
        return f"event {self.pk} ({self.role})"


class Memory(BaseModel):
    """An extracted (or explicitly written) statement about a subject."""

    class Kind(models.TextChoices):
        SEMANTIC = "semantic"
        EPISODIC = "episodic"
        PROCEDURAL = "procedural"

    class Category(models.TextChoices):
        PREFERENCE = "preference"
        PLAN = "plan"
        CORRECTION = "correction"
        DECISION = "decision"
        FACT = "fact"
        PROFILE = "profile"

    class Status(models.TextChoices):
        ACTIVE = "active"
        OBSERVED = "observed"
        SUPERSEDED = "superseded"
        EXPIRED = "expired"
        NEEDS_REVIEW = "needs_review"
        ARCHIVED = "archived"
        PURGE_PENDING = "purge_pending"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="memories")
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="memories")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SEMANTIC)
    category = models.CharField(max_length=16, choices=Category.choices)
    content = models.TextField()
    entities = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    importance = models.FloatField(default=0.5)
    confidence = models.FloatField(default=0.8)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    # When a lifecycle job last moved the status (purge grace period counts from here).
    status_changed_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    # All versions of one memory share a lineage, so the history is one indexed query.
    lineage = models.UUIDField(default=uuid.uuid4)
    supersedes = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="superseded_by_rel"
    )
    superseded_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    change_reason = models.CharField(max_length=200, blank=True)
    # No database constraint on purpose: events are deleted only by subject erasure, which
    # deletes the subject's memories first; a deferred FK check per event would make erasing
    # 100 k events several times slower.
    source_event = models.ForeignKey(
        Event,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="memories",
        db_constraint=False,
    )
    source_quote = models.TextField(blank=True)
    # Further evidence merged into this memory: [{"event_id", "quote", "at"}]
    evidence = models.JSONField(default=list, blank=True)
    merge_count = models.PositiveIntegerField(default=0)
    linked_doc_id = models.CharField(max_length=200, blank=True, db_index=True)
    pinned = models.BooleanField(default=False)
    hit_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    observed_at = models.DateTimeField(help_text="When the statement was made (source time).")
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)
    # Conflict detection: statements answering the same question share a slot.
    slot = models.CharField(max_length=120, blank=True)
    slot_values = ArrayField(models.CharField(max_length=120), default=list, blank=True)
    fact_subject = models.CharField(max_length=200, blank=True)
    fact_predicate = models.CharField(max_length=200, blank=True)
    fact_object = models.CharField(max_length=200, blank=True)
    decay_rate = models.FloatField(
        null=True, blank=True, help_text="Per-day; null = category default."
    )
    decay_exempt = models.BooleanField(default=False)
    embedding = VectorField(dimensions=EMBEDDING_DIM, null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True)
    # Segmented tokens (jieba words + CJK bigrams + English words) for keyword search.
    search_text = models.TextField(blank=True)
    search_vector = models.GeneratedField(
        expression=SearchVector("search_text", config="simple"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "memories"
        constraints = [
            models.CheckConstraint(
                condition=Q(importance__gte=0) & Q(importance__lte=1),
                name="memory_importance_range",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="memory_confidence_range",
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="memory_version_positive"),
            models.CheckConstraint(
                condition=~Q(superseded_by=models.F("id")), name="memory_not_superseded_by_itself"
            ),
        ]
        indexes = [
            # recall and lists: a subject's memories by status
            models.Index(fields=["subject", "status"], name="memory_subject_status"),
            # dedupe / conflict: same slot within a subject
            models.Index(fields=["subject", "slot"], name="memory_subject_slot"),
            # GET …/memories/{id}/history
            models.Index(fields=["subject", "lineage", "version"], name="memory_lineage"),
            # list pagination by id
            models.Index(fields=["subject", "-id"], name="memory_subject_cursor"),
            models.Index(fields=["tenant", "status", "category"], name="memory_tenant_dashboard"),
            # console dashboard: the tenant's most recalled memories
            models.Index(
                fields=["tenant", "-hit_count", "-id"],
                condition=Q(hit_count__gt=0),
                name="memory_top_recalled",
            ),
            # lifecycle jobs scan by status, oldest first
            models.Index(fields=["status", "created_at"], name="memory_lifecycle_scan"),
            GinIndex(fields=["search_vector"], name="memory_search_vector"),
            GinIndex(fields=["entities"], name="memory_entities"),
        ]

    def __str__(self) -> str:
        return f"memory {self.pk} v{self.version} ({self.status})"


class Observation(BaseModel):
    """An item of the review queue: a memory waiting for a human decision."""

    class Kind(models.TextChoices):
        LOW_CONFIDENCE = "low_confidence"
        CONFLICT = "conflict"
        NEEDS_REVIEW = "needs_review"

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"
        MERGED = "merged"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="observations")
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="observations")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    memory = models.ForeignKey(
        Memory, on_delete=models.CASCADE, null=True, blank=True, related_name="observations"
    )
    candidate = models.JSONField(default=dict, blank=True)
    related_memories = models.ManyToManyField(
        Memory, blank=True, related_name="related_observations"
    )
    reason = models.CharField(max_length=300, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            # the queue: pending items oldest first, per tenant
            models.Index(
                fields=["tenant", "created_at"],
                condition=Q(status="pending"),
                name="observation_pending_queue",
            ),
            models.Index(fields=["subject", "status"], name="observation_subject_status"),
        ]

    def __str__(self) -> str:
        return f"observation {self.pk} {self.kind} ({self.status})"


class RecallTrace(models.Model):
    """Everything needed to explain (and replay) one recall, by memory id: no memory text is
    copied here (the console joins the current text, and shows what is gone as deleted)."""

    # Returned to the agent as `trace_id` before the row is written (off the request path).
    trace_id = models.UUIDField(default=uuid.uuid4, unique=True)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="recall_traces")
    subject = models.ForeignKey(Subject, on_delete=models.CASCADE, related_name="recall_traces")
    agent = models.ForeignKey(
        Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="recall_traces"
    )
    query = models.TextField()
    route = models.CharField(max_length=32)
    parameters = models.JSONField(default=dict)
    # [{"id", "category", "kind", "status", "signals": {...}, "score", "selected", "cut"}]
    candidates = models.JSONField(default=list)
    selected_ids = ArrayField(models.BigIntegerField(), default=list)
    token_count = models.PositiveIntegerField(default=0)
    timings_ms = models.JSONField(default=dict)
    total_ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="recalltrace_tenant_recent"),
            models.Index(fields=["subject", "-created_at"], name="recalltrace_subject_recent"),
        ]

    def __str__(self) -> str:
        return f"recall {self.pk}"
