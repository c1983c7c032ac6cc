"""The MCP tools, named as mem0's hosted MCP server names them (plus OpenMemory's aliases,
registered in mcp_door.server).

Each tool only translates: arguments → the input serializers of the REST API (same limits)
→ the same service or selector the REST view calls → a mem0-shaped result with Engram's
extras. Failures come back as a tool error whose text is the API's error shape plus the
HTTP status the REST API would have answered.

Subjects: mem0's `user_id` is the Engram subject id. A tool without one uses the default of
the MCP URL (`/mcp?user_id=…`) or the `X-Engram-User-Id` header; the agent (who is calling)
is always the key's, never taken from the URL.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from rest_framework.exceptions import ValidationError as DrfValidationError

from accounts.models import SCOPE_ERASE, SCOPE_READ, SCOPE_WRITE, Agent
from audit.services import Actor, actor_for_agent
from core.db_retry import run_with_db_retry
from core.exception_handler import error_body, outage_message
from core.exceptions import ApplicationError, NotFound, SubjectPaused
from mcp_door import selectors as door_selectors
from mcp_door.auth import AGENT_SCOPE_KEY, request_meta
from mcp_door.db import with_db_connection
from memory import selectors, services
from memory.models import Event, Memory, Subject
from memory.recall import RecallParams, recall_compute, recall_trace_payload
from memory.serializers import (
    EventsAppendInputSerializer,
    MemoryCreateInputSerializer,
    MemoryListQuerySerializer,
    MemoryOutputSerializer,
    MemoryUpdateInputSerializer,
    RecallInputSerializer,
)

DEFAULT_SESSION_ID = "mcp"
MAX_DELETE_ALL = 10_000  # memories one delete_all_memories call removes at most
MSG_NO_USER = (
    "user_id is required: pass it, or connect with a default (/mcp?user_id=… or the "
    "X-Engram-User-Id header)."
)
MSG_SCOPE = "This agent key lacks the '{scope}' scope this tool needs."
MSG_NO_TEXT = "Send `text` or `messages` (a list of {role, content})."
MSG_BAD_ID = "`{name}` must be an id as returned by this server."
MSG_FILTER = "Unsupported filter {key!r}: this tool filters on {allowed}."

# mem0's event states for Engram's per-event extraction status
EVENT_STATES = {
    Event.ExtractionStatus.PENDING: "PENDING",
    Event.ExtractionStatus.QUEUED: "PENDING",
    Event.ExtractionStatus.RUNNING: "RUNNING",
    Event.ExtractionStatus.DONE: "SUCCEEDED",
    Event.ExtractionStatus.SKIPPED: "SUCCEEDED",
    Event.ExtractionStatus.FAILED: "FAILED",
}

UserId = Annotated[
    str | None,
    Field(description="The person (Engram subject) the memory is about; defaults per connection."),
]
MemoryId = Annotated[str, Field(description="A memory id as returned by this server.")]


# --------------------------------------------------------------------------- plumbing


@dataclass(frozen=True)
class Caller:
    agent: Agent
    actor: Actor
    default_user_id: str | None


def _caller(ctx: Context, scope: str) -> Caller:
    """The authenticated agent of this HTTP request (set by AgentKeyMiddleware), once its
    scopes cover `scope`."""
    request = ctx.request_context.request
    agent = request.scope.get(AGENT_SCOPE_KEY) if request is not None else None
    if not isinstance(agent, Agent):  # only reachable if the app was mounted without auth
        raise ApplicationError("not_authenticated", "No agent key.", status_code=401)
    if not agent.has_scope(scope):
        raise ApplicationError("permission_denied", MSG_SCOPE.format(scope=scope), status_code=403)
    default = request.query_params.get("user_id") or request.headers.get("x-engram-user-id")
    return Caller(
        agent=agent,
        actor=actor_for_agent(agent, request_meta(request.scope)),
        default_user_id=default or None,
    )


def _user_id(caller: Caller, user_id: str | None) -> str:
    external_id = user_id or caller.default_user_id
    if not external_id:
        raise ApplicationError("invalid", MSG_NO_USER, fields={"user_id": [MSG_NO_USER]})
    return selectors.validate_subject_id(external_id)


def _error_text(exc: Exception) -> str | None:
    """The REST API's answer to `exc` as the tool error's text; None for a crash."""
    if isinstance(exc, ApplicationError):
        status, body = exc.status_code, error_body(exc.code, exc.message, exc.fields)
    elif isinstance(exc, DrfValidationError):
        fields = json.loads(json.dumps(exc.detail))
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        status, body = 400, error_body("invalid", "The request is invalid; see fields.", fields)
    elif isinstance(exc, DjangoValidationError):
        fields = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        status, body = 400, error_body("invalid", "The request is invalid; see fields.", fields)
    elif isinstance(exc, Http404):
        status, body = 404, error_body("not_found", "Not found.")
    elif (message := outage_message(exc)) is not None:
        status, body = 503, error_body("service_unavailable", message)
    else:
        return None
    return json.dumps({**body, "status": status}, ensure_ascii=False)


def engram_tool(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Run a tool body like a REST request: its own database connection, deadlock victims
    retried, domain errors answered in the error shape (crashes stay generic)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return with_db_connection(lambda: run_with_db_retry(lambda: fn(*args, **kwargs)))
        except Exception as exc:
            text = _error_text(exc)
            if text is None:
                raise
            raise ToolError(text) from exc

    return wrapper


def _validated(serializer_class: type, data: dict[str, Any]) -> dict[str, Any]:
    serializer = serializer_class(data={k: v for k, v in data.items() if v is not None})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _memory_id(value: str, name: str = "memory_id") -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        number = -1
    if number < 0:
        message = MSG_BAD_ID.format(name=name)
        raise ApplicationError("invalid", message, fields={name: [message]})
    return number


def memory_item(memory: Memory) -> dict[str, Any]:
    """A memory as mem0 shows it (`id`, `memory`, `user_id`, `categories`, `metadata`) plus
    Engram's own fields (status, version, confidence, validity, provenance)."""
    data = dict(MemoryOutputSerializer(memory).data)
    return {
        **data,
        "id": str(memory.pk),
        "memory": memory.content,
        "user_id": memory.subject.external_id,
        "categories": [memory.category],
        "metadata": {"kind": memory.kind, "entities": list(memory.entities)},
    }


def _memory_for(caller: Caller, memory_id: str) -> Memory:
    """The memory by id alone (mem0 style), through the REST API's permission-checked fetch."""
    number = _memory_id(memory_id)
    external_id = door_selectors.memory_subject_external_id(agent=caller.agent, memory_id=number)
    return selectors.memory_get_for_agent(
        agent=caller.agent, external_id=external_id, memory_id=number
    )


def _writable_subject(caller: Caller, external_id: str) -> Subject:
    """As the REST API: permission-checked, created on first write, refused while paused."""
    subject = selectors.subject_for_agent(agent=caller.agent, external_id=external_id)
    if subject is None:
        subject = services.subject_get_or_create(
            tenant=caller.agent.tenant, external_id=external_id, actor=caller.actor
        )
    if subject.paused:
        raise SubjectPaused()
    return subject


def _record_read(caller: Caller, subject: Subject | None, action: str, target_id: Any = "") -> None:
    services.memory_record_read(
        actor=caller.actor,
        subject=subject,
        action=action,
        target_id=target_id,
        tenant_id=caller.agent.tenant_id,
    )


def _filter_value(filters: dict[str, Any] | None, allowed: tuple[str, ...]) -> dict[str, Any]:
    """mem0-style filters reduced to plain equality on the fields this tool knows: either
    `{"user_id": "x"}` or `{"AND": [{"user_id": "x"}, …]}`; anything else is a clear error."""
    if not filters:
        return {}
    clauses = filters["AND"] if list(filters) == ["AND"] else [filters]
    if not isinstance(clauses, list):
        clauses = [clauses]
    found: dict[str, Any] = {}
    for clause in clauses:
        if not isinstance(clause, dict):
            raise ApplicationError("invalid_filter", "Each filter clause must be an object.")
        for key, value in clause.items():
            if key not in allowed or isinstance(value, dict | list):
                message = MSG_FILTER.format(key=key, allowed=", ".join(allowed))
                raise ApplicationError("invalid_filter", message, fields={"filters": [message]})
            found[key] = value
    return found


# --------------------------------------------------------------------------- writes


def add_memory(
    ctx: Context,
    text: Annotated[
        str | None, Field(description="What to remember, as a sentence (or use `messages`).")
    ] = None,
    messages: Annotated[
        list[dict[str, str]] | None,
        Field(description="Conversation turns [{role: user|assistant, content}] to learn from."),
    ] = None,
    user_id: UserId = None,
    agent_id: Annotated[str | None, Field(description="Kept as event metadata.")] = None,
    app_id: Annotated[str | None, Field(description="Kept as event metadata.")] = None,
    run_id: Annotated[
        str | None, Field(description="The conversation/session id (Engram session).")
    ] = None,
    metadata: Annotated[
        dict[str, Any] | None, Field(description="Free-form JSON kept with the events.")
    ] = None,
    infer: Annotated[
        bool,
        Field(
            description="true: Engram extracts memories from the text (deduped, conflicts "
            "resolved); false: store the text as one memory exactly as given."
        ),
    ] = True,
    async_mode: Annotated[
        bool,
        Field(description="With infer: answer at once with an event_id (poll get_event_status)."),
    ] = True,
    category: Annotated[
        str,
        Field(description="With infer=false: preference|plan|correction|decision|fact|profile."),
    ] = "fact",
) -> dict[str, Any]:
    """Store a memory. With infer=true (default) the text or messages are appended as
    conversation events and Engram's extraction decides what to keep (asynchronously: poll
    get_event_status with the returned event_id); with infer=false the text is stored as one
    memory as given (PII redacted, deduplicated)."""
    caller = _caller(ctx, SCOPE_WRITE)
    external_id = _user_id(caller, user_id)
    if infer:
        return _add_by_extraction(
            caller, external_id, text, messages, run_id, async_mode, metadata, agent_id, app_id
        )
    if not text:
        raise ApplicationError("invalid", MSG_NO_TEXT, fields={"text": [MSG_NO_TEXT]})
    data = _validated(MemoryCreateInputSerializer, {"content": text, "category": category})
    subject = _writable_subject(caller, external_id)
    result = services.memory_create(
        subject=subject,
        actor=caller.actor,
        content=data["content"],
        category=data["category"],
        kind=data["kind"],
        entities=data["entities"],
        importance=data["importance"],
        confidence=data["confidence"],
    )
    results = [] if result.memory is None else [{**memory_item(result.memory), "event": "ADD"}]
    return {"action": result.action, "results": results}


def _add_by_extraction(
    caller: Caller,
    external_id: str,
    text: str | None,
    messages: list[dict[str, str]] | None,
    run_id: str | None,
    async_mode: bool,
    metadata: dict[str, Any] | None,
    agent_id: str | None,
    app_id: str | None,
) -> dict[str, Any]:
    turns = messages or ([{"role": "user", "content": text}] if text else [])
    if not turns:
        raise ApplicationError("invalid", MSG_NO_TEXT, fields={"messages": [MSG_NO_TEXT]})
    extra = {key: value for key, value in (("agent_id", agent_id), ("app_id", app_id)) if value}
    event_metadata = {**(metadata or {}), **extra, "via": "mcp"}
    data = _validated(
        EventsAppendInputSerializer,
        {
            "session_id": run_id or DEFAULT_SESSION_ID,
            "events": [{**turn, "metadata": event_metadata} for turn in turns],
            "extract": "async" if async_mode else "sync",
        },
    )
    appended = services.events_append(
        tenant=caller.agent.tenant,
        external_id=external_id,
        session_id=data["session_id"],
        events=[services.EventInput(**event) for event in data["events"]],
        extract=data["extract"],
        actor=caller.actor,
    )
    event_id = "-".join(str(event.pk) for event in appended.events)
    if async_mode:
        return {"event_id": event_id, "status": "PENDING", "message": "Extraction queued."}
    results = services.events_extract(event_ids=appended.new_event_ids, actor=caller.actor)
    return {
        "event_id": event_id,
        "status": _event_state(
            door_selectors.events_for_agent(
                agent=caller.agent, event_ids=[event.pk for event in appended.events]
            )
        ),
        "results": [
            {**memory_item(r.memory), "event": r.action.upper()} for r in results if r.memory
        ],
    }


def update_memory(
    ctx: Context,
    memory_id: MemoryId,
    text: Annotated[str, Field(description="The corrected statement.")],
) -> dict[str, Any]:
    """Correct a memory: Engram writes a new version and keeps the old one in its history."""
    caller = _caller(ctx, SCOPE_WRITE)
    memory = _memory_for(caller, memory_id)
    data = _validated(MemoryUpdateInputSerializer, {"content": text})
    if memory.subject.paused:
        raise SubjectPaused()
    new = services.memory_correct(memory=memory, actor=caller.actor, **data)
    return {**memory_item(new), "event": "UPDATE"}


def delete_memory(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
    """Delete one memory (physically; the audit log keeps only ids)."""
    caller = _caller(ctx, SCOPE_WRITE)
    memory = _memory_for(caller, memory_id)
    services.memory_delete(memory=memory, actor=caller.actor, reason="deleted by agent (MCP)")
    return {"message": "Memory deleted successfully!", "id": str(memory_id)}


def delete_memories(
    ctx: Context,
    memory_ids: Annotated[list[str], Field(description="Memory ids to delete.", max_length=200)],
) -> dict[str, Any]:
    """Delete several memories by id (OpenMemory's delete_memories). All are checked
    before any is deleted."""
    caller = _caller(ctx, SCOPE_WRITE)
    memories = [_memory_for(caller, memory_id) for memory_id in memory_ids]
    for memory in memories:
        services.memory_delete(memory=memory, actor=caller.actor, reason="deleted by agent (MCP)")
    return {"message": f"Deleted {len(memories)} memories.", "deleted": len(memories)}


def delete_all_memories(ctx: Context, user_id: UserId = None) -> dict[str, Any]:
    """Delete every memory of one user (only that user; the user and their conversation
    events stay — erasing the person is delete_entities)."""
    caller = _caller(ctx, SCOPE_WRITE)
    external_id = _user_id(caller, user_id)
    subject = selectors.subject_for_agent(agent=caller.agent, external_id=external_id)
    deleted = 0
    while subject is not None and deleted < MAX_DELETE_ALL:
        page = selectors.memory_list(subject=subject, limit=selectors.MAX_PAGE_SIZE)
        if not page.items:
            break
        for memory in page.items:
            services.memory_delete(memory=memory, actor=caller.actor, reason="delete_all (MCP)")
            deleted += 1
    if deleted == 0:  # nothing changed, so no service audited: the request itself is
        _record_read(caller, subject, "memory.delete_all")
    return {"message": f"Deleted {deleted} memories of {external_id}.", "deleted": deleted}


def delete_entities(ctx: Context, user_id: UserId = None) -> dict[str, Any]:
    """Erase a user entirely (Engram's erasure: every memory, event, trace and grant, with a
    receipt proving nothing is left). Needs the 'erase' scope."""
    from privacy.services import subject_erase

    caller = _caller(ctx, SCOPE_ERASE)
    external_id = _user_id(caller, user_id)
    subject = selectors.subject_for_agent(agent=caller.agent, external_id=external_id)
    if subject is None:
        raise NotFound("No such subject.")
    receipt = subject_erase(subject=subject, actor=caller.actor)
    return {
        "message": f"Entity {external_id} erased.",
        "receipt": json.loads(json.dumps(receipt, default=str)),
    }


# --------------------------------------------------------------------------- reads


def search_memories(
    ctx: Context,
    query: Annotated[str, Field(description="What to recall, in natural language.")],
    user_id: UserId = None,
    filters: Annotated[
        dict[str, Any] | None, Field(description='Optional {"user_id": "…"} (mem0 style).')
    ] = None,
    limit: Annotated[int | None, Field(description="At most this many memories (1-50).")] = None,
    token_budget: Annotated[
        int | None, Field(description="Token budget of the context block (50-20000).")
    ] = None,
) -> dict[str, Any]:
    """Recall: the memories that answer `query`, ranked (semantic, keyword, entity, recency,
    importance) and packed into a token-budgeted `context` block ready for a prompt."""
    caller = _caller(ctx, SCOPE_READ)
    external_id = _user_id(caller, _filter_value(filters, ("user_id",)).get("user_id", user_id))
    subject = selectors.subject_for_agent(agent=caller.agent, external_id=external_id)
    data = _validated(
        RecallInputSerializer, {"query": query, "top_k": limit, "token_budget": token_budget}
    )
    if subject is not None and subject.paused:
        raise SubjectPaused()
    params = RecallParams(
        query=data["query"],
        entities=data["entities"],
        top_k=data["top_k"],
        token_budget=data["token_budget"],
    )
    result = recall_compute(subject=subject, params=params)
    trace_id = str(uuid.uuid4())
    if subject is None:
        _record_read(caller, None, "memory.recall")
    else:  # as the REST API: the trace (and its audit entry) is written after the answer
        services.recall_record_later(
            trace=recall_trace_payload(
                result, subject=subject, agent=caller.agent, params=params, trace_id=trace_id
            ),
            actor=caller.actor,
        )
    return {
        "context": result.context,
        "token_count": result.token_count,
        "route": result.route,
        "trace_id": trace_id,
        "results": [
            {
                **memory_item(scored.memory),
                "score": scored.score,
                "score_breakdown": dict(scored.signals),
            }
            for scored in result.selected
        ],
    }


def get_memories(
    ctx: Context,
    user_id: UserId = None,
    filters: Annotated[
        dict[str, Any] | None,
        Field(description='Optional {"user_id", "category", "status"} equality filters.'),
    ] = None,
    page_size: Annotated[int | None, Field(description="Memories per page (1-200).")] = None,
    cursor: Annotated[str | None, Field(description="`next` of the previous page.")] = None,
    query: Annotated[str | None, Field(description="Keyword or substring match.")] = None,
) -> dict[str, Any]:
    """List a user's memories, newest first, page by page (no ranking: see search_memories)."""
    caller = _caller(ctx, SCOPE_READ)
    wanted = _filter_value(filters, ("user_id", "category", "status"))
    external_id = _user_id(caller, wanted.get("user_id", user_id))
    subject = selectors.subject_for_agent(agent=caller.agent, external_id=external_id)
    query_data = _validated(
        MemoryListQuerySerializer,
        {
            "status": wanted.get("status"),
            "category": wanted.get("category"),
            "q": query,
            "cursor": cursor,
            "limit": page_size,
        },
    )
    page = selectors.memory_list(
        subject=subject,
        status=query_data.get("status"),
        category=query_data.get("category"),
        q=query_data.get("q"),
        cursor=query_data.get("cursor"),
        limit=query_data["limit"],
    )
    _record_read(caller, subject, "memory.list")
    return {
        "count": len(page.items),
        "next": page.next_cursor,
        "results": [memory_item(memory) for memory in page.items],
    }


def get_memory(ctx: Context, memory_id: MemoryId) -> dict[str, Any]:
    """One memory by id, with its status, version and provenance."""
    caller = _caller(ctx, SCOPE_READ)
    memory = _memory_for(caller, memory_id)
    _record_read(caller, memory.subject, "memory.read", target_id=memory.pk)
    return memory_item(memory)


def list_entities(ctx: Context) -> dict[str, Any]:
    """The users (subjects) this agent can see, with how many memories each holds."""
    caller = _caller(ctx, SCOPE_READ)
    subjects = list(door_selectors.subjects_for_agent(agent=caller.agent))
    _record_read(caller, None, "subject.list")
    return {
        "results": [
            {
                "type": "user",
                "id": subject.external_id,
                "name": subject.external_id,
                "total_memories": subject.memory_count,
                "paused": subject.paused,
                "created_at": subject.created_at.isoformat(),
                "updated_at": subject.updated_at.isoformat(),
            }
            for subject in subjects
        ]
    }


def _event_state(events: list[Event]) -> str:
    states = {EVENT_STATES[event.extraction_status] for event in events}
    for state in ("FAILED", "RUNNING", "PENDING"):
        if state in states:
            return state
    return "SUCCEEDED"


def get_event_status(
    ctx: Context,
    event_id: Annotated[str, Field(description="The event_id add_memory returned.")],
) -> dict[str, Any]:
    """The state of an asynchronous add: PENDING, RUNNING, SUCCEEDED or FAILED, with the
    memories it produced once it succeeded."""
    caller = _caller(ctx, SCOPE_READ)
    ids = [_memory_id(part, "event_id") for part in str(event_id).split("-")]
    events = door_selectors.events_for_agent(agent=caller.agent, event_ids=ids)
    subject = events[0].subject
    memories = door_selectors.memories_from_events(subject=subject, event_ids=ids)
    _record_read(caller, subject, "event.status")
    errors = [event.extraction_error for event in events if event.extraction_error]
    return {
        "id": event_id,
        "status": _event_state(events),
        "results": [{**memory_item(memory), "event": "ADD"} for memory in memories],
        **({"error": errors[0]} if errors else {}),
    }
