from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from console.access import staff_view, tenant_ids_for
from console.selectors import overview_counts


@staff_view()
def dashboard(request: HttpRequest) -> HttpResponse:
    counts = overview_counts(tenant_ids=tenant_ids_for(request.user))
    return render(request, "console/home.html", {"counts": counts})
