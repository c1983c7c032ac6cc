"""Values are part of the fact: a price or a bare figure ("月供 5200", "up to $2,150"), a name
standing beside a statement ("就一台电脑，ThinkPad X1"), a weight measured today; and taking
back what one said ("我记错了", "my mistake") makes the rest a change. Examples written for
these tests."""

import datetime as dt

import pytest

from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.rules.markers import only_takes_back
from memory.extraction.salience import has_quantity

T0 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


def _extract(*texts: str):
    turns = [Turn(role="user", content=t, event_id=i, occurred_at=T0) for i, t in enumerate(texts)]
    return RuleExtractor().extract(turns).candidates


def _contents(*texts: str) -> list[str]:
    return [c.content for c in _extract(*texts)]


@pytest.mark.parametrize(
    "text,value",
    [
        ("月供 5200，压力挺大", "5200"),
        ("the landlord agreed, so I'll pay $2,150 for the new place", "$2,150"),
        ("我们家就一台电脑，ThinkPad X1，装 Ubuntu 行不行？", "ThinkPad"),
        ("this morning I weighed 164 lbs", "164"),
        ("今天早上称了一下，63.5公斤", "63.5"),
    ],
)
def test_the_value_of_a_statement_is_kept(text, value):
    assert any(value in c for c in _contents(text)), _contents(text)


@pytest.mark.parametrize(
    "text", ["1200", "$99", "¥3999", "利率 3.55", "budget is 1,200", "月租 6800"]
)
def test_prices_and_bare_figures_are_quantities(text):
    assert has_quantity(text)


@pytest.mark.parametrize(
    "text", ["in 2026", "10:30", "iPhone 15", "phone 186 2105 7733", "版本 1.2.3", "2026-03-04"]
)
def test_years_times_versions_and_identifiers_are_not_figures(text):
    assert not has_quantity(text)


def test_it_after_a_question_is_the_thing_named_not_its_measure():
    text = "how do I clean the filter on a Dyson V15 with a 240W motor? it's our only vacuum"
    assert any("Dyson V15 is the user's only vacuum" in c for c in _contents(text))


def test_momentary_states_still_are_not_memories():
    assert _contents("今天好困啊") == []


@pytest.mark.parametrize(
    "clause,alone",
    [
        ("等下 我说错了", True),
        ("sorry, my mistake", True),
        ("oops I was wrong about that", True),
        ("我说错了什么吗", False),
        ("过敏的是菠萝", False),
    ],
)
def test_a_clause_that_only_takes_back(clause, alone):
    assert only_takes_back(clause) is alone


@pytest.mark.parametrize(
    "text,kept,gone",
    [
        ("我记错了，车险是下个月15号到期", "车险是下个月15号到期", "记错"),
        ("oops I was wrong about that, my sister lives in Leeds", "sister lives in Leeds", "wrong"),
    ],
)
def test_taking_back_makes_the_rest_a_firm_change(text, kept, gone):
    found = [c for c in _extract(text) if kept in c.content]
    assert found, _contents(text)
    assert found[0].confidence >= 0.9
    assert gone not in found[0].content


def test_one_unit_spelled_two_ways_is_one_unit():
    from memory.extraction.topics import amounts_differ

    assert amounts_differ("今早称了 71.2kg", "用户体重 74 公斤")
    assert not amounts_differ("体重还是 74kg", "用户体重 74 公斤")
    assert amounts_differ("月租 5200", "房租 3900 一个月")


def test_an_answer_to_how_much_is_about_the_thing_not_the_city():
    from memory.extraction.dialogue import dialogue_state

    turns = [
        Turn(role="user", content="我在成都高新区，想给书房买台投影仪，墙大概三米宽"),
        Turn(role="assistant", content="三米宽的墙可以投100寸左右。预算大概多少？"),
        Turn(role="user", content="五千左右吧"),
    ]
    topic = dialogue_state(turns, 2).topic_for("五千左右")
    assert "预算" in topic and "成都" not in topic, topic


@pytest.mark.parametrize(
    "text",
    [
        "把这段话译成日语：感谢您一直以来的支持，我们下周一恢复发货。",
        "pls proofread this for me: Our team will attend the Lisbon summit on May 4.",
    ],
)
def test_material_handed_over_to_work_on_is_not_the_users(text):
    assert _contents(text) == []


def test_the_users_own_material_is_kept():
    contents = _contents("帮我总结一下我的情况：我在苏州做硬件工程师，家里养了两只猫")
    assert any("硬件工程师" in c for c in contents), contents


@pytest.mark.parametrize(
    "text,right,wrong",
    [
        ("Our son Leo turns 5 on April 9 — wait, I meant April 19.", "April 19", "April 9"),
        ("周二去深圳出差，哦不对，周三", "周三", "周二"),
        ("周会定在下午3点，不对，是4点半", "4点半", "3点"),
        ("the rent is $1,900, sorry, I meant $2,100", "$2,100", "$1,900"),
        # no marker but the apology or the typo note itself
        ("My wife's birthday is on May 13 - sorry, May 31st. Plan a dinner", "May 31st", "May 13"),
        # no common shape: the same form, differing in a numeral or spelt nearly alike
        ("我女儿上初二，不对，初三了，最近数学跟不上", "初三", "初二"),
        ("我们家住在7栋，哦不对，9栋，快递老送错", "9栋", "7栋"),
        # a "no" after catching oneself, after an ellipsis; a 不是 after 哦
        ("the vet appointment is on the 3rd... wait no, the 5th", "5th", "3rd"),
        ("我家在12楼，哦不是，是14楼，电梯常坏", "14楼", "12楼"),
        (
            "My manager is Katherine — ugh autocorrect, KATHRYN — and she hates long emails",
            "Kathryn",
            "Katherine",
        ),
    ],
)
def test_a_value_taken_back_in_passing_is_replaced(text, right, wrong):
    contents = _contents(text)
    assert any(right in c for c in contents), contents
    assert not any(wrong in c.replace(right, "") for c in contents), contents


@pytest.mark.parametrize(
    "said",
    [
        "I said no, I meant it",
        # an apology with a value of no form said before it takes nothing back
        "We live in Austin, sorry, Boston has better schools",
        "我喜欢吃苹果，不对，香蕉也行",
        # a plain "no" is no taking back
        "I take my tea at 4, no sugar",
        "我不是程序员，是设计师",
    ],
)
def test_a_correction_that_is_no_bare_value_is_left_to_the_other_rules(said):
    from memory.extraction.rules.corrections import taken_back_in_passing

    assert taken_back_in_passing(said) == said


def test_a_turn_that_only_takes_back_a_value_restates_the_turn_before():
    turns = [
        Turn(role="user", content="My son Leo turns 5 on April 9.", event_id=0, occurred_at=T0),
        Turn(role="assistant", content="Fun! Any theme?", event_id=1, occurred_at=T0),
        Turn(role="user", content="omg typo, I meant april 19 🙈", event_id=2, occurred_at=T0),
    ]
    found = RuleExtractor().extract(turns, new_from=2).candidates
    assert any("Leo" in c.content and "april 19" in c.content.lower() for c in found), [
        c.content for c in found
    ]
    assert all("I meant" in c.source_quote for c in found)  # the user's own words


@pytest.mark.parametrize(
    "text,gone",
    [("checked the booking, it's 9:15 not 7:15", "7:15"), ("是周五的课，不是周二", "周二")],
)
def test_the_value_said_to_be_wrong_leaves_the_memory(text, gone):
    contents = _contents(text)
    assert contents and not any(gone in c for c in contents), contents


@pytest.mark.parametrize(
    "text,kept,gone",
    [
        # clauses broken by spaces, as Chinese chat types them
        (
            "搬家总算搞定了 下周一去朝阳实验中学报到 哦不对 是朝阳外国语中学 打错了",
            "外国语",
            "实验",
        ),
        ("我儿子今年读五年级 不对 六年级了 英语有点跟不上", "六年级", "五年级"),
    ],
)
def test_a_value_taken_back_between_spaces_is_put_right(text, kept, gone):
    contents = _contents(text)
    assert any(kept in c for c in contents), contents
    assert not any(gone in c for c in contents), contents


def test_in_a_turn_that_puts_something_right_the_wrong_thing_goes_whatever_its_shape():
    contents = _contents(
        "我对花生过敏，吃了嗓子会肿", "等等 我说错了 是腰果过敏 不是花生 最近太累了"
    )
    assert any("腰果" in c for c in contents), contents
    assert not any("花生" in c for c in contents if "腰果" in c), contents


def test_not_in_a_plain_statement_stays():
    assert any("不是本地人" in c for c in _contents("我是成都人，不是本地人，刚来半年"))
