"""The asynchronous client: the same methods as `Engram`, as coroutines."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Mapping
from datetime import datetime
from typing import Any, TypeVar

import httpx

from engram import _base, errors
from engram import types as t
from engram._base import Call, RetryPolicy

T = TypeVar("T")


class AsyncEngram:
    """Asynchronous client of Engram's v1 REST API (see `Engram`).

    `base_url` is the server (`http://127.0.0.1:8000`) or its API root; `api_key` an agent key
    (`egk_…`). Both default to the environment's `ENGRAM_URL` and `ENGRAM_KEY`. Use it as an
    async context manager, or await `close()`."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float | httpx.Timeout = _base.DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url = _base.base_url_from(base_url)
        self.retry = retry or RetryPolicy()
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._headers = _base.default_headers(_base.api_key_from(api_key))

    async def __aenter__(self) -> AsyncEngram:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def _send(self, call: Call[T]) -> T:
        """Send with retries (see RetryPolicy); the same body and request id every time."""
        headers = {**self._headers, "X-Request-ID": _base.new_request_id()}
        url = self.base_url + call.path
        for attempt in range(self.retry.max_retries + 1):
            last = attempt == self.retry.max_retries
            try:
                response = await self._http.request(
                    call.method, url, params=call.params or None, json=call.json, headers=headers
                )
            except httpx.TransportError as exc:
                if last or not self.retry.retries_exception(exc, idempotent=call.idempotent):
                    raise errors.ConnectionFailedError(f"{call.method} {url}: {exc!r}") from exc
                await asyncio.sleep(self.retry.delay(attempt, None))
                continue
            if not last and self.retry.retries_status(
                response.status_code, idempotent=call.idempotent
            ):
                await asyncio.sleep(self.retry.delay(attempt, _base.retry_after_seconds(response)))
                continue
            return _base.parse_response(response, call.parse)
        raise AssertionError("unreachable")  # the last attempt returns or raises

    # Events

    async def append_events(
        self,
        subject_id: str,
        events: Iterable[t.EventInput | Mapping[str, Any]],
        *,
        session_id: str,
        extract: t.ExtractMode = "async",
    ) -> t.AppendResult:
        """Append events (dicts or EventInput); `extract="sync"` returns the extraction's
        results. Events without `client_event_id` get one, so a retry stores them once."""
        return await self._send(
            _base.append_events(subject_id, events, session_id=session_id, extract=extract)
        )

    async def list_events(
        self,
        subject_id: str,
        *,
        session_id: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> t.Page[t.Event]:
        """One page of events, oldest first."""
        return await self._send(
            _base.list_events(subject_id, session_id=session_id, cursor=cursor, limit=limit)
        )

    async def iter_events(
        self, subject_id: str, *, session_id: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[t.Event]:
        """Every event, oldest first, fetching page after page."""
        cursor: str | None = None
        while True:
            page = await self.list_events(
                subject_id, session_id=session_id, cursor=cursor, limit=page_size
            )
            for item in page.items:
                yield item
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    # Memories

    async def create_memory(
        self,
        subject_id: str,
        *,
        content: str,
        category: str,
        kind: str | None = None,
        entities: list[str] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        source_event_id: int | None = None,
        linked_doc_id: str | None = None,
        pinned: bool | None = None,
        occurred_at: datetime | str | None = None,
    ) -> t.WriteResult:
        """Write a memory through the decision pipeline (it may merge or supersede)."""
        body = dict(locals())
        del body["self"], body["subject_id"]
        return await self._send(_base.create_memory(subject_id, body))

    async def list_memories(
        self,
        subject_id: str,
        *,
        status: str | None = None,
        category: str | None = None,
        q: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> t.Page[t.Memory]:
        """One page of memories, newest first; no `status` = every status."""
        return await self._send(
            _base.list_memories(
                subject_id, status=status, category=category, q=q, cursor=cursor, limit=limit
            )
        )

    async def iter_memories(
        self,
        subject_id: str,
        *,
        status: str | None = None,
        category: str | None = None,
        q: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[t.Memory]:
        """Every memory matching the filters, newest first, fetching page after page."""
        cursor: str | None = None
        while True:
            page = await self.list_memories(
                subject_id, status=status, category=category, q=q, cursor=cursor, limit=page_size
            )
            for item in page.items:
                yield item
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def get_memory(self, subject_id: str, memory_id: int) -> t.Memory:
        return await self._send(_base.get_memory(subject_id, memory_id))

    async def correct_memory(
        self,
        subject_id: str,
        memory_id: int,
        *,
        content: str | None = None,
        category: str | None = None,
        kind: str | None = None,
        entities: list[str] | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        pinned: bool | None = None,
        linked_doc_id: str | None = None,
        reason: str | None = None,
    ) -> t.Memory:
        """A correction: returns the new version; the old one becomes `superseded`."""
        changes = dict(locals())
        del changes["self"], changes["subject_id"], changes["memory_id"]
        return await self._send(_base.correct_memory(subject_id, memory_id, changes))

    async def delete_memory(self, subject_id: str, memory_id: int) -> None:
        """Physical delete (row and embedding)."""
        await self._send(_base.delete_memory(subject_id, memory_id))

    async def memory_history(self, subject_id: str, memory_id: int) -> list[t.Memory]:
        """The version chain, oldest first."""
        return await self._send(_base.memory_history(subject_id, memory_id))

    # Recall and context

    async def recall(
        self,
        subject_id: str,
        query: str,
        *,
        entities: list[str] | None = None,
        top_k: int | None = None,
        token_budget: int | None = None,
        as_of: datetime | str | None = None,
    ) -> t.Recall:
        """Hybrid recall inside a token budget; `.context` is ready to put in a prompt."""
        return await self._send(
            _base.recall(
                subject_id,
                query=query,
                entities=entities,
                top_k=top_k,
                token_budget=token_budget,
                as_of=as_of,
            )
        )

    async def session_context(
        self, subject_id: str, session_id: str, *, token_budget: int | None = None
    ) -> t.SessionContext:
        return await self._send(
            _base.session_context(subject_id, session_id, token_budget=token_budget)
        )

    async def profile(
        self, subject_id: str, *, as_of: datetime | str | None = None, history: int | None = None
    ) -> t.Profile:
        return await self._send(_base.profile(subject_id, as_of=as_of, history=history))

    # Knowledge, erasure, portal

    async def knowledge_updated(self, doc_id: str) -> int:
        """A knowledge-base document changed: returns how many memories went to review."""
        return await self._send(_base.knowledge_updated(doc_id))

    async def erase_subject(self, subject_id: str) -> t.ErasureReceipt:
        """Erase everything about the subject (scope `erase`); returns the receipt."""
        return await self._send(_base.erase_subject(subject_id))

    async def portal_link(self, subject_id: str) -> t.PortalLink:
        """A short-lived, single-use sign-in URL to the subject's `/me/` page."""
        return await self._send(_base.portal_link(subject_id))
