"""Recall traces: the list, one trace explained, and a replay with other weights.

Replay runs `recall_compute` (a pure read: no hit counts, no trace row) and writes one audit
entry, `recall.replay`, because it reads personal data.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from audit.services import actor_for_user
from console.access import staff_view, tenant_ids_for
from console.forms_review import ReplayForm, TraceFilterForm
from console.review_selectors import (
    TRACE_PAGE_SIZE,
    TraceFilters,
    agents_for_filter,
    replay_diff,
    trace_candidate_rows,
    trace_get_for_staff,
    trace_list,
    trace_selected_rows,
)
from memory.models import RecallTrace
from memory.recall import SIGNALS, RecallParams, recall_compute
from memory.services import memory_record_read


@require_GET
@staff_view()
def trace_list_view(request: HttpRequest) -> HttpResponse:
    tenant_ids = tenant_ids_for(request.user)
    form = TraceFilterForm(request.GET, agents=agents_for_filter(tenant_ids=tenant_ids))
    filters = TraceFilters()
    if form.is_valid():
        data = form.cleaned_data
        filters = TraceFilters(
            agent_id=data["agent"],
            subject=data["subject"].strip(),
            route=data["route"],
            date_from=data["date_from"],
            date_to=data["date_to"],
        )
    page = Paginator(trace_list(tenant_ids=tenant_ids, filters=filters), TRACE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {"nav": "traces", "form": form, "page": page, "query": query.urlencode()}
    template = "console/trace_list.html#rows" if request.htmx else "console/trace_list.html"
    return render(request, template, context)


STAGE_ORDER = ("route", "embed", "vector", "keyword", "entity", "score")


def _stage_rows(trace: RecallTrace) -> list[tuple[str, float, float]]:
    """(stage, ms, share of the slowest stage in %) in pipeline order, for the timing bars."""
    stored = trace.timings_ms or {}
    names = [n for n in STAGE_ORDER if n in stored] + sorted(set(stored) - set(STAGE_ORDER))
    timings = [(name, float(stored[name])) for name in names]
    slowest = max((ms for _, ms in timings), default=0.0) or 1.0
    return [(name, ms, round(100 * ms / slowest)) for name, ms in timings]


def _weights(trace: RecallTrace) -> list[tuple[str, float]]:
    stored = (trace.parameters or {}).get("weights") or {}
    return [(name, stored[name]) for name in SIGNALS if name in stored]


@require_GET
@staff_view()
def trace_detail(request: HttpRequest, pk: int) -> HttpResponse:
    trace = trace_get_for_staff(user=request.user, trace_id=pk)
    context = {
        "nav": "traces",
        "trace": trace,
        "signals": SIGNALS,
        "stages": _stage_rows(trace),
        "candidates": trace_candidate_rows(trace=trace),
        "returned": trace_selected_rows(trace=trace),
        "weights": _weights(trace),
        "replay_form": ReplayForm(initial=ReplayForm.initial_for(trace)),
    }
    return render(request, "console/trace_detail.html", context)


@require_POST
@staff_view()
def trace_replay(request: HttpRequest, pk: int) -> HttpResponse:
    """Run the trace's query again, now, with the weights / top_k / budget from the form."""
    trace = trace_get_for_staff(user=request.user, trace_id=pk)
    form = ReplayForm(request.POST)
    context = {"nav": "traces", "trace": trace, "signals": SIGNALS, "replay_form": form}
    if trace.subject.paused:  # restriction of processing: agents cannot recall it either
        context["replay_error"] = _("Memory is paused for this subject; replay is disabled.")
    elif form.is_valid():
        parameters = trace.parameters or {}
        result = recall_compute(
            subject=trace.subject,
            params=RecallParams(
                query=trace.query,
                entities=list(parameters.get("entities") or []),
                top_k=form.cleaned_data["top_k"],
                token_budget=form.cleaned_data["token_budget"],
                weights=form.weights(),
            ),
        )
        memory_record_read(
            actor=actor_for_user(request.user, request),
            subject=trace.subject,
            action="recall.replay",
        )
        context.update(result=result, diff=replay_diff(trace=trace, result=result))
    if request.htmx:
        return render(request, "console/trace_detail.html#replay-result", context)
    context.update(
        stages=_stage_rows(trace),
        candidates=trace_candidate_rows(trace=trace),
        returned=trace_selected_rows(trace=trace),
        weights=_weights(trace),
    )
    return render(request, "console/trace_detail.html", context)
