"""Slot override limits, episode/rules dedupe, possessed things, change constructions, names
that look like questions, preferences with a reason and recent habits.

Sentences here are written for the tests, not taken from any evaluation scenario.
"""

import datetime as dt

import pytest

from memory.decisions import SUPERSEDE, ExistingMemory, decide
from memory.extraction.rules.episodes import is_episode
from memory.extraction.slots.derive import derive_slot
from memory.language.text import looks_like_question
from tests.memory.extraction.helpers import WHEN, cands, semantic


def one(text: str):
    found = semantic(text)
    assert len(found) == 1, [c.content for c in found]
    return found[0]


# ---- 1. generic slot override only for well-formed noun phrases ---------------------------
def test_colloquial_tool_statements_keep_the_lexicon_slot_and_supersede():
    old = one("我们小组周例会平时用腾讯会议")
    new = one("周例会统一以后改用飞书了")
    assert old.slot == new.slot
    assert "组开" not in old.content and "统一以后" not in new.slot


def test_group_pronoun_is_rewritten_to_the_users_group():
    c = one("我们组开视频会用 Zoom")
    assert c.content.startswith("用户的小组")
    assert c.slot == "tool" and c.values == ["Zoom"]


# ---- 2. past events are left to the episodes -----------------------------------------------
def test_past_event_is_only_an_episode():
    found = cands("上周六带儿子去了海洋馆，他特别喜欢企鹅")
    assert [c.kind for c in found] == ["episodic"]
    assert "2026-06-06" in found[0].content


def test_past_event_with_a_standing_taste_keeps_the_preference():
    found = cands("上周日我们去了湿地公园野餐，我一直很喜欢那边的草坪")
    assert any(c.kind != "episodic" for c in found)
    assert any(c.kind == "episodic" for c in found)


def test_is_episode():
    assert is_episode("前天我在小区门口摔了一跤，扭伤了脚")
    assert is_episode("Last Tuesday we adopted a kitten.")
    assert not is_episode("我不吃香菜")
    assert not is_episode("I prefer window seats.")


# ---- 3. possessed things without first person ----------------------------------------------
def test_family_owned_thing_without_first_person():
    c = one("儿子的围棋老师是郑老师")
    assert c.slot == "thing:儿子的围棋老师" and c.values == ["郑老师"]
    assert c.content.startswith("用户的儿子的围棋老师")


def test_first_person_kin_shares_the_slot():
    assert one("我女儿的钢琴老师是吴老师").slot == one("女儿的钢琴老师是何老师").slot


def test_household_thing():
    c = one("家里的净水器是沁园的")
    assert c.slot == "thing:净水器" and c.values == ["沁园"]
    assert c.content.startswith("用户家的净水器")


def test_company_thing_change_reads_naturally():
    c = one("公司的报销系统换成易快报了")
    assert c.content.startswith("用户公司的报销系统")
    assert c.slot == "thing:报销系统" and c.values == ["易快报"]


@pytest.mark.parametrize(
    "text,slot,value",
    [
        ("The kids' orthodontist is Dr. Patel.", "thing:kid's orthodontist", "Dr. Patel"),
        ("My wife's hairdresser is Mona Reyes.", "thing:wife's hairdresser", "Mona Reyes"),
        ("Our babysitter is Jenna Cole.", "thing:babysitter", "Jenna Cole"),
    ],
)
def test_english_possessed_things(text, slot, value):
    c = one(text)
    assert c.slot == slot and value in c.values
    assert c.content.startswith("The user's")


def test_possessed_thing_change_supersedes():
    old = one("The kids' orthodontist is Dr. Patel.")
    new = one("The kids' orthodontist is now Dr. Moore.")
    assert old.slot == new.slot and new.confidence >= 0.9
    existing = ExistingMemory(
        id=1,
        category=old.category,
        kind=old.kind,
        content=old.content,
        slot=old.slot,
        values=old.values,
        confidence=old.confidence,
        occurred_at=WHEN - dt.timedelta(days=10),
        status="active",
        entities=old.entities,
    )
    assert decide(new, WHEN, [existing], {1: 0.5}).action == SUPERSEDE


# ---- 4. change constructions with quantifiers / 把 -----------------------------------------
def test_english_change_with_quantifier():
    old = one("I keep my bookmarks in Raindrop.")
    new = one("I moved all my bookmarks over to Linkding now.")
    assert new.slot == old.slot and new.values == ["Linkding"] and new.confidence >= 0.9


def test_chinese_ba_construction():
    c = one("我把全部文档都迁到了语雀")
    assert c.slot == "thing:文档" and c.values == ["语雀"]
    c = one("我把家里的宽带换成了移动的")
    assert c.slot == "thing:宽带" and c.values == ["移动"]


# ---- 5. names that look like questions -----------------------------------------------------
def test_brand_ending_in_particle_is_not_a_question():
    assert not looks_like_question("我买零食一般用饿了么")
    assert looks_like_question("你用饿了么吗")
    assert looks_like_question("你吃饭了么")
    c = one("我买零食一般用饿了么")
    assert "饿了么" in c.values


# ---- 6. preference with a reason -----------------------------------------------------------
def test_preference_with_because_clause():
    c = one("I prefer gouache because it layers nicely.")
    assert c.category == "preference" and "gouache" in c.content
    assert not semantic("I like this because it is short.")


# ---- 7. recent habits and anchored dateless episodes ---------------------------------------
def test_recent_habit_is_a_fact():
    c = one("I've been baking a lot lately.")
    assert c.category == "fact" and "baking" in c.content
    assert one("我最近一直在练书法").category == "fact"
    assert not semantic("我最近在看什么都没心思")


def test_anchored_dateless_episode():
    found = cands("那次我们在鼓浪屿拍了好多照片")
    assert [c.kind for c in found] == ["episodic"]
    assert "用户" in found[0].content and "鼓浪屿" in found[0].content
    assert not cands("那天挺累的")


def test_small_talk_stays_ignored():
    assert not cands("今天好冷啊")
    assert not cands("I had coffee this morning.")


def test_derive_slot_keeps_lexicon_slot_for_fragments():
    assert derive_slot("开会统一以后改用 Teams", "preference", [])[0] == "tool"
