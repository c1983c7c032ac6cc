"""The LLM extraction path end to end, against a local OpenAI-compatible fake server."""

import pytest

from memory.extraction import get_extractor
from memory.models import Event, Memory

pytest_plugins = ["tests.fake_openai"]

URL = "/api/v1/subjects/{}/events"


@pytest.fixture
def llm_settings(settings, fake_openai):
    settings.ENGRAM_EXTRACTOR = "llm"
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = fake_openai.base_url
    get_extractor.cache_clear()
    extractor = get_extractor()
    extractor.backoff_base = 0  # no real sleeping between retries in tests
    yield fake_openai
    get_extractor.cache_clear()


def post(client, content):
    return client.post(
        URL.format("u1"),
        {"session_id": "s1", "extract": "sync", "events": [{"role": "user", "content": content}]},
        format="json",
    )


def test_llm_candidates_go_through_the_same_pipeline(cast, llm_settings):
    llm_settings.queue_chat_json(
        {
            "candidates": [
                {
                    "content": "用户不吃辣，手机号 13812345678",
                    "category": "preference",
                    "kind": "semantic",
                    "importance": 0.8,
                    "confidence": 0.9,
                    "slot": "diet",
                    "values": ["!辣"],
                    "entities": ["辣"],
                    "source_index": 0,
                    "source_quote": "我不吃辣",
                }
            ]
        },
        usage=(120, 40),
    )
    body = post(cast.alice_client, "我不吃辣，我手机号 13812345678").json()
    assert body["extraction"]["status"] == "done"
    memory = Memory.objects.get(subject__external_id="u1")
    assert memory.status == "active" and "13812345678" not in memory.content  # redacted
    event = Event.objects.get(subject__external_id="u1")
    assert event.extractor.startswith("llm:")
    assert event.extraction_usage["prompt_tokens"] == 120
    sent = llm_settings.requests_to("chat")[0].json
    assert "我不吃辣" in sent["messages"][-1]["content"]


def test_malformed_llm_output_is_a_visible_failure(cast, llm_settings):
    for _ in range(3):
        llm_settings.queue_chat("this is not json {")
    body = post(cast.alice_client, "I always prefer aisle seats").json()
    assert body["extraction"]["status"] == "failed"
    assert "JSON" in body["extraction"]["error"] or "json" in body["extraction"]["error"]
    event = Event.objects.get(subject__external_id="u1")
    assert event.extraction_status == "failed" and event.extraction_error
    assert not Memory.objects.exists()


def test_a_server_error_is_retried(cast, llm_settings):
    llm_settings.queue_error(500)
    llm_settings.queue_chat_json(
        {
            "candidates": [
                {
                    "content": "The user prefers aisle seats",
                    "category": "preference",
                    "kind": "semantic",
                    "importance": 0.6,
                    "confidence": 0.9,
                    "slot": "seat",
                    "values": ["aisle"],
                    "entities": [],
                    "source_index": 0,
                    "source_quote": "aisle",
                }
            ]
        }
    )
    body = post(cast.alice_client, "I always prefer aisle seats").json()
    assert body["extraction"]["status"] == "done"
    assert Memory.objects.filter(content__icontains="aisle").exists()


def test_session_context_uses_the_llm_summary_when_configured(cast, llm_settings):
    llm_settings.queue_chat("用户在安排成都出差，偏好安静的酒店。")
    events = [
        {"role": "user", "content": f"第{i}轮：" + "我们聊聊出差安排。" * 20} for i in range(20)
    ]
    cast.alice_client.post(
        URL.format("u1"), {"session_id": "s1", "events": events, "extract": "none"}, format="json"
    )
    body = cast.alice_client.get(
        "/api/v1/subjects/u1/sessions/s1/context", {"token_budget": 300}
    ).json()
    assert body["summary"] == "用户在安排成都出差，偏好安静的酒店。"
    assert body["summarized_turns"] > 0


def test_session_context_falls_back_to_extractive_when_the_llm_fails(cast, llm_settings):
    llm_settings.queue_error(400)
    events = [{"role": "user", "content": f"Turn {i}. " + "filler words " * 30} for i in range(20)]
    cast.alice_client.post(
        URL.format("u1"), {"session_id": "s1", "events": events, "extract": "none"}, format="json"
    )
    body = cast.alice_client.get(
        "/api/v1/subjects/u1/sessions/s1/context", {"token_budget": 300}
    ).json()
    assert body["summary"].startswith("Turn 0")
