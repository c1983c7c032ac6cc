"""Typed results of the v1 API: frozen dataclasses built from the JSON answers.

Unknown keys are ignored (a newer server may add fields), and each object keeps the JSON it
came from in `raw`. Timestamps become timezone-aware `datetime`s."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

ExtractMode = Literal["async", "sync", "none"]


def _dt(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    # fromisoformat reads "Z" from Python 3.11 on; replace it for 3.10.
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _req_dt(value: Any) -> datetime:
    parsed = _dt(value)
    if parsed is None:
        raise ValueError("missing timestamp")
    return parsed


@dataclass(frozen=True)
class EventInput:
    """One event to append. Without `client_event_id` the client makes one (a UUID)."""

    role: Literal["user", "assistant", "system", "tool"] | str
    content: str
    client_event_id: str | None = None
    occurred_at: datetime | str | None = None
    metadata: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.client_event_id is not None:
            body["client_event_id"] = self.client_event_id
        if self.occurred_at is not None:
            occurred = self.occurred_at
            body["occurred_at"] = (
                occurred.isoformat() if isinstance(occurred, datetime) else occurred
            )
        if self.metadata is not None:
            body["metadata"] = self.metadata
        return body


@dataclass(frozen=True)
class Event:
    id: int
    client_event_id: str | None
    session_id: str
    role: str
    content: str
    occurred_at: datetime
    extraction_status: str
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        return cls(
            id=data["id"],
            client_event_id=data.get("client_event_id"),
            session_id=data["session_id"],
            role=data["role"],
            content=data["content"],
            occurred_at=_req_dt(data["occurred_at"]),
            extraction_status=data.get("extraction_status", ""),
            raw=data,
        )


@dataclass(frozen=True)
class Memory:
    id: int
    subject_id: str
    kind: str
    category: str
    content: str
    entities: list[str]
    importance: float
    confidence: float
    status: str
    version: int
    supersedes: int | None
    superseded_by: int | None
    source_event_id: int | None
    source_quote: str
    linked_doc_id: str
    pinned: bool
    hit_count: int
    last_accessed_at: datetime | None
    valid_from: datetime
    valid_to: datetime | None
    change_reason: str
    created_at: datetime
    updated_at: datetime
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Memory:
        return cls(
            id=data["id"],
            subject_id=data["subject_id"],
            kind=data["kind"],
            category=data["category"],
            content=data["content"],
            entities=list(data.get("entities") or []),
            importance=data["importance"],
            confidence=data["confidence"],
            status=data["status"],
            version=data["version"],
            supersedes=data.get("supersedes"),
            superseded_by=data.get("superseded_by"),
            source_event_id=data.get("source_event_id"),
            source_quote=data.get("source_quote", ""),
            linked_doc_id=data.get("linked_doc_id", ""),
            pinned=data.get("pinned", False),
            hit_count=data.get("hit_count", 0),
            last_accessed_at=_dt(data.get("last_accessed_at")),
            valid_from=_req_dt(data["valid_from"]),
            valid_to=_dt(data.get("valid_to")),
            change_reason=data.get("change_reason", ""),
            created_at=_req_dt(data["created_at"]),
            updated_at=_req_dt(data["updated_at"]),
            raw=data,
        )


@dataclass(frozen=True)
class WriteResult:
    """What the decision pipeline did with one candidate: `created`, `merged`, `superseded`,
    `observed` or `ignored` (`memory` is None when nothing was kept)."""

    action: str
    memory: Memory | None
    observation_id: int | None
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WriteResult:
        memory = data.get("memory")
        return cls(
            action=data["action"],
            memory=Memory.from_json(memory) if memory else None,
            observation_id=data.get("observation_id"),
            raw=data,
        )


@dataclass(frozen=True)
class Extraction:
    """`status`: `queued` (async), `done`, `skipped` (extract=none) or `failed` (see `error`)."""

    status: str
    results: list[WriteResult]
    error: str | None
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Extraction:
        return cls(
            status=data["status"],
            results=[WriteResult.from_json(r) for r in data.get("results") or []],
            error=data.get("error"),
            raw=data,
        )

    @property
    def memories(self) -> list[Memory]:
        """The memories the extraction created or touched."""
        return [r.memory for r in self.results if r.memory is not None]


@dataclass(frozen=True)
class AppendResult:
    events: list[Event]
    extraction: Extraction
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AppendResult:
        return cls(
            events=[Event.from_json(e) for e in data["events"]],
            extraction=Extraction.from_json(data["extraction"]),
            raw=data,
        )


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a cursor-paginated list; `next_cursor` is None on the last page."""

    items: list[T]
    next_cursor: str | None


@dataclass(frozen=True)
class RecallSignals:
    semantic: float
    keyword: float
    entity: float
    recency: float
    importance: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecallSignals:
        return cls(**{name: float(data.get(name, 0.0)) for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class RecalledMemory:
    id: int
    content: str
    category: str
    kind: str
    status: str
    importance: float
    confidence: float
    valid_from: datetime
    score: float
    signals: RecallSignals
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RecalledMemory:
        return cls(
            id=data["id"],
            content=data["content"],
            category=data["category"],
            kind=data["kind"],
            status=data.get("status", ""),
            importance=data["importance"],
            confidence=data["confidence"],
            valid_from=_req_dt(data["valid_from"]),
            score=data["score"],
            signals=RecallSignals.from_json(data.get("signals") or {}),
            raw=data,
        )


@dataclass(frozen=True)
class Recall:
    """Recalled memories and `context`, a block ready to put in the prompt."""

    memories: list[RecalledMemory]
    context: str
    route: str
    token_count: int
    trace_id: str
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Recall:
        return cls(
            memories=[RecalledMemory.from_json(m) for m in data["memories"]],
            context=data["context"],
            route=data.get("route", ""),
            token_count=data.get("token_count", 0),
            trace_id=data.get("trace_id", ""),
            raw=data,
        )


@dataclass(frozen=True)
class SessionTurn:
    id: int
    role: str
    content: str
    occurred_at: datetime

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionTurn:
        return cls(
            id=data["id"],
            role=data["role"],
            content=data["content"],
            occurred_at=_req_dt(data["occurred_at"]),
        )


@dataclass(frozen=True)
class SessionContext:
    """The short-term layer: the latest turns that fit, plus a summary of older ones."""

    session_id: str
    summary: str
    summarized_turns: int
    turns: list[SessionTurn]
    token_count: int
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionContext:
        return cls(
            session_id=data["session_id"],
            summary=data.get("summary", ""),
            summarized_turns=data.get("summarized_turns", 0),
            turns=[SessionTurn.from_json(t) for t in data.get("turns") or []],
            token_count=data.get("token_count", 0),
            raw=data,
        )


@dataclass(frozen=True)
class ProfileValue:
    memory_id: int
    content: str
    values: list[str]
    category: str
    status: str
    confidence: float
    valid_from: datetime
    valid_to: datetime | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProfileValue:
        return cls(
            memory_id=data["memory_id"],
            content=data["content"],
            values=list(data.get("values") or []),
            category=data["category"],
            status=data["status"],
            confidence=data["confidence"],
            valid_from=_req_dt(data["valid_from"]),
            valid_to=_dt(data.get("valid_to")),
        )


@dataclass(frozen=True)
class ProfileSlot:
    slot: str
    current: ProfileValue
    history: list[ProfileValue]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProfileSlot:
        return cls(
            slot=data["slot"],
            current=ProfileValue.from_json(data["current"]),
            history=[ProfileValue.from_json(v) for v in data.get("history") or []],
        )


@dataclass(frozen=True)
class Profile:
    subject_id: str
    as_of: datetime | None
    slots: list[ProfileSlot]
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Profile:
        return cls(
            subject_id=data["subject_id"],
            as_of=_dt(data.get("as_of")),
            slots=[ProfileSlot.from_json(s) for s in data.get("slots") or []],
            raw=data,
        )


@dataclass(frozen=True)
class ErasureReceipt:
    """What erasing a subject deleted, and what is left of it (`residue`, empty when complete)."""

    case_id: str
    subject_pk: int
    started_at: str
    completed_at: str
    deleted: dict[str, int]
    export_files_deleted: int
    residue: dict[str, int]
    residue_total: int
    shared_text: dict[str, int]
    shared_text_total: int
    audit_entries_retained: int
    raw: dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ErasureReceipt:
        return cls(
            case_id=data["case_id"],
            subject_pk=data["subject_pk"],
            started_at=data["started_at"],
            completed_at=data["completed_at"],
            deleted=dict(data.get("deleted") or {}),
            export_files_deleted=data.get("export_files_deleted", 0),
            residue=dict(data.get("residue") or {}),
            residue_total=data.get("residue_total", 0),
            shared_text=dict(data.get("shared_text") or {}),
            shared_text_total=data.get("shared_text_total", 0),
            audit_entries_retained=data.get("audit_entries_retained", 0),
            raw=data,
        )

    @property
    def complete(self) -> bool:
        return self.residue_total == 0 and not self.residue


@dataclass(frozen=True)
class PortalLink:
    url: str
    expires_in: int

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PortalLink:
        return cls(url=data["url"], expires_in=data["expires_in"])
