"""The console dashboard: what is remembered, how good it is, what waits for review, how recall
performs. Every figure comes from one aggregate selector in `console.selectors`."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from console import charts
from console.access import staff_view, tenant_ids_for
from console.selectors import (
    HIGH_CONFIDENCE,
    agent_activity,
    extraction_failures,
    memory_stats,
    queue_stats,
    recall_latency_per_day,
    subject_count,
    top_recalled,
)
from console.templatetags.choice_labels import code_label
from memory.models import Memory


@staff_view()
def dashboard(request: HttpRequest) -> HttpResponse:
    tenant_ids = tenant_ids_for(request.user)
    breakdown = memory_stats(tenant_ids=tenant_ids)
    latency = recall_latency_per_day(tenant_ids=tenant_ids)
    status_order = [s for s in Memory.Status.values if breakdown.by_status.get(s)]
    context = {
        "nav": "home",
        "subjects": subject_count(tenant_ids=tenant_ids),
        "breakdown": breakdown,
        "high_confidence": HIGH_CONFIDENCE,
        "queue": queue_stats(tenant_ids=tenant_ids),
        "top_recalled": top_recalled(tenant_ids=tenant_ids),
        "failures": extraction_failures(tenant_ids=tenant_ids),
        "agents": agent_activity(tenant_ids=tenant_ids),
        "latency": latency,
        "new_last_30": breakdown.new_in_period,
        "status_chart": charts.bar_chart(
            [(code_label(s, "memory.status"), breakdown.by_status[s]) for s in status_order],
            title=_("Memories by status"),
        ),
        "category_chart": charts.bar_chart(
            [
                (code_label(category, "memory.category"), n)
                for category, n in sorted(breakdown.by_category.items(), key=lambda kv: -kv[1])
            ],
            title=_("Active memories by category"),
        ),
        "per_day_chart": charts.column_chart(
            [(day.strftime("%m-%d"), n) for day, n in breakdown.per_day],
            title=_("New memories per day (30 days)"),
        ),
        "latency_chart": charts.line_chart(
            [d.day.strftime("%m-%d") for d in latency],
            [("p50", [d.p50 for d in latency]), ("p95", [d.p95 for d in latency])],
            title=_("Recall latency per day (ms)"),
            unit=" ms",
        ),
    }
    return render(request, "console/home.html", context)
