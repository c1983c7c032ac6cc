"""Possessed things that changed, dated events of the user's world, family achievements told
with a request, moves to a well-known app, calendar-date values.

Sentences here are written for the tests, not taken from any evaluation scenario.
"""

import datetime as dt

import pytest

from memory.decisions import SUPERSEDE, ExistingMemory, compare_values, decide
from memory.extraction.slots.derive import derive_slot
from memory.language.dates import date_values
from tests.memory.extraction.helpers import WHEN, episodic, semantic


def one(text: str):
    found = semantic(text)
    assert len(found) == 1, [c.content for c in found]
    return found[0]


def supersedes(old_text: str, new_text: str) -> bool:
    old, new = one(old_text), one(new_text)
    assert old.slot and new.slot, (old.slot, new.slot)
    mem = ExistingMemory(
        id=1,
        category=old.category,
        kind=old.kind,
        content=old.content,
        confidence=old.confidence,
        slot=old.slot,
        values=old.values,
        entities=old.entities,
        occurred_at=WHEN - dt.timedelta(days=30),
    )
    return decide(new, WHEN, [mem], {1: 0.5}).action == SUPERSEDE


# ---- 1. "<possessed thing> changed, it's now Y" -------------------------------------------
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My cat's groomer is Jenna at Fluffy Paws.", "Our cat's groomer changed, it's now Marco."),
        ("My son's tutor is Mr. Patel.", "My son's tutor changed, he's now Mr. Greene."),
        (
            "The kids' swim coach is Coach Rivera.",
            "The kids' swim coach changed, it's now Coach Lindqvist.",
        ),
    ],
)
def test_a_possessed_thing_that_changed_supersedes(old, new):
    assert supersedes(old, new)


def test_a_possessor_pronoun_is_not_an_owner():
    assert not derive_slot("That's it's now fine.", "fact", [])[0].startswith("thing:it")


# ---- 2. dated events of the user's world ---------------------------------------------------
def test_a_scheduled_event_without_first_person_is_a_plan():
    c = one("公司的秋季运动会定在九月二十六号")
    assert c.category == "plan" and c.slot == "thing:秋季运动会" and c.values == ["09-26"]
    assert not episodic("公司的秋季运动会定在九月二十六号")


def test_a_moved_date_supersedes_the_old_one():
    assert supersedes("公司的秋季运动会定在九月二十六号", "秋季运动会改期了，改到十月十号")
    assert supersedes(
        "Our team retreat is set for August 9.", "The retreat got pushed, it's now August 23."
    )


def test_a_personal_date_stays_a_fact():
    c = one("我老公生日是三月十五号")
    assert c.category != "plan" and c.values == ["03-15"]


def test_date_values():
    assert date_values("一月十八号和2月3日") == ["01-18", "02-03"]
    assert date_values("Sept 9th or 21 March") == ["09-09", "03-21"]
    assert date_values("you may 3 times") == []


def test_calendar_dates_conflict_even_beside_a_shared_name():
    assert compare_values("thing:retreat", ["08-23", "Tahoe"], ["08-09", "Tahoe"]) == "conflict"


# ---- 3. a family member's achievement told together with a request ------------------------
def test_a_family_achievement_before_a_request_is_an_episode():
    found = episodic("儿子上周数学竞赛拿了三等奖，帮我想想怎么奖励他")
    assert len(found) == 1
    assert "三等奖" in found[0].content and "帮" not in found[0].content
    en = episodic("My niece won the regional chess cup last weekend, help me pick a card.")
    assert en and "pick a card" not in en[0].content


def test_someone_elses_event_before_a_request_is_still_context():
    assert not episodic("同事上周拿了优秀员工，帮我写个祝贺词")


# ---- 4. a move to a well-known app shares the thing slot ----------------------------------
def test_a_move_to_a_known_app_supersedes_the_old_app():
    assert supersedes("I store my passwords in KeePass.", "Moved everything over to Dashlane.")
    assert supersedes("我的笔记都放在印象笔记里", "笔记全部迁到Obsidian了")


def test_latin_names_do_not_swallow_chinese_particles():
    assert one("我的照片都存在Dropbox里").values == ["Dropbox"]


def test_a_spaced_latin_name_before_a_particle_is_kept_whole():
    c = one("我的文件都放在 OneDrive 里")
    assert c.slot == "thing:文件" and c.values == ["OneDrive"]


# ---- a family member's weekly activity: the activity is the thing -------------------------
def test_a_family_members_weekly_class_restated_as_a_plan_is_the_same_slot():
    routine = one("我儿子每周二下午上围棋课")
    plan = one("提醒我，周二下午儿子要去上围棋课")
    assert routine.slot == plan.slot == "thing:围棋课"
    assert routine.values == plan.values == ["周二", "下午"]
