"""Habitual use of named services, change statements as firm updates, noun normalisation,
natural contents, brand prefixes and provider roles.

Sentences here are written for the tests, not taken from any evaluation scenario.
"""

import datetime as dt

import pytest

from memory import aliases
from memory.decisions import ExistingMemory, decide, slots_compatible
from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.slots.generic import normalize_thing

EX = RuleExtractor()
T0 = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.UTC)
T1 = T0 + dt.timedelta(days=10)


def one(text):
    cs = [c for c in EX.extract([Turn("user", text)]).candidates if c.kind != "episodic"]
    assert len(cs) == 1, cs
    return cs[0]


def as_memory(c, mid=1, at=T0):
    return ExistingMemory(
        id=mid,
        category=c.category,
        kind=c.kind,
        content=c.content,
        entities=c.entities,
        slot=c.slot,
        values=c.values,
        confidence=c.confidence,
        occurred_at=at,
    )


# ---- habitual use of a named service / tool / brand ------------------------------------------
def test_switching_a_used_service_supersedes_the_old_one():
    old = one("I stream podcasts on Castbox.")
    new = one("We no longer use Castbox; I stream podcasts on Overcast now.")
    assert slots_compatible(old.slot, new.slot)
    d = decide(new, T1, [as_memory(old)], {1: 0.6})
    assert d.action == "supersede"


def test_no_longer_using_a_service_negates_it():
    old = one("I bank with Lloyds.")
    new = one("We no longer bank with Lloyds.")
    assert new.slot == old.slot and new.values == ["!Lloyds"]
    assert decide(new, T1, [as_memory(old)], {1: 0.8}).action == "supersede"


def test_two_different_tools_for_two_jobs_do_not_conflict():
    a = one("我用 Bear 记笔记")
    b = one("我用 Todoist 管待办")
    assert not slots_compatible(a.slot, b.slot)
    assert decide(b, T1, [as_memory(a)], {1: 0.7}).action == "create"


def test_a_plain_new_state_after_a_move_supersedes_the_old_landlord():
    old = one("我的房东是钱先生")
    new = one("搬家了，新房东是周阿姨")
    assert old.slot == new.slot == "thing:房东"
    assert decide(new, T1, [as_memory(old)], {1: 0.5}).action == "supersede"


def test_newer_equally_firm_update_supersedes_but_plain_remark_does_not():
    old = one("我现在用的网盘是百度网盘")
    firm = one("网盘换成天翼云盘了")
    assert decide(firm, T1, [as_memory(old)], {1: 0.6}).action == "supersede"
    plain = ExistingMemory(**{**as_memory(firm).__dict__, "id": 2})
    remark = one("我的网盘是天翼云盘")
    remark.values = ["夸克网盘"]
    assert decide(remark, T1, [as_memory(old)], {1: 0.6}).action == "observe_conflict"
    del plain


# ---- "phone plan" is not a plan -----------------------------------------------------------
def test_a_phone_plan_moved_to_a_carrier_is_not_a_plan():
    c = one("I moved my phone plan to Visible last month.")
    assert c.category != "plan"
    assert c.slot == "thing:手机套餐" and c.values == ["Visible"]
    assert one("I plan to visit Lisbon in June.").category == "plan"


# ---- normalised thing nouns --------------------------------------------------------------------
@pytest.mark.parametrize(
    "a,b",
    [
        ("groceries", "grocery delivery"),
        ("云盘", "网盘"),
        ("notes", "笔记"),
        ("phone plan", "carrier"),
    ],
)
def test_synonyms_and_word_forms_share_a_thing(a, b):
    assert normalize_thing(a) == normalize_thing(b)


def test_grocery_and_groceries_statements_share_a_slot():
    a = one("We get our groceries delivered by Picnic.")
    b = one("We've switched our grocery delivery to Gorillas now.")
    assert slots_compatible(a.slot, b.slot)


def test_we_at_work_stays_the_team():
    assert "team" in one("We deploy our services on Fly.io.").content


# ---- brand prefixes and provider roles in the alias map --------------------------------------
def test_brand_followed_by_a_product_word_is_not_the_brand():
    assert aliases.find_entities("我用阿里云盘存照片") == ["网盘"]
    assert aliases.find_entities("我们用阿里云部署服务") == ["阿里云"]
    assert "苹果" in aliases.find_entities("我用苹果手机")


@pytest.mark.parametrize(
    "query,role",
    [
        ("who files my taxes this year", "会计"),
        ("帮我约个洗牙", "牙医"),
        ("I need a haircut", "理发师"),
        ("who walks the dog on Fridays", "遛狗师"),
        ("房租交给谁", "房东"),
    ],
)
def test_task_words_find_the_provider(query, role):
    assert role in aliases.find_entities(query)


def test_provider_nouns_and_plurals_are_entities():
    assert aliases.normalize_entity("accountant") == "会计"
    assert aliases.find_entities("we switched dentists") == ["牙医"]
    assert {"会计", "accountant", "会计师"} <= aliases.expand_entity("会计")
    # task words are a query-side mapping only: statements keep their own entities
    assert not aliases.find_entity_spans("I filed my taxes")


def test_a_need_that_follows_now_is_no_change():
    from memory.extraction.rules.markers import CHANGE_RE

    assert CHANGE_RE.search("The user is vegetarian now")
    assert CHANGE_RE.search("now I commute by ferry")
    assert not CHANGE_RE.search("now I need a new plumber around here")
    assert not CHANGE_RE.search("Now the user wants a quieter gym")


def test_a_thing_said_again_with_other_values_is_no_other_job():
    # two "thing:" slots, but no tool named for a job: the lesson moved
    a = one("我儿子乐乐每周三晚上七点上钢琴课")
    b = one("钢琴老师调整了时间，乐乐的课以后都改成周六上午十点了")
    assert not slots_compatible(a.slot, b.slot)
    assert decide(b, T1, [as_memory(a)], {1: 0.59}).action == "supersede"
