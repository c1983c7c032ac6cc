"""One error format for the whole API: {"error": {"code", "message", "fields"}}."""

import logging
from typing import Any

import redis
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404
from kombu.exceptions import OperationalError as BrokerOperationalError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.db_retry import DB_RETRY_ATTEMPTS, is_transient_db_error, run_with_db_retry
from core.exceptions import ApplicationError

logger = logging.getLogger(__name__)

_CODES_BY_STATUS = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    423: "locked",
    429: "throttled",
}


# A backing service is down (database, or Redis as broker / cache): the request may succeed
# again shortly, so the client gets 503 with Retry-After instead of a 500.
RETRY_AFTER_SECONDS = 5
MSG_DATABASE_UNAVAILABLE = "The database is unavailable right now; retry shortly."
MSG_DATABASE_CONFLICT = "The request collided with a concurrent one in the database; retry it."
MSG_BROKER_UNAVAILABLE = "The message broker is unavailable right now; retry shortly."


def outage_message(exc: BaseException) -> str | None:
    """The 503 message for an outage of a backing service, None for any other error."""
    if isinstance(exc, OperationalError | InterfaceError):
        # SQLSTATE class 40 (deadlock, serialization failure): the server is up; retrying works.
        sqlstate = getattr(exc.__cause__, "sqlstate", None) or ""
        return MSG_DATABASE_CONFLICT if sqlstate.startswith("40") else MSG_DATABASE_UNAVAILABLE
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError | BrokerOperationalError):
        return MSG_BROKER_UNAVAILABLE
    return None


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def _flatten(detail: Any) -> Any:
    """DRF ErrorDetail trees → plain strings/lists/dicts."""
    if isinstance(detail, dict):
        return {key: _flatten(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_flatten(item) for item in detail]
    return str(detail)


def _retry_handler(context: dict[str, Any]) -> Response | None:
    """The view's transaction was chosen as a deadlock victim and rolled back whole: run
    the view's handler again (authentication and permissions already passed)."""
    view, request = context["view"], context["request"]
    handler = getattr(view, request.method.lower())
    try:
        return run_with_db_retry(
            lambda: handler(request, *context["args"], **context["kwargs"]),
            attempts=DB_RETRY_ATTEMPTS - 1,
        )
    except Exception as again:  # noqa: BLE001 - answered like a first failure, without retry
        return api_exception_handler(again, {**context, "db_retried": True})


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if is_transient_db_error(exc) and not context.get("db_retried"):
        return _retry_handler(context)  # a deadlock victim: its transaction is gone, rerun it
    if (message := outage_message(exc)) is not None:
        logger.warning("503 for %s: %s: %s", context["request"].path, type(exc).__name__, exc)
        response = Response(
            error_body("service_unavailable", message), status=status.HTTP_503_SERVICE_UNAVAILABLE
        )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body(
                "payload_too_large",
                "The request body is too large (ENGRAM_MAX_REQUEST_BYTES); send fewer events.",
            ),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, DjangoValidationError):
        fields = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        exc = exceptions.ValidationError(detail=fields)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = _CODES_BY_STATUS.get(response.status_code, "error")
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        body = error_body("invalid", "The request is invalid; see fields.", fields)
    elif isinstance(exc, exceptions.ParseError):
        body = error_body("malformed_json", str(exc.detail))
    else:
        detail = getattr(exc, "detail", str(exc))
        body = error_body(code, str(detail))
    response.data = body
    if response.status_code == status.HTTP_401_UNAUTHORIZED:
        response["WWW-Authenticate"] = 'Bearer realm="engram"'
    return response
