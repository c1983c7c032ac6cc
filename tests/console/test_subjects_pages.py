"""The subjects list, the subject page and the memory detail: content, htmx fragments, read
audit entries and fixed query counts."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from memory.models import Memory, Subject
from memory.services import memory_correct
from tests.console.subject_world import append_events, build_world, make_trace
from tests.factories import make_memory

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def hx(target: str) -> dict[str, str]:
    return {**HX, "HTTP_HX_TARGET": target}


@pytest.fixture
def world(cast):
    return build_world(cast)


@pytest.fixture
def staff(client, logged_in, operator):
    return logged_in(client, operator)


def _query_count(client, url: str, **extra) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **extra)
    assert response.status_code == 200
    return len(queries)


class TestSubjectList:
    def test_it_shows_counts_by_status(self, staff, world):
        make_memory(world.subject_a, "old plan", status=Memory.Status.SUPERSEDED)
        make_memory(world.subject_a, "maybe", status=Memory.Status.OBSERVED)
        response = staff.get(reverse("console-subjects"))
        row = next(s for s in response.context["page"] if s.pk == world.subject_a.pk)
        assert (row.n_memories, row.n_active, row.n_observed, row.n_superseded) == (3, 1, 1, 1)
        body = response.content.decode()
        assert "wang.fang" in body
        assert "王芳" in body
        assert "acme" in body

    @pytest.mark.parametrize("q", ["wang", "王芳", "FANG"])
    def test_it_searches_external_id_and_name(self, staff, cast, world, q):
        Subject.objects.create(tenant=cast.tenant_a, external_id="zhang.wei")
        body = staff.get(reverse("console-subjects"), {"q": q}).content.decode()
        assert "wang.fang" in body
        assert "zhang.wei" not in body

    def test_it_filters_by_tenant(self, client, logged_in, superuser, cast, world):
        logged_in(client, superuser)
        body = client.get(reverse("console-subjects"), {"tenant": cast.tenant_b.pk}).content
        assert b"outsider" in body
        assert b"wang.fang" not in body

    def test_it_paginates_by_50(self, staff, cast, world):
        Subject.objects.bulk_create(
            Subject(tenant=cast.tenant_a, external_id=f"user-{i:03}") for i in range(54)
        )
        first = staff.get(reverse("console-subjects"))
        assert len(first.context["page"]) == 50
        second = staff.get(reverse("console-subjects"), {"page": 2})
        assert len(second.context["page"]) == 6  # 54 + wang.fang + granted-1
        assert "Page 2 of 2" in second.content.decode()

    def test_it_answers_htmx_with_the_rows_fragment(self, staff, world):
        response = staff.get(reverse("console-subjects"), {"q": "wang"}, **hx("subject-rows"))
        body = response.content.decode()
        assert body.lstrip().startswith('<div id="subject-rows">')
        assert "<html" not in body
        assert "wang.fang" in body

    def test_it_uses_a_constant_number_of_queries(
        self, staff, cast, world, django_assert_max_num_queries
    ):
        url = reverse("console-subjects")
        few = _query_count(staff, url)
        for i in range(20):
            subject = Subject.objects.create(tenant=cast.tenant_a, external_id=f"s-{i}")
            make_memory(subject, f"fact {i}")
            make_memory(subject, f"old {i}", status=Memory.Status.SUPERSEDED)
        # session, user, roles, tenant access (2), tenants, count, page
        with django_assert_max_num_queries(8):
            assert _query_count(staff, url) == few


class TestSubjectPage:
    def test_it_shows_memories_and_the_session_timeline(self, staff, cast, world):
        append_events(
            cast.tenant_a,
            "wang.fang",
            "chat-2",
            ["Newer session message"],
            start=timezone.now(),
        )
        response = staff.get(reverse("console-subject", args=[world.subject_a.pk]))
        body = response.content.decode()
        assert f'id="memory-row-{world.memory_a.pk}"' in body
        sessions = response.context["sessions"]
        assert [s.session_id for s in sessions] == ["chat-2", "chat-1"]  # newest first
        assert [e.content for e in sessions[1].events][1] == "好的，记住了。"
        assert "Newer session message" in body

    def test_it_limits_events_per_session_and_says_so(self, staff, cast, world):
        append_events(
            cast.tenant_a,
            "wang.fang",
            "long",
            [f"turn {i}" for i in range(25)],
            start=timezone.now(),
        )
        response = staff.get(reverse("console-subject", args=[world.subject_a.pk]))
        long_session = response.context["sessions"][0]
        assert len(long_session.events) == 20
        assert long_session.events[-1].content == "turn 24"
        assert long_session.hidden_count == 5
        assert "5 earlier events not shown." in response.content.decode()

    def test_it_paginates_sessions(self, staff, cast, world):
        base = timezone.now()
        for i in range(6):
            append_events(
                cast.tenant_a, "wang.fang", f"s{i}", ["hi"], start=base + dt.timedelta(minutes=i)
            )
        url = reverse("console-subject", args=[world.subject_a.pk])
        response = staff.get(url, {"spage": 2}, **hx("session-timeline"))
        body = response.content.decode()
        assert body.lstrip().startswith('<div id="session-timeline">')
        assert [s.session_id for s in response.context["sessions"]] == ["s0", "chat-1"]

    @pytest.mark.parametrize(
        ("params", "expected"),
        [
            ({"status": "observed"}, ["observed one"]),
            ({"category": "plan"}, ["trip to Chengdu"]),
            ({"kind": "episodic"}, ["trip to Chengdu"]),
            ({"min_confidence": "0.95"}, ["very sure"]),
            ({"max_confidence": "0.3"}, ["observed one"]),
            ({"q": "Chengdu"}, ["trip to Chengdu"]),
            ({"q": "成都"}, ["下个月去成都出差"]),
        ],
    )
    def test_it_filters_memories(self, staff, world, params, expected):
        make_memory(world.subject_a, "observed one", status="observed", confidence=0.2)
        make_memory(world.subject_a, "trip to Chengdu", category="plan", kind="episodic")
        make_memory(world.subject_a, "very sure", confidence=0.99)
        make_memory(world.subject_a, "下个月去成都出差", confidence=0.5)
        response = staff.get(
            reverse("console-subject", args=[world.subject_a.pk]), params, **hx("memory-rows")
        )
        assert [m.content for m in response.context["memory_page"]] == expected

    def test_it_orders_a_semantic_search_by_similarity(self, staff, world):
        make_memory(world.subject_a, "The user's favourite colour is dark green")
        make_memory(world.subject_a, "Weekly meeting on Monday at ten")
        response = staff.get(
            reverse("console-subject", args=[world.subject_a.pk]),
            {"q": "favourite colour dark green", "mode": "semantic"},
            **hx("memory-rows"),
        )
        rows = list(response.context["memory_page"])
        assert rows[0].content == "The user's favourite colour is dark green"
        assert rows[0].distance <= rows[1].distance
        assert "Similarity" in response.content.decode()

    def test_it_shows_invalid_filters_inline(self, staff, world):
        response = staff.get(
            reverse("console-subject", args=[world.subject_a.pk]), {"min_confidence": "lots"}
        )
        assert response.status_code == 200
        assert "Enter a number." in response.content.decode()
        assert len(response.context["memory_page"]) == 1  # the bad filter is ignored

    def test_it_answers_htmx_with_the_memory_rows_fragment(self, staff, world):
        response = staff.get(
            reverse("console-subject", args=[world.subject_a.pk]),
            {"status": "active"},
            **hx("memory-rows"),
        )
        body = response.content.decode()
        assert body.lstrip().startswith('<div id="memory-rows"')
        assert "<html" not in body
        assert "session-timeline" not in body
        assert f'id="memory-row-{world.memory_a.pk}"' in body

    def test_it_paginates_memories_by_50(self, staff, world):
        for i in range(50):
            make_memory(world.subject_a, f"fact number {i}")
        url = reverse("console-subject", args=[world.subject_a.pk])
        assert len(staff.get(url).context["memory_page"]) == 50
        assert len(staff.get(url, {"page": 2}).context["memory_page"]) == 1

    @pytest.mark.parametrize(
        ("extra", "action"),
        [
            ({}, "console.subject.view"),
            (hx("memory-rows"), "console.subject.memories"),
            (hx("session-timeline"), "console.subject.events"),
        ],
    )
    def test_it_records_a_read_audit_entry(self, staff, operator, world, extra, action):
        staff.get(reverse("console-subject", args=[world.subject_a.pk]), **extra)
        entry = AuditEntry.objects.order_by("-id").first()
        assert (entry.action, entry.actor_type, entry.actor_id) == (
            action,
            "user",
            str(operator.pk),
        )
        assert (entry.subject_id, entry.tenant_id) == (
            world.subject_a.pk,
            world.subject_a.tenant_id,
        )

    def test_it_uses_a_constant_number_of_queries(
        self, staff, cast, world, django_assert_max_num_queries
    ):
        url = reverse("console-subject", args=[world.subject_a.pk])
        few = _query_count(staff, url)
        few_rows = _query_count(staff, url, **hx("memory-rows"))
        for i in range(30):
            make_memory(world.subject_a, f"memory {i}", status="observed" if i % 3 else "active")
        for i in range(8):
            append_events(cast.tenant_a, "wang.fang", f"session-{i}", ["a", "b", "c"])
        # 5 auth/access + subject + memories (count, page) + sessions (count, page, events)
        # + the read audit entry (savepoints, advisory lock, last hash, insert: 7)
        with django_assert_max_num_queries(18):
            assert _query_count(staff, url) == few
        with django_assert_max_num_queries(15):
            assert _query_count(staff, url, **hx("memory-rows")) == few_rows
        assert _query_count(staff, url + "?q=memory&mode=semantic") == few


class TestMemoryDetail:
    def test_it_shows_fields_chain_source_hits_and_audit(self, staff, operator, world):
        from audit.services import actor_for_user

        new = memory_correct(
            memory=world.memory_a,
            actor=actor_for_user(operator),
            content="用户不吃辣和香菜",
            reason="added coriander",
        )
        make_trace(new)
        response = staff.get(reverse("console-memory", args=[new.pk]))
        body = response.content.decode()
        detail = response.context["detail"]
        assert [m.pk for m in detail.history] == [world.memory_a.pk, new.pk]
        assert "added coriander" in body
        assert "<mark>我不吃辣</mark>" in body  # the source quote, highlighted in the event
        assert len(detail.recall_hits) == 1
        assert reverse("console-trace", args=[detail.recall_hits[0].pk]) in body
        assert "memory.correct" in body
        assert operator.username in body  # audit actor resolved to a name
        for label in ("Importance", "Confidence", "Lineage", "Valid", "Hits"):
            assert label in body

    def test_it_lists_merged_evidence(self, staff, world):
        Memory.objects.filter(pk=world.memory_a.pk).update(
            evidence=[{"event_id": world.event_a.pk, "quote": "不要辣的", "at": "2026-01-02"}]
        )
        body = staff.get(reverse("console-memory", args=[world.memory_a.pk])).content.decode()
        assert "Merged evidence" in body
        assert "不要辣的" in body

    def test_it_answers_htmx_with_the_panel_fragment(self, staff, world):
        response = staff.get(
            reverse("console-memory", args=[world.memory_a.pk]), **hx("memory-panel")
        )
        body = response.content.decode()
        assert body.lstrip().startswith('<section class="memory-detail" id="memory-detail"')
        assert "<html" not in body

    def test_it_is_a_full_page_without_htmx(self, staff, world):
        body = staff.get(reverse("console-memory", args=[world.memory_a.pk])).content.decode()
        assert "<html" in body
        assert 'id="memory-detail"' in body

    def test_it_records_a_read_audit_entry(self, staff, world):
        staff.get(reverse("console-memory", args=[world.memory_a.pk]), **hx("memory-panel"))
        entry = AuditEntry.objects.order_by("-id").first()
        assert entry.action == "console.memory.view"
        assert (entry.target_type, entry.target_id) == ("memory.memory", str(world.memory_a.pk))
        assert entry.subject_id == world.subject_a.pk

    def test_it_uses_a_constant_number_of_queries(
        self, staff, operator, world, django_assert_max_num_queries
    ):
        from audit.services import actor_for_user

        url = reverse("console-memory", args=[world.memory_a.pk])
        few = _query_count(staff, url)
        memory = world.memory_a
        for i in range(5):
            memory = memory_correct(
                memory=memory, actor=actor_for_user(operator), content=f"v{i}", reason=f"r{i}"
            )
            make_trace(memory)
        url = reverse("console-memory", args=[memory.pk])
        # + history, recall hits, audit entries, actor names (users; agents when present)
        with django_assert_max_num_queries(18):
            assert _query_count(staff, url) == few
