"""Generic "thing + value" slots for topics outside the lexicon, and cleaner preference texts.

Sentences here are written for the tests, not taken from any evaluation scenario.
"""

import pytest

from memory.decisions import decide, slots_compatible
from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.slots.generic import generic_slot

EX = RuleExtractor()


def cands(*texts):
    turns = [
        Turn("assistant", t[2:].strip()) if t.startswith("A:") else Turn("user", t) for t in texts
    ]
    return EX.extract(turns).candidates


@pytest.mark.parametrize(
    "old,new,slot",
    [
        ("我们家净水器用的是安吉尔", "净水器已经换成沁园了", "thing:净水器"),
        ("我的瑜伽老师是小美", "瑜伽老师换了，现在改成阿珍带我", "thing:瑜伽老师"),
        ("我在用的记账软件是随手记", "记账软件我改用鲨鱼记账了", "thing:记账软件"),
        ("My plumber is Dr. Ortiz.", "I've switched plumbers. It's now Bob Lane.", "thing:plumber"),
        (
            "Our internet is with Comcast.",
            "We moved our internet to Sonic last month.",
            "thing:宽带",  # synonyms share one slot: internet / broadband / 宽带
        ),
        (
            "My podcast app is Overcast.",
            "I switched my podcast app to Pocket Casts.",
            "thing:podcast app",
        ),
    ],
)
def test_change_maps_old_and_new_statement_to_one_slot(old, new, slot):
    a, b = generic_slot(old), generic_slot(new)
    assert a[0] == slot and b[0] == slot
    assert a[1] and b[1] and not {v.lower() for v in a[1]} & {v.lower() for v in b[1]}


@pytest.mark.parametrize(
    "old,new",
    [
        ("送水工每周二上午来", "以后送水工改成每周四下午来"),
        ("我每周三晚上去上书法课", "书法课改到每周五晚上了"),
        ("The dog groomer comes every Tuesday morning.", "The dog groomer comes every Friday now."),
    ],
)
def test_schedule_of_an_unknown_routine_is_the_value(old, new):
    (sa, va), (sb, vb) = generic_slot(old), generic_slot(new)
    assert sa and sb and slots_compatible(sa, sb)
    assert any(v.startswith("周") for v in va) and any(v.startswith("周") for v in vb)
    assert not set(va) & {v for v in vb if v.startswith("周")}


def test_activity_after_the_schedule_needs_a_verb_lead():
    assert generic_slot("周五下午太晚了")[0] == ""
    assert generic_slot("每周六早上我有网球课")[0] == "thing:网球课"


def test_unrelated_things_get_unrelated_slots():
    a, b = generic_slot("我的牙医是钱医生")[0], generic_slot("我的眼科医生是李医生")[0]
    assert a and b and not slots_compatible(a, b)
    c, d = generic_slot("My gym is Iron Works.")[0], generic_slot("My pool is Blue Lagoon.")[0]
    assert not slots_compatible(c, d)


def test_firm_change_supersedes_old_statement_end_to_end():
    from tests.memory.test_decisions import T0, T1, mem

    old = cands("我们家净水器用的是安吉尔")[0]
    new = cands("净水器已经换成沁园了")[0]
    assert new.confidence >= old.confidence + 0.15
    existing = [
        mem(
            id=1,
            category=old.category,
            content=old.content,
            slot=old.slot,
            values=old.values,
            confidence=old.confidence,
            occurred_at=T0,
        )
    ]
    assert decide(new, T1, existing, {1: 0.5}).action == "supersede"


def test_hedged_change_is_not_firm():
    c = cands("也许以后净水器换成沁园吧，还没想好")
    assert not c or c[0].confidence < 0.6


def test_statement_recognised_only_through_generic_slot():
    (c,) = cands("My tailor is Marco Bellini.")
    assert c.slot == "thing:tailor" and c.values == ["Marco Bellini"]
    assert c.content == "The user's tailor is Marco Bellini."


def test_two_sentence_switch_and_titles_are_one_statement():
    (c,) = cands("I finally switched vets. It's now Dr. Chen.")
    assert c.slot == "thing:vet" and c.values == ["Dr. Chen"]
    assert "it's now Dr. Chen" in c.content


def test_household_pronoun_rewrite():
    (c,) = cands("我们家洗衣机用的是海尔")
    assert c.content.startswith("用户家洗衣机")


def test_dislike_never_gets_preference_prefix():
    (c,) = cands("芒果千万别放")
    assert not c.content.startswith("用户偏好") and "芒果千万别放" in c.content
    assert c.values == ["!芒果"] or not c.values or c.values[0].startswith("!")


def test_answer_fragment_becomes_sentence():
    (c,) = cands("A:请问您对座位有什么偏好？", "过道，我腿比较长")
    assert c.content.startswith("用户偏好过道") and "：" not in c.content
    assert "腿比较长" in c.content
