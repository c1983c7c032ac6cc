"""Staff console: subjects, their memories and events, memory details and staff actions.

Thin views: parse the form → call one selector or service → render. Pages and their htmx
fragments share one template (`{% partialdef %}`); an htmx request gets only the fragment.
Anything outside the staff member's tenants is a 404; a role too low to act is a 403 (only after
the object was found). Showing personal data writes a read audit entry; masked data is unmasked
only through the audited reveal.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from audit.services import actor_for_user
from console import subject_selectors as selectors
from console.access import CAN_EDIT_MEMORIES, can_reveal, has_role, staff_view, tenants_for
from console.forms import (
    MemoryCorrectForm,
    MemoryFilterForm,
    ReasonForm,
    RevealForm,
    SubjectFilterForm,
)
from console.subject_services import pii_reveal
from core.exceptions import ApplicationError, SubjectPaused
from memory import services
from memory.models import Memory

SUBJECTS_PER_PAGE = 50
MEMORIES_PER_PAGE = 50
SESSIONS_PER_PAGE = 5
MEMORY_CHANGED = "memory-changed"  # HX-Trigger event: the memory table refreshes itself

MEMORY_ACTIONS = ("correct", "pin", "unpin", "expire", "delete")
EXPIRABLE = (Memory.Status.ACTIVE, Memory.Status.OBSERVED, Memory.Status.NEEDS_REVIEW)
MSG_NOT_EXPIRABLE = gettext_noop("Only an active, observed or needs-review memory can be expired.")
MSG_PURGE_PENDING = gettext_noop("This memory is being purged.")


def _actor(request: HttpRequest) -> Any:
    return actor_for_user(request.user, request)


def _htmx_target(request: HttpRequest) -> str | None:
    """The id of the element an htmx request will swap, or None for a plain request."""
    htmx = getattr(request, "htmx", None)
    if not htmx:
        return None
    return htmx.target or ""


# --------------------------------------------------------------------------- subjects


@require_GET
@staff_view()
def subject_list(request: HttpRequest) -> HttpResponse:
    tenants = list(tenants_for(request.user).only("pk", "slug", "name"))
    form = SubjectFilterForm(request.GET, tenants=tenants)
    form.is_valid()
    data = getattr(form, "cleaned_data", {})
    subjects = selectors.subject_list(
        tenant_ids=[tenant.pk for tenant in tenants],
        q=(data.get("q") or "").strip(),
        tenant_id=data.get("tenant"),
    )
    page = Paginator(subjects, SUBJECTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"nav": "subjects", "form": form, "page": page, "tenants": tenants}
    if _htmx_target(request) == "subject-rows":
        return render(request, "console/subjects.html#subject_rows", context)
    return render(request, "console/subjects.html", context)


@require_GET
@staff_view()
def subject_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The subject page; htmx refreshes its memory table or its session timeline."""
    subject = selectors.subject_get_for_staff(user=request.user, pk=pk)
    target = _htmx_target(request)
    context: dict[str, Any] = {"nav": "subjects", "subject": subject}
    if target == "session-timeline":
        context.update(_timeline_context(request, subject))
        services.memory_record_read(
            actor=_actor(request), subject=subject, action="console.subject.events"
        )
        return render(request, "console/subject.html#session_timeline", context)
    context.update(_memory_rows_context(request, subject))
    if target is not None:
        services.memory_record_read(
            actor=_actor(request), subject=subject, action="console.subject.memories"
        )
        return render(request, "console/subject.html#memory_rows", context)
    context.update(_timeline_context(request, subject))
    services.memory_record_read(
        actor=_actor(request), subject=subject, action="console.subject.view"
    )
    return render(request, "console/subject.html", context)


def _memory_rows_context(request: HttpRequest, subject: Any) -> dict[str, Any]:
    form = MemoryFilterForm(request.GET)
    filters = form.filters()
    memories = selectors.subject_memories(subject=subject, **filters)
    page = Paginator(memories, MEMORIES_PER_PAGE).get_page(request.GET.get("page"))
    return {
        "filter_form": form,
        "memory_page": page,
        "semantic": bool(filters["q"]) and filters["mode"] == selectors.SEARCH_SEMANTIC,
    }


def _timeline_context(request: HttpRequest, subject: Any) -> dict[str, Any]:
    page = Paginator(selectors.subject_sessions(subject=subject), SESSIONS_PER_PAGE).get_page(
        request.GET.get("spage")
    )
    sessions = selectors.sessions_with_events(subject=subject, sessions=list(page.object_list))
    return {"session_page": page, "sessions": sessions}


# --------------------------------------------------------------------------- memory detail


@require_GET
@staff_view()
def memory_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The detail panel (htmx, into the subject page) or the same content as a full page."""
    memory = selectors.memory_get_for_staff(user=request.user, pk=pk)
    services.memory_record_read(
        actor=_actor(request),
        subject=memory.subject,
        action="console.memory.view",
        target_id=memory.pk,
    )
    return _render_memory(request, memory)


def _render_memory(
    request: HttpRequest,
    memory: Memory,
    *,
    forms: dict[str, Any] | None = None,
    open_action: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "nav": "subjects",
        "detail": selectors.memory_detail(memory=memory),
        "memory": memory,
        "subject": memory.subject,
        "may_edit": has_role(request.user, CAN_EDIT_MEMORIES),
        "forms": _action_forms(memory, forms or {}),
        "open_action": open_action,
    }
    template = "console/memory_detail.html"
    if _htmx_target(request) is not None:
        template += "#memory_panel"
    return render(request, template, context, status=status)


def _action_forms(memory: Memory, bound: dict[str, Any]) -> dict[str, Any]:
    forms: dict[str, Any] = {
        "correct": MemoryCorrectForm.for_memory(memory),
        "pin": ReasonForm(prefix="pin"),
        "expire": ReasonForm(prefix="expire"),
        "delete": ReasonForm(prefix="delete"),
    }
    forms.update(bound)
    return forms


# --------------------------------------------------------------------------- actions


@require_POST
@staff_view()
def memory_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """correct / pin / unpin / expire / delete, through the services the API uses.

    htmx gets the refreshed panel (and `HX-Trigger: memory-changed` so the table reloads);
    a plain POST is redirected. Invalid input re-renders the panel with the errors inline.
    """
    if action not in MEMORY_ACTIONS:
        raise Http404("No such action.")
    memory = selectors.memory_get_for_staff(user=request.user, pk=pk)
    if not has_role(request.user, CAN_EDIT_MEMORIES):
        raise PermissionDenied("Your role does not allow changing memories.")
    form_key = "pin" if action in ("pin", "unpin") else action
    if action == "correct":
        form: Any = MemoryCorrectForm(request.POST, prefix="correct")
    else:
        form = ReasonForm(request.POST, prefix=form_key)
    if form.is_valid():
        try:
            result = _apply_action(request, memory, action, form)
        except ApplicationError as exc:
            _add_service_errors(form, exc)
        else:
            return _action_done(request, memory, action, result)
    status = 200 if _htmx_target(request) is not None else 400
    return _render_memory(
        request, memory, forms={form_key: form}, open_action=form_key, status=status
    )


def _apply_action(request: HttpRequest, memory: Memory, action: str, form: Any) -> Memory | None:
    actor, reason = _actor(request), form.cleaned_data["reason"]
    if memory.status == Memory.Status.PURGE_PENDING and action != "delete":
        raise ApplicationError("not_current", MSG_PURGE_PENDING)
    if action == "correct":
        if memory.subject.paused:
            raise SubjectPaused()  # the API refuses corrections of a paused subject too
        return services.memory_correct(memory=memory, actor=actor, reason=reason, **form.changes())
    if action in ("pin", "unpin"):
        return services.memory_set_pinned(
            memory=memory, pinned=action == "pin", actor=actor, reason=reason
        )
    if action == "expire":
        if memory.status not in EXPIRABLE:
            raise ApplicationError("invalid", MSG_NOT_EXPIRABLE)
        return services.memory_expire(memory=memory, actor=actor, reason=reason)
    services.memory_delete(memory=memory, actor=actor, reason=reason)
    return None


def _add_service_errors(form: Any, exc: ApplicationError) -> None:
    fields = getattr(exc, "fields", None) or {}
    for name, errors in fields.items():
        for error in errors if isinstance(errors, list) else [errors]:
            form.add_error(name if name in form.fields else None, str(error))
    if not fields:
        form.add_error(None, _(exc.message))


def _action_done(
    request: HttpRequest, memory: Memory, action: str, result: Memory | None
) -> HttpResponse:
    done = {
        "correct": _("Correction saved as version %(version)s."),
        "pin": _("Memory pinned."),
        "unpin": _("Memory unpinned."),
        "expire": _("Memory expired."),
        "delete": _("Memory deleted."),
    }[action] % {"version": getattr(result, "version", "")}
    if _htmx_target(request) is None:
        messages.success(request, done)
        if result is None:
            return redirect("console-subject", pk=memory.subject_id)
        return redirect("console-memory", pk=result.pk)
    if result is None:
        response = render(
            request,
            "console/memory_detail.html#memory_deleted",
            {"memory_id": memory.pk, "subject": memory.subject, "notice": done},
        )
    else:
        result = selectors.memory_get_for_staff(user=request.user, pk=result.pk)
        response = _render_memory(request, result)
        _replace_url_if_on_page(request, memory, response, result)
    return trigger_client_event(response, MEMORY_CHANGED, {"id": memory.pk, "notice": done})


# --------------------------------------------------------------------------- reveal


@require_POST
@staff_view()
def reveal(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """Unmask one memory's or event's content: operators and above, with a reason, audited."""
    if kind == "memory":
        target: Any = selectors.memory_get_for_staff(user=request.user, pk=pk)
    elif kind == "event":
        target = selectors.event_get_for_staff(user=request.user, pk=pk)
    else:
        raise Http404("Nothing to reveal.")
    if not can_reveal(request.user):
        raise PermissionDenied("Your role does not allow revealing personal data.")
    form = RevealForm(request.POST)
    context = {
        "kind": kind,
        "obj": target,
        "form": form,
        "quote": _quote_for(request, target),
        "quote_of": request.POST.get("quote_of", ""),
    }
    if not form.is_valid():
        context["revealed"] = False
        status = 200 if _htmx_target(request) is not None else 400
        return render(request, _reveal_template(request), context, status=status)
    pii_reveal(actor=_actor(request), target=target, reason=form.cleaned_data["reason"])
    context["revealed"] = True
    return render(request, _reveal_template(request), context)


def _reveal_template(request: HttpRequest) -> str:
    if _htmx_target(request) is not None:
        return "console/subject_pii.html#pii_block"
    return "console/subject_pii.html"


def _quote_for(request: HttpRequest, target: Any) -> str:
    """For a source event shown under a memory: that memory's quote, to highlight it."""
    if isinstance(target, Memory):
        return ""
    memory_id = request.POST.get("quote_of", "")
    if not memory_id.isdigit():
        return ""
    quote = (
        Memory.objects.filter(pk=int(memory_id), subject_id=target.subject_id)
        .values_list("source_quote", flat=True)
        .first()
    )
    return quote or ""


def _replace_url_if_on_page(
    request: HttpRequest, old: Memory, response: HttpResponse, new: Memory
) -> None:
    """On the full memory page a correction shows the new version: keep the URL in step."""
    current = urlsplit(getattr(request.htmx, "current_url", None) or "").path
    if new.pk != old.pk and current == reverse("console-memory", kwargs={"pk": old.pk}):
        response.headers["HX-Replace-Url"] = reverse("console-memory", kwargs={"pk": new.pk})
