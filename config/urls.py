from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import include, path, re_path, resolve
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from core.exception_handler import error_body
from core.views import healthz


@csrf_exempt  # agents send no CSRF token; a POST to a wrong path must still get the JSON 404
def api_not_found(request: HttpRequest) -> HttpResponse:
    """Any /api/ path no route matches: the API's JSON error shape, not Django's HTML 404.

    This route matches everything under /api/, so it also does what APPEND_SLASH would have
    done for a GET of /api/schema or /api/docs."""
    if request.method in ("GET", "HEAD") and not request.path_info.endswith("/"):
        match = resolve(request.path_info + "/")
        if match.func is not api_not_found:
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return JsonResponse(error_body("not_found", "No such API endpoint."), status=404)


urlpatterns = [
    path("", RedirectView.as_view(url="/console/", permanent=False)),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/", include("memory.urls")),
    re_path(r"^api/", api_not_found),  # after every /api/ route
    path("mem0/", include("memory.mem0_compat.urls")),  # mem0-compatible door (README)
    path("console/", include("console.urls")),
    path("me/", include("privacy.urls_me")),
]
