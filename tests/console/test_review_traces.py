import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from console.templatetags.console_tags import masked
from memory.models import Memory, RecallTrace, Subject

TRACES = reverse("console-traces")
HX = {"HTTP_HX_REQUEST": "true"}
WEIGHTS = {"semantic": 0.45, "keyword": 0.15, "entity": 0.15, "recency": 0.05, "importance": 0.2}


def remember(client, subject, content, **extra):
    body = {"content": content, "category": "preference", "confidence": 0.9, **extra}
    response = client.post(f"/api/v1/subjects/{subject}/memories", body, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()["memory"]


def recall(client, subject, query, **extra) -> RecallTrace:
    """A recall through the API; the trace is recorded by the (eager) task."""
    if not Subject.objects.filter(external_id=subject).exists():  # no subject, no trace
        remember(client, subject, "The user likes green tea")
    response = client.post(
        f"/api/v1/subjects/{subject}/recall", {"query": query, **extra}, format="json"
    )
    assert response.status_code == 200, response.json()
    return RecallTrace.objects.get(trace_id=response.json()["trace_id"])


@pytest.fixture
def trace(cast) -> RecallTrace:
    c = cast.alice_client
    remember(c, "u1", "用户不吃辣，推荐餐厅时要避开辣味", importance=0.9, entities=["餐厅"])
    remember(c, "u1", "用户喜欢安静的餐厅，电话 13812345678", importance=0.6)
    remember(c, "u1", "The user prefers window seats on flights", importance=0.2)
    remember(c, "u1", "用户周末常去爬山", category="fact", importance=0.3)
    remember(
        c, "u1", "公司楼下新开了一家日料店", category="fact", importance=0.2, entities=["餐厅"]
    )
    return recall(c, "u1", "帮我推荐一家餐厅", top_k=2)


def replay_data(**overrides):
    data = {f"w_{k}": v for k, v in WEIGHTS.items()}
    data.update(top_k=2, token_budget=800)
    data.update(overrides)
    return data


class TestTraceList:
    def test_it_lists_traces_of_visible_tenants(self, cast, trace, viewer, client):
        charlie_trace = recall(cast.charlie_client, "c1", "anything about me?")
        client.force_login(viewer)
        response = client.get(TRACES)
        assert response.status_code == 200
        html = response.content.decode()
        assert reverse("console-trace", args=[trace.pk]) in html
        assert reverse("console-trace", args=[charlie_trace.pk]) not in html
        assert "alice" in html and trace.route in html

    def test_it_filters_by_agent_subject_route_and_date(self, cast, trace, operator, client):
        c = cast.alice_client
        other = recall(c, "u2", "continue where we left off")
        client.force_login(operator)
        link = reverse("console-trace", args=[trace.pk])
        other_link = reverse("console-trace", args=[other.pk])

        def rows(**params):
            return client.get(TRACES, params).content.decode()

        assert link in rows(subject="u1") and other_link not in rows(subject="u1")
        assert other_link in rows(route="continuation") and link not in rows(route="continuation")
        assert link in rows(agent=cast.alice.pk)
        today = timezone.localdate()
        assert link in rows(date_from=today.isoformat(), date_to=today.isoformat())
        tomorrow = (today + dt.timedelta(days=1)).isoformat()
        assert link not in rows(date_from=tomorrow)

    def test_htmx_filtering_returns_only_the_rows_fragment(self, trace, operator, client):
        client.force_login(operator)
        response = client.get(TRACES, {"subject": "u1"}, **HX)
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="trace-rows">')
        assert "<html" not in html

    def test_it_paginates(self, cast, operator, client):
        for i in range(55):
            recall(cast.alice_client, "u1", f"question {i}?")
        client.force_login(operator)
        html = client.get(TRACES).content.decode()
        assert "page 1 of 2" in html
        assert "page 2 of 2" in client.get(TRACES, {"page": 2}).content.decode()

    def test_it_masks_queries_for_viewers(self, cast, viewer, client):
        recall(cast.alice_client, "u1", "我的电话 13812345678 是多少？")
        client.force_login(viewer)
        assert "13812345678" not in client.get(TRACES).content.decode()

    def test_list_query_count_is_constant(
        self, cast, operator, client, django_assert_max_num_queries
    ):
        recall(cast.alice_client, "u1", "question?")
        client.force_login(operator)
        with django_assert_max_num_queries(12) as small:
            client.get(TRACES)
        baseline = len(small.captured_queries)
        for i in range(10):
            recall(cast.alice_client, f"s{i}", f"question {i}?")
        with django_assert_max_num_queries(baseline):
            client.get(TRACES)


class TestTraceDetail:
    def test_it_explains_every_candidate(self, trace, operator, client):
        client.force_login(operator)
        response = client.get(reverse("console-trace", args=[trace.pk]))
        assert response.status_code == 200
        html = response.content.decode()
        assert len(trace.candidates) >= 3
        texts = dict(Memory.objects.values_list("pk", "content"))
        for candidate in trace.candidates:  # masked for every role (no reveal on this page)
            assert masked(texts[candidate["id"]])[:20] in html
        assert "cut: top_k" in html or "cut: min_score" in html or "cut: budget" in html
        assert "selected" in html
        assert "semantic" in html and "importance" in html
        assert "Returned memories" in html and "deleted" not in html
        for stage in trace.timings_ms:
            assert f"<th>{stage}</th>" in html

    def test_it_joins_current_text_and_shows_deleted_memories_as_deleted(
        self, cast, trace, operator, client
    ):
        gone, kept = trace.selected_ids[0], trace.selected_ids[1]
        gone_text = Memory.objects.get(pk=gone).content
        response = cast.alice_client.delete(f"/api/v1/subjects/u1/memories/{gone}")
        assert response.status_code == 204
        client.force_login(operator)
        html = client.get(reverse("console-trace", args=[trace.pk])).content.decode()
        assert masked(Memory.objects.get(pk=kept).content)[:20] in html
        assert masked(gone_text)[:20] not in html
        assert html.count('class="badge deleted"') == 2  # in the returned list and the table
        assert reverse("console-memory", args=[gone]) not in html  # no link to a 404
        assert reverse("console-memory", args=[kept]) in html

    def test_it_masks_personal_data_for_viewers(self, trace, viewer, client):
        client.force_login(viewer)
        html = client.get(reverse("console-trace", args=[trace.pk])).content.decode()
        assert "13812345678" not in html

    def test_outsiders_get_404(self, trace, limited_staff, client):
        client.force_login(limited_staff)
        assert client.get(reverse("console-trace", args=[trace.pk])).status_code == 404
        url = reverse("console-trace-replay", args=[trace.pk])
        assert client.post(url, replay_data()).status_code == 404

    def test_unknown_trace_is_404(self, operator, client):
        client.force_login(operator)
        assert client.get(reverse("console-trace", args=[999999])).status_code == 404


class TestReplay:
    def test_replay_with_other_weights_shows_the_diff_without_side_effects(
        self, cast, trace, operator, client
    ):
        client.force_login(operator)
        hits = dict(Memory.objects.values_list("pk", "hit_count"))
        traces = RecallTrace.objects.count()
        url = reverse("console-trace-replay", args=[trace.pk])
        # Bigger top_k: the low-importance memory about restaurants comes in; memories with no
        # bearing on the query (window seats, hiking) stay out however the weights are set.
        data = replay_data(
            w_semantic=0, w_keyword=0, w_entity=0, w_recency=0, w_importance=1, top_k=4
        )
        response = client.post(url, data, **HX)
        assert response.status_code == 200
        html = response.content.decode()
        assert html.lstrip().startswith('<div id="replay-result">')
        assert "newly included" in html and 'data-change="added"' in html
        context = html.split("<pre")[-1]
        assert "日料店" in context and "window seats" not in context and "爬山" not in context
        assert dict(Memory.objects.values_list("pk", "hit_count")) == hits
        assert RecallTrace.objects.count() == traces
        entry = AuditEntry.objects.get(action="recall.replay")
        assert entry.actor_id == str(operator.pk) and entry.subject_id == trace.subject_id

    def test_replaying_with_the_same_parameters_changes_nothing(self, trace, operator, client):
        client.force_login(operator)
        weights = trace.parameters["weights"]
        data = replay_data(**{f"w_{k}": v for k, v in weights.items()})
        html = client.post(
            reverse("console-trace-replay", args=[trace.pk]), data, **HX
        ).content.decode()
        assert "Same result as the original recall." in html

    def test_a_dropped_memory_shows_as_dropped(self, trace, operator, client):
        client.force_login(operator)
        data = replay_data(top_k=1)
        html = client.post(
            reverse("console-trace-replay", args=[trace.pk]), data, **HX
        ).content.decode()
        assert 'data-change="dropped"' in html

    def test_a_dropped_memory_deleted_since_shows_as_deleted(self, cast, trace, operator, client):
        gone = trace.selected_ids[0]
        gone_text = Memory.objects.get(pk=gone).content
        assert cast.alice_client.delete(f"/api/v1/subjects/u1/memories/{gone}").status_code == 204
        client.force_login(operator)
        html = client.post(
            reverse("console-trace-replay", args=[trace.pk]), replay_data(), **HX
        ).content.decode()
        row = html.split(f'data-memory="{gone}"')[1].split("</tr>")[0]
        assert 'data-change="dropped"' in row and 'class="badge deleted"' in row
        assert masked(gone_text)[:20] not in html

    def test_invalid_weights_are_reported(self, trace, operator, client):
        client.force_login(operator)
        html = client.post(
            reverse("console-trace-replay", args=[trace.pk]),
            replay_data(w_semantic="lots"),
            **HX,
        ).content.decode()
        assert "error" in html
        assert not AuditEntry.objects.filter(action="recall.replay").exists()

    def test_without_htmx_the_full_page_shows_the_result(self, trace, viewer, client):
        client.force_login(viewer)
        response = client.post(reverse("console-trace-replay", args=[trace.pk]), replay_data())
        assert response.status_code == 200
        html = response.content.decode()
        assert "<html" in html and "replay-result" in html and "13812345678" not in html

    def test_a_paused_subject_is_not_replayed(self, trace, operator, client):
        Subject.objects.filter(pk=trace.subject_id).update(paused=True)
        client.force_login(operator)
        url = reverse("console-trace-replay", args=[trace.pk])
        html = client.post(url, replay_data(), **HX).content.decode()
        assert "replay is disabled" in html and "diff-summary" not in html
        assert not AuditEntry.objects.filter(action="recall.replay").exists()

    def test_get_is_not_allowed(self, trace, operator, client):
        client.force_login(operator)
        assert client.get(reverse("console-trace-replay", args=[trace.pk])).status_code == 405
