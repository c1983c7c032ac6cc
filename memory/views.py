"""Staff console views (htmx). The full console is built on the same services as the API."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memory import selectors


@login_required
def console_home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "memory/console_home.html",
        {"stats": selectors.console_overview(user=request.user)},
    )
