""" "What you remember about me": the person's own page.

A person arrives through a single-use sign-in link from the agent's app (`me-link`) or signs in
with a password. Their subject is `request.user.subject`; a signed-in account without one
(staff) gets 404, and nothing here ever takes a subject or memory of someone else: every
lookup goes through the signed-in person's own subject. Each page that shows personal data
writes a read audit entry. State changes go through the memory and privacy services.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from audit.services import actor_for_task, actor_for_user
from core.exceptions import ApplicationError
from memory.models import Memory, Subject
from memory.services import memory_correct, memory_delete, memory_record_read
from privacy import services
from privacy.forms import FORGET_WORD, ForgetForm, MemoryCorrectForm, PauseForm
from privacy.models import DataSubjectRequest
from privacy.portal import end_user_for, portal_token_consume

VISIBLE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.NEEDS_REVIEW)
# Category order and the friendly headings of the page.
CATEGORY_HEADINGS = {
    Memory.Category.PREFERENCE: gettext_lazy("What you like and prefer"),
    Memory.Category.PROFILE: gettext_lazy("About you"),
    Memory.Category.FACT: gettext_lazy("Facts about you"),
    Memory.Category.PLAN: gettext_lazy("Your plans"),
    Memory.Category.DECISION: gettext_lazy("Decisions you made"),
    Memory.Category.CORRECTION: gettext_lazy("Things you corrected"),
}
PROGRESS_POLL = "2s"
MEMORIES_CHANGED = "memories-changed"
GOODBYE_SESSION_KEY = "me_goodbye"
BACKEND = "django.contrib.auth.backends.ModelBackend"


def _subject(request: HttpRequest) -> Subject:
    """The signed-in person's subject; 404 for accounts that have none (staff)."""
    subject = Subject.objects.filter(end_user_id=request.user.pk).select_related("tenant").first()
    if subject is None:
        raise Http404("No memories are linked to this account.")
    return subject


def _actor(request: HttpRequest) -> Any:
    return actor_for_user(request.user, request)


def _own_memory(subject: Subject, pk: int) -> Memory:
    """One of the person's visible memories; anything else (someone else's, superseded) 404s."""
    memory = (
        Memory.objects.filter(pk=pk, subject=subject, status__in=VISIBLE_STATUSES)
        .select_related("subject")
        .defer("embedding", "search_vector")
        .first()
    )
    if memory is None:
        raise Http404("No such memory.")
    return memory


def _memory_groups(subject: Subject) -> list[dict[str, Any]]:
    memories = list(
        Memory.objects.filter(subject=subject, status__in=VISIBLE_STATUSES)
        .only("pk", "category", "content", "status", "source_quote", "valid_from", "version")
        .order_by("-valid_from", "-id")
    )
    groups = []
    for category, heading in CATEGORY_HEADINGS.items():
        items = [memory for memory in memories if memory.category == category]
        if items:
            groups.append({"category": category, "heading": heading, "memories": items})
    return groups


def _latest_export(subject: Subject) -> DataSubjectRequest | None:
    return (
        DataSubjectRequest.objects.filter(
            tenant_id=subject.tenant_id,
            subject_pk=subject.pk,
            kind=DataSubjectRequest.Kind.ACCESS,
            requested_by_type=DataSubjectRequest.Requester.END_USER,
        )
        .order_by("-received_at", "-id")
        .first()
    )


def _export_context(subject: Subject) -> dict[str, Any]:
    case = _latest_export(subject)
    ready = (
        case is not None
        and case.status == DataSubjectRequest.Status.COMPLETED
        and bool(case.export_path)
        and Path(case.export_path).exists()
    )
    return {
        "export_case": case,
        "export_ready": ready,
        "export_token": services.export_link_token(case) if ready and case else "",
        "export_running": case is not None and case.status == DataSubjectRequest.Status.RUNNING,
        "poll_every": PROGRESS_POLL,
    }


def _home_context(request: HttpRequest, subject: Subject) -> dict[str, Any]:
    groups = _memory_groups(subject)
    return {
        "subject": subject,
        "groups": groups,
        "memory_count": sum(len(group["memories"]) for group in groups),
        "correct_form": MemoryCorrectForm(),
        **_export_context(subject),
    }


def _render_memories(request: HttpRequest, subject: Subject) -> HttpResponse:
    """After a change: the memory list fragment for htmx, the page (PRG) otherwise."""
    if getattr(request, "htmx", False):
        memory_record_read(actor=_actor(request), subject=subject, action="portal.view")
        return render(request, "me/home.html#memories", _home_context(request, subject))
    return redirect("me-home")


# --------------------------------------------------------------------------- sign-in


@never_cache
@require_GET
def me_link(request: HttpRequest, token: str) -> HttpResponse:
    """Consume a single-use portal link, sign the person in, go to their page."""
    try:
        subject = portal_token_consume(token)
    except ApplicationError:
        return render(request, "me/link_invalid.html", status=404)
    user = end_user_for(subject=subject, actor=actor_for_task("portal"))
    login(request, user, backend=BACKEND)
    return redirect("me-home")


# --------------------------------------------------------------------------- the page


@never_cache
@require_GET
@login_required
def me_home(request: HttpRequest) -> HttpResponse:
    subject = _subject(request)
    memory_record_read(actor=_actor(request), subject=subject, action="portal.view")
    return render(request, "me/home.html", _home_context(request, subject))


@require_POST
@login_required
def me_correct(request: HttpRequest, pk: int) -> HttpResponse:
    subject = _subject(request)
    memory = _own_memory(subject, pk)
    form = MemoryCorrectForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Please write what we should remember instead."))
        return _render_memories(request, subject)
    try:
        memory_correct(
            memory=memory,
            actor=_actor(request),
            content=form.cleaned_data["content"],
            reason="corrected by the person",
        )
    except ApplicationError as exc:
        messages.error(request, _(exc.message))
    else:
        messages.success(request, _("Thanks, we corrected it."))
    return _render_memories(request, subject)


@require_POST
@login_required
def me_delete(request: HttpRequest, pk: int) -> HttpResponse:
    subject = _subject(request)
    memory = _own_memory(subject, pk)
    memory_delete(memory=memory, actor=_actor(request), reason="deleted by the person")
    messages.success(request, _("Deleted. We no longer remember that."))
    return _render_memories(request, subject)


@require_POST
@login_required
def me_pause(request: HttpRequest) -> HttpResponse:
    """Pause (restriction) or resume memory, recorded as a privacy case."""
    subject = _subject(request)
    form = PauseForm(request.POST)
    if not form.is_valid():
        return redirect("me-home")
    paused = form.cleaned_data["paused"]
    if paused != subject.paused:
        actor = _actor(request)
        case = services.case_open(
            tenant=subject.tenant,
            subject=subject,
            kind=DataSubjectRequest.Kind.RESTRICTION,
            lift=not paused,
            requested_by_type=DataSubjectRequest.Requester.END_USER,
            requested_by_id=str(request.user.pk),
            actor=actor,
        )
        services.case_execute(case=case, actor=actor)
    if paused:
        messages.success(request, _("Memory is paused. Nothing new will be remembered."))
    else:
        messages.success(request, _("Memory is on again."))
    return redirect("me-home")


# --------------------------------------------------------------------------- download my data


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def me_export(request: HttpRequest) -> HttpResponse:
    """POST starts an export (an access case); GET shows its progress (htmx polls the
    fragment until the case is completed, then it offers the download link)."""
    subject = _subject(request)
    if request.method == "POST":
        current = _latest_export(subject)
        if current is None or current.status != DataSubjectRequest.Status.RUNNING:
            actor = _actor(request)
            case = services.case_open(
                tenant=subject.tenant,
                subject=subject,
                kind=DataSubjectRequest.Kind.ACCESS,
                requested_by_type=DataSubjectRequest.Requester.END_USER,
                requested_by_id=str(request.user.pk),
                actor=actor,
            )
            services.case_execute(case=case, actor=actor)
        if not getattr(request, "htmx", False):
            return redirect("me-export")
    context = {"subject": subject, **_export_context(subject)}
    if getattr(request, "htmx", False):
        return render(request, "me/export.html#export_status", context)
    return render(request, "me/export.html", context)


@never_cache
@require_GET
@login_required
def me_download(request: HttpRequest, token: str) -> HttpResponse:
    """Stream the export file (JSON; `?format=html` for the readable version) — only to the
    person it is about."""
    subject = _subject(request)
    try:
        case = services.export_case_from_token(token)
    except ApplicationError as exc:
        raise Http404(exc.message) from exc
    if (
        case.kind != DataSubjectRequest.Kind.ACCESS
        or case.subject_pk != subject.pk
        or case.tenant_id != subject.tenant_id
    ):
        raise Http404("No such export.")
    path = Path(case.export_path)
    is_html = request.GET.get("format") == "html"
    if is_html:
        path = path.with_suffix(".html")
        if not path.exists():
            raise Http404("No such export.")
    memory_record_read(actor=_actor(request), subject=subject, action="portal.export.download")
    response = FileResponse(
        path.open("rb"),
        as_attachment=not is_html,
        filename=f"my-data-{case.created_at:%Y%m%d}{path.suffix}",
        content_type="text/html; charset=utf-8" if is_html else "application/json",
    )
    # The HTML export is self-contained: no scripts, no external requests.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    response["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- forget everything


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def me_forget(request: HttpRequest) -> HttpResponse:
    """Erase everything (after typing the confirmation word). The erasure also deletes this
    sign-in account, so the person is signed out and sees the receipt's summary."""
    subject = _subject(request)
    form = ForgetForm(request.POST or None)
    context: dict[str, Any] = {"subject": subject, "form": form, "word": _(FORGET_WORD)}
    if request.method != "POST" or not form.is_valid():
        return render(request, "me/forget.html", context)
    actor = _actor(request)
    case = (
        DataSubjectRequest.objects.filter(
            tenant_id=subject.tenant_id,
            subject_pk=subject.pk,
            kind=DataSubjectRequest.Kind.ERASURE,
            status=DataSubjectRequest.Status.AWAITING_APPROVAL,
        ).first()
    ) or services.case_open(
        tenant=subject.tenant,
        subject=subject,
        kind=DataSubjectRequest.Kind.ERASURE,
        requested_by_type=DataSubjectRequest.Requester.END_USER,
        requested_by_id=str(request.user.pk),
        actor=actor,
    )
    try:
        case = services.case_execute(case=case, actor=actor)
    except ApplicationError as exc:
        if exc.code != "needs_approval":
            raise
        # This installation wants a privacy officer to approve erasures first.
        context["pending_case"] = case
        return render(request, "me/forget.html", context)
    receipt = case.receipt or {}
    logout(request)
    request.session[GOODBYE_SESSION_KEY] = {
        "case_id": str(case.public_id),
        "completed_at": receipt.get("completed_at", ""),
        "deleted": {
            "events": receipt.get("deleted", {}).get("memory_event", 0),
            "memories": receipt.get("deleted", {}).get("memory_memory", 0),
            "observations": receipt.get("deleted", {}).get("memory_observation", 0),
            "recall_traces": receipt.get("deleted", {}).get("memory_recalltrace", 0),
            "export_files": receipt.get("export_files_deleted", 0),
        },
        "residue_total": receipt.get("residue_total", 0),
    }
    return redirect("me-goodbye")


@never_cache
@require_GET
def me_goodbye(request: HttpRequest) -> HttpResponse:
    """After an erasure: the receipt summary (counts only, no content)."""
    summary = request.session.get(GOODBYE_SESSION_KEY)
    if summary is None:
        return redirect("me-home")
    return render(request, "me/goodbye.html", {"summary": summary})
