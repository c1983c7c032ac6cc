from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.exception_handler import RETRY_AFTER_SECONDS
from core.health import health_report


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    ok, checks = health_report()
    response = JsonResponse(
        {"status": "ok" if ok else "degraded", **checks}, status=200 if ok else 503
    )
    if not ok:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
