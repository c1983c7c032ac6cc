"""The agent REST API (v1). Thin views: validate → one service/selector → serialize."""

import uuid
from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Agent
from audit.services import actor_for_agent
from core.exceptions import ApplicationError, NotFound
from core.validation import NO_NUL_PATTERN, text_problem
from memory import selectors, services
from memory.models import Event, Subject
from memory.recall import RecallParams, recall_compute, recall_trace_payload
from memory.serializers import (
    ErasureReceiptOutputSerializer,
    EventListQuerySerializer,
    EventPageOutputSerializer,
    EventsAppendInputSerializer,
    EventsAppendOutputSerializer,
    KnowledgeUpdatedOutputSerializer,
    MemoryCreateInputSerializer,
    MemoryHistoryOutputSerializer,
    MemoryListQuerySerializer,
    MemoryOutputSerializer,
    MemoryPageOutputSerializer,
    MemoryUpdateInputSerializer,
    PortalLinkOutputSerializer,
    ProfileOutputSerializer,
    ProfileQuerySerializer,
    RecallInputSerializer,
    RecallOutputSerializer,
    SessionContextOutputSerializer,
    SessionContextQuerySerializer,
    WriteResultOutputSerializer,
)


class AgentApiView(APIView):
    """Base of every agent endpoint: path parameters are validated here (400 in the error
    shape, never a database error) and their constraints published in the schema."""

    path_parameter_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        # subject_id is validated by selectors.validate_subject_id (a 400 before any lookup)
        "subject_id": {
            "type": "string",
            "pattern": selectors.SUBJECT_ID_RE.pattern,
            "minLength": 1,
            "maxLength": 128,
        },
        "memory_id": {"type": "integer", "minimum": 0},
        "session_id": {
            "type": "string",
            "pattern": NO_NUL_PATTERN,
            "minLength": 1,
            "maxLength": 128,
        },
        "doc_id": {"type": "string", "pattern": NO_NUL_PATTERN, "minLength": 1, "maxLength": 200},
    }
    # Domain errors per method for the schema (the shared ones are added by AgentApiSchema).
    error_statuses: ClassVar[dict[str, tuple[int, ...]]] = {}

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        for name, value in kwargs.items():
            if isinstance(value, str):
                _validate_path_text(name, value, self.path_parameter_schemas.get(name, {}))


def _validate_path_text(name: str, value: str, schema: dict[str, Any]) -> None:
    problem = text_problem(value)
    limit = schema.get("maxLength")
    if problem is None and limit is not None and len(value) > limit:
        problem = f"At most {limit} characters."
    if problem is not None:
        raise ApplicationError(
            "invalid", f"The path parameter {name} is invalid.", fields={name: [problem]}
        )


def _agent(request: Request) -> Agent:
    return request.auth  # type: ignore[return-value]  # set by AgentKeyAuthentication


def _subject(request: Request, subject_id: str) -> Subject | None:
    """The URL's subject as resolved by the permission check (404 for outsiders, None when
    never written)."""
    if hasattr(request, "engram_subject"):
        return request.engram_subject
    return selectors.subject_for_agent(agent=_agent(request), external_id=subject_id)


def _writable_subject(request: Request, subject_id: str):
    """Subject for a write: validated, permission-checked, created on first write."""
    agent = _agent(request)
    subject = _subject(request, subject_id)
    if subject is None:
        subject = services.subject_get_or_create(
            tenant=agent.tenant, external_id=subject_id, actor=actor_for_agent(agent, request)
        )
    if subject.paused:
        raise services.SubjectPaused()
    return subject


class EventsApi(AgentApiView):
    error_statuses: ClassVar = {"post": (423,)}

    @extend_schema(
        request=EventsAppendInputSerializer, responses={201: EventsAppendOutputSerializer}
    )
    def post(self, request: Request, subject_id: str) -> Response:
        agent = _agent(request)
        data = _validated(EventsAppendInputSerializer, request.data)
        actor = actor_for_agent(agent, request)
        appended = services.events_append(
            tenant=agent.tenant,
            external_id=subject_id,
            session_id=data["session_id"],
            events=[services.EventInput(**event) for event in data["events"]],
            extract=data["extract"],
            actor=actor,
        )
        extraction = _run_extraction(data["extract"], appended, actor)
        body = {"events": appended.events, "extraction": extraction}
        return Response(EventsAppendOutputSerializer(body).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="events_list",
        parameters=[EventListQuerySerializer],
        responses={200: EventPageOutputSerializer},
    )
    def get(self, request: Request, subject_id: str) -> Response:
        agent = _agent(request)
        subject = _subject(request, subject_id)
        query = _validated(EventListQuerySerializer, request.query_params)
        page = selectors.event_list(
            subject=subject,
            session_id=query.get("session_id"),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        if subject is not None:
            services.memory_record_read(
                actor=actor_for_agent(agent, request), subject=subject, action="event.list"
            )
        return Response(
            EventPageOutputSerializer({"results": page.items, "next": page.next_cursor}).data
        )


def _run_extraction(mode: str, appended: services.EventsAppendResult, actor: Any) -> dict:
    if mode == "none":
        return {"status": "skipped", "results": []}
    if mode == "async":
        return {"status": "queued", "results": []}
    results = services.events_extract(event_ids=appended.new_event_ids, actor=actor)
    # the events as they are now (done, failed, pending again), not as they were stored
    now = {
        pk: (status, error)
        for pk, status, error in Event.objects.filter(
            pk__in=[e.pk for e in appended.events]
        ).values_list("pk", "extraction_status", "extraction_error")
    }
    for event in appended.events:
        event.extraction_status = now.get(event.pk, (event.extraction_status, ""))[0]
    new = [now[pk] for pk in appended.new_event_ids if pk in now]
    if any(status == Event.ExtractionStatus.PENDING for status, _ in new):
        return {"status": "queued", "results": results}  # crashed inline; the sweeper retries
    failed = [error for status, error in new if status == Event.ExtractionStatus.FAILED]
    if failed:
        return {"status": "failed", "results": results, "error": failed[0]}
    return {"status": "done", "results": results}


def _validated(serializer_class: type, data: Any) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class MemoriesApi(AgentApiView):
    error_statuses: ClassVar = {"post": (423,)}

    @extend_schema(
        operation_id="memories_list",
        parameters=[MemoryListQuerySerializer],
        responses={200: MemoryPageOutputSerializer},
    )
    def get(self, request: Request, subject_id: str) -> Response:
        agent = _agent(request)
        subject = _subject(request, subject_id)
        query = _validated(MemoryListQuerySerializer, request.query_params)
        page = selectors.memory_list(
            subject=subject,
            status=query.get("status"),
            category=query.get("category"),
            q=query.get("q"),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        if subject is not None:
            services.memory_record_read(
                actor=actor_for_agent(agent, request), subject=subject, action="memory.list"
            )
        return Response(
            MemoryPageOutputSerializer({"results": page.items, "next": page.next_cursor}).data
        )

    @extend_schema(
        request=MemoryCreateInputSerializer,
        # 200 when the memory was merged into an existing one (nothing new was created)
        responses={201: WriteResultOutputSerializer, 200: WriteResultOutputSerializer},
    )
    def post(self, request: Request, subject_id: str) -> Response:
        agent = _agent(request)
        data = _validated(MemoryCreateInputSerializer, request.data)
        subject = _writable_subject(request, subject_id)
        result = services.memory_create(
            subject=subject,
            actor=actor_for_agent(agent, request),
            content=data["content"],
            category=data["category"],
            kind=data["kind"],
            entities=data["entities"],
            importance=data["importance"],
            confidence=data["confidence"],
            occurred_at=data.get("occurred_at"),
            source_event_id=data.get("source_event_id"),
            linked_doc_id=data["linked_doc_id"],
            pinned=data["pinned"],
        )
        code = status.HTTP_201_CREATED if result.action != "merged" else status.HTTP_200_OK
        return Response(WriteResultOutputSerializer(result).data, status=code)


class MemoryDetailApi(AgentApiView):
    error_statuses: ClassVar = {"patch": (409, 423)}

    @extend_schema(responses={200: MemoryOutputSerializer})
    def get(self, request: Request, subject_id: str, memory_id: int) -> Response:
        agent = _agent(request)
        memory = selectors.memory_get_for_agent(
            agent=agent, external_id=subject_id, memory_id=memory_id
        )
        services.memory_record_read(
            actor=actor_for_agent(agent, request),
            subject=memory.subject,
            action="memory.read",
            target_id=memory.pk,
        )
        return Response(MemoryOutputSerializer(memory).data)

    @extend_schema(request=MemoryUpdateInputSerializer, responses={200: MemoryOutputSerializer})
    def patch(self, request: Request, subject_id: str, memory_id: int) -> Response:
        agent = _agent(request)
        memory = selectors.memory_get_for_agent(
            agent=agent, external_id=subject_id, memory_id=memory_id
        )
        data = _validated(MemoryUpdateInputSerializer, request.data)
        if memory.subject.paused:
            raise services.SubjectPaused()
        new = services.memory_correct(memory=memory, actor=actor_for_agent(agent, request), **data)
        return Response(MemoryOutputSerializer(new).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, subject_id: str, memory_id: int) -> Response:
        agent = _agent(request)
        memory = selectors.memory_get_for_agent(
            agent=agent, external_id=subject_id, memory_id=memory_id
        )
        services.memory_delete(
            memory=memory, actor=actor_for_agent(agent, request), reason="deleted by agent"
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemoryHistoryApi(AgentApiView):
    @extend_schema(responses={200: MemoryHistoryOutputSerializer})
    def get(self, request: Request, subject_id: str, memory_id: int) -> Response:
        agent = _agent(request)
        memory = selectors.memory_get_for_agent(
            agent=agent, external_id=subject_id, memory_id=memory_id
        )
        versions = selectors.memory_history(memory=memory)
        services.memory_record_read(
            actor=actor_for_agent(agent, request),
            subject=memory.subject,
            action="memory.history",
            target_id=memory.pk,
        )
        return Response(MemoryHistoryOutputSerializer({"results": versions}).data)


class RecallApi(AgentApiView):
    error_statuses: ClassVar = {"post": (423,)}
    required_scope = "read"  # a POST, but a read

    @extend_schema(request=RecallInputSerializer, responses={200: RecallOutputSerializer})
    def post(self, request: Request, subject_id: str) -> Response:
        agent = _agent(request)
        subject = _subject(request, subject_id)
        data = _validated(RecallInputSerializer, request.data)
        if subject is not None and subject.paused:
            raise services.SubjectPaused()
        params = RecallParams(
            query=data["query"],
            entities=data["entities"],
            top_k=data["top_k"],
            token_budget=data["token_budget"],
            as_of=data.get("as_of"),
        )
        result = recall_compute(subject=subject, params=params)
        trace_id = str(uuid.uuid4())
        if subject is not None:
            services.recall_record_later(
                trace=recall_trace_payload(
                    result, subject=subject, agent=agent, params=params, trace_id=trace_id
                ),
                actor=actor_for_agent(agent, request),
            )
        body = {
            "selected": result.selected,
            "context": result.context,
            "route": result.route,
            "token_count": result.token_count,
            "trace_id": trace_id,
        }
        return Response(RecallOutputSerializer(body).data)


class SessionContextApi(AgentApiView):
    @extend_schema(
        parameters=[SessionContextQuerySerializer], responses={200: SessionContextOutputSerializer}
    )
    def get(self, request: Request, subject_id: str, session_id: str) -> Response:
        agent = _agent(request)
        subject = _subject(request, subject_id)
        query = _validated(SessionContextQuerySerializer, request.query_params)
        context = selectors.session_context(
            subject=subject, session_id=session_id, token_budget=query["token_budget"]
        )
        if subject is not None:
            services.memory_record_read(
                actor=actor_for_agent(agent, request), subject=subject, action="session.context"
            )
        return Response(SessionContextOutputSerializer(context).data)


class ProfileApi(AgentApiView):
    @extend_schema(parameters=[ProfileQuerySerializer], responses={200: ProfileOutputSerializer})
    def get(self, request: Request, subject_id: str) -> Response:
        agent = _agent(request)
        subject = _subject(request, subject_id)
        query = _validated(ProfileQuerySerializer, request.query_params)
        slots = selectors.subject_profile(
            subject=subject, as_of=query.get("as_of"), history=query["history"]
        )
        if subject is not None:
            services.memory_record_read(
                actor=actor_for_agent(agent, request), subject=subject, action="profile.read"
            )
        body = {"subject_id": subject_id, "as_of": query.get("as_of"), "slots": slots}
        return Response(ProfileOutputSerializer(body).data)


class KnowledgeUpdatedApi(AgentApiView):
    @extend_schema(request=None, responses={200: KnowledgeUpdatedOutputSerializer})
    def post(self, request: Request, doc_id: str) -> Response:
        from memory.lifecycle import memories_flag_for_document

        agent = _agent(request)
        flagged = memories_flag_for_document(
            tenant_id=agent.tenant_id, doc_id=doc_id, actor=actor_for_agent(agent, request)
        )
        return Response(KnowledgeUpdatedOutputSerializer({"flagged": flagged}).data)


class SubjectApi(AgentApiView):
    required_scope = "erase"

    @extend_schema(responses={200: ErasureReceiptOutputSerializer})
    def delete(self, request: Request, subject_id: str) -> Response:
        from privacy.services import subject_erase

        agent = _agent(request)
        subject = _subject(request, subject_id)
        if subject is None:
            raise NotFound("No such subject.")
        receipt = subject_erase(subject=subject, actor=actor_for_agent(agent, request))
        return Response(ErasureReceiptOutputSerializer(receipt).data)


class PortalLinkApi(AgentApiView):
    error_statuses: ClassVar = {"post": (423,)}

    @extend_schema(request=None, responses={201: PortalLinkOutputSerializer})
    def post(self, request: Request, subject_id: str) -> Response:
        from privacy.portal import portal_link_for

        subject = _writable_subject(request, subject_id)
        url, max_age = portal_link_for(
            subject=subject, request=request, actor=actor_for_agent(_agent(request), request)
        )
        return Response(
            PortalLinkOutputSerializer({"url": url, "expires_in": max_age}).data,
            status=status.HTTP_201_CREATED,
        )
