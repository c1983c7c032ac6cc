import pytest

from core.tokens import count_tokens
from memory.models import Memory, RecallTrace, Subject
from tests.factories import days_ago, make_memory

URL = "/api/v1/subjects/{}/recall"


def remember(client, subject, content, category="preference", **extra):
    body = {"content": content, "category": category, "confidence": 0.9, **extra}
    response = client.post(f"/api/v1/subjects/{subject}/memories", body, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()["memory"]


def recall(client, subject, query, **extra):
    response = client.post(URL.format(subject), {"query": query, **extra}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_preference_beats_similar_chit_chat(cast):
    c = cast.alice_client
    remember(c, "u1", "用户不吃辣，推荐餐厅时要避开辣味", importance=0.8, entities=["餐厅"])
    remember(c, "u1", "用户昨天和朋友聊了聊餐厅装修的话题", category="fact", importance=0.2)
    body = recall(c, "u1", "帮我推荐一家餐厅")
    assert body["route"] in ("preference", "mixed")
    assert body["memories"][0]["content"].startswith("用户不吃辣")
    assert set(body["memories"][0]["signals"]) == {
        "semantic",
        "keyword",
        "entity",
        "recency",
        "importance",
    }


def test_superseded_and_observed_memories_never_return(cast):
    c = cast.alice_client
    old = remember(c, "u1", "The user's weekly meeting is on Monday", category="fact")
    c.patch(
        f"/api/v1/subjects/u1/memories/{old['id']}",
        {"content": "The user's weekly meeting is on Wednesday"},
        format="json",
    )
    remember(c, "u1", "The user might move the meeting to Friday", category="fact", confidence=0.3)
    body = recall(c, "u1", "When is my weekly meeting?")
    contents = [m["content"] for m in body["memories"]]
    assert any("Wednesday" in text for text in contents)
    assert not any("Monday" in text or "Friday" in text for text in contents)


def test_importance_and_recency_matter(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    low = make_memory(subject, "The user enjoys hiking in the mountains", importance=0.1)
    high = make_memory(subject, "The user enjoys hiking in the mountains", importance=0.9)
    ids = [
        m["id"] for m in recall(cast.alice_client, "u1", "Does the user enjoy hiking?")["memories"]
    ]
    assert ids.index(high.pk) < ids.index(low.pk)
    # Equal importance: the one not touched for a year loses on recency.
    Memory.objects.filter(pk=high.pk).update(
        importance=0.1, created_at=days_ago(365), last_accessed_at=days_ago(365)
    )
    ids = [
        m["id"] for m in recall(cast.alice_client, "u1", "Does the user enjoy hiking?")["memories"]
    ]
    assert ids.index(low.pk) < ids.index(high.pk)


@pytest.mark.parametrize(
    "language,fact,query,header",
    [
        (
            "zh",
            "用户每周三下午三点开产品部周会，这个时间不能安排其他事情",
            "产品部周会是什么时候？",
            "以下是回忆到的与该用户相关的背景信息",
        ),
        (
            "en",
            "The user has the product team meeting every Wednesday at three in the afternoon",
            "When is the product team meeting?",
            "Recalled background about this user",
        ),
    ],
)
def test_it_cuts_by_token_budget_without_breaking_sentences(cast, language, fact, query, header):
    c = cast.alice_client
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    for i in range(6):
        make_memory(subject, f"{fact} #{i}")
    full = recall(c, "u1", query, top_k=6, token_budget=2000)
    assert len(full["memories"]) == 6
    budget = (
        count_tokens(full["context"].splitlines()[0])
        + 3 * (count_tokens(full["context"].splitlines()[1]) + 1)
        + 2
    )
    cut = recall(c, "u1", query, top_k=6, token_budget=budget)
    assert 1 <= len(cut["memories"]) < 6
    assert cut["context"].startswith(header)
    assert count_tokens(cut["context"]) <= budget
    for memory in cut["memories"]:  # every selected memory appears whole
        assert memory["content"] in cut["context"]


def test_empty_subject_answers_an_empty_list(cast):
    body = recall(cast.alice_client, "never-seen", "anything?")
    assert body["memories"] == [] and body["context"] == ""


def test_it_stores_a_trace_and_counts_hits(cast):
    c = cast.alice_client
    memory = remember(c, "u1", "The user prefers aisle seats", entities=["座位"])
    body = recall(c, "u1", "Pick my seat on the flight")
    trace = RecallTrace.objects.get(trace_id=body["trace_id"])
    assert trace.query == "Pick my seat on the flight"
    assert trace.route == body["route"]
    assert memory["id"] in trace.selected_ids
    candidate = next(item for item in trace.candidates if item["id"] == memory["id"])
    assert candidate["selected"] is True and "semantic" in candidate["signals"]
    assert set(trace.timings_ms) >= {"embed", "vector", "keyword", "score"}
    assert "content" not in candidate and trace.token_count == body["token_count"]
    assert Memory.objects.get(pk=memory["id"]).hit_count == 1


# Rows whose whole row, as JSON text, contains a string: where a copy of a recall could sit.
ROWS_HOLDING = {
    table: f"SELECT count(*) FROM {table} t WHERE strpos(row_to_json(t)::text, %s) > 0"  # noqa: S608
    for table in ("memory_recalltrace", "core_outboxmessage")
}


def _rows_holding(table: str, text: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(ROWS_HOLDING[table], [text])
        return cursor.fetchone()[0]


def test_deleting_a_memory_leaves_no_copy_of_its_text_in_recall_traces(cast):
    c = cast.alice_client
    sentence = "The user keeps a spare key under the blue flowerpot"
    memory = remember(c, "u1", sentence, category="fact", entities=["key"])
    remember(c, "u1", "The user prefers aisle seats", entities=["座位"])
    body = recall(c, "u1", "where is my spare key?")
    assert sentence in body["context"]  # the caller still gets the context block
    trace = RecallTrace.objects.get(trace_id=body["trace_id"])
    assert memory["id"] in trace.selected_ids

    response = c.delete(f"/api/v1/subjects/u1/memories/{memory['id']}")
    assert response.status_code == 204
    assert not Memory.objects.filter(pk=memory["id"]).exists()
    for table in ROWS_HOLDING:
        assert _rows_holding(table, sentence) == 0, table
    trace.refresh_from_db()
    assert memory["id"] in trace.selected_ids  # the trace still names it, by id only
    assert all("content" not in candidate for candidate in trace.candidates)


def test_replay_has_no_side_effects(cast):
    from memory.recall import RecallParams, recall_compute

    c = cast.alice_client
    memory = remember(c, "u1", "The user prefers aisle seats")
    result = recall_compute(
        subject=Subject.objects.get(external_id="u1"),
        params=RecallParams(query="seat", weights={"semantic": 1.0}),
    )
    assert result.weights["semantic"] == 1.0
    assert Memory.objects.get(pk=memory["id"]).hit_count == 0
    assert RecallTrace.objects.count() == 0


def test_recall_uses_a_constant_number_of_queries(cast, django_assert_max_num_queries):
    from memory.recall import RecallParams, recall_compute

    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    for i in range(12):
        make_memory(subject, f"The user fact number {i} about topic {i * 13}")
    with django_assert_max_num_queries(3):
        recall_compute(subject=subject, params=RecallParams(query="topic 13 fact", top_k=10))


def test_outsiders_get_404_or_nothing(cast):
    remember(cast.alice_client, "u1", "The user prefers aisle seats")
    body = recall(cast.charlie_client, "u1", "seat")
    assert body["memories"] == []
    assert (
        cast.bob_client.post(URL.format("u1"), {"query": "seat"}, format="json").status_code == 404
    )


def test_it_validates_the_body(cast):
    response = cast.alice_client.post(URL.format("u1"), {"query": "", "top_k": 0}, format="json")
    assert response.status_code == 400
    assert {"query", "top_k"} <= set(response.json()["error"]["fields"])


def test_session_context_keeps_recent_turns_and_summarises_older_ones(cast):
    c = cast.alice_client
    events = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"Turn number {i}. " + "Some filler words here. " * 8,
        }
        for i in range(30)
    ]
    c.post(
        "/api/v1/subjects/u1/events",
        {"session_id": "s1", "events": events, "extract": "none"},
        format="json",
    )
    body = c.get("/api/v1/subjects/u1/sessions/s1/context", {"token_budget": 400}).json()
    assert body["turns"][-1]["content"].startswith("Turn number 29")
    assert 0 < len(body["turns"]) < 30
    assert body["summarized_turns"] == 30 - len(body["turns"])
    assert "Turn number 0" in body["summary"]
    assert body["token_count"] <= 400
    empty = c.get("/api/v1/subjects/u1/sessions/none/context").json()
    assert empty["turns"] == [] and empty["summary"] == ""
    assert cast.bob_client.get("/api/v1/subjects/u1/sessions/s1/context").status_code == 404


def test_task_wording_reaches_memories_through_their_topic(cast):
    """ "订住的地方" names no entity but is about lodging: hotel-brand memories match."""
    from memory.recall import query_topics

    assert "hotel_brand" in query_topics("周末去青岛，帮我找个住的地方")
    assert "database" in query_topics("Which datastore backs the billing service?")
    assert "frontend" in query_topics("帮我写个 signup page component")
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    hotel = make_memory(subject, "用户出差习惯住万豪", category="preference", entities=["万豪"])
    make_memory(subject, "用户上周去看了一场话剧", category="fact", entities=[])
    body = recall(cast.alice_client, "u1", "周末去青岛，帮我找个住的地方")
    first = body["memories"][0]
    assert first["id"] == hotel.pk
    assert first["signals"]["entity"] > 0


def test_plans_answer_questions_about_what_is_coming_up(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    plan = make_memory(
        subject,
        "The user's plan: the team ports the billing jobs to Airflow by June.",
        category="plan",
        importance=0.3,
    )
    body = recall(cast.alice_client, "u1", "What's on my agenda for next quarter?")
    assert plan.pk in [m["id"] for m in body["memories"]]


def test_answer_style_instructions_apply_to_any_request(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    rule = make_memory(
        subject,
        "用户要求：以后回答都用中文",
        category="preference",
        kind="procedural",
        slot="reply_language",
        importance=0.6,
    )
    body = recall(cast.alice_client, "u1", "Explain how a bloom filter works")
    assert rule.pk in [m["id"] for m in body["memories"]]


@pytest.fixture
def use_embedder(monkeypatch):
    monkeypatch.setenv("ENGRAM_EMBEDDER", "use")


def test_a_shared_one_character_word_brings_no_memory_in(cast, use_embedder):
    # "用" is in the request and in the memory; nothing else links them
    c = cast.alice_client
    remember(c, "u1", "用户每天用 Excel 做报表", category="fact")
    assert recall(c, "u1", "帮我用一句话夸夸我的猫")["memories"] == []
    related = recall(c, "u1", "帮我用 Excel 做个透视表")["memories"]
    assert [m["content"] for m in related] == ["用户每天用 Excel 做报表"]


def test_a_question_about_how_the_world_works_gets_no_standing_guidance(cast, use_embedder):
    """A how-to question that does not point at the person brings in only what clearly bears
    on it (these pairs sit at cosine 0.14-0.16, above the standing floor); the same memories
    still answer the person's own requests."""
    c = cast.alice_client
    remember(c, "u1", "用户喝咖啡只要燕麦奶，普通牛奶喝了胃不舒服")
    remember(c, "u1", "用户每天晚上十点以后不看手机", category="fact")
    remember(c, "u1", "用户周末一般去爬山", category="fact")
    for question in ("Excel里怎么合并单元格？", "为什么冬天静电特别多？"):
        assert recall(c, "u1", question)["memories"] == [], question
    ordered = recall(c, "u1", "帮我点一杯拿铁")["memories"]
    assert any("燕麦奶" in m["content"] for m in ordered)


def test_a_context_gets_the_current_answer_not_both(cast, use_embedder):
    """Two memories answer one question a person has one answer to at a time, said in two
    conversations: the request gets the later one, and the trace says why the other is cut."""
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    said = {"observed_at": days_ago(40), "valid_from": days_ago(40)}
    old_job = make_memory(subject, "用户是初中数学老师，带两个班", **said)
    old_car = make_memory(subject, "The user drives a Toyota Corolla, bought in 2015", **said)
    new_job = make_memory(subject, "用户入行做律师才半年，在律所做诉讼")
    new_car = make_memory(subject, "The user drives a Kia EV6 these days")
    for query, new, old in (
        ("帮我想几个跟我工作相关的年终总结亮点", new_job, old_job),
        ("my car needs a service, what should I get checked", new_car, old_car),
    ):
        body = recall(cast.alice_client, "u1", query)
        ids = [m["id"] for m in body["memories"]]
        assert new.pk in ids and old.pk not in ids, (query, body["memories"])
        trace = RecallTrace.objects.get(trace_id=body["trace_id"])
        cut = {c["id"]: c["cut"] for c in trace.candidates}
        assert cut[old.pk] == "answered_anew"


def test_two_answers_said_in_one_conversation_both_stay(cast, use_embedder):
    # within one conversation there is no later answer to prefer
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    first = make_memory(subject, "The user drives a Toyota Corolla to work", valid_from=days_ago(1))
    second = make_memory(subject, "The user's weekend car is a Kia EV6", valid_from=days_ago(1))
    ids = [m["id"] for m in recall(cast.alice_client, "u1", "my car needs a service")["memories"]]
    assert {first.pk, second.pk} <= set(ids)


def test_a_request_about_home_reaches_a_memory_that_only_names_the_city(cast, use_embedder):
    # no word for where one lives, only the city: the request still needs it
    c = cast.alice_client
    remember(c, "u1", "用户住广州天河", category="fact")
    found = [m["content"] for m in recall(c, "u1", "周末想找个离家近的 escape room")["memories"]]
    assert found == ["用户住广州天河"]
