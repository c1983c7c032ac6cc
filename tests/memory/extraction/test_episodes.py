"""Episodic extraction: things that happened, with relative dates resolved (zh, en, mixed).

Sentences here are written for the tests, not taken from any scenario file.
"""

import datetime as dt
import time

import pytest

from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.episodes import episodes_for_turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.language.relative_dates import resolve_dates


def at(day: str, hour: int = 10) -> dt.datetime:
    return dt.datetime.fromisoformat(f"{day}T{hour:02d}:00:00+00:00")


def episodes(text: str, day: str = "2026-05-13", role: str = "user") -> list[Candidate]:
    return episodes_for_turn(Turn(role, text, occurred_at=at(day)), 0, set())


def one(text: str, day: str = "2026-05-13") -> Candidate:
    found = episodes(text, day)
    assert len(found) == 1, [c.content for c in found]
    return found[0]


# ---- zh ---------------------------------------------------------------------------------------
def test_zh_event_with_relative_day_is_resolved_in_the_content():
    c = one("我儿子前天学会骑自行车了，摔了好几次。", "2026-05-13")  # Wednesday
    assert c.kind == "episodic" and c.category == "fact"
    assert c.content.startswith("用户的儿子前天（2026-05-11）学会骑自行车了")
    assert "我" not in c.content
    assert 0.4 <= c.importance <= 0.6 and c.confidence == 0.8


@pytest.mark.parametrize(
    "text,day,expected",
    [
        ("上周五我们去苏州看了一场昆曲。", "2026-05-13", "2026-05-08"),
        ("上周我在公司拿到了年度优秀员工奖。", "2026-05-13", "2026-05-04那一周"),
        ("上个月我姐姐结婚了。", "2026-01-08", "2025年12月"),  # month across the year boundary
        ("去年我做了近视手术。", "2026-02-01", "2025年"),
        ("昨天我考完了教师资格证的面试。", "2026-03-01", "2026-02-28"),  # month boundary
        ("昨天我爷爷出院了。", "2026-01-01", "2025-12-31"),  # year boundary
        ("3月2号我去了一趟敦煌看莫高窟。", "2026-05-13", "2026-03-02"),
        ("12月20号我们搬进了新家。", "2026-01-10", "2025-12-20"),  # a future date = last year
        ("去年8月我在青岛参加了一个帆船训练营。", "2026-05-13", "2025年8月"),
        ("三天前我在公园捡了一只流浪狗领养了。", "2026-05-13", "2026-05-10"),
    ],
)
def test_zh_dates(text, day, expected):
    assert expected in one(text, day).content


def test_zh_health_and_family_milestones_are_more_important():
    assert one("我妈昨天做了膝盖手术，很顺利。").importance >= 0.6
    assert one("我们上周末去看了一部电影。").importance <= 0.5


def test_zh_we_is_the_family_unless_it_is_work():
    assert "用户一家" in one("我们上周末去千岛湖露营了，风景超好。").content
    assert "用户的团队" in one("前天我们团队签下了一个大客户。").content


@pytest.mark.parametrize(
    "text",
    [
        "下周我打算去厦门玩几天。",  # plan
        "要是明年能去冰岛看极光就好了。",  # hypothetical
        "你说我上周去的那家店叫什么来着？",  # question
        "我没去成上周的同学聚会。",  # negated
        "今天天气不错。",  # small talk
        "今天早上喝了杯豆浆。",  # small talk
        "听说同事上周去了三亚度假。",  # reported
        "周末带孩子去海洋馆，帮我查一下门票。",  # a request, not an event
    ],
)
def test_zh_non_events_are_skipped(text):
    assert episodes(text) == []


# ---- en ---------------------------------------------------------------------------------------
def test_en_event_rewritten_about_the_user_with_the_date():
    c = one("I finally got my driver's license yesterday, passed on the first try!", "2026-05-13")
    assert c.content.startswith("The user finally got the user's driver's license yesterday")
    assert "(2026-05-12)" in c.content
    assert c.content.endswith(".")


@pytest.mark.parametrize(
    "text,day,expected",
    [
        ("We adopted two kittens last Sunday.", "2026-05-13", "2026-05-10"),
        ("I started a pottery class last week.", "2026-05-13", "week of 2026-05-04"),
        ("My brother got married last month.", "2026-01-05", "December 2025"),
        ("I had knee surgery last year.", "2026-03-01", "(2025)"),
        ("Ran a half marathon yesterday in 1:58.", "2026-03-01", "2026-02-28"),
        ("My grandma turned 90 and we threw her a party on March 14.", "2026-05-13", "2026-03-14"),
        ("I visited my old school in Boston two weeks ago.", "2026-05-13", "week of 2026-04-27"),
        ("I gave a lightning talk on the 3rd.", "2026-05-02", "2026-04-03"),
        ("Our roof got fixed on Monday.", "2026-05-13", "2026-05-11"),
        ("We flew home on Dec 30.", "2026-01-04", "2025-12-30"),
    ],
)
def test_en_dates(text, day, expected):
    assert expected in one(text, day).content


@pytest.mark.parametrize(
    "text",
    [
        "If I had the money I'd buy a boat.",
        "I'm going to visit Lisbon next month.",
        "Did I ever tell you about my trip to Peru?",
        "I didn't go to the reunion last week.",
        "I had coffee this morning.",
        "My neighbor said he went fishing yesterday.",
        "Honestly it was a long day.",
        "I love sushi.",
    ],
)
def test_en_non_events_are_skipped(text):
    assert episodes(text) == []


def test_named_person_needs_a_time_expression():
    assert episodes("Nina started kindergarten.") == []
    c = one("Nina started kindergarten on Monday.", "2026-05-13")
    assert c.content.startswith("The user mentioned that Nina started kindergarten")
    assert "Nina" in c.entities


def test_a_sentence_leaning_on_the_previous_event_is_merged():
    found = episodes("I just got back from Oslo! We drove there on May 2 and hiked a lot.")
    assert len(found) == 1
    assert "Oslo" in found[0].content and "2026-05-02" in found[0].content


def test_hedged_event_has_lower_confidence():
    assert one("I think I sprained my wrist yesterday.").confidence < 0.8


# ---- mixed, roles, pipeline ---------------------------------------------------------------
def test_mixed_language_sentences():
    c = one("上周六我在Shenzhen参加了一个 AI hackathon，拿了二等奖。", "2026-05-13")
    assert "2026-05-09" in c.content and "Shenzhen" in c.entities
    c = one("My daughter lost her first tooth yesterday 哈哈。", "2026-05-13")
    assert "2026-05-12" in c.content and c.content.startswith("The user's daughter")


def test_assistant_turns_and_missing_dates():
    assert episodes("You went to Paris yesterday.", role="assistant") == []
    c = episodes_for_turn(Turn("user", "昨天我去医院复查了。"), 0, set())[0]
    assert "（" not in c.content  # no occurred_at: the relative word stays as it is


def test_covered_sentences_are_skipped_unless_they_carry_a_date():
    text = "我终于拿到了驾照。"
    assert episodes_for_turn(Turn("user", text, occurred_at=at("2026-05-13")), 0, {text}) == []
    dated = "我昨天终于拿到了驾照。"
    assert episodes_for_turn(Turn("user", dated, occurred_at=at("2026-05-13")), 0, {dated})


def test_rule_extractor_emits_episodes_next_to_semantic_memories():
    turns = [
        Turn("user", "我不吃香菜。上周三我带我妈去体检了。", occurred_at=at("2026-05-13")),
        Turn("assistant", "好的，记住了。", occurred_at=at("2026-05-13")),
    ]
    cands = RuleExtractor().extract(turns).candidates
    kinds = {c.kind for c in cands}
    assert "episodic" in kinds
    epi = next(c for c in cands if c.kind == "episodic")
    assert "2026-05-06" in epi.content and epi.source_index == 0


def test_resolve_dates_leaves_absolute_dates_alone():
    text, found = resolve_dates("on 2026-05-01 the user moved", dt.date(2026, 5, 13), "en")
    assert found and text == "on 2026-05-01 the user moved"


def test_fast_enough():
    turn = Turn(
        "user",
        "最近好忙。上周我们搬家了，昨天我女儿还发烧了。Yesterday I also finished my thesis.",
        occurred_at=at("2026-05-13"),
    )
    start = time.perf_counter()
    for _ in range(300):
        episodes_for_turn(turn, 0, set())
    assert time.perf_counter() - start < 1.0
