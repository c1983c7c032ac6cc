"""Round 5: corrections rewriting the assistant's statement, language slots, English routines,
PII glued to Chinese, resolved deliberation, rent amounts, future moves (own sentences)."""

from memory.decisions import decide
from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.rules.facts import en_routine
from memory.language.redaction import contains_pii

X = RuleExtractor()


def run(*turns):
    ts = [Turn(role, text) for role, text in turns]
    return X.extract(ts, new_from=len(ts) - 1).candidates


def test_correction_rewrites_assistant_statement_without_record_mark():
    (c,) = run(
        ("user", "我妈生日是九月初三，记得提醒我"),
        ("assistant", "好的，妈妈生日九月初八，到时候我提前一天提醒你。"),
        ("user", "说的是初三，不是初八"),
    )
    assert c.category == "correction"
    assert "用户妈妈的生日是九月初三" in c.content and "初八" not in c.content


def test_correction_number_inside_date_not_split():
    (c,) = run(
        ("assistant", "收到，体检安排在十一月二十号上午。"),
        ("user", "不对，是十二月，不是十一月"),
    )
    assert "十二月二十号" in c.content and "十一月" not in c.content


def test_correction_skips_assistant_action_clause():
    (c,) = run(
        ("assistant", "OK, Dana's flight lands Friday, I'll ping you Friday morning."),
        ("user", "No, I said Saturday, not Friday"),
    )
    assert "Saturday" in c.content and "Friday" not in c.content
    assert "I'll" not in c.content and "the assistant" not in c.content.lower()


def test_correction_without_wrong_value_keeps_generic_form():
    (c,) = run(("assistant", "好的，已经帮你查好了。"), ("user", "说的是北京，不是天津"))
    assert c.category == "correction" and "北京" in c.content


def test_language_slot_merges_restated_instruction():
    (a,) = run(("user", "往后发周报统一用英文，中英夹杂看着累"))
    (b,) = run(("user", "周报一律英文"))
    assert a.slot == b.slot == "language:weekly_report"
    assert a.values == b.values == ["英文"]
    assert a.category == b.category == "preference"


def test_language_slot_negated_and_reply_default():
    (c,) = run(("user", "from now on always answer me in Chinese, not English"))
    assert c.slot == "language:answer" and c.values == ["中文"]
    assert run(("user", "我的英语口语很一般")) == [] or all(
        not c.slot.startswith("language:") for c in run(("user", "我的英语口语很一般"))
    )


def test_language_slot_values_conflict():
    from tests.memory.test_decisions import T1, cand, mem

    old = mem(slot="language:email", values=["中文"], content="用户要求：邮件都用中文")
    d = decide(
        cand(slot="language:email", values=["中文"], content="用户要求：邮件一律中文"),
        T1,
        [old],
        {1: 0.5},
    )
    assert d.action.startswith("merge")


def test_english_routines_with_any_verb():
    cases = {
        "I cycle to the office every weekday": "routine:骑行",
        "I feed the cat twice a day": "routine:feed cat",
        "I journal nightly": "routine:journal",
    }
    for text, slot in cases.items():
        (c,) = run(("user", text))
        assert c.category == "fact" and c.slot == slot, (text, c)
        assert c.content.startswith("The user") and c.values


def test_english_routine_not_for_past_or_modal():
    assert en_routine("I walked to school every day as a kid") is None
    assert en_routine("I should stretch every morning") is None
    assert en_routine("I want coffee every morning") is None


def test_routine_keeps_general_slot_when_present():
    (c,) = run(("user", "I take guitar lessons every Thursday evening"))
    assert c.slot == "thing:guitar lesson"


def test_pii_glued_to_chinese_is_dropped():
    assert contains_pii("我的邮箱是lily.w@example.org")
    cands = run(("user", "联系邮箱是lily.w@example.org，我平时习惯用邮件沟通"))
    assert all("lily.w@example.org" not in c.content for c in cands)


def test_resolved_deliberation_is_firm():
    (c,) = run(("user", "买车犹豫了好久，最终决定买混动的，不买纯电了"))
    assert c.category == "decision" and c.confidence >= 0.75
    (h,) = run(("user", "我在犹豫要不要换工作，也许会决定留下"))
    assert h.confidence < 0.6


def test_rent_amount_slot():
    (a,) = run(("user", "租金每月两千八，押一付三"))
    (b,) = run(("user", "房东通知了，租金现在是每月三千"))
    assert a.slot == b.slot == "rent" and a.values and b.values and a.values != b.values


def test_future_move_is_plan():
    (c,) = run(("user", "下周六要搬到城西的新小区"))
    assert c.category == "plan"
