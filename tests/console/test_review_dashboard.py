import datetime as dt

from django.urls import reverse
from django.utils import timezone

from audit.services import SYSTEM
from console import charts
from console.selectors import memory_stats, queue_stats, recall_latency_per_day
from memory.models import Event, Memory, RecallTrace, Subject
from memory.services import EventInput, events_append, events_mark_failed
from tests.factories import days_ago, make_memory

HOME = reverse("console-home")


def populate(tenant, prefix: str, n: int) -> Subject:
    subject = Subject.objects.create(tenant=tenant, external_id=f"{prefix}-subject")
    for i in range(n):
        make_memory(
            subject,
            f"{prefix} fact {i}",
            category=["fact", "preference", "plan"][i % 3],
            confidence=0.9 if i % 2 else 0.5,
            status="active" if i % 4 else "superseded",
            hit_count=i,
            created_at=days_ago(i % 10),
        )
        RecallTrace.objects.create(
            tenant=tenant, subject=subject, query=f"q{i}", route="factual", total_ms=10 + i
        )
    return subject


class TestDashboardSelectors:
    def test_stats_count_status_category_and_high_confidence(self, cast):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="s")
        make_memory(subject, "a", category="fact", confidence=0.9)
        make_memory(subject, "b", category="fact", confidence=0.5)
        make_memory(subject, "c", category="plan", confidence=0.8)
        make_memory(subject, "d", category="plan", status="superseded")
        out = memory_stats(tenant_ids=[cast.tenant_a.pk])
        assert out.total == 4 and out.active == 3
        assert out.by_status == {"active": 3, "superseded": 1}
        assert out.by_category == {"fact": 2, "plan": 1}
        assert out.active_high_confidence == 2
        assert round(out.high_confidence_share, 2) == 0.67

    def test_new_memories_per_day_is_zero_filled(self, cast):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="s")
        make_memory(subject, "today")
        make_memory(subject, "old", created_at=days_ago(3))
        make_memory(subject, "too old", created_at=days_ago(45))
        out = memory_stats(tenant_ids=[cast.tenant_a.pk])
        days = out.per_day
        assert len(days) == 30 and out.new_in_period == 2 and out.total == 3
        assert days[-1] == (timezone.localdate(), 1)

    def test_latency_percentiles_per_day(self, cast):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="s")
        for ms in range(1, 101):
            RecallTrace.objects.create(
                tenant=cast.tenant_a, subject=subject, query="q", route="mixed", total_ms=ms
            )
        (day,) = recall_latency_per_day(tenant_ids=[cast.tenant_a.pk])
        assert day.count == 100 and day.p50 == 50.5 and round(day.p95, 2) == 95.05

    def test_queue_stats_report_the_oldest_pending_item(self, cast):
        stats = queue_stats(tenant_ids=[cast.tenant_a.pk])
        assert stats["pending"] == 0 and stats["oldest_age"] is None


class TestCharts:
    def test_charts_escape_labels_and_handle_no_data(self):
        svg = charts.bar_chart([("<script>", 3), ("b", 1)], title="t")
        assert "<script>" not in svg and "&lt;script&gt;" in svg and svg.startswith("<svg")
        assert "No data" in charts.bar_chart([], title="t")
        assert "<polyline" in charts.line_chart(["d1", "d2"], [("p50", [1.0, 2.0])], title="t")
        assert "No data" in charts.line_chart([], [], title="t")
        assert svg.count("<rect") == 2
        assert charts.column_chart([("d", 0)], title="t").count("<rect") == 1


class TestDashboardPage:
    def test_it_shows_every_panel_for_a_viewer(self, cast, viewer, client):
        populate(cast.tenant_a, "acme", 8)
        populate(cast.tenant_b, "globex", 3)
        appended = events_append(
            tenant=cast.tenant_a,
            external_id="acme-subject",
            session_id="s",
            events=[EventInput(role="user", content="hi")],
            extract="none",
            actor=SYSTEM,
        )
        Event.objects.filter(pk__in=appended.new_event_ids).update(extraction_status="queued")
        events_mark_failed(event_ids=appended.new_event_ids, error="LLM timeout after 30 s")
        client.force_login(viewer)
        response = client.get(HOME)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.count('<svg class="chart"') == 4
        assert "LLM timeout after 30 s" in html
        assert "acme fact 7" in html  # most recalled
        assert "globex" not in html  # other tenant's data never shows
        assert response.context["breakdown"].total == 8
        assert response.context["failures"]["count"] == 1
        assert Event.objects.filter(extraction_status="failed").count() == 1

    def test_query_count_is_constant_as_data_grows(
        self, cast, operator, client, django_assert_max_num_queries
    ):
        client.force_login(operator)
        populate(cast.tenant_a, "one", 2)
        with django_assert_max_num_queries(20) as small:
            client.get(HOME)
        baseline = len(small.captured_queries)
        populate(cast.tenant_a, "two", 40)
        with django_assert_max_num_queries(baseline):
            response = client.get(HOME)
        assert response.context["breakdown"].total == 42

    def test_it_needs_a_role(self, no_role_user, client):
        client.force_login(no_role_user)
        assert client.get(HOME).status_code == 403

    def test_old_traces_are_left_out_of_latency(self, cast):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="s")
        trace = RecallTrace.objects.create(
            tenant=cast.tenant_a, subject=subject, query="q", route="mixed", total_ms=5
        )
        RecallTrace.objects.filter(pk=trace.pk).update(
            created_at=timezone.now() - dt.timedelta(days=60)
        )
        assert recall_latency_per_day(tenant_ids=[cast.tenant_a.pk]) == []
        assert Memory.objects.count() == 0
