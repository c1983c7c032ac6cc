"""The mem0-compatible door: mem0's hosted Platform paths (v1, v2, v3) and its OSS server's
paths, answered by Engram's own services and selectors.

It only translates. user_id → subject, run_id → session, agent_id / app_id / metadata →
the mem0 part of the source event's metadata; every read and write goes through the same
services as /api/v1/ (tenant isolation, grants, scopes, PII redaction, paused subjects,
audit, erasure). A mem0 memory id is an Engram memory id; an id of an older version leads to
the current one. An add's `event_id` is a signed token naming the events it stored, so its
status is read from the events themselves (nothing new to store).
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from django.core import signing
from django.db.models import Q
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import authentication, exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import agent_for_key
from accounts.models import SCOPE_ERASE, SCOPE_READ, Agent
from accounts.permissions import IsAgent, agent_may_access_subject
from audit.services import Actor, actor_for_agent
from core.exception_handler import api_exception_handler, error_body
from core.exceptions import ApplicationError, NotFound, SubjectPaused
from memory import selectors, services
from memory.mem0_compat import filters as mem0_filters
from memory.mem0_compat import selectors as mem0_selectors
from memory.mem0_compat.serializers import (
    DEFAULT_PAGE_SIZE,
    DEFAULT_SEARCH_TOP_K,
    DEFAULT_SESSION,
    Mem0AddInputSerializer,
    Mem0ListInputSerializer,
    Mem0SearchInputSerializer,
    Mem0UpdateInputSerializer,
    event_result_shape,
    history_shape,
    memory_shape,
    occurred_at,
    search_shape,
    validated,
    write_shape,
)
from memory.models import Event, Memory, Subject
from memory.recall import RecallParams, recall_compute, recall_trace_payload

EVENT_SALT = "engram.mem0.event"
ENTITY_IDS = ("user_id", "agent_id", "app_id", "run_id")
MSG_NEEDS_USER = "Engram keeps memories about a person: give user_id (it names the subject)."
MSG_SEARCH_NEEDS_USER = (
    "Engram searches one person's memories at a time: give filters.user_id (or user_id)."
)
MSG_DELETE_NEEDS_ID = "Give user_id, agent_id, app_id or run_id: nothing is deleted without one."
MSG_METADATA_FIXED = (
    "Engram keeps a memory's metadata as it was added; change the text, or add a new memory."
)
MSG_NO_EXPIRY = "Engram does not set an expiration date on update; the lifecycle decides it."
SEARCH_TOKEN_BUDGET = 20000  # mem0 search has no token budget: only top_k limits it
FILTERED_SEARCH_POOL = 50  # recall this many when filters may drop some of them


class Mem0KeyAuthentication(authentication.BaseAuthentication):
    """Engram agent keys in any of the headers mem0 clients send: `Authorization: Token …`
    (the Platform client), `Authorization: Bearer …` or `X-API-Key: …` (the OSS server)."""

    def authenticate(self, request: Request) -> tuple[Agent, Agent] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if header:
            parts = header.split()
            if len(parts) != 2 or parts[0].lower() not in ("token", "bearer"):
                raise exceptions.AuthenticationFailed(
                    "Use 'Authorization: Token <agent key>', 'Bearer <agent key>' or X-API-Key."
                )
            key = parts[1]
        else:
            key = request.META.get("HTTP_X_API_KEY", "")
        if not key:
            return None
        agent = agent_for_key(key)
        return agent, agent

    def authenticate_header(self, request: Any) -> str:
        return 'Token realm="engram"'


def mem0_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Engram's error shape, plus mem0's `detail` so its client shows the message."""
    response = api_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "error" in response.data:
        response.data["detail"] = response.data["error"]["message"]
    return response


class Mem0View(APIView):
    authentication_classes = [Mem0KeyAuthentication]
    permission_classes = [IsAgent]
    schema = None  # a compatibility surface: documented in the README, not in /api/schema/
    # Scopes other than the default (GET → read, others → write), per method.
    scopes: ClassVar[dict[str, str]] = {}

    @property
    def required_scope(self) -> str | None:
        return self.scopes.get(self.request.method or "")

    def get_exception_handler(self) -> Any:
        return mem0_exception_handler

    @property
    def agent(self) -> Agent:
        return self.request.auth  # type: ignore[return-value]

    @property
    def actor(self) -> Actor:
        return actor_for_agent(self.agent, self.request)


@csrf_exempt
def mem0_not_found(request: HttpRequest) -> JsonResponse:
    body = error_body("not_found", "No such endpoint in Engram's mem0-compatible API.")
    return JsonResponse({**body, "detail": body["error"]["message"]}, status=404)


# --------------------------------------------------------------------------- shared steps


def _with_entity_ids(data: dict[str, Any]) -> dict[str, Any] | None:
    """The body's filters with top-level user_id / agent_id / app_id / run_id ANDed in (the
    v1, v2 and OSS calls put them there)."""
    given = {key: data[key] for key in ENTITY_IDS if data.get(key)}
    filters = data.get("filters") or None
    if not given:
        return filters
    return {"AND": [given, filters]} if filters else given


def _add(view: Mem0View, data: dict[str, Any], *, background: bool) -> dict[str, Any]:
    """Store the messages as events of the subject's session, then extract (`infer`) or
    store each message as given. Returns the event token and, when done inline, results."""
    user_id = data.get("user_id")
    if not user_id:
        raise ApplicationError("invalid", MSG_NEEDS_USER, fields={"user_id": [MSG_NEEDS_USER]})
    selectors.validate_subject_id(user_id)
    kept = {key: data.get(key) for key in ("agent_id", "app_id", "metadata")}
    meta = {"mem0": {key: value for key, value in kept.items() if value is not None}}
    when = occurred_at(data.get("timestamp"))
    infer = data["infer"]
    extract = "none" if not infer else ("async" if background else "sync")
    appended = services.events_append(
        tenant=view.agent.tenant,
        external_id=user_id,
        session_id=data.get("run_id") or DEFAULT_SESSION,
        events=[
            services.EventInput(
                role=m["role"], content=m["content"], occurred_at=when, metadata=meta
            )
            for m in data["messages"]
        ],
        extract=extract,
        actor=view.actor,
    )
    results: list[services.WriteResult] = []
    if not infer:
        new = set(appended.new_event_ids)
        for event in appended.events:
            # The person's words only: Engram never takes the assistant's (or the
            # system prompt's) word as a fact about the person; those stay events.
            if event.pk in new and event.role == Event.Role.USER:
                results.append(
                    services.memory_create(
                        subject=appended.subject,
                        content=event.content,
                        occurred_at=event.occurred_at,
                        source_event=event,
                        actor=view.actor,
                    )
                )
    elif not background:
        results = services.events_extract(event_ids=appended.new_event_ids, actor=view.actor)
    written = [r for r in results if r.memory is not None]
    token = signing.dumps(
        {
            "s": appended.subject.pk,
            "e": appended.new_event_ids,
            "m": [r.memory.pk for r in written if r.memory is not None],
        },
        salt=EVENT_SALT,
        compress=True,
    )
    return {
        "event_id": token,
        "results": [write_shape(r.action, r.memory) for r in written if r.memory is not None],
    }


def _page_params(data: dict[str, Any]) -> tuple[int, int]:
    size = data.get("page_size") or DEFAULT_PAGE_SIZE
    if data.get("top_k") is not None:
        size = data["top_k"]
    return data.get("page") or 1, size


def _list(view: Mem0View, filters: Any) -> tuple[Any, str | None]:
    condition = mem0_filters.parse_filters(filters)
    user_id = mem0_filters.pinned_user_id(filters)
    queryset = mem0_selectors.memories_for_agent(
        agent=view.agent,
        condition=condition,
        user_id=user_id,
        any_status="status" in mem0_filters.filter_fields(filters),
    )
    return queryset, user_id


def _record_list(view: Mem0View, user_id: str | None, action: str = "memory.list") -> None:
    subject = (
        selectors.subject_for_agent(agent=view.agent, external_id=user_id) if user_id else None
    )
    services.memory_record_read(
        actor=view.actor, subject=subject, action=action, tenant_id=view.agent.tenant_id
    )


def _listed(view: Mem0View, filters: Any, page: int, size: int) -> tuple[list[dict], int]:
    queryset, user_id = _list(view, filters)
    count = queryset.count()
    rows = list(queryset[(page - 1) * size : page * size]) if size else []
    _record_list(view, user_id)
    return [memory_shape(m) for m in rows], count


def _search(view: Mem0View, data: dict[str, Any]) -> list[dict[str, Any]]:
    """Engram's recall on the one subject the filters name; the other filters then narrow
    the recalled memories; score and score_breakdown are the recall's own."""
    filters = _with_entity_ids(data)
    condition = mem0_filters.parse_filters(filters)
    user_id = mem0_filters.pinned_user_id(filters)
    if user_id is None:
        raise ApplicationError(
            "invalid", MSG_SEARCH_NEEDS_USER, fields={"filters.user_id": [MSG_SEARCH_NEEDS_USER]}
        )
    subject = selectors.subject_for_agent(agent=view.agent, external_id=user_id)
    if subject is not None and subject.paused:
        raise SubjectPaused()
    top_k = data.get("top_k") or data.get("limit") or DEFAULT_SEARCH_TOP_K
    narrowed = mem0_filters.filter_fields(filters) - {"user_id"}
    params = RecallParams(
        query=data["query"],
        top_k=FILTERED_SEARCH_POOL if narrowed else top_k,
        token_budget=SEARCH_TOKEN_BUDGET,
    )
    result = recall_compute(subject=subject, params=params)
    if subject is None:
        return []
    services.recall_record_later(
        trace=recall_trace_payload(
            result, subject=subject, agent=view.agent, params=params, trace_id=str(uuid.uuid4())
        ),
        actor=view.actor,
    )
    ids = [item.memory.pk for item in result.selected]
    rows = mem0_selectors.recalled_memories(subject=subject, ids=ids, condition=condition)
    threshold = data.get("threshold")
    hits = [
        search_shape(item, rows[item.memory.pk], result.route)
        for item in result.selected
        if item.memory.pk in rows and (threshold is None or item.score >= threshold)
    ]
    return hits[:top_k]


def _memory(view: Mem0View, memory_id: str) -> Memory:
    return mem0_selectors.memory_current_for_agent(agent=view.agent, memory_id=memory_id)


def _get(view: Mem0View, memory_id: str) -> dict[str, Any]:
    memory = _memory(view, memory_id)
    services.memory_record_read(
        actor=view.actor, subject=memory.subject, action="memory.read", target_id=memory.pk
    )
    return memory_shape(mem0_selectors.memory_with_source(memory))


def _update(view: Mem0View, memory_id: str, body: Any) -> dict[str, Any]:
    """PUT = Engram's correction: a new version supersedes the current one."""
    data = validated(Mem0UpdateInputSerializer, body)
    memory = mem0_selectors.memory_with_source(_memory(view, memory_id))
    if data.get("metadata") is not None and data["metadata"] != memory_shape(memory)["metadata"]:
        raise ApplicationError(
            "unsupported", MSG_METADATA_FIXED, fields={"metadata": [MSG_METADATA_FIXED]}
        )
    if data.get("expiration_date") is not None:
        raise ApplicationError(
            "unsupported", MSG_NO_EXPIRY, fields={"expiration_date": [MSG_NO_EXPIRY]}
        )
    text = data.get("text") if data.get("text") is not None else data.get("data")
    if text is None or text == memory.content:
        return memory_shape(memory)
    if memory.subject.paused:
        raise SubjectPaused()
    new = services.memory_correct(
        memory=memory, actor=view.actor, content=text, reason="corrected through the mem0 API"
    )
    return memory_shape(mem0_selectors.memory_with_source(new))


def _delete_lineage(view: Mem0View, memory: Memory) -> None:
    """mem0 deletes a memory, not one version of it: every version goes, newest first."""
    for version in reversed(selectors.memory_history(memory=memory)):
        services.memory_delete(memory=version, actor=view.actor, reason="deleted through mem0 API")


def _delete_one(view: Mem0View, memory_id: str) -> None:
    _delete_lineage(view, _memory(view, memory_id))


def _delete_matching(view: Mem0View, ids: dict[str, Any]) -> int:
    """Delete every memory (all versions) of the given user / agent / app / run — only those:
    without any identifier nothing is deleted (mem0 once wiped every user here)."""
    given = {key: ids[key] for key in ENTITY_IDS if ids.get(key)}
    if not given:
        raise ApplicationError(
            "invalid", MSG_DELETE_NEEDS_ID, fields={"user_id": [MSG_DELETE_NEEDS_ID]}
        )
    condition = mem0_filters.parse_filters(given)
    queryset = mem0_selectors.memories_for_agent(
        agent=view.agent, condition=condition, user_id=given.get("user_id"), any_status=True
    )
    memories = list(queryset.order_by("-version", "-pk"))
    for memory in memories:
        services.memory_delete(memory=memory, actor=view.actor, reason="deleted through mem0 API")
    return len(memories)


def _query_ids(request: Request) -> dict[str, Any]:
    return {key: request.query_params.get(key) for key in ENTITY_IDS}


def _list_query(request: Request) -> dict[str, Any]:
    data = validated(Mem0ListInputSerializer, request.query_params)
    return data


# --------------------------------------------------------------------------- hosted Platform


class PingView(Mem0View):
    scopes: ClassVar = {"GET": SCOPE_READ}

    def get(self, request: Request) -> Response:
        agent = self.agent
        return Response(
            {
                "status": "ok",
                "message": "Engram (mem0-compatible API)",
                "org_id": agent.tenant.slug,
                "project_id": agent.tenant.slug,
                "user_email": None,
                "agent": agent.name,
            }
        )


class AddV3View(Mem0View):
    def post(self, request: Request) -> Response:
        data = validated(Mem0AddInputSerializer, request.data)
        added = _add(self, data, background=True)
        return Response(
            {
                "message": "Memory processing has been queued for background execution",
                "status": "PENDING",
                "event_id": added["event_id"],
            }
        )


class MemoriesV1View(Mem0View):
    """POST = add (v1), GET = list of one user's memories, DELETE = delete all of them."""

    def post(self, request: Request) -> Response:
        data = validated(Mem0AddInputSerializer, request.data)
        added = _add(self, data, background=data["async_mode"])
        if data["async_mode"]:
            pending = {"message": "Memory processing has been queued", "status": "PENDING"}
            return Response([{**pending, "event_id": added["event_id"]}])
        return Response({"results": added["results"], "event_id": added["event_id"]})

    def get(self, request: Request) -> Response:
        query = _list_query(request)
        page, size = _page_params(query)
        results, _ = _listed(self, _with_entity_ids(query), page, size)
        return Response(results)

    def delete(self, request: Request) -> Response:
        deleted = _delete_matching(self, _query_ids(request))
        return Response({"message": "Memories deleted successfully!", "deleted": deleted})


class ListV2View(Mem0View):
    scopes: ClassVar = {"POST": SCOPE_READ}  # a POST, but a read

    def post(self, request: Request) -> Response:
        data = validated(Mem0ListInputSerializer, request.data)
        page, size = _page_params(data)
        results, _ = _listed(self, _with_entity_ids(data), page, size)
        return Response(results)


class ListV3View(Mem0View):
    scopes: ClassVar = {"POST": SCOPE_READ}

    def post(self, request: Request) -> Response:
        body = {**request.data, **request.query_params.dict()}
        data = validated(Mem0ListInputSerializer, body)
        page, size = data["page"], data["page_size"]
        results, count = _listed(self, _with_entity_ids(data), page, size)

        def link(number: int) -> str | None:
            if number < 1 or (number - 1) * size >= count:
                return None
            path = f"{request.path}?page={number}&page_size={size}"
            return request.build_absolute_uri(path)

        return Response(
            {
                "count": count,
                "next": link(page + 1),
                "previous": link(page - 1) if page > 1 else None,
                "results": results,
            }
        )


class SearchV1View(Mem0View):
    scopes: ClassVar = {"POST": SCOPE_READ}

    def post(self, request: Request) -> Response:
        data = validated(Mem0SearchInputSerializer, request.data)
        hits = _search(self, data)
        return Response({"results": hits} if data.get("output_format") == "v1.1" else hits)


class SearchV2View(Mem0View):
    scopes: ClassVar = {"POST": SCOPE_READ}

    def post(self, request: Request) -> Response:
        return Response(_search(self, validated(Mem0SearchInputSerializer, request.data)))


class SearchV3View(Mem0View):
    scopes: ClassVar = {"POST": SCOPE_READ}

    def post(self, request: Request) -> Response:
        data = validated(Mem0SearchInputSerializer, request.data)
        return Response({"results": _search(self, data)})


class MemoryV1View(Mem0View):
    def get(self, request: Request, memory_id: str) -> Response:
        return Response(_get(self, memory_id))

    def put(self, request: Request, memory_id: str) -> Response:
        return Response(_update(self, memory_id, request.data))

    def delete(self, request: Request, memory_id: str) -> Response:
        _delete_one(self, memory_id)
        return Response({"message": "Memory deleted successfully!"})


class HistoryV1View(Mem0View):
    def get(self, request: Request, memory_id: str) -> Response:
        memory = _memory(self, memory_id)
        versions = selectors.memory_history(memory=memory)
        services.memory_record_read(
            actor=self.actor,
            subject=memory.subject,
            action="memory.history",
            target_id=memory.pk,
        )
        return Response(history_shape(mem0_selectors.memory_with_source(memory), versions))


class EventView(Mem0View):
    """The status of an add: PENDING / RUNNING / SUCCEEDED / FAILED from its events."""

    def get(self, request: Request, event_id: str) -> Response:
        try:
            token = signing.loads(event_id, salt=EVENT_SALT)
        except signing.BadSignature as exc:
            raise NotFound("No such event.") from exc
        subject = Subject.objects.filter(pk=token["s"], tenant_id=self.agent.tenant_id).first()
        if subject is None or not agent_may_access_subject(self.agent, subject):
            raise NotFound("No such event.")
        statuses = set(
            Event.objects.filter(subject=subject, pk__in=token["e"]).values_list(
                "extraction_status", flat=True
            )
        )
        memories = mem0_selectors.memories_for_agent(
            agent=self.agent,
            condition=Q(pk__in=token["m"]) | Q(source_event_id__in=token["e"]),
            user_id=subject.external_id,
            any_status=True,
        ).exclude(status=Memory.Status.SUPERSEDED)
        results = [event_result_shape(m) for m in memories]
        services.memory_record_read(actor=self.actor, subject=subject, action="memory.list")
        return Response(
            {
                "id": event_id,
                "event_type": "ADD",
                "status": _event_status(statuses),
                "results": results,
                "metadata": {"events": len(token["e"])},
            }
        )


def _event_status(statuses: set[str]) -> str:
    S = Event.ExtractionStatus
    if S.FAILED in statuses:
        return "FAILED"
    if S.RUNNING in statuses:
        return "RUNNING"
    if statuses & {S.PENDING, S.QUEUED}:
        return "PENDING"
    return "SUCCEEDED"


class EntitiesV1View(Mem0View):
    def get(self, request: Request) -> Response:
        entities = mem0_selectors.entities_for_agent(agent=self.agent)
        services.memory_record_read(
            actor=self.actor, subject=None, action="subject.list", tenant_id=self.agent.tenant_id
        )
        results = [
            {
                "id": e.name,
                "name": e.name,
                "type": "user",
                "total_memories": e.total_memories,
                "created_at": e.created_at.isoformat() if e.created_at else None,
                "updated_at": e.updated_at.isoformat() if e.updated_at else None,
                "owner": None,
                "organization": self.agent.tenant.slug,
                "metadata": {},
            }
            for e in entities
        ]
        return Response({"count": len(results), "results": results})


class EntityV2View(Mem0View):
    """Deleting a user is Engram's erasure (its receipt is returned); an agent, app or run
    loses its memories only."""

    @property
    def required_scope(self) -> str | None:
        return SCOPE_ERASE if self.kwargs.get("entity_type") == "user" else None

    def delete(self, request: Request, entity_type: str, entity_id: str) -> Response:
        from privacy.services import subject_erase

        if entity_type == "user":
            subject = mem0_selectors.subject_for_entity(agent=self.agent, user_id=entity_id)
            receipt = subject_erase(subject=subject, actor=self.actor)
            return Response({"message": "Entity deleted successfully.", "receipt": receipt})
        if entity_type not in ("agent", "app", "run"):
            raise NotFound("Entity types are user, agent, app and run.")
        deleted = _delete_matching(self, {f"{entity_type}_id": entity_id})
        return Response({"message": "Entity deleted successfully.", "deleted": deleted})


# --------------------------------------------------------------------------- OSS server


class OssMemoriesView(Mem0View):
    def post(self, request: Request) -> Response:
        data = validated(Mem0AddInputSerializer, request.data)
        return Response({"results": _add(self, data, background=False)["results"]})

    def get(self, request: Request) -> Response:
        query = _list_query(request)
        page, size = _page_params(query)
        results, _ = _listed(self, _with_entity_ids(query), page, size)
        return Response({"results": results})

    def delete(self, request: Request) -> Response:
        _delete_matching(self, _query_ids(request))
        return Response({"message": "All relevant memories deleted"})


class OssMemoryView(Mem0View):
    def get(self, request: Request, memory_id: str) -> Response:
        return Response(_get(self, memory_id))

    def put(self, request: Request, memory_id: str) -> Response:
        _update(self, memory_id, request.data)
        return Response({"message": "Memory updated successfully!"})

    def delete(self, request: Request, memory_id: str) -> Response:
        _delete_one(self, memory_id)
        return Response({"message": "Memory deleted successfully"})


class OssSearchView(Mem0View):
    scopes: ClassVar = {"POST": SCOPE_READ}

    def post(self, request: Request) -> Response:
        return Response(
            {"results": _search(self, validated(Mem0SearchInputSerializer, request.data))}
        )
