"""What the sync and async clients share: the API's calls described as data (sans I/O), the
retry policy and the parsing of answers. The two clients only differ in how they send."""

from __future__ import annotations

import email.utils
import os
import random
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from engram import errors
from engram import types as t

T = TypeVar("T")

VERSION = "0.1.0"
DEFAULT_TIMEOUT = 60.0  # extract="sync" runs the extraction inside the request


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: attempt n waits `backoff_base * 2**n` seconds (at most
    `backoff_max`), scaled by a random factor in [0.5, 1]; a `Retry-After` header takes
    precedence (capped at `max_retry_after`).

    Retried: 429 and 503 always (the server did nothing), other 5xx and dropped connections
    only for idempotent calls (reads, recall, deletes, events with `client_event_id`s) — a
    memory create or correction is not sent twice unless the connection never opened."""

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = 60.0
    always_retry_statuses: frozenset[int] = frozenset({429, 503})
    idempotent_retry_statuses: frozenset[int] = frozenset({500, 502, 504})

    def retries_status(self, status_code: int, *, idempotent: bool) -> bool:
        if status_code in self.always_retry_statuses:
            return True
        return idempotent and status_code in self.idempotent_retry_statuses

    def retries_exception(self, exc: httpx.TransportError, *, idempotent: bool) -> bool:
        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
            return True  # nothing reached the server
        return idempotent

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_retry_after))
        backoff = min(self.backoff_max, self.backoff_base * (2**attempt))
        return backoff * (0.5 + random.random() / 2)  # noqa: S311 - jitter, not security


NO_RETRIES = RetryPolicy(max_retries=0)


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` as seconds: a number, or an HTTP date."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API call: what to send, whether sending it twice is harmless, how to read the
    answer."""

    method: str
    path: str
    parse: Callable[[Any], T]
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None
    idempotent: bool = True


def base_url_from(base_url: str | None) -> str:
    """The v1 API root from a server URL (`http://host:8000`) or the API root itself."""
    url = (base_url or os.environ.get("ENGRAM_URL") or "").strip().rstrip("/")
    if not url:
        raise errors.EngramError("No Engram URL: pass base_url= or set ENGRAM_URL.")
    return url if url.endswith("/api/v1") else url + "/api/v1"


def api_key_from(api_key: str | None) -> str:
    key = api_key or os.environ.get("ENGRAM_KEY") or ""
    if not key:
        raise errors.EngramError("No agent key: pass api_key= or set ENGRAM_KEY.")
    return key


def default_headers(api_key: str) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {api_key}",
        "Accept": "application/json",
        "User-Agent": f"engram-client-python/{VERSION}",
    }


def new_request_id() -> str:
    """One id per logical call, kept across its retries, so server logs tie them together."""
    return uuid.uuid4().hex


def parse_response(response: httpx.Response, parse: Callable[[Any], T]) -> T:
    if response.status_code == 204 or not response.content:
        body: Any = None
    else:
        try:
            body = response.json()
        except ValueError:
            body = response.text
    if response.is_error:
        raise errors.error_for(
            response.status_code,
            body,
            request_id=response.headers.get("X-Request-ID"),
            retry_after=retry_after_seconds(response),
        )
    if response.status_code != 204 and not isinstance(body, dict):
        raise errors.APIError(
            status_code=response.status_code,
            code="invalid_response",
            message="The answer is not a JSON object.",
            body=body,
        )
    return parse(body)


def _seg(value: str | int) -> str:
    return quote(str(value), safe="")


def _iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _event_json(event: t.EventInput | Mapping[str, Any]) -> dict[str, Any]:
    body = event.to_json() if isinstance(event, t.EventInput) else dict(event)
    if "occurred_at" in body:
        body["occurred_at"] = _iso(body["occurred_at"])
    if not body.get("client_event_id"):
        # A retried POST then finds the stored event instead of adding it again.
        body["client_event_id"] = f"sdk-{uuid.uuid4().hex}"
    return body


def _page(parse_item: Callable[[dict[str, Any]], T]) -> Callable[[Any], t.Page[T]]:
    def parse(body: Any) -> t.Page[T]:
        return t.Page(items=[parse_item(i) for i in body["results"]], next_cursor=body.get("next"))

    return parse


def _subject(subject_id: str) -> str:
    return f"/subjects/{_seg(subject_id)}"


# The calls, one function per endpoint of the v1 API (README "The agent API").


def append_events(
    subject_id: str,
    events: Iterable[t.EventInput | Mapping[str, Any]],
    *,
    session_id: str,
    extract: t.ExtractMode,
) -> Call[t.AppendResult]:
    payload = [_event_json(e) for e in events]
    return Call(
        "POST",
        f"{_subject(subject_id)}/events",
        t.AppendResult.from_json,
        json={"session_id": session_id, "extract": extract, "events": payload},
        idempotent=True,  # every event carries a client_event_id
    )


def list_events(
    subject_id: str, *, session_id: str | None, cursor: str | None, limit: int | None
) -> Call[t.Page[t.Event]]:
    params = _drop_none({"session_id": session_id, "cursor": cursor, "limit": limit})
    return Call("GET", f"{_subject(subject_id)}/events", _page(t.Event.from_json), params=params)


def create_memory(subject_id: str, body: dict[str, Any]) -> Call[t.WriteResult]:
    if "occurred_at" in body:
        body["occurred_at"] = _iso(body["occurred_at"])
    return Call(
        "POST",
        f"{_subject(subject_id)}/memories",
        t.WriteResult.from_json,
        json=_drop_none(body),
        idempotent=False,
    )


def list_memories(
    subject_id: str,
    *,
    status: str | None,
    category: str | None,
    q: str | None,
    cursor: str | None,
    limit: int | None,
) -> Call[t.Page[t.Memory]]:
    params = _drop_none(
        {"status": status, "category": category, "q": q, "cursor": cursor, "limit": limit}
    )
    return Call("GET", f"{_subject(subject_id)}/memories", _page(t.Memory.from_json), params=params)


def get_memory(subject_id: str, memory_id: int) -> Call[t.Memory]:
    return Call("GET", f"{_subject(subject_id)}/memories/{_seg(memory_id)}", t.Memory.from_json)


def correct_memory(subject_id: str, memory_id: int, changes: dict[str, Any]) -> Call[t.Memory]:
    return Call(
        "PATCH",
        f"{_subject(subject_id)}/memories/{_seg(memory_id)}",
        t.Memory.from_json,
        json=_drop_none(changes),
        idempotent=False,  # a second correction would make another version (or a 409)
    )


def delete_memory(subject_id: str, memory_id: int) -> Call[None]:
    return Call("DELETE", f"{_subject(subject_id)}/memories/{_seg(memory_id)}", lambda _body: None)


def memory_history(subject_id: str, memory_id: int) -> Call[list[t.Memory]]:
    return Call(
        "GET",
        f"{_subject(subject_id)}/memories/{_seg(memory_id)}/history",
        lambda body: [t.Memory.from_json(m) for m in body["results"]],
    )


def recall(
    subject_id: str,
    *,
    query: str,
    entities: list[str] | None,
    top_k: int | None,
    token_budget: int | None,
    as_of: datetime | str | None,
) -> Call[t.Recall]:
    body = {
        "query": query,
        "entities": entities,
        "top_k": top_k,
        "token_budget": token_budget,
        "as_of": _iso(as_of),
    }
    # A POST, but a read: safe to send again.
    return Call("POST", f"{_subject(subject_id)}/recall", t.Recall.from_json, json=_drop_none(body))


def session_context(
    subject_id: str, session_id: str, *, token_budget: int | None
) -> Call[t.SessionContext]:
    return Call(
        "GET",
        f"{_subject(subject_id)}/sessions/{_seg(session_id)}/context",
        t.SessionContext.from_json,
        params=_drop_none({"token_budget": token_budget}),
    )


def profile(
    subject_id: str, *, as_of: datetime | str | None, history: int | None
) -> Call[t.Profile]:
    return Call(
        "GET",
        f"{_subject(subject_id)}/profile",
        t.Profile.from_json,
        params=_drop_none({"as_of": _iso(as_of), "history": history}),
    )


def knowledge_updated(doc_id: str) -> Call[int]:
    return Call("POST", f"/knowledge/{_seg(doc_id)}/updated", lambda body: int(body["flagged"]))


def erase_subject(subject_id: str) -> Call[t.ErasureReceipt]:
    return Call("DELETE", _subject(subject_id), t.ErasureReceipt.from_json)


def portal_link(subject_id: str) -> Call[t.PortalLink]:
    return Call(
        "POST", f"{_subject(subject_id)}/portal-link", t.PortalLink.from_json, idempotent=False
    )
