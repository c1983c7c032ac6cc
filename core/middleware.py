import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from core.exception_handler import RETRY_AFTER_SECONDS, error_body, outage_message


class RequestIdMiddleware:
    """Gives every request an id (or keeps a sane client one) for logs and audit entries."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        valid = 0 < len(incoming) <= 64 and incoming.replace("-", "").isalnum()
        request.request_id = incoming if valid else uuid.uuid4().hex  # type: ignore[attr-defined]
        response = self.get_response(request)
        response["X-Request-ID"] = request.request_id  # type: ignore[attr-defined]
        return response


class ServiceUnavailableMiddleware:
    """503 + Retry-After instead of a 500 page when the database or Redis is down.

    DRF views get this from the API exception handler; this covers the rest (console, /me/,
    admin, and any /api/ path that fails before DRF takes over). In the error shape for /api/.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        message = outage_message(exception)
        if message is None:
            return None
        response: HttpResponse
        if request.path.startswith("/api/"):
            response = JsonResponse(error_body("service_unavailable", message), status=503)
        else:
            response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
