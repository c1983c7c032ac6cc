import datetime as dt
import json

import pytest

from memory.extraction.base import CATEGORIES, ExtractionError, ExtractionResult, Turn
from memory.extraction.llm import (
    SYSTEM_PROMPT,
    LLMExtractor,
    OutputValidationError,
    validate_payload,
)

# The `fake_openai` fixture lives in tests/fake_openai.py.
pytest_plugins = ["tests.fake_openai"]

ZH_TURNS = [
    Turn("user", "你好"),
    Turn("assistant", "你好！有什么可以帮你？"),
    Turn(
        "user",
        "我不吃辣，记住千万别给我推荐川菜。另外产品部周会改到周三下午三点了。",
        occurred_at=dt.datetime(2025, 3, 3, 9, 0, tzinfo=dt.UTC),
    ),
]
EN_TURNS = [
    Turn("user", "I think I'd maybe prefer shorter answers."),
    Turn("assistant", "Sure, I'll keep it brief."),
    Turn("user", "Also, my budget for network gear is 80,000."),
]


def zh_candidates():
    return [
        {
            "content": "用户不吃辣",
            "category": "preference",
            "kind": "semantic",
            "importance": 0.9,
            "confidence": 0.95,
            "slot": "diet",
            "values": ["不吃辣"],
            "entities": ["川菜"],
            "source_index": 2,
            "source_quote": "我不吃辣",
            "triple": ["用户", "不吃", "辣"],
            "valid_to": None,
        },
        {
            "content": "用户的产品部周会改到周三 15:00",
            "category": "correction",
            "kind": "episodic",
            "importance": 0.6,
            "confidence": 0.9,
            "slot": "meeting:产品部周会",
            "values": ["周三 15:00"],
            "entities": ["产品部"],
            "source_index": 2,
            "source_quote": "产品部周会改到周三下午三点",
            "valid_to": "2025-03-05T16:00:00",
        },
    ]


def en_candidates():
    return [
        {
            "content": "The user prefers shorter answers",
            "category": "preference",
            "importance": 0.5,
            "confidence": 0.5,
            "slot": "answer_style",
            "values": ["short"],
            "source_index": 0,
            "source_quote": "prefer shorter answers",
            "reason": "ignored",
        },
        {
            "content": "The user's budget for network gear is 80,000",
            "category": "fact",
            "importance": 0.6,
            "confidence": 0.9,
            "slot": "budget:network gear",
            "values": ["80000"],
            "source_index": 2,
        },
    ]


def make(server, **kw):
    kw.setdefault("backoff_base", 0.001)
    kw.setdefault("backoff_max", 0.01)
    return LLMExtractor(api_key="test-key", base_url=server.base_url, **kw)


# ------------------------------------------------------------------ happy paths


def test_happy_path_zh(fake_openai):
    fake_openai.queue_chat_json({"candidates": zh_candidates()}, usage=(321, 45))
    ex = make(fake_openai)
    result = ex.extract(ZH_TURNS)

    assert isinstance(result, ExtractionResult)
    assert result.extractor == "llm:gpt-4o-mini" == ex.name
    assert result.usage == {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366}
    diet, meeting = result.candidates
    assert diet.content == "用户不吃辣" and diet.category == "preference"
    assert diet.slot == "diet" and diet.values == ["不吃辣"] and diet.source_index == 2
    assert diet.importance == 0.9 and diet.confidence == 0.95
    assert diet.triple == ("用户", "不吃", "辣") and diet.entities == ["川菜"]
    assert meeting.kind == "episodic" and meeting.values == ["周三 15:00"]
    # naive valid_to gets the source turn's timezone
    assert meeting.valid_to == dt.datetime(2025, 3, 5, 16, 0, tzinfo=dt.UTC)

    (req,) = fake_openai.requests_to("chat")
    body = req.json
    assert body["model"] == "gpt-4o-mini"
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    sent = body["messages"][1]["content"]
    assert "JSON" in sent and "我不吃辣" in sent and '"new_from": 0' in sent
    assert req.headers["authorization"] == "Bearer test-key"


def test_happy_path_en_with_new_from_and_model_from_env(fake_openai):
    fake_openai.queue_chat_json({"candidates": en_candidates()[1:]})
    env = {
        "OPENAI_API_KEY": "k",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "ENGRAM_LLM_MODEL": "my-model",
    }
    ex = LLMExtractor.from_env(env)
    assert ex.name == "llm:my-model"
    result = ex.extract(EN_TURNS, new_from=2)
    (c,) = result.candidates
    assert c.content.startswith("The user") and c.values == ["80000"] and c.source_index == 2
    assert c.kind == "semantic"  # default
    body = fake_openai.requests[-1].json
    assert body["model"] == "my-model"
    assert '"new_from": 2' in body["messages"][1]["content"]


def test_extra_keys_ignored_and_hedge_confidence_kept(fake_openai):
    fake_openai.queue_chat_json({"candidates": en_candidates()})
    result = make(fake_openai).extract(EN_TURNS)
    assert [c.confidence for c in result.candidates] == [0.5, 0.9]


def test_empty_candidates_is_a_valid_answer(fake_openai):
    fake_openai.queue_chat_json({"candidates": []})
    result = make(fake_openai).extract([Turn("user", "今天天气不错")])
    assert result.candidates == [] and result.usage["prompt_tokens"] == 50


def test_no_new_user_turns_skips_the_model(fake_openai):
    ex = make(fake_openai)
    result = ex.extract([Turn("user", "我不吃辣"), Turn("assistant", "好的")], new_from=1)
    assert result.candidates == [] and result.usage == {}
    assert fake_openai.requests == []


# ------------------------------------------------------------------ failures and retries


def test_malformed_json_after_retries_raises(fake_openai):
    for _ in range(3):
        fake_openai.queue_chat('{"candidates": [', usage=(10, 5))
    with pytest.raises(ExtractionError, match="not valid JSON") as info:
        make(fake_openai).extract(ZH_TURNS)
    assert "after 3 attempts" in str(info.value)
    assert len(fake_openai.requests_to("chat")) == 3
    assert info.value.usage == {"prompt_tokens": 30, "completion_tokens": 15, "total_tokens": 45}


def test_malformed_then_valid_output_recovers(fake_openai):
    fake_openai.queue_chat("Sure! Here are the memories: ...", usage=(10, 5))
    fake_openai.queue_chat_json({"candidates": zh_candidates()[:1]}, usage=(10, 7))
    result = make(fake_openai).extract(ZH_TURNS)
    assert len(result.candidates) == 1
    assert result.usage == {"prompt_tokens": 20, "completion_tokens": 12, "total_tokens": 32}


def test_http_500_then_success_retries(fake_openai):
    sleeps = []
    fake_openai.queue_error(500)
    fake_openai.queue_error(503)
    fake_openai.queue_chat_json({"candidates": zh_candidates()}, usage=(100, 20))
    ex = make(fake_openai, sleep=sleeps.append, backoff_base=0.1, backoff_max=10)
    result = ex.extract(ZH_TURNS)
    assert len(result.candidates) == 2
    assert result.usage == {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    assert len(fake_openai.requests_to("chat")) == 3
    assert len(sleeps) == 2
    assert 0.05 <= sleeps[0] <= 0.1 and 0.1 <= sleeps[1] <= 0.2  # exponential, jittered


def test_429_honours_retry_after(fake_openai):
    sleeps = []
    fake_openai.queue_error(429, headers={"Retry-After": "2"})
    fake_openai.queue_chat_json({"candidates": []})
    make(fake_openai, sleep=sleeps.append, backoff_max=5).extract(ZH_TURNS)
    assert sleeps == [2.0]


def test_persistent_5xx_raises_after_three_attempts(fake_openai):
    for _ in range(5):
        fake_openai.queue_error(502, message="bad gateway")
    with pytest.raises(ExtractionError, match="HTTP 502") as info:
        make(fake_openai).extract(ZH_TURNS)
    assert info.value.attempts == 3
    assert len(fake_openai.requests_to("chat")) == 3


def test_non_retryable_4xx_fails_at_once(fake_openai):
    fake_openai.queue_error(401, message="invalid api key")
    with pytest.raises(ExtractionError, match=r"not retryable.*invalid api key"):
        make(fake_openai).extract(ZH_TURNS)
    assert len(fake_openai.requests_to("chat")) == 1


def test_connection_error_is_retried_then_raises():
    sleeps = []
    ex = LLMExtractor(
        api_key="k",
        base_url="http://127.0.0.1:9/v1",
        sleep=sleeps.append,
        backoff_base=0.001,
        timeout=2,
    )
    with pytest.raises(ExtractionError, match="APIConnectionError"):
        ex.extract(ZH_TURNS)
    assert len(sleeps) == 2


def test_truncated_output_is_an_error(fake_openai):
    for _ in range(3):
        fake_openai.queue_chat('{"candidates": []}', finish_reason="length")
    with pytest.raises(ExtractionError, match="truncated"):
        make(fake_openai).extract(ZH_TURNS)


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"category": "hobby"}, "category 'hobby'"),
        ({"kind": "weird"}, "kind 'weird'"),
        ({"importance": 1.5}, "importance"),
        ({"confidence": "high"}, "confidence"),
        ({"confidence": True}, "confidence"),
        ({"content": ""}, "content"),
        ({"content": 42}, "content"),
        ({"values": "不吃辣"}, "values"),
        ({"entities": [1, 2]}, "entities"),
        ({"source_index": 1}, "not a user turn"),
        ({"source_index": 7}, "outside"),
        ({"source_index": "2"}, "source_index must be an integer"),
        ({"triple": ["a", "b"]}, "triple"),
        ({"valid_to": "next week"}, "valid_to"),
        ({"slot": ["diet"]}, "slot"),
    ],
)
def test_schema_violation_raises(fake_openai, patch, message):
    bad = {**zh_candidates()[0], **patch}
    for _ in range(3):
        fake_openai.queue_chat_json({"candidates": [bad]})
    with pytest.raises(ExtractionError, match="malformed model output") as info:
        make(fake_openai).extract(ZH_TURNS)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "payload",
    [[], {"memories": []}, {"candidates": {}}, {"candidates": ["用户不吃辣"]}],
)
def test_top_level_shape_violations(payload):
    with pytest.raises(OutputValidationError):
        validate_payload(payload, ZH_TURNS, 0)


def test_context_turns_are_not_sources():
    payload = {"candidates": [{**zh_candidates()[0], "source_index": 0}]}
    with pytest.raises(OutputValidationError, match="outside the new turns"):
        validate_payload(payload, ZH_TURNS, 2)
    payload = {"candidates": [zh_candidates()[0]]}
    assert validate_payload(json.loads(json.dumps(payload)), ZH_TURNS, 2)[0].source_index == 2


def test_prompt_mentions_every_category():
    for category in CATEGORIES:
        assert f'"{category}"' in SYSTEM_PROMPT
