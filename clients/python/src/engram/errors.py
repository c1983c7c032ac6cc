"""Exceptions. Every non-2xx answer becomes an `APIError` subclass carrying the API's one error
shape, `{"error": {"code", "message", "fields"}}`; a request that never got an answer after
its retries is a `ConnectionFailedError`."""

from __future__ import annotations

from typing import Any


class EngramError(Exception):
    """Base of everything this client raises."""


class ConnectionFailedError(EngramError):
    """No HTTP answer (connection refused or dropped, timeout), after the retries."""


class APIError(EngramError):
    """The server answered with an error status.

    `code` is the API's stable machine-readable code (`invalid`, `not_found`, …), `fields` the
    per-field messages of an `invalid` request, nested like the request body."""

    def __init__(
        self,
        *,
        status_code: int,
        code: str,
        message: str,
        fields: dict[str, Any] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{status_code} {code}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.fields = fields or {}
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body


class InvalidRequestError(APIError):
    """400: the request is invalid (see `fields`) or its JSON malformed."""


class AuthenticationError(APIError):
    """401: missing, invalid or revoked agent key."""


class PermissionDeniedError(APIError):
    """403: the key lacks the scope."""


class NotFoundError(APIError):
    """404: no such memory or subject, or one this key may not see."""


class ConflictError(APIError):
    """409: e.g. `not_current`, the memory was corrected meanwhile."""


class PayloadTooLargeError(APIError):
    """413: send fewer events per request."""


class SubjectPausedError(APIError):
    """423: the subject restricted processing; nothing was stored."""


class RateLimitedError(APIError):
    """429: too many requests (raised once the retries are used up)."""


class ServerError(APIError):
    """5xx (raised once the retries are used up)."""


class ServiceUnavailableError(ServerError):
    """503: the database or Redis is down for a moment."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    423: SubjectPausedError,
    429: RateLimitedError,
    503: ServiceUnavailableError,
}


def error_for(
    status_code: int,
    body: Any,
    *,
    request_id: str | None = None,
    retry_after: float | None = None,
) -> APIError:
    """The exception for an error answer; a body not in the error shape (a proxy's HTML page)
    still gives a usable code and message."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code") or "error")
        message = str(error.get("message") or "")
        fields = error.get("fields") if isinstance(error.get("fields"), dict) else {}
    else:
        code = "error"
        message = body if isinstance(body, str) and body else f"HTTP {status_code}"
        message = message[:500]
        fields = {}
    cls = _BY_STATUS.get(status_code)
    if cls is None:
        cls = ServerError if status_code >= 500 else APIError
    return cls(
        status_code=status_code,
        code=code,
        message=message,
        fields=fields,
        request_id=request_id,
        retry_after=retry_after,
        body=body,
    )
