"""Input validation and the mem0 output shapes.

Inputs are plain DRF serializers (unique `Mem0…` names). Outputs are built by small functions:
mem0's shapes differ per endpoint generation, and spelling them out keeps each visible."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from django.conf import settings
from django.utils import timezone
from rest_framework import serializers

from memory.models import Event, Memory
from memory.recall import ScoredMemory
from memory.serializers import EventMetadataField

# The session of a mem0 add without run_id (shown back as run_id = null).
DEFAULT_SESSION = "mem0:default"
MAX_MESSAGES = 100
DEFAULT_SEARCH_TOP_K = 10
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
WRITE_EVENT = {"created": "ADD", "observed": "ADD", "superseded": "UPDATE", "merged": "NONE"}


class Mem0MessagesField(serializers.Field):
    """mem0 accepts a string, one message object or a list of them."""

    def to_internal_value(self, data: Any) -> list[dict[str, str]]:
        if isinstance(data, str):
            data = [{"role": "user", "content": data}]
        elif isinstance(data, dict):
            data = [data]
        if not isinstance(data, list) or not data or len(data) > MAX_MESSAGES:
            raise serializers.ValidationError(
                f"Give a string, a message object or a list of 1 to {MAX_MESSAGES} messages."
            )
        messages = []
        for item in data:
            if not isinstance(item, dict):
                raise serializers.ValidationError("Each message is an object {role, content}.")
            message = Mem0MessageSerializer(data=item)
            message.is_valid(raise_exception=True)
            messages.append(dict(message.validated_data))
        return messages

    def to_representation(self, value: Any) -> Any:
        return value


class Mem0MessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Event.Role.values, default=Event.Role.USER)
    content = serializers.CharField(allow_blank=False, trim_whitespace=False)

    def validate_content(self, value: str) -> str:
        if len(value) > settings.ENGRAM_MAX_EVENT_CHARS:
            raise serializers.ValidationError(
                f"At most {settings.ENGRAM_MAX_EVENT_CHARS} characters (ENGRAM_MAX_EVENT_CHARS)."
            )
        return value


class Mem0EntityIdsMixin(serializers.Serializer):
    user_id = serializers.CharField(max_length=128, required=False)
    agent_id = serializers.CharField(max_length=128, required=False)
    app_id = serializers.CharField(max_length=128, required=False)
    run_id = serializers.CharField(max_length=128, required=False)


class Mem0AddInputSerializer(Mem0EntityIdsMixin):
    messages = Mem0MessagesField()
    metadata = EventMetadataField(required=False, allow_null=True)
    infer = serializers.BooleanField(required=False, default=True)
    async_mode = serializers.BooleanField(required=False, default=False)
    timestamp = serializers.IntegerField(required=False, min_value=0, max_value=32503680000)


class Mem0SearchInputSerializer(Mem0EntityIdsMixin):
    query = serializers.CharField(max_length=4000)
    filters = serializers.DictField(required=False, allow_null=True)
    top_k = serializers.IntegerField(min_value=1, max_value=50, required=False)
    limit = serializers.IntegerField(min_value=1, max_value=50, required=False)
    threshold = serializers.FloatField(min_value=0, max_value=1, required=False, allow_null=True)
    output_format = serializers.CharField(required=False, max_length=16)


class Mem0ListInputSerializer(Mem0EntityIdsMixin):
    filters = serializers.DictField(required=False, allow_null=True)
    page = serializers.IntegerField(min_value=1, required=False, default=1)
    page_size = serializers.IntegerField(
        min_value=1, max_value=MAX_PAGE_SIZE, required=False, default=DEFAULT_PAGE_SIZE
    )
    top_k = serializers.IntegerField(min_value=0, max_value=MAX_PAGE_SIZE, required=False)


class Mem0UpdateInputSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=4000, required=False, allow_null=True)
    data = serializers.CharField(max_length=4000, required=False, allow_null=True)
    metadata = serializers.DictField(required=False, allow_null=True)
    timestamp = serializers.IntegerField(required=False, allow_null=True)
    expiration_date = serializers.CharField(required=False, allow_null=True)


def validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def occurred_at(timestamp: int | None) -> dt.datetime | None:
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC) if timestamp is not None else None


def _iso(value: dt.datetime | None) -> str | None:
    return timezone.localtime(value).isoformat() if value else None


def mem0_meta(memory: Memory) -> dict[str, Any]:
    event = memory.source_event
    meta = event.metadata.get("mem0") if event is not None else None
    return meta if isinstance(meta, dict) else {}


def memory_shape(memory: Memory) -> dict[str, Any]:
    """A memory as mem0 returns it, plus Engram's status, version, confidence and importance."""
    meta = mem0_meta(memory)
    event = memory.source_event
    session = event.session_id if event is not None else None
    return {
        "id": str(memory.pk),
        "memory": memory.content,
        "user_id": memory.subject.external_id,
        "agent_id": meta.get("agent_id"),
        "app_id": meta.get("app_id"),
        "run_id": session if session and session != DEFAULT_SESSION else None,
        "hash": hashlib.md5(memory.content.encode(), usedforsecurity=False).hexdigest(),
        "metadata": meta.get("metadata"),
        "categories": [memory.category],
        "entities": list(memory.entities),
        "created_at": _iso(memory.created_at),
        "updated_at": _iso(memory.updated_at),
        "expiration_date": memory.valid_to.date().isoformat() if memory.valid_to else None,
        "immutable": False,
        "status": memory.status,
        "version": memory.version,
        "confidence": memory.confidence,
        "importance": memory.importance,
    }


def search_shape(item: ScoredMemory, memory: Memory, route: str) -> dict[str, Any]:
    """A search hit: the memory, its recall score and the signals that make it up."""
    return {
        **memory_shape(memory),
        "score": item.score,
        "score_breakdown": {**item.signals, "route": route},
    }


def write_shape(action: str, memory: Memory) -> dict[str, Any]:
    return {
        "id": str(memory.pk),
        "memory": memory.content,
        "event": WRITE_EVENT.get(action, "ADD"),
        "user_id": memory.subject.external_id,
        "status": memory.status,
        "version": memory.version,
    }


def event_result_shape(memory: Memory) -> dict[str, Any]:
    return {
        "id": str(memory.pk),
        "event": "ADD" if memory.version == 1 else "UPDATE",
        "user_id": memory.subject.external_id,
        "data": {"memory": memory.content},
        "status": memory.status,
        "version": memory.version,
    }


def history_shape(current: Memory, versions: list[Memory]) -> list[dict[str, Any]]:
    """mem0 history events from Engram's version chain: ADD, then one UPDATE per correction
    or supersede, and DELETE when the memory was retired (expired or archived)."""
    meta = mem0_meta(current)
    entries: list[dict[str, Any]] = []
    previous: Memory | None = None
    for version in versions:
        entries.append(
            {
                "id": str(version.pk),
                "memory_id": str(current.pk),
                "input": [],
                "old_memory": previous.content if previous else None,
                "new_memory": version.content,
                "user_id": current.subject.external_id,
                "event": "ADD" if previous is None else "UPDATE",
                "metadata": meta.get("metadata"),
                "categories": [version.category],
                "created_at": _iso(version.created_at),
                "updated_at": _iso(version.updated_at),
                "version": version.version,
                "status": version.status,
                "change_reason": version.change_reason,
            }
        )
        previous = version
    if previous is not None and previous.status in (Memory.Status.EXPIRED, Memory.Status.ARCHIVED):
        entries.append(
            {
                **entries[-1],
                "id": f"{previous.pk}:retired",
                "old_memory": previous.content,
                "new_memory": None,
                "event": "DELETE",
                "updated_at": _iso(previous.status_changed_at or previous.updated_at),
            }
        )
    return entries
