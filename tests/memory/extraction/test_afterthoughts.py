"""A hedge said after a statement ("maybe next year? who knows.") doubts it; English topic cues
match words, not the front of longer words. Examples written for these tests."""

import datetime as dt

import pytest

from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.rules.markers import TOPIC_RES

T0 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


def _extract(text: str):
    turns = [Turn(role="user", content=text, event_id=1, occurred_at=T0)]
    return RuleExtractor().extract(turns).candidates


def _about(candidates, word: str):
    found = [c for c in candidates if word.lower() in c.content.lower()]
    assert found, [c.content for c in candidates]
    return found[0]


@pytest.mark.parametrize(
    "text,word",
    [
        ("I keep daydreaming about opening a bakery in Asheville. maybe in a few years?", "bakery"),
        ("最近一直琢磨着养只柯基。还没决定", "柯基"),
        # a change only wanted, not made
        ("我想把健身房换成乐刻。还没决定", "乐刻"),
    ],
)
def test_a_hedge_after_a_statement_makes_it_tentative(text, word):
    assert _about(_extract(text), word).confidence < 0.6


@pytest.mark.parametrize(
    "text,word",
    [
        # a completed change stays firm, whatever doubt follows about the future
        ("换了新工作，在小红书做运营。不过还不确定能待多久", "小红书"),
        # a hedge that names its own thing doubts only that thing
        ("I moved to Tucson in March. Maybe I'll get a dog.", "Tucson"),
    ],
)
def test_a_later_hedge_does_not_undo_a_completed_change_or_another_thing(text, word):
    assert _about(_extract(text), word).confidence >= 0.7


def test_english_topic_cues_match_whole_words_with_their_inflections():
    def slots(text):
        return [slot for rx, slot in TOPIC_RES if rx.search(text)]

    assert "flight.seat" not in slots("We are flying to Seattle")
    assert "flight.seat" in slots("window seats, please")
    assert "allergy" in slots("my son is allergic to eggs")


@pytest.mark.parametrize(
    "text,word",
    [
        # the doubt is about the cause; the drug was changed
        ("师傅说可能是水管老化了，上周把热水器换成了史密斯的。", "史密斯"),
        (
            "The vet thinks it might be allergies, so we switched Biscuit to a salmon kibble.",
            "salmon",
        ),
    ],
)
def test_a_change_made_in_a_clause_of_its_own_stays_firm_beside_a_hedged_clause(text, word):
    assert _about(_extract(text), word).confidence >= 0.7


@pytest.mark.parametrize(
    "text,word",
    [
        ("我可能会把宽带换成电信的。", "电信"),
        # a firm word not yet true is no change made
        ("物业好像要把停车费改成每月300，不过还没正式通知", "停车费"),
        ("Maybe we'll switch Biscuit to a salmon kibble.", "salmon"),
    ],
)
def test_a_hedged_change_stays_tentative(text, word):
    assert _about(_extract(text), word).confidence < 0.6


@pytest.mark.parametrize(
    "text,word",
    [
        # somebody's words after the statement are theirs: the grade is the user's fact
        ("女儿三年级的班主任布置了手抄报，她说完全不会画。", "三年级"),
        ("My son Leo just started at Oakridge High, he says the cafeteria is awful.", "Oakridge"),
    ],
)
def test_a_report_after_a_statement_leaves_the_statement_firm(text, word):
    assert _about(_extract(text), word).confidence >= 0.7


@pytest.mark.parametrize(
    "text,word",
    [
        # a change still ahead is not made, whatever its verb: the trailing doubt holds
        ("我下个月搬去苏州，还没定", "苏州"),
        ("I'll move to Raleigh next spring, not sure yet.", "Raleigh"),
        ("听说公司要搬到浦东了", "浦东"),
    ],
)
def test_a_change_still_ahead_with_a_doubt_stays_tentative(text, word):
    assert _about(_extract(text), word).confidence < 0.6


def test_it_is_the_one_thing_the_sentence_before_named_even_in_a_question():
    found = _extract("can I charge a Kia EV6 from a normal outlet? it's our only car")
    assert "EV6" in _about(found, "only car").content
    # the weather's "it" is no city
    assert not any("Denver is" in c.content for c in _extract("Is it snowing in Denver? it's cold"))


def _conversation(*texts: str):
    turns = []
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "assistant"
        turns.append(Turn(role=role, content=text, event_id=i + 1, occurred_at=T0))
    return RuleExtractor().extract(turns).candidates


def test_a_turn_that_takes_back_what_was_wanted_doubts_it():
    found = _conversation(
        "I want to move my phone plan over to Visible, it's way cheaper.",
        "Visible runs on Verizon's network; want me to compare the plans?",
        "never mind, the contract with T-Mobile still runs till June.",
    )
    assert _about(found, "Visible").confidence < 0.6


def test_taking_back_a_request_leaves_a_change_made_alone():
    found = _conversation(
        "我上周把宽带换成联通的了，帮我查下怎么设置路由器",
        "好的，请问路由器是什么型号？",
        "算了，我自己弄吧",
    )
    assert _about(found, "联通").confidence >= 0.7


@pytest.mark.parametrize(
    "text,word",
    [
        # a clause that is only a hedge, between two that say something
        ("年底换个大点的房子吧，maybe，看首付攒得怎么样", "房子"),
        # a filler opening the afterthought names nothing
        (
            "I'm going to move to Denver. Well, that's the dream anyway, "
            "I haven't even looked at flats.",
            "Denver",
        ),
    ],
)
def test_a_bare_hedge_or_a_dream_afterwards_doubts_the_plan(text, word):
    assert _about(_extract(text), word).confidence < 0.6


def test_a_kind_of_thing_is_no_hedge():
    found = _about(
        _extract("I'm more of a blues guy, BB King, Muddy Waters, that kind of thing."), "blues"
    )
    assert found.confidence >= 0.6
