"""Staff console: data-subject cases (list, open, detail, execute, approve, reject) and the
audit viewer with CSV export. Privacy officers and admins only.

Thin views: parse the form → call one selector or service → render or redirect. A case of a
tenant the staff member cannot see is a 404; service errors come back as messages on the case.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from audit.services import actor_for_user
from console import privacy_selectors as selectors
from console.access import CAN_PRIVACY, staff_view, tenants_for
from core.exceptions import ApplicationError
from memory.services import memory_record_read
from privacy import services
from privacy.forms import (
    AuditFilterForm,
    CaseExecuteForm,
    CaseFilterForm,
    CaseOpenForm,
    CaseRejectForm,
)
from privacy.models import DataSubjectRequest

CASES_PER_PAGE = 50
AUDIT_PER_PAGE = 50
PROGRESS_POLL = "2s"
MSG_NO_SUBJECT = gettext_lazy("There is no subject with this id in that tenant.")


def _actor(request: HttpRequest) -> Any:
    return actor_for_user(request.user, request)


def _htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


# --------------------------------------------------------------------------- cases


@require_GET
@staff_view(CAN_PRIVACY)
def case_list(request: HttpRequest) -> HttpResponse:
    tenants = list(tenants_for(request.user).only("pk", "slug", "name"))
    tenant_ids = [tenant.pk for tenant in tenants]
    form = CaseFilterForm(request.GET, tenants=tenants)
    cases = selectors.case_list(tenant_ids=tenant_ids, **form.filters())
    context = {
        "nav": "privacy",
        "form": form,
        "tenants": tenants,
        "page": Paginator(cases, CASES_PER_PAGE).get_page(request.GET.get("page")),
        "overdue": selectors.case_overdue_count(tenant_ids=tenant_ids),
    }
    if _htmx(request) and request.htmx.target == "case-rows":
        return render(request, "console/privacy_cases.html#case_rows", context)
    return render(request, "console/privacy_cases.html", context)


@require_http_methods(["GET", "POST"])
@staff_view(CAN_PRIVACY)
def case_open(request: HttpRequest) -> HttpResponse:
    """Open a case on behalf of a person (who asked by mail, phone, …)."""
    tenants = list(tenants_for(request.user).only("pk", "slug", "name"))
    form = CaseOpenForm(request.POST or None, tenants=tenants, initial=request.GET.dict())
    if request.method == "POST" and form.is_valid():
        tenant = next(t for t in tenants if t.pk == form.cleaned_data["tenant"])
        subject = selectors.subject_for_case_open(
            tenant_id=tenant.pk, external_id=form.cleaned_data["subject_id"].strip()
        )
        if subject is None:
            form.add_error("subject_id", MSG_NO_SUBJECT)
        else:
            kind, lift = form.case_kind()
            case = services.case_open(
                tenant=tenant,
                subject=subject,
                kind=kind,
                lift=lift,
                requested_by_type=DataSubjectRequest.Requester.STAFF,
                requested_by_id=str(request.user.pk),
                notes=form.cleaned_data["notes"],
                actor=_actor(request),
            )
            messages.success(request, _("Case opened."))
            return redirect("console-privacy-case", public_id=case.public_id)
    return render(request, "console/privacy_case_open.html", {"nav": "privacy", "form": form})


def _case_context(request: HttpRequest, case: DataSubjectRequest) -> dict[str, Any]:
    return {
        "nav": "privacy",
        "case": case,
        "subject": selectors.case_subject(case),
        "receipt_rows": selectors.receipt_rows(case.receipt or {}),
        "proof": selectors.erasure_proof(case.receipt or {}),
        "needs_approval": (
            case.kind == DataSubjectRequest.Kind.ERASURE
            and case.status == DataSubjectRequest.Status.AWAITING_APPROVAL
        ),
        "can_execute": case.status
        in (DataSubjectRequest.Status.OPEN, DataSubjectRequest.Status.FAILED),
        "can_reject": case.status
        in (
            DataSubjectRequest.Status.OPEN,
            DataSubjectRequest.Status.AWAITING_APPROVAL,
            DataSubjectRequest.Status.FAILED,
        ),
        "has_export": bool(case.export_path),
        "poll": case.status == DataSubjectRequest.Status.RUNNING,
        "poll_every": PROGRESS_POLL,
        "execute_form": CaseExecuteForm(),
        "reject_form": CaseRejectForm(),
    }


@require_GET
@staff_view(CAN_PRIVACY)
def case_detail(request: HttpRequest, public_id: Any) -> HttpResponse:
    case = selectors.case_get_for_staff(user=request.user, public_id=public_id)
    context = _case_context(request, case)
    if _htmx(request) and request.htmx.target == "case-status":
        return render(request, "console/privacy_case.html#case_status", context)
    return render(request, "console/privacy_case.html", context)


def _run(request: HttpRequest, case: DataSubjectRequest, action: Any) -> HttpResponse:
    """Run a service on the case; its error (wrong confirmation, needs approval, …) becomes a
    message on the case page."""
    try:
        action()
    except ApplicationError as exc:
        messages.error(request, _(exc.message))
    return redirect("console-privacy-case", public_id=case.public_id)


@require_POST
@staff_view(CAN_PRIVACY)
def case_execute(request: HttpRequest, public_id: Any) -> HttpResponse:
    case = selectors.case_get_for_staff(user=request.user, public_id=public_id)
    form = CaseExecuteForm(request.POST)
    form.is_valid()
    confirm = None
    if case.kind == DataSubjectRequest.Kind.ERASURE:
        # Always pass the typed text: an empty confirmation must not skip the check.
        confirm = (form.cleaned_data.get("confirm_subject_id") or "").strip()

    def execute() -> None:
        services.case_execute(case=case, actor=_actor(request), confirm_subject_id=confirm)
        messages.success(request, _("Case executed."))

    return _run(request, case, execute)


@require_POST
@staff_view(CAN_PRIVACY)
def case_approve(request: HttpRequest, public_id: Any) -> HttpResponse:
    case = selectors.case_get_for_staff(user=request.user, public_id=public_id)

    def approve() -> None:
        services.case_approve(case=case, user=request.user, actor=_actor(request))
        messages.success(request, _("Erasure approved."))

    return _run(request, case, approve)


@require_POST
@staff_view(CAN_PRIVACY)
def case_reject(request: HttpRequest, public_id: Any) -> HttpResponse:
    case = selectors.case_get_for_staff(user=request.user, public_id=public_id)
    form = CaseRejectForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a reason for the rejection."))
        return redirect("console-privacy-case", public_id=case.public_id)

    def reject() -> None:
        if case.status in selectors.CLOSED_STATUSES:
            raise ApplicationError("case_closed", gettext_noop("This case is already closed."))
        services.case_reject(case=case, actor=_actor(request), reason=form.cleaned_data["reason"])
        messages.success(request, _("Case rejected."))

    return _run(request, case, reject)


@require_GET
@staff_view(CAN_PRIVACY)
def case_export(request: HttpRequest, public_id: Any) -> HttpResponse:
    """The access export of a case (JSON, or HTML with ?format=html), for the officer to
    deliver; reading it is audited like any other view of personal data."""
    case = selectors.case_get_for_staff(user=request.user, public_id=public_id)
    if case.kind != DataSubjectRequest.Kind.ACCESS or not case.export_path:
        raise Http404("No export for this case.")
    path = Path(case.export_path)
    if request.GET.get("format") == "html":
        path = path.with_suffix(".html")
    if not path.exists():
        raise Http404("The export file is gone.")
    memory_record_read(
        actor=_actor(request), subject=selectors.case_subject(case), action="console.privacy.export"
    )
    return _export_file(path, case)


def _export_file(path: Path, case: DataSubjectRequest) -> FileResponse:
    is_html = path.suffix == ".html"
    response = FileResponse(
        path.open("rb"),
        as_attachment=not is_html,
        filename=f"engram-export-{case.public_id}{path.suffix}",
        content_type="text/html; charset=utf-8" if is_html else "application/json",
    )
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    response["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------- audit viewer


@require_GET
@staff_view(CAN_PRIVACY)
def audit_list(request: HttpRequest) -> HttpResponse:
    form = AuditFilterForm(request.GET)
    entries = selectors.audit_entries(user=request.user, **form.filters())
    context = {
        "nav": "audit",
        "form": form,
        "page": Paginator(entries, AUDIT_PER_PAGE).get_page(request.GET.get("page")),
        "csv_query": _query_without_page(request),
    }
    if _htmx(request) and request.htmx.target == "audit-rows":
        return render(request, "console/audit_list.html#audit_rows", context)
    return render(request, "console/audit_list.html", context)


def _query_without_page(request: HttpRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


class _Echo:
    """A file-like object whose write returns the line (csv → StreamingHttpResponse)."""

    def write(self, value: str) -> str:
        return value


@require_GET
@staff_view(CAN_PRIVACY)
def audit_csv(request: HttpRequest) -> StreamingHttpResponse:
    """The filtered rows as CSV, streamed; the export itself is audited."""
    form = AuditFilterForm(request.GET)
    filters = form.filters()
    entries = selectors.audit_entries(user=request.user, **filters)
    memory_record_read(actor=_actor(request), subject=None, action="console.audit.export")
    writer = csv.writer(_Echo())
    response = StreamingHttpResponse(
        (writer.writerow(row) for row in selectors.audit_csv_rows(entries)),
        content_type="text/csv; charset=utf-8",
    )
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response["Content-Disposition"] = f'attachment; filename="engram-audit-{stamp}.csv"'
    response["Cache-Control"] = "no-store"
    return response
