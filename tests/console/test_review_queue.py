import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import SYSTEM
from memory.extraction.base import Candidate
from memory.models import Event, Memory, Observation
from memory.services import EventInput, events_append, memory_ingest

QUEUE = reverse("console-queue")
BULK = reverse("console-queue-bulk")
HX = {"HTTP_HX_REQUEST": "true"}


def said(tenant, external_id: str, text: str) -> Event:
    appended = events_append(
        tenant=tenant,
        external_id=external_id,
        session_id="s1",
        events=[EventInput(role="user", content=text)],
        extract="none",
        actor=SYSTEM,
    )
    return appended.events[0]


def make_conflict(tenant, external_id: str = "u1", new_hotel: str = "丽思卡尔顿"):
    """An active memory and a conflicting observed candidate, each with its source message."""
    first = said(tenant, external_id, "以后出差默认住亚朵，离地铁近。")
    old = memory_ingest(
        subject=first.subject,
        occurred_at=timezone.now() - timezone.timedelta(days=2),
        actor=SYSTEM,
        source_event=first,
        candidate=Candidate(
            content="用户出差默认住亚朵",
            category="preference",
            slot="hotel",
            values=["亚朵"],
            confidence=0.8,
            source_quote="出差默认住亚朵",
        ),
    ).memory
    second = said(tenant, external_id, f"这次出差也许改住{new_hotel}吧，电话 13812345678")
    result = memory_ingest(
        subject=first.subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        source_event=second,
        candidate=Candidate(
            content=f"用户出差也许改住{new_hotel}",
            category="preference",
            slot="hotel",
            values=[new_hotel],
            confidence=0.85,
            source_quote=f"也许改住{new_hotel}",
        ),
    )
    assert result.observation is not None and result.observation.kind == "conflict"
    return old, result.memory, result.observation


def make_low_confidence(tenant, external_id: str = "u2", text: str = "用户可能养了一只猫"):
    subject = said(tenant, external_id, "我好像养了一只猫吧").subject
    result = memory_ingest(
        subject=subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        candidate=Candidate(content=text, category="fact", confidence=0.3),
    )
    assert result.observation is not None and result.observation.kind == "low_confidence"
    return result.memory, result.observation


def resolve_url(observation) -> str:
    return reverse("console-queue-resolve", args=[observation.pk])


class TestQueuePage:
    def test_it_shows_both_sides_with_source_messages(self, cast, operator, client):
        _old, _candidate, observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        response = client.get(QUEUE)
        assert response.status_code == 200
        html = response.content.decode()
        assert f'id="obs-{observation.pk}"' in html
        assert "用户出差也许改住丽思卡尔顿" in html and "用户出差默认住亚朵" in html
        assert "<mark>出差默认住亚朵</mark>" in html
        assert "<mark>也许改住丽思卡尔顿</mark>" in html
        assert 'value="accept"' in html and 'value="merge"' in html

    def test_it_masks_content_and_hides_actions_for_viewers(self, cast, viewer, client):
        make_conflict(cast.tenant_a)
        client.force_login(viewer)
        html = client.get(QUEUE).content.decode()
        assert "13812345678" not in html
        assert "▇▇▇" in html
        assert 'value="accept"' not in html
        assert "read-only" in html

    def test_it_lists_oldest_first_and_filters_by_kind_and_tenant(self, cast, operator, client):
        _, _, conflict = make_conflict(cast.tenant_a)
        _, low = make_low_confidence(cast.tenant_a)
        make_conflict(cast.tenant_b, "other")
        client.force_login(operator)
        html = client.get(QUEUE).content.decode()
        assert html.index(f'id="obs-{conflict.pk}"') < html.index(f'id="obs-{low.pk}"')
        assert "other" not in html  # tenant B is invisible
        html = client.get(QUEUE, {"kind": "low_confidence"}).content.decode()
        assert f'id="obs-{low.pk}"' in html and f'id="obs-{conflict.pk}"' not in html
        html = client.get(QUEUE, {"tenant": cast.tenant_b.pk}).content.decode()
        assert 'class="queue-item"' not in html

    def test_it_keeps_a_constant_number_of_queries(
        self, cast, operator, client, django_assert_max_num_queries
    ):
        client.force_login(operator)
        make_conflict(cast.tenant_a, "c0")
        client.get(QUEUE)
        with django_assert_max_num_queries(12) as small:
            client.get(QUEUE)
        baseline = len(small.captured_queries)
        for i in range(1, 8):
            make_conflict(cast.tenant_a, f"c{i}")
            make_low_confidence(cast.tenant_a, f"l{i}")
        with django_assert_max_num_queries(baseline + 1):
            response = client.get(QUEUE)
        assert response.content.decode().count('class="queue-item"') == 15

    def test_it_needs_a_role(self, no_role_user, client):
        client.force_login(no_role_user)
        assert client.get(QUEUE).status_code == 403

    def test_it_redirects_anonymous_users_to_login(self, client, db):
        assert client.get(QUEUE).status_code == 302


class TestResolve:
    def test_accepting_a_conflict_supersedes_and_shows_the_version_chain(
        self, cast, operator, client
    ):
        old, candidate, observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        response = client.post(
            resolve_url(observation), {"decision": "accept", "note": "confirmed"}, **HX
        )
        assert response.status_code == 200
        html = response.content.decode()
        assert "queue-resolved" in html and 'class="queue-item"' not in html
        assert "v1 superseded" in html and "v2 active" in html
        old.refresh_from_db()
        candidate.refresh_from_db()
        assert old.status == "superseded" and candidate.version == 2
        observation.refresh_from_db()
        assert observation.status == "accepted" and observation.resolved_by == operator
        assert AuditEntry.objects.filter(
            action="observation.accepted", actor_id=str(operator.pk)
        ).exists()

    def test_the_next_pending_item_is_appended_out_of_band(self, cast, operator, client):
        _, _, first = make_conflict(cast.tenant_a, "u1")
        _, second = make_low_confidence(cast.tenant_a, "u2")
        client.force_login(operator)
        # The window showed only `first`: the response appends `second` after it.
        response = client.post(resolve_url(first), {"decision": "reject", "after": first.pk}, **HX)
        html = response.content.decode()
        assert 'hx-swap-oob="beforeend:#queue-items"' in html
        assert f'id="obs-{second.pk}"' in html
        assert 'id="queue-total"' in html and "1 pending" in html

    def test_resolving_the_last_item_appends_nothing(self, cast, operator, client):
        _, _, only = make_conflict(cast.tenant_a)
        client.force_login(operator)
        html = client.post(
            resolve_url(only), {"decision": "reject", "after": only.pk}, **HX
        ).content.decode()
        assert "beforeend" not in html and "0 pending" in html

    def test_reject_merge_and_edit(self, cast, operator, client):
        _, c1, o1 = make_conflict(cast.tenant_a, "u1")
        _, c2, o2 = make_conflict(cast.tenant_a, "u2", "全季")
        _, c3, o3 = make_conflict(cast.tenant_a, "u3", "汉庭")
        client.force_login(operator)
        client.post(resolve_url(o1), {"decision": "reject"}, **HX)
        client.post(resolve_url(o2), {"decision": "merge"}, **HX)
        client.post(resolve_url(o3), {"decision": "edit", "content": "用户出差改住汉庭酒店"}, **HX)
        c1.refresh_from_db()
        c3.refresh_from_db()
        assert c1.status == "archived"
        assert not Memory.objects.filter(pk=c2.pk).exists()
        assert c3.content == "用户出差改住汉庭酒店" and c3.status == "active"
        assert [o.status for o in Observation.objects.order_by("pk")] == [
            "rejected",
            "merged",
            "accepted",
        ]

    def test_edit_without_content_is_refused_in_the_fragment(self, cast, operator, client):
        _, _, observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        response = client.post(resolve_url(observation), {"decision": "edit"}, **HX)
        assert response.status_code == 200
        assert "corrected content" in response.content.decode()
        observation.refresh_from_db()
        assert observation.status == "pending"

    def test_without_htmx_it_redirects_back_to_the_filtered_queue(self, cast, operator, client):
        _, _, observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        response = client.post(resolve_url(observation), {"decision": "accept", "kind": "conflict"})
        assert response.status_code == 302
        assert response["Location"] == f"{QUEUE}?kind=conflict"

    def test_a_resolved_item_cannot_be_resolved_again(self, cast, operator, client):
        _, _, observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        client.post(resolve_url(observation), {"decision": "reject"}, **HX)
        html = client.post(resolve_url(observation), {"decision": "accept"}, **HX).content
        assert b"already resolved" in html
        observation.refresh_from_db()
        assert observation.status == "rejected"

    def test_viewers_may_not_resolve(self, cast, viewer, client):
        _, _, observation = make_conflict(cast.tenant_a)
        client.force_login(viewer)
        assert client.post(resolve_url(observation), {"decision": "accept"}).status_code == 403
        observation.refresh_from_db()
        assert observation.status == "pending"

    def test_outsiders_get_404_even_with_the_role(self, cast, limited_staff, viewer, client):
        _, _, observation = make_conflict(cast.tenant_a)
        client.force_login(limited_staff)
        assert client.post(resolve_url(observation), {"decision": "accept"}).status_code == 404
        _, _, theirs = make_conflict(cast.tenant_b, "b1")
        client.force_login(viewer)  # 404 before 403: a viewer of tenant A probing tenant B
        assert client.post(resolve_url(theirs), {"decision": "accept"}).status_code == 404

    def test_get_is_not_allowed(self, cast, operator, client):
        _, _, observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        assert client.get(resolve_url(observation)).status_code == 405


class TestBulk:
    def test_it_accepts_selected_low_confidence_items_only(self, cast, operator, client):
        m1, o1 = make_low_confidence(cast.tenant_a, "l1", "用户可能养了一只猫")
        _m2, o2 = make_low_confidence(cast.tenant_a, "l2", "用户可能喜欢爬山")
        _, _, conflict = make_conflict(cast.tenant_a)
        _, theirs = make_low_confidence(cast.tenant_b, "b1")
        client.force_login(operator)
        response = client.post(
            BULK, {"decision": "accept", "ids": [o1.pk, o2.pk, conflict.pk, theirs.pk]}, **HX
        )
        assert response.status_code == 200
        assert "2 item(s) resolved" in response.content.decode()
        statuses = dict(Observation.objects.values_list("pk", "status"))
        assert statuses[o1.pk] == statuses[o2.pk] == "accepted"
        assert statuses[conflict.pk] == statuses[theirs.pk] == "pending"
        assert Memory.objects.get(pk=m1.pk).status == "active"

    def test_bulk_reject_without_htmx_redirects(self, cast, operator, client):
        m1, o1 = make_low_confidence(cast.tenant_a)
        client.force_login(operator)
        response = client.post(BULK, {"decision": "reject", "ids": [o1.pk]})
        assert response.status_code == 302
        assert Memory.objects.get(pk=m1.pk).status == "archived"

    @pytest.mark.parametrize("role", ["viewer"])
    def test_viewers_may_not_bulk_resolve(self, cast, request, client, role):
        _, o1 = make_low_confidence(cast.tenant_a)
        client.force_login(request.getfixturevalue(role))
        assert client.post(BULK, {"decision": "accept", "ids": [o1.pk]}).status_code == 403
