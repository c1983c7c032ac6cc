"""Recall of episodic memories: the event route, date-aware matching, dated context lines.

Sentences here are written for the tests, not taken from any scenario file.
"""

import datetime as dt

import pytest

from memory.language.dates import memory_dates, query_date_window
from memory.models import Memory, Subject
from memory.recall import (
    ROUTE_CONTINUATION,
    ROUTE_EPISODIC,
    RecallParams,
    context_line,
    recall_compute,
    route_query,
)
from tests.factories import make_memory

URL = "/api/v1/subjects/{}/recall"


def recall(client, subject, query, **extra):
    response = client.post(URL.format(subject), {"query": query, **extra}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def episode(subject, content, **fields):
    return make_memory(subject, content, kind=Memory.Kind.EPISODIC, category="fact", **fields)


@pytest.mark.parametrize(
    "query",
    [
        "When did I start learning the cello?",
        "What did my son build for the science fair?",
        "Where did we spend New Year's Eve?",
        "Have I ever been to Morocco?",
        "我哪天去的牙医？",
        "上次复查医生怎么说的？",
        "我去年去过哪些城市？",
    ],
)
def test_event_questions_take_the_episodic_route(query):
    assert route_query(query) == ROUTE_EPISODIC


@pytest.mark.parametrize(
    "query",
    [
        "What did we pick for the message queue?",
        "帮我订下周去厦门的酒店",
        "Which city am I visiting in June?",
        "我妈生日是哪天",
    ],
)
def test_other_questions_keep_their_route(query):
    assert route_query(query) != ROUTE_EPISODIC


def test_conversation_continuations_stay_continuations():
    assert route_query("上次说的那个方案里用的哪个数据库？") == ROUTE_CONTINUATION


@pytest.mark.parametrize(
    "query,today,window",
    [
        ("五月份我去了哪里？", dt.date(2026, 11, 29), (dt.date(2026, 5, 1), dt.date(2026, 6, 1))),
        ("去年我做过什么手术？", dt.date(2026, 1, 3), (dt.date(2025, 1, 1), dt.date(2026, 1, 1))),
        (
            "What did I do in December?",
            dt.date(2026, 3, 2),
            (dt.date(2025, 12, 1), dt.date(2026, 1, 1)),
        ),
        (
            "What happened last month?",
            dt.date(2026, 1, 15),
            (dt.date(2025, 12, 1), dt.date(2026, 1, 1)),
        ),
        ("去年3月我在哪？", dt.date(2026, 6, 1), (dt.date(2025, 3, 1), dt.date(2025, 4, 1))),
        ("What may I eat?", dt.date(2026, 6, 1), None),
    ],
)
def test_query_date_window(query, today, window):
    assert query_date_window(query, today) == window


def test_memory_dates_reads_the_formats_episodes_write():
    dates = memory_dates(
        "用户上个月（2025年12月）去了漠河；the week of 2026-01-05; March 2024 (2023)"
    )
    starts = sorted(a for a, _ in dates)
    assert starts == [
        dt.date(2023, 1, 1),
        dt.date(2024, 3, 1),
        dt.date(2025, 12, 1),
        dt.date(2026, 1, 5),
    ]


def test_the_month_named_in_the_question_wins(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    july = episode(subject, "The user went hiking in the Dolomites last week (week of 2026-07-13).")
    may = episode(subject, "The user went hiking in the Pyrenees on Saturday (2026-05-16).")
    body = recall(cast.alice_client, "u1", "Where did I go hiking in May?")
    assert body["route"] == ROUTE_EPISODIC
    ids = [m["id"] for m in body["memories"]]
    assert ids[0] == may.pk and july.pk in ids


def test_zh_year_question_prefers_that_year(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    old = episode(subject, "用户前年（2024年）在成都做了阑尾手术")
    last = episode(subject, "用户去年（2025年）在杭州做了膝盖手术")
    body = recall(cast.alice_client, "u1", "我去年做过什么手术？")
    ids = [m["id"] for m in body["memories"]]
    assert ids.index(last.pk) < ids.index(old.pk)


def test_event_questions_prefer_episodes_over_similar_preferences(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    make_memory(subject, "用户喜欢去日本旅游", category="preference", importance=0.6)
    trip = episode(subject, "用户上周（2026-03-02那一周）去了大阪旅游，吃了很多章鱼烧")
    body = recall(cast.alice_client, "u1", "我什么时候去的大阪？")
    assert body["memories"][0]["id"] == trip.pk
    assert "2026-03-02" in body["memories"][0]["content"]


def test_context_line_dates_an_episode_by_when_it_happened(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    said = dt.datetime(2026, 4, 20, 9, tzinfo=dt.UTC)
    ep = episode(subject, "The user ran a trail race on Sunday (2026-04-19).", valid_from=said)
    pref = make_memory(subject, "The user prefers trail shoes", valid_from=said)
    assert context_line(ep, "en").startswith("- [2026-04-19] The user ran a trail race")
    assert context_line(pref, "en").startswith("- [2026-04-20] ")


def test_episodic_recall_keeps_a_constant_number_of_queries(cast, django_assert_max_num_queries):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    for i in range(10):
        episode(subject, f"The user visited museum {i} on 2026-0{1 + i % 9}-1{i % 9}.")
    with django_assert_max_num_queries(3):
        result = recall_compute(
            subject=subject, params=RecallParams(query="Which museum did I visit in May?")
        )
    assert result.route == ROUTE_EPISODIC and result.selected
