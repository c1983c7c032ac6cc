"""Recall queries are stored PII-redacted, and the trace, review-queue and dashboard pages show
personal data masked to every role, operators included: unmasking is the audited reveal on the
memory's own page."""

from django.urls import reverse

from memory.models import RecallTrace, Subject
from tests.console.test_review_queue import QUEUE, make_conflict
from tests.console.test_review_traces import TRACES, recall, remember
from tests.factories import make_memory

PHONE = "13812345678"
EMAIL = "wang.fang@example.com"


def legacy_trace(subject: Subject) -> RecallTrace:
    """A trace recorded before queries were redacted: raw query, raw text in the candidates."""
    return RecallTrace.objects.create(
        tenant=subject.tenant,
        subject=subject,
        query=f"call me on {PHONE}",
        route="factual",
        candidates=[
            {"id": 1, "content": f"mail {EMAIL}", "category": "fact", "signals": {}, "score": 0.5}
        ],
        parameters={"weights": {}},
    )


class TestStoredQueries:
    def test_it_stores_the_recall_query_redacted(self, cast):
        trace = recall(
            cast.alice_client, "u1", f"我的电话 {PHONE} 是多少？邮箱 {EMAIL}", entities=[PHONE]
        )
        assert PHONE not in trace.query and EMAIL not in trace.query
        assert "[PHONE]" in trace.query and "[EMAIL]" in trace.query
        assert PHONE not in str(trace.parameters)

    def test_the_persons_export_holds_the_redacted_query(self, cast):
        from privacy.services import subject_export_data

        recall(cast.alice_client, "u1", f"text me at {PHONE}")
        data = subject_export_data(subject=Subject.objects.get(external_id="u1"))
        assert [t["query"] for t in data["recall_traces"]] == ["text me at [PHONE]"]


class TestTracePages:
    def test_operators_see_trace_queries_masked(self, cast, operator, client):
        trace = recall(cast.alice_client, "u1", f"call me on {PHONE}")
        old = legacy_trace(trace.subject)
        client.force_login(operator)
        listing = client.get(TRACES).content.decode()
        assert PHONE not in listing and "▇▇▇" in listing
        for pk in (trace.pk, old.pk):
            page = client.get(reverse("console-trace", args=[pk])).content.decode()
            assert PHONE not in page and EMAIL not in page

    def test_candidates_link_to_the_memory_page_where_the_reveal_is(self, cast, operator, client):
        memory = remember(cast.alice_client, "u1", "The user likes quiet restaurants")
        trace = recall(cast.alice_client, "u1", "recommend a restaurant")
        client.force_login(operator)
        page = client.get(reverse("console-trace", args=[trace.pk])).content.decode()
        assert reverse("console-memory", args=[memory["id"]]) in page

    def test_a_replay_shows_masked_text_to_operators(self, cast, operator, client):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
        make_memory(subject, f"The user's phone number is {PHONE}", category="profile")
        trace = recall(cast.alice_client, "u1", "what is my phone number")
        client.force_login(operator)
        data = {f"w_{k}": 0.2 for k in ("semantic", "keyword", "entity", "recency", "importance")}
        response = client.post(
            reverse("console-trace-replay", args=[trace.pk]),
            {**data, "top_k": 5, "token_budget": 800},
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200
        assert PHONE not in response.content.decode()


class TestQueueAndDashboard:
    def test_operators_see_source_messages_masked_in_the_queue(self, cast, operator, client):
        _old, candidate, _observation = make_conflict(cast.tenant_a)
        client.force_login(operator)
        html = client.get(QUEUE).content.decode()
        assert PHONE not in html and "▇▇▇" in html
        assert reverse("console-memory", args=[candidate.pk]) in html
        assert 'value="accept"' in html  # masked, not read-only

    def test_operators_see_the_most_recalled_memories_masked(self, cast, operator, client):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
        make_memory(subject, f"The user's phone number is {PHONE}", hit_count=5)
        client.force_login(operator)
        html = client.get(reverse("console-home")).content.decode()
        assert "The user&#x27;s phone number is" in html and PHONE not in html

    def test_the_memory_page_still_reveals_with_an_audited_reason(self, cast, operator, client):
        from audit.models import AuditEntry

        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
        memory = make_memory(subject, f"The user's phone number is {PHONE}", hit_count=5)
        client.force_login(operator)
        url = reverse("console-reveal", args=["memory", memory.pk])
        response = client.post(url, {"reason": "the person asked for it"})
        assert PHONE in response.content.decode()
        assert AuditEntry.objects.filter(action="pii.reveal", target_id=str(memory.pk)).exists()
