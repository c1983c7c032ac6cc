"""RuleExtractor: triggers, ignores, hedges, emphasis, corrections, slots (zh + en).

Sentences here are written for the tests, not taken from the evaluation scenarios.
"""

import time

import pytest

from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.language.dates import schedule_values
from memory.language.numerals import normalize_amount, zh_number

EX = RuleExtractor()


def run(*texts: str) -> list[Candidate]:
    turns = []
    for t in texts:
        if t.startswith("A:"):
            turns.append(Turn("assistant", t[2:].strip()))
        else:
            turns.append(Turn("user", t.removeprefix("U:").strip()))
    return EX.extract(turns).candidates


def one(*texts: str) -> Candidate:
    cands = run(*texts)
    assert len(cands) == 1, [c.content for c in cands]
    return cands[0]


def test_name_and_result_shape():
    res = EX.extract([Turn("user", "我不吃辣。")])
    assert EX.name == "rules-v1"
    assert res.extractor == "rules-v1"
    assert res.candidates[0].source_index == 0
    assert res.candidates[0].source_quote == "我不吃辣。"


# ---- triggers (the case tables are in cases/*.json, test_cases.py) -------------------------------
def test_content_is_declarative_about_the_user():
    assert one("我不吃辣。").content.startswith("用户")
    c = one("I usually take the train between Beijing and Shanghai.")
    assert c.content == "The user usually takes the train between Beijing and Shanghai."


def test_standing_instruction_is_procedural():
    c = one("以后给我回邮件都用英文，开头不要寒暄。")
    assert c.kind == "procedural" and c.category == "preference"
    c = one("From now on, keep answers under 200 words.")
    assert c.kind == "procedural"
    assert c.slot.startswith("style") and "concise" in c.values


def test_plain_fact_is_semantic():
    assert one("我对猫毛过敏。").kind == "semantic"


# ---- ignores -------------------------------------------------------------------------------------
def test_assistant_turns_are_context_only():
    assert run("A:您偏好靠窗还是过道？我猜您喜欢靠窗。") == []


def test_task_arguments_are_not_facts():
    # the clause after a one-off request describes the request, not the person
    assert run("帮我发个通知，全组下周一开始用新的考勤系统。") == []


def test_new_from_limits_extraction():
    turns = [Turn("user", "我不吃辣。"), Turn("assistant", "好的"), Turn("user", "我对虾过敏。")]
    cands = EX.extract(turns, new_from=1).candidates
    assert [c.source_index for c in cands] == [2]


def test_pii_clauses_are_dropped():
    c = one("我住在深圳南山，电话 13800138000。")
    assert "13800138000" not in c.content and "深圳" in c.content


# ---- hedges, firmness, emphasis ------------------------------------------------------------------
def test_plain_vs_firm_confidence():
    plain = one("我出差一般坐东航。")
    firm = one("公司新规定，以后出差统一坐国航，从下个月开始执行。")
    assert plain.confidence == pytest.approx(0.75)
    assert firm.confidence >= 0.85
    assert firm.confidence >= plain.confidence + 0.15
    en_plain = one("For coffee I usually get a flat white.")
    en_firm = one("New standing order: a cappuccino every morning, from now on.")
    assert en_firm.confidence >= en_plain.confidence + 0.15
    assert en_plain.slot == en_firm.slot == "coffee"


def test_emphasis_and_safety_raise_importance():
    plain = one("我不喝可乐。")
    emph = one("一定记住，我不喝可乐。")
    assert emph.importance > plain.importance
    assert one("I'm allergic to penicillin.").importance >= 0.9
    assert one("我对芒果严重过敏。").importance >= 0.9


# ---- corrections -----------------------------------------------------------------------------
def test_correction_rewrites_assistant_paraphrase():
    c = run(
        "帮我记一下，季度复盘会定在周五下午。",
        "A:好的，已记录：季度复盘会周四下午。",
        "不对，是周五，不是周四。",
    )[-1]
    assert c.category == "correction"
    assert "周五" in c.content and "周四" not in c.content
    assert c.confidence >= 0.85


def test_correction_en_without_paraphrase():
    c = one("No, I said Lisbon, not Porto.")
    assert c.category == "correction" and "Lisbon" in c.content


def test_correction_values_keep_only_the_right_one():
    c = run("我们项目用的是 React 18", "A:好的", "改一下，不是 React 是 Vue，我说错了。")[-1]
    assert c.category == "correction"
    assert c.values == ["Vue"]


# ---- slots and values ------------------------------------------------------------------------
def test_hotel_slot_shared_values_differ():
    a = one("我出差习惯住如家，离地铁近。")
    b = one("以后出差统一订希尔顿，这是公司新标准。")
    assert a.slot == b.slot == "hotel"
    assert a.values == ["如家"] and b.values == ["希尔顿"]


def test_meeting_slot_with_team_and_schedule():
    a = one("我们市场部的例会是每周二下午四点。")
    b = one("市场部周会从下周开始改到每周五上午九点半了。")
    assert a.slot == b.slot == "meeting:市场部"
    assert a.values == ["周二", "16:00"]
    assert b.values == ["周五", "09:30"]


def test_budget_slot_normalises_amounts():
    a = one("今年团建预算是三万。")
    b = one("团建预算最终定为 4.5 万。")
    assert a.slot == b.slot
    assert a.values == ["30000"] and b.values == ["45000"]
    assert one("My budget for the laptop is around $2,000.").values == ["2000"]


def test_stack_slot():
    a = one("我们后端主要用 Python，框架是 Django。")
    b = one("后端技术栈定了，统一改为 Go。")
    assert a.slot == b.slot == "stack:backend"
    assert "Python" in a.values and b.values == ["Go"]


def test_paraphrases_share_slot_and_values():
    cands = [one(t) for t in ("我是吃素的。", "我不吃肉。", "I'm vegetarian, remember that.")]
    assert {c.slot for c in cands} == {"diet"}
    assert all(c.values == ["素食"] for c in cands)
    seats = [one(t) for t in ("I like aisle seats.", "Always put me on the aisle.")]
    assert {c.slot for c in seats} == {"flight.seat"} and all(c.values == ["过道"] for c in seats)


def test_negated_values():
    c = one("我不吃香菜。")
    assert c.values == ["!香菜"]
    assert one("Please never suggest MongoDB to me.").values == ["!MongoDB"]


def test_style_values():
    c = one("以后写报告先说结论，用要点列表，不要大段文字。")
    assert c.slot == "style:report"
    assert {"conclusion_first", "bullets", "!narrative"} <= set(c.values)


def test_entities_are_normalised():
    c = one("以后推荐饭店别选川菜馆子。")
    assert "餐厅" in c.entities


def test_same_turn_sentences_about_one_topic_merge():
    c = one("我们前端用 Svelte。新项目也继续用 Svelte。")
    assert c.slot == "stack:frontend" and c.values == ["Svelte"]


def test_answer_to_assistant_question():
    c = run("推荐几家咖啡店", "A:您平时喝什么咖啡？", "美式，不加奶。")[-1]
    assert c.category == "preference" and "美式" in c.content and c.slot == "coffee"
    c = run("Help me size the cluster", "A:How many nodes do you run today?", "About 40, all ARM.")[
        -1
    ]
    assert "40" in c.content and c.category == "fact"


# ---- helpers ---------------------------------------------------------------------------------
def test_number_helpers():
    assert zh_number("一千五") == 1500
    assert zh_number("十二") == 12
    assert zh_number("两百") == 200
    assert normalize_amount("八", "万") == "80000"
    assert normalize_amount("5", "万") == "50000"
    assert normalize_amount("1.5", "k") == "1500"
    assert schedule_values("每周三下午三点") == ["周三", "15:00"]
    assert schedule_values("Thursdays at 2pm") == ["周四", "14:00"]
    assert schedule_values("星期一上午九点半") == ["周一", "09:30"]


@pytest.mark.parametrize(
    "text,values",
    [
        # abbreviated days are days in a list of days or after a word that takes a day
        ("yoga is mon and wed evenings", ["周一", "周三", "晚上"]),
        ("mon, wed & fri", ["周一", "周三", "周五"]),
        ("pickup on weds", ["周三"]),
        ("swim class is sat mornings now", ["周六", "上午"]),
        ("I sat down and the sun came out", []),
        # the half of the day after a clock time, and after a range for both ends
        ("dinner at 7:30pm", ["19:30"]),
        ("tues/thurs 6:30-7:30pm", ["周二", "周四", "18:30", "19:30"]),
        ("11:30 am-1pm", ["11:30", "13:00"]),
    ],
)
def test_schedule_values_read_days_and_times_as_people_type_them(text, values):
    assert schedule_values(text) == values


def test_throughput():
    turns = [
        Turn("user", "我们产品部的周会是每周一上午十点，以后排日程避开这个时间。"),
        Turn("assistant", "好的，已记录：产品部周会每周一上午 10 点。"),
        Turn("user", "I always prefer the aisle, and never book red-eye flights."),
        Turn("assistant", "Noted."),
        Turn("user", "帮我写一个组件。"),
    ] * 20
    start = time.perf_counter()
    EX.extract(turns)
    assert len(turns) / (time.perf_counter() - start) > 300


# ---- generalisation rules (held-out round) -------------------------------------------------------
def test_month_name_makes_a_plan():
    c = one("I'm relocating to Lisbon in October for my partner's job.")
    assert c.category == "plan"
    assert "Lisbon" in c.content


def test_standing_lead_without_first_person_is_an_instruction():
    c = one("以后写会议纪要第一行就写结论，行动项单独列出来")
    assert c.category == "preference"
    assert c.kind == "procedural"
    assert "行动项" in c.content


def test_relative_revision_of_the_current_reply_is_not_a_preference():
    assert run("A:Here is the draft.", "U:再口语化一点") == []
    assert run("A:Here is the draft.", "U:make it shorter") == []
    # ...but a standing one is
    assert one("以后都写得口语化一点").kind == "procedural"


def test_health_condition_is_a_profile_fact():
    c = one("我有哮喘，平时随身带着喷雾")
    assert c.category == "profile"
    assert c.importance >= 0.9


def test_medicine_warning_is_important():
    c = one("我在吃降压药，西柚这类东西不能吃")
    assert c.importance >= 0.9


def test_final_call_header_is_a_decision_without_the_header():
    c = one("Final call from finance: invoices go through Xero from now on.")
    assert c.category == "decision"
    assert "Final call" not in c.content
    assert "Xero" in c.content


def test_discourse_fillers_are_dropped_from_content():
    c = one("老样子，冰美式不加糖，我夏天基本只喝这个")
    assert not c.content.startswith("用户偏好：老样子")
    assert "冰美式" in c.content
    c = one("Honestly, I prefer paper notebooks for meetings.")
    assert "honestly" not in c.content.lower()
    c = one("Note that my landlord only accepts bank transfers.")
    assert not c.content.lower().startswith(("note", "about the user: note"))


def test_bare_complaint_before_an_instruction_is_dropped():
    c = one("A:（一大段说明）", "U:太啰嗦了。以后回答我先给结论，再列步骤")
    assert "太啰嗦" not in c.content
    assert "结论" in c.content
    assert "concise" in c.values


def test_not_but_correction_of_the_assistant_record():
    c = one("A:好的，已记录：您的车牌尾号是 3。", "U:不是3，是8。")
    assert c.category == "correction"
    assert "8" in c.content and "3" not in c.content
    # without a wrong value in the assistant's words it is no correction
    assert all(x.category != "correction" for x in run("A:好的。", "U:不是我不想去，是最近真没空"))


def test_correction_keeps_numbers_whole():
    c = one("A:好的，已设置：每月5号交物业费。", "U:你听错了，是25号，不是5号")
    assert "25号" in c.content
    assert "每月5号" not in c.content


def test_recurring_activity_schedule_has_a_slot():
    old = one("我每周一、周三早上去游泳，这两天早上别约我")
    new = one("游泳时间改了，从下周开始固定在每周二和周六早上")
    assert old.slot == new.slot == "routine:游泳"
    assert "周一" in old.values and "周二" in new.values
    assert new.confidence >= old.confidence + 0.15


def test_ci_tools_are_a_stack_slot():
    old = one("我们的 CI 用的是 GitLab CI")
    new = one("CI 已经全部迁到 GitHub Actions 了")
    assert old.slot == new.slot == "stack:ci"
    assert new.confidence >= old.confidence + 0.15


def test_long_statement_with_deictic_is_kept():
    c = one("我们家比较偏爱布艺沙发，就是那种可以拆洗的，皮的夏天太黏")
    assert "布艺沙发" in c.content


def test_a_mark_inside_a_word_ends_no_sentence():
    from memory.language.text import split_sentences

    assert split_sentences("账号 chenyu_ops 密码 Qw!9zLm#42，是不是过期了") == [
        "账号 chenyu_ops 密码 Qw!9zLm#42，是不是过期了"
    ]
    assert split_sentences("太好了!我明天去. Really? yes") == [
        "太好了!",
        "我明天去.",
        "Really?",
        "yes",
    ]


def test_a_space_between_chinese_characters_is_a_comma():
    from memory.language.text import join_clauses, split_clauses

    clauses = split_clauses("帮我找个健身房 我在五道口上班 最好带泳池")
    assert [c.strip() for c in clauses] == ["帮我找个健身房", "我在五道口上班", "最好带泳池"]
    assert join_clauses([c.strip() for c in clauses[1:]], True) == "我在五道口上班，最好带泳池"
    # between a character and a Latin word a space is only a space
    assert len(split_clauses("住 Brooklyn 的 apartment 太干了")) == 1


def test_a_lowercase_question_after_a_number_is_a_sentence_of_its_own():
    from memory.language.text import split_sentences

    assert split_sentences("they gave me a Dell XPS 13. how do i turn off the fan?") == [
        "they gave me a Dell XPS 13.",
        "how do i turn off the fan?",
    ]
    # an answer that goes on after a number stays one sentence
    assert len(split_sentences("size 10. also wide feet")) == 1
