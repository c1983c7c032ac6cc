"""Input and output serializers of the agent API (unique names: they appear in the schema)."""

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.validation import JsonLimits, json_object_problem
from memory.models import Event, Memory

EXTRACT_MODES = ("async", "sync", "none")

# Event metadata is free-form JSON, kept with the event and shown in the person's access export.
METADATA_LIMITS = JsonLimits(max_depth=20, max_keys=200, max_key_length=128, max_bytes=16_384)
METADATA_HELP = (
    "Free-form JSON object kept with the event: at most "
    f"{METADATA_LIMITS.max_depth} levels of nesting, {METADATA_LIMITS.max_keys} keys in total, "
    f"keys of at most {METADATA_LIMITS.max_key_length} characters, "
    f"{METADATA_LIMITS.max_bytes} bytes as compact UTF-8 JSON; no NUL characters or lone "
    "surrogates in keys or strings."
)


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {},
        "maxProperties": METADATA_LIMITS.max_keys,
        "description": METADATA_HELP,
    }
)
class EventMetadataField(serializers.DictField):
    """A JSON object PostgreSQL can store and every later reader (exports) can walk."""

    def to_internal_value(self, data: Any) -> dict:
        problem = json_object_problem(data, METADATA_LIMITS)
        if problem:
            raise serializers.ValidationError(problem)
        return dict(data)


class EventInputSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Event.Role.values)
    content = serializers.CharField(allow_blank=False, trim_whitespace=False)
    occurred_at = serializers.DateTimeField(required=False)
    client_event_id = serializers.CharField(required=False, max_length=128, allow_blank=False)
    metadata = EventMetadataField(required=False)

    def validate_content(self, value: str) -> str:
        limit = settings.ENGRAM_MAX_EVENT_CHARS
        if len(value) > limit:
            raise serializers.ValidationError(
                f"Content is {len(value)} characters; "
                f"the limit is {limit} (ENGRAM_MAX_EVENT_CHARS)."
            )
        return value


class EventsAppendInputSerializer(serializers.Serializer):
    session_id = serializers.CharField(max_length=128)
    events = EventInputSerializer(many=True, allow_empty=False)
    extract = serializers.ChoiceField(choices=EXTRACT_MODES, default="async")

    def get_fields(self) -> dict[str, serializers.Field]:
        # The limit is read per request (a setting), so validation and schema agree with it.
        fields = super().get_fields()
        fields["events"] = EventInputSerializer(
            many=True,
            allow_empty=False,
            min_length=1,
            max_length=settings.ENGRAM_MAX_EVENTS_PER_REQUEST,
            help_text="1 to ENGRAM_MAX_EVENTS_PER_REQUEST (default 500) events.",
        )
        return fields


class EventOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    client_event_id = serializers.CharField(allow_null=True)
    session_id = serializers.CharField()
    role = serializers.CharField()
    content = serializers.CharField()
    occurred_at = serializers.DateTimeField()
    extraction_status = serializers.CharField()


class MemoryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    subject_id = serializers.CharField(source="subject.external_id")
    kind = serializers.CharField()
    category = serializers.CharField()
    content = serializers.CharField()
    entities = serializers.ListField(child=serializers.CharField())
    importance = serializers.FloatField()
    confidence = serializers.FloatField()
    status = serializers.CharField()
    version = serializers.IntegerField()
    supersedes = serializers.IntegerField(source="supersedes_id", allow_null=True)
    superseded_by = serializers.IntegerField(source="superseded_by_id", allow_null=True)
    source_event_id = serializers.IntegerField(allow_null=True)
    source_quote = serializers.CharField()
    linked_doc_id = serializers.CharField(allow_blank=True)
    pinned = serializers.BooleanField()
    hit_count = serializers.IntegerField()
    last_accessed_at = serializers.DateTimeField(allow_null=True)
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True)
    change_reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class WriteResultOutputSerializer(serializers.Serializer):
    action = serializers.CharField()
    memory = MemoryOutputSerializer(allow_null=True)
    observation_id = serializers.IntegerField(
        source="observation.pk", allow_null=True, required=False
    )


class ExtractionOutputSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["queued", "done", "skipped", "failed"])
    results = WriteResultOutputSerializer(many=True)
    error = serializers.CharField(required=False)


class EventsAppendOutputSerializer(serializers.Serializer):
    events = EventOutputSerializer(many=True)
    extraction = ExtractionOutputSerializer()


class EventListQuerySerializer(serializers.Serializer):
    session_id = serializers.CharField(required=False, max_length=128)
    cursor = serializers.CharField(required=False, max_length=64)  # the `next` of a page
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)


class EventPageOutputSerializer(serializers.Serializer):
    results = EventOutputSerializer(many=True)
    next = serializers.CharField(allow_null=True)


class MemoryListQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Memory.Status.values, required=False)
    category = serializers.ChoiceField(choices=Memory.Category.values, required=False)
    q = serializers.CharField(required=False, max_length=500)
    cursor = serializers.CharField(required=False, max_length=64)  # the `next` of a page
    limit = serializers.IntegerField(required=False, min_value=1, max_value=200, default=50)


class MemoryPageOutputSerializer(serializers.Serializer):
    results = MemoryOutputSerializer(many=True)
    next = serializers.CharField(allow_null=True)


class MemoryCreateInputSerializer(serializers.Serializer):
    content = serializers.CharField(max_length=4000)
    category = serializers.ChoiceField(choices=Memory.Category.values)
    kind = serializers.ChoiceField(choices=Memory.Kind.values, default=Memory.Kind.SEMANTIC)
    entities = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, default=list, max_length=50
    )
    importance = serializers.FloatField(min_value=0, max_value=1, default=0.5)
    confidence = serializers.FloatField(min_value=0, max_value=1, default=0.9)
    source_event_id = serializers.IntegerField(required=False, allow_null=True)
    linked_doc_id = serializers.CharField(
        required=False, allow_blank=True, max_length=200, default=""
    )
    pinned = serializers.BooleanField(required=False, default=False)
    occurred_at = serializers.DateTimeField(required=False)


class MemoryUpdateInputSerializer(serializers.Serializer):
    content = serializers.CharField(max_length=4000, required=False)
    category = serializers.ChoiceField(choices=Memory.Category.values, required=False)
    kind = serializers.ChoiceField(choices=Memory.Kind.values, required=False)
    entities = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, max_length=50
    )
    importance = serializers.FloatField(min_value=0, max_value=1, required=False)
    confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    pinned = serializers.BooleanField(required=False)
    linked_doc_id = serializers.CharField(required=False, allow_blank=True, max_length=200)
    reason = serializers.CharField(required=False, max_length=200, default="correction")

    def validate(self, attrs: dict) -> dict:
        if not set(attrs) - {"reason"}:
            raise serializers.ValidationError("Send at least one field to change.")
        return attrs


class MemoryHistoryOutputSerializer(serializers.Serializer):
    results = MemoryOutputSerializer(many=True)


class RecallInputSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=4000)
    entities = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, default=list, max_length=20
    )
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=5)
    token_budget = serializers.IntegerField(min_value=50, max_value=20000, default=800)
    as_of = serializers.DateTimeField(required=False)


class RecallSignalsOutputSerializer(serializers.Serializer):
    semantic = serializers.FloatField()
    keyword = serializers.FloatField()
    entity = serializers.FloatField()
    recency = serializers.FloatField()
    importance = serializers.FloatField()


class RecalledMemoryOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="memory.pk")
    content = serializers.CharField(source="memory.content")
    category = serializers.CharField(source="memory.category")
    kind = serializers.CharField(source="memory.kind")
    status = serializers.CharField(source="memory.status")
    importance = serializers.FloatField(source="memory.importance")
    confidence = serializers.FloatField(source="memory.confidence")
    valid_from = serializers.DateTimeField(source="memory.valid_from")
    score = serializers.FloatField()
    signals = RecallSignalsOutputSerializer()


class RecallOutputSerializer(serializers.Serializer):
    memories = RecalledMemoryOutputSerializer(many=True, source="selected")
    context = serializers.CharField()
    route = serializers.CharField()
    token_count = serializers.IntegerField()
    trace_id = serializers.CharField()


class SessionContextQuerySerializer(serializers.Serializer):
    token_budget = serializers.IntegerField(min_value=50, max_value=50000, default=2000)


class SessionTurnOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    role = serializers.CharField()
    content = serializers.CharField()
    occurred_at = serializers.DateTimeField()


class SessionContextOutputSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    summary = serializers.CharField(allow_blank=True)
    summarized_turns = serializers.IntegerField()
    turns = SessionTurnOutputSerializer(many=True)
    token_count = serializers.IntegerField()


class ProfileQuerySerializer(serializers.Serializer):
    as_of = serializers.DateTimeField(required=False)
    history = serializers.IntegerField(min_value=0, max_value=50, default=5)


class ProfileValueOutputSerializer(serializers.Serializer):
    memory_id = serializers.IntegerField()
    content = serializers.CharField()
    values = serializers.ListField(child=serializers.CharField())
    category = serializers.CharField()
    status = serializers.CharField()
    confidence = serializers.FloatField()
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True)


class ProfileSlotOutputSerializer(serializers.Serializer):
    slot = serializers.CharField()
    current = ProfileValueOutputSerializer()
    history = ProfileValueOutputSerializer(many=True)


class ProfileOutputSerializer(serializers.Serializer):
    subject_id = serializers.CharField()
    as_of = serializers.DateTimeField(allow_null=True)
    slots = ProfileSlotOutputSerializer(many=True)


class KnowledgeUpdatedOutputSerializer(serializers.Serializer):
    flagged = serializers.IntegerField()


class ErasureReceiptOutputSerializer(serializers.Serializer):
    case_id = serializers.CharField()
    subject_pk = serializers.IntegerField()
    started_at = serializers.CharField()
    completed_at = serializers.CharField()
    deleted = serializers.DictField(child=serializers.IntegerField())
    export_files_deleted = serializers.IntegerField()
    residue = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=(
            "What is left of this subject, per place: a table name (rows still tied to the "
            "subject, or rows holding its words that no other subject owns), `files:exports`, "
            "`redis:recall_rewrite`, `redis:unreachable` (the cache could not be checked). "
            "Empty after a complete erasure."
        ),
    )
    residue_total = serializers.IntegerField(help_text="Sum of `residue`; 0 when complete.")
    shared_text = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=(
            "Rows of other subjects of the same tenant, per table, that hold the same words "
            "(someone else said the same sentence). They belong to those people and are kept; "
            "they are not residue."
        ),
    )
    shared_text_total = serializers.IntegerField(help_text="Sum of `shared_text`.")
    audit_entries_retained = serializers.IntegerField()


class PortalLinkOutputSerializer(serializers.Serializer):
    url = serializers.CharField()
    expires_in = serializers.IntegerField()


class ErrorDetailOutputSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable, machine-readable (e.g. `invalid`, `not_found`)."
    )
    message = serializers.CharField(help_text="For people.")
    fields = serializers.DictField(
        help_text="Per-field messages for `invalid` (nested like the request body); else {}."
    )


class ErrorOutputSerializer(serializers.Serializer):
    """The one error shape of the whole API."""

    error = ErrorDetailOutputSerializer()
