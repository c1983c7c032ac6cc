"""The observation queue: pending review items, oldest first, resolved one by one or in bulk.

htmx (one fragment, two callers): the page renders each item with `console/queue.html#item`;
resolving an item answers `#resolved` (a receipt replacing the item, the next pending item
appended out of band). Without htmx the POST redirects back to the queue.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from audit.services import actor_for_user
from console.access import CAN_RESOLVE_QUEUE, has_role, staff_view, tenant_ids_for, tenants_for
from console.forms_review import BulkResolveForm, QueueFilterForm, ResolveForm
from console.review_selectors import (
    memory_version_chain,
    observation_get_for_staff,
    observations_for_bulk,
    queue_count,
    queue_next_after,
    queue_page,
)
from core.exceptions import ApplicationError
from memory.models import Memory, Observation
from memory.services import observation_resolve

OUTCOME = {
    "accepted": gettext_lazy("Accepted"),
    "rejected": gettext_lazy("Rejected"),
    "merged": gettext_lazy("Merged into the related memory"),
}


def _filters(request: HttpRequest, data: Any) -> tuple[QueueFilterForm, dict[str, Any]]:
    form = QueueFilterForm(data, tenants=list(tenants_for(request.user)))
    return form, form.values()


def _queue_url(filters: dict[str, Any]) -> str:
    query = {k: v for k, v in (("kind", filters["kind"]), ("tenant", filters["tenant_id"])) if v}
    return reverse("console-queue") + (f"?{urlencode(query)}" if query else "")


@require_GET
@staff_view()
def queue(request: HttpRequest) -> HttpResponse:
    form, filters = _filters(request, request.GET)
    page = queue_page(tenant_ids=tenant_ids_for(request.user), **filters)
    context = {
        "nav": "queue",
        "form": form,
        "filters": filters,
        "page": page,
        "total": page.total,
        "can_resolve": has_role(request.user, CAN_RESOLVE_QUEUE),
    }
    return render(request, "console/queue.html", context)


@require_POST
@staff_view()
def queue_resolve(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept / reject / merge / edit-then-accept one item (operators and above)."""
    observation = observation_get_for_staff(user=request.user, observation_id=pk)
    if not has_role(request.user, CAN_RESOLVE_QUEUE):
        raise PermissionDenied(_("Your role can read the queue but not resolve it."))
    _form, filters = _filters(request, request.POST)
    form = ResolveForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            context = {"obs": observation, "can_resolve": True, "filters": filters, "form": form}
            return render(request, "console/queue.html#item", context)
        messages.error(request, _("Could not resolve: %s") % form.errors.as_text())
        return redirect(_queue_url(filters))
    data = form.cleaned_data
    error = ""
    try:
        observation = observation_resolve(
            observation=observation,
            decision=data["decision"],
            actor=actor_for_user(request.user, request),
            user=request.user,
            note=data["note"],
            content=data["content"] or None,
        )
    except ApplicationError as exc:  # e.g. resolved meanwhile by someone else
        error = exc.message
    if not request.htmx:
        if error:
            messages.error(request, error)
        else:
            messages.success(request, f"{OUTCOME.get(observation.status, observation.status)}.")
        return redirect(_queue_url(filters))
    return render(
        request,
        "console/queue.html#resolved",
        _resolved_context(request, observation, filters, data.get("after"), error),
    )


def _resolved_context(
    request: HttpRequest,
    observation: Observation,
    filters: dict[str, Any],
    after_id: int | None,
    error: str,
) -> dict[str, Any]:
    """The receipt (with the version chain after an accept) and the item that fills the window."""
    tenant_ids = tenant_ids_for(request.user)
    chain: list[Memory] = []
    if observation.memory_id and observation.status == Observation.Status.ACCEPTED:
        memory = Memory.objects.filter(pk=observation.memory_id).first()
        chain = memory_version_chain(memory=memory) if memory else []
    after = Observation.objects.filter(pk=after_id, tenant_id__in=tenant_ids).first()
    next_obs = queue_next_after(tenant_ids=tenant_ids, after=after, **filters) if after else None
    return {
        "obs": observation,
        "outcome": OUTCOME.get(observation.status, observation.status),
        "error": error,
        "chain": chain,
        "next_obs": next_obs,
        "total": queue_count(tenant_ids=tenant_ids, **filters),
        "filters": filters,
        "can_resolve": True,
    }


@require_POST
@staff_view()
def queue_bulk(request: HttpRequest) -> HttpResponse:
    """Accept or reject many low-confidence items at once (operators and above)."""
    if not has_role(request.user, CAN_RESOLVE_QUEUE):
        raise PermissionDenied(_("Your role can read the queue but not resolve it."))
    _form, filters = _filters(request, request.POST)
    form = BulkResolveForm(request.POST)
    done = 0
    if form.is_valid():
        actor = actor_for_user(request.user, request)
        for observation in observations_for_bulk(user=request.user, ids=form.cleaned_data["ids"]):
            try:
                observation_resolve(
                    observation=observation,
                    decision=form.cleaned_data["decision"],
                    actor=actor,
                    user=request.user,
                    note=form.cleaned_data["note"] or _("bulk review"),
                )
            except ApplicationError:
                continue  # resolved meanwhile: skip it
            done += 1
    summary = _("%(count)d item(s) resolved.") % {"count": done}
    if not request.htmx:
        messages.success(request, summary)
        return redirect(_queue_url(filters))
    page = queue_page(tenant_ids=tenant_ids_for(request.user), **filters)
    context = {
        "page": page,
        "total": page.total,
        "filters": filters,
        "can_resolve": True,
        "notice": summary,
    }
    return render(request, "console/queue.html#queue-body", context)
