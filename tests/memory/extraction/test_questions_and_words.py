"""Questions typed without a question mark hold no fact about the asker; a colon inside a
formula or a clock labels nothing; 我/你 inside a longer word is no pronoun. Examples written for
these tests."""

import datetime as dt

import pytest

from memory.extraction import salience
from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.rules.rewrite import rewrite

T0 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


def _extract(*texts: str):
    turns = []
    for i, text in enumerate(texts):
        role = "assistant" if text.startswith("A: ") else "user"
        turns.append(
            Turn(
                role=role,
                content=text.removeprefix("A: "),
                occurred_at=T0 + dt.timedelta(minutes=i),
            )
        )
    return RuleExtractor().extract(turns).candidates


@pytest.mark.parametrize(
    "text",
    [
        "用 INDEX MATCH 怎么写",
        "这句话到底啥意思",
        "那 for 循环咋改",
        "whats 15% of 82.40",
        # a language asked about is no thing of one's own; "现在" is when it is asked
        "java里的接口和抽象类有啥区别",
        "kotlin和swift现在哪个更好找工作",
    ],
)
def test_a_question_asked_in_place_is_a_question(text):
    assert salience.is_question(text)


@pytest.mark.parametrize(
    "text",
    [
        "我什么都吃",
        "平时不怎么喝酒",
        "水果什么的都行",
        "二年级作业怎么这么多啊",
        # told before it is asked: a time, a place, a thing of one's own
        "打算十月考 CPA 有什么建议",
        "杭州西溪这边有啥好吃的",
        "iphone 15上怎么关掉自动亮度",
    ],
)
def test_words_of_question_that_ask_nothing_or_follow_a_statement(text):
    assert not salience.is_question(text)


def test_a_follow_up_question_is_not_remembered():
    found = _extract(
        "帮我把这个公式改成找不到时显示0 =SUMIF(B:B,E2,C:C)",
        "A: =IFERROR(SUMIF(B:B,E2,C:C),0)",
        "用 SUMIFS 怎么写",
    )
    assert not any("SUMIFS" in c.content for c in found), found


def test_a_colon_inside_a_clock_time_is_no_label():
    # a one-off request: the colon of "15:45" does not make it a note to keep ("帮我记一下：…")
    found = _extract("帮我改下这段 15:45 集合的通知，别写太长")
    assert not any(c.kind == "procedural" for c in found), found


def test_a_question_of_one_sentence_in_english_chat_spelling():
    found = _extract("whats 20% tip on 73.10")
    assert found == [], found


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("新公司让每个人写个自我介绍", "自我介绍"),
        ("想买个迷你冰箱放宿舍", "迷你"),
    ],
)
def test_i_and_you_inside_a_word_are_no_pronouns(said, kept):
    assert kept in rewrite(said, "zh")
    assert "用户" in rewrite("我" + said, "zh")


def test_a_thing_of_ones_own_named_as_a_requests_context_is_kept():
    found = _extract("帮我估一下明年车险大概多少 开的凯美瑞 一年跑两万公里")
    assert any("凯美瑞" in c.content for c in found), found
    # a hotel named in a booking is the booking's, not a thing the user has
    assert _extract("帮我订下周三的酒店，住全季，两晚") == []


def test_ones_own_thing_typed_in_lowercase_in_a_how_to_question():
    found = _extract("how do i hide the green dot on my galaxy s23 its driving me crazy")
    assert any("galaxy s23" in c.content and "phone" in c.content for c in found), found


def test_taking_the_draft_one_asked_for_is_no_fact():
    found = _extract(
        "帮我把这句翻译成英文：欢迎大家来到 Orbit 2.0 发布会",
        "A: Welcome to the Orbit 2.0 launch event.",
        "就这个 👍",
    )
    assert found == [], found
    # a thing the assistant offered is still what the user picked
    picked = _extract(
        "帮我推荐一款扫地机器人，预算三千",
        "A: 可以看看石头 P10，三千出头，扫拖一体。",
        "就这个吧",
    )
    assert any("石头" in c.content for c in picked), picked


@pytest.mark.parametrize("edit", ["再casual一点", "语气再 humble 一点"])
def test_an_edit_of_the_draft_in_mixed_words_is_no_preference(edit):
    found = _extract("帮我写个请假邮件，周五下午", "A: 王经理您好：我周五下午需请假半天……", edit)
    assert found == [], found
