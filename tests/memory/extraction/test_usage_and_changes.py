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
from memory.extraction.slots.usage import usage_slot

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
@pytest.mark.parametrize(
    "text,slot,value",
    [
        ("I read my news on Feedly.", "thing:news", "Feedly"),
        ("We buy our pet supplies from Petco.", "thing:pet supply", "Petco"),
        ("I listen to audiobooks on Libby.", "thing:audiobook", "Libby"),
        ("I do my banking with Starling.", "thing:banking", "Starling"),
        ("I use Things 3 to manage my tasks.", "thing:待办", "Things 3"),
        ("Raindrop is what I use for bookmarks.", "thing:bookmark", "Raindrop"),
        ("Our groceries come from Sainsbury's now.", "thing:grocery", "Sainsbury's"),
        ("我用 Bear 记笔记", "thing:笔记", "Bear"),
        ("我用有道云笔记管待办", "thing:待办", "有道云笔记"),
        ("我看视频一般用哔哩哔哩", "thing:视频", "哔哩哔哩"),
        ("我平时在奈雪买奶茶", "thing:奶茶", "奈雪"),
        ("我在威尔仕健身", "thing:健身", "威尔仕"),
        ("我的文件都存在曲奇云盘里", "thing:文件", "曲奇云盘"),
    ],
)
def test_habitual_use_of_a_named_service_is_a_preference_with_a_slot(text, slot, value):
    c = one(text)
    assert c.category == "preference"
    assert c.slot == slot and c.values == [value]
    assert value in c.content


@pytest.mark.parametrize(
    "text",
    [
        "I went to Paris in May.",
        "I fly to Singapore twice a month for work.",
        "I keep my keys in the drawer.",
        "我用手机拍照",
    ],
)
def test_no_usage_slot_without_a_named_service(text):
    assert usage_slot(text) == ("", [])


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


# ---- change statements are firm; hedged ones stay tentative -----------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "搬家了，新房东是周阿姨",
        "游泳教练换了，现在是何教练",
        "书法课挪到周日上午了",
        "我不再用印象笔记了，现在用 Obsidian",
        "Our new cleaner is Rosa.",
        "We no longer bank with Lloyds.",
    ],
)
def test_explicit_change_statements_are_firm(text):
    assert one(text).confidence >= 0.9


@pytest.mark.parametrize(
    "text",
    [
        "书法课可能要挪到周日",
        "也许新房东是周阿姨，还没定",
        "Maybe our new cleaner is Rosa, not sure.",
    ],
)
def test_hedged_changes_stay_below_the_active_threshold(text):
    cs = [c for c in EX.extract([Turn("user", text)]).candidates if c.kind != "episodic"]
    assert all(c.confidence < 0.6 for c in cs)


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


# ---- natural contents --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,expected",
    [
        ("网盘我已经改用天翼云盘了", "用户的网盘已经改用天翼云盘了"),
        ("猫砂现在改成豆腐砂了", "用户的猫砂现在改成豆腐砂了"),
        ("搬家了，新房东是周阿姨", "用户搬家了，新房东是周阿姨"),
        ("From now on the babysitter comes on Thursdays.", "From now on, the user's babysitter"),
        ("Raindrop is what I use for bookmarks.", "The user uses Raindrop for bookmarks."),
        ("We get our milk delivered by Milk & More.", "The user's family gets their milk"),
    ],
)
def test_contents_are_natural_sentences_keeping_the_users_words(text, expected):
    c = one(text)
    assert c.content.startswith(expected), c.content
    assert "用户的情况：" not in c.content and "standing instruction" not in c.content


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
