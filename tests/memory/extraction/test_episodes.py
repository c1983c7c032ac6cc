"""Episodic extraction: things that happened, with relative dates resolved (zh, en, mixed).

Sentences here are written for the tests, not taken from any scenario file.
"""

import datetime as dt
import time

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


def test_zh_health_and_family_milestones_are_more_important():
    assert one("我妈昨天做了膝盖手术，很顺利。").importance >= 0.6
    assert one("我们上周末去看了一部电影。").importance <= 0.5


def test_zh_we_is_the_family_unless_it_is_work():
    assert "用户一家" in one("我们上周末去千岛湖露营了，风景超好。").content
    assert "用户的团队" in one("前天我们团队签下了一个大客户。").content


# ---- en ---------------------------------------------------------------------------------------
def test_en_event_rewritten_about_the_user_with_the_date():
    c = one("I finally got my driver's license yesterday, passed on the first try!", "2026-05-13")
    assert c.content.startswith("The user finally got the user's driver's license yesterday")
    assert "(2026-05-12)" in c.content
    assert c.content.endswith(".")


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
