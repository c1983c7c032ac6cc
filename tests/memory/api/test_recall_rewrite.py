"""Optional LLM query rewriting, against the local fake OpenAI-compatible server."""

import pytest
from django.core.cache import cache
from django.test import override_settings

from memory import aliases
from memory.models import RecallTrace, Subject
from tests.factories import make_memory

pytest_plugins = ["tests.fake_openai"]


@pytest.fixture
def rewriting(settings, fake_openai):
    settings.ENGRAM_RECALL_QUERY_REWRITE = True
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    cache.clear()
    return fake_openai


def recall(cast, query):
    response = cast.alice_client.post("/api/v1/subjects/u1/recall", {"query": query}, format="json")
    assert response.status_code == 200
    return response.json()


def test_the_rewrite_widens_the_search_and_is_traced(cast, rewriting):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    target = make_memory(
        subject,
        "The user's accountant is Mark Rivera",
        category="profile",
        entities=[aliases.normalize_entity("accountant")],
    )
    query = "Who should look at my paperwork this year?"
    with override_settings(ENGRAM_RECALL_QUERY_REWRITE=False):
        plain = recall(cast, query)
    plain_entity = next(m for m in plain["memories"] if m["id"] == target.pk)["signals"]["entity"]
    rewriting.queue_chat_json({"query": "the user's accountant", "entities": ["accountant"]})
    body = recall(cast, query)
    found = next(m for m in body["memories"] if m["id"] == target.pk)
    assert plain_entity == 0 and found["signals"]["entity"] > 0
    trace = RecallTrace.objects.get(trace_id=body["trace_id"])
    assert trace.parameters["rewritten_query"] == "the user's accountant"
    assert "rewrite" in trace.timings_ms
    # the same query again comes from the cache: no second model call
    recall(cast, query)
    assert len(rewriting.requests_to("chat")) == 1


def test_recall_still_answers_when_the_model_fails(cast, rewriting):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    make_memory(subject, "The user prefers aisle seats", category="preference")
    rewriting.queue_error(500)
    rewriting.queue_error(500)
    body = recall(cast, "Pick my seat for the flight")
    assert body["memories"] and body["memories"][0]["content"] == "The user prefers aisle seats"
    trace = RecallTrace.objects.get(trace_id=body["trace_id"])
    assert trace.parameters["rewritten_query"] == ""


def test_rewriting_is_off_by_default(cast, settings, fake_openai):
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    recall(cast, "anything")
    assert fake_openai.requests_to("chat") == []
