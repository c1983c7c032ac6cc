"""Who is calling: an Engram agent key on every HTTP request to /mcp, never the URL.

Accepted like the mem0 clients send it: `Authorization: Bearer <key>`, `Authorization: Token
<key>` or `X-API-Key: <key>`. The key is checked by the REST API's own
`AgentKeyAuthentication` (prefix lookup, HMAC compare, revoked keys refused, last use
touched), so both doors accept and refuse exactly the same keys. A refused request gets 401
in the API's error shape before the MCP transport sees it.
"""

from __future__ import annotations

import json
import logging
import uuid
from types import SimpleNamespace
from typing import Any

import anyio
from rest_framework.exceptions import AuthenticationFailed
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from accounts.authentication import MSG_BAD_KEY, AgentKeyAuthentication
from accounts.models import Agent
from core.exception_handler import RETRY_AFTER_SECONDS, error_body, outage_message
from mcp_door.db import with_db_connection

logger = logging.getLogger(__name__)

AGENT_SCOPE_KEY = "engram.agent"
REQUEST_ID_SCOPE_KEY = "engram.request_id"
MSG_NO_KEY = (
    "Send an Engram agent key: 'Authorization: Bearer <key>' "
    "(or 'Authorization: Token <key>', or 'X-API-Key: <key>')."
)
_KEYWORDS = ("bearer", "token")


def presented_key(headers: Headers) -> str | None:
    """The key as sent, or None when no credential header is present. A malformed
    Authorization header yields "" (present, but refused as a bad key)."""
    authorization = headers.get("authorization")
    if authorization:
        parts = authorization.split()
        if len(parts) == 2 and parts[0].lower() in _KEYWORDS:
            return parts[1]
        return ""
    api_key = headers.get("x-api-key")
    if api_key is not None:
        return api_key.strip()
    return None


def agent_for_key(key: str) -> Agent | None:
    """The active agent holding `key` (REST API rules), or None. Blocking: call in a thread."""
    # AgentKeyAuthentication reads only the Authorization header (as DRF's request does).
    header = f"Bearer {key}"
    request = SimpleNamespace(
        headers={"authorization": header}, META={"HTTP_AUTHORIZATION": header}
    )
    try:
        result = AgentKeyAuthentication().authenticate(request)  # type: ignore[arg-type]
    except AuthenticationFailed:
        return None
    return result[0] if result else None


def request_id_from(headers: Headers) -> str:
    """The client's X-Request-ID when sane (as core.middleware.RequestIdMiddleware), else new."""
    incoming = headers.get("x-request-id", "")
    if 0 < len(incoming) <= 64 and incoming.replace("-", "").isalnum():
        return incoming
    return uuid.uuid4().hex


async def _send_error(
    send: Send, status: int, code: str, message: str, extra: dict[str, str] | None = None
) -> None:
    body = json.dumps(error_body(code, message)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    for name, value in (extra or {}).items():
        headers.append((name.lower().encode(), value.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class AgentKeyMiddleware:
    """ASGI middleware: authenticate the agent key, put the agent into the ASGI scope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        key = presented_key(headers)
        challenge = {"WWW-Authenticate": 'Bearer realm="engram"'}
        if key is None:
            await _send_error(send, 401, "not_authenticated", MSG_NO_KEY, challenge)
            return
        try:
            agent = await anyio.to_thread.run_sync(with_db_connection, lambda: agent_for_key(key))
        except Exception as exc:
            message = outage_message(exc)
            if message is None:
                raise
            logger.warning("503 for /mcp: %s: %s", type(exc).__name__, exc)
            retry = {"Retry-After": str(RETRY_AFTER_SECONDS)}
            await _send_error(send, 503, "service_unavailable", message, retry)
            return
        if agent is None:
            await _send_error(send, 401, "not_authenticated", MSG_BAD_KEY, challenge)
            return
        scope = {**scope, AGENT_SCOPE_KEY: agent, REQUEST_ID_SCOPE_KEY: request_id_from(headers)}
        await self.app(scope, receive, send)


def request_meta(scope: dict[str, Any]) -> SimpleNamespace:
    """A request-like object for audit.services.actor_for_agent (request id and client IP)."""
    client = scope.get("client")
    return SimpleNamespace(
        request_id=scope.get(REQUEST_ID_SCOPE_KEY, ""),
        META={"REMOTE_ADDR": client[0] if client else None},
    )
