"""What a turn hands over to be worked on (code, a quoted passage) and what the thing worked on
does ("服务器一直 502") say nothing about the person; nor does closing the conversation ("ok
不聊了 bye"). A hedge that names nothing governs what follows it ("I might, depending on…, end
up…"), an afterthought like "Nothing's decided though" doubts what came before, and somebody
else's persuasion ("老公一直劝我换…") is no decision of the user's. Examples written for these
tests."""

import datetime as dt

import pytest

from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.rules.filters import without_material

T0 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


def _extract(*texts: str):
    turns = [Turn(role="user", content=t, event_id=i, occurred_at=T0) for i, t in enumerate(texts)]
    return RuleExtractor().extract(turns).candidates


@pytest.mark.parametrize(
    "text",
    [
        'Can you summarize this in two bullets? "The city council voted on Tuesday to extend '
        'the bike lane network by 40 kilometres, with construction starting next spring."',
        "帮我翻译一下“我们公司下周三在静安区的酒店开年会，大家记得带工牌”",
        "帮我看看为什么报错，log 一直刷这个：\n```\nTypeError: cannot read properties of "
        "undefined (reading 'map')\n```",
        "帮我看看这个报错，服务器一直 502",
        "fix this please, the build keeps failing on CI",
        "哈哈有道理，ok 不聊了 bye~",
        "哈哈你改得比我们老板写的强多了",
        "you're a lifesaver, seriously",
        "周五了 finally 🎉",
        "嗯 短一点，像朋友圈文案那样",
        'write a short reply declining this: "Hi, we would love to schedule a demo of our '
        'new analytics suite next Tuesday at 3pm for your whole team."',
        "lol true, gotta go, talk later",
    ],
)
def test_material_and_closers_are_no_memories(text):
    assert _extract(text) == [], [c.content for c in _extract(text)]


@pytest.mark.parametrize(
    "text,name",
    [
        ("我这台Pixel 8拍视频老是发烫 有啥办法吗", "Pixel 8"),
        ("how do i turn off autocorrect on my Pixel 8?", "Pixel 8"),
        ("how do i set up zelle through my Chase account?", "Chase"),
    ],
)
def test_a_question_about_ones_own_thing_says_it_is_theirs(text, name):
    found = _extract(text)
    assert any(name in c.content for c in found), [c.content for c in found]


@pytest.mark.parametrize(
    "text",
    [
        "iPhone 16和Pixel 9哪个拍照好",
        "Pixel 8 值得买吗",
        "iPhone 17什么时候发布",
        "should i get a Pixel 8 or an iPhone 15?",
    ],
)
def test_a_question_weighing_things_up_or_about_a_product_says_nothing_of_the_person(text):
    assert _extract(text) == [], [c.content for c in _extract(text)]


def test_a_habit_after_a_request_is_still_the_users():
    found = _extract("帮我订个咖啡，每天早上都喝美式")
    assert any("美式" in c.content for c in found), [c.content for c in found]


def test_a_quote_is_material_only_when_asked_to_work_on_it():
    said = "我妈总说“天冷了要多穿点衣服，别老穿那么少出门”"
    assert without_material(said) == said


@pytest.mark.parametrize(
    "text,value",
    [
        ("考虑 Black Friday 入一台 MacBook Air M3，不过 ThinkPad 其实还能再战两年。", "MacBook"),
        (
            "The funding is shaky, and I might, depending on how the next few weeks go, end up "
            "taking an offer in Portland instead.",
            "Portland",
        ),
        ("I'm moving to Denver in May. Nothing's decided though.", "Denver"),
        ("老公一直劝我换个电车，比亚迪海豹，说充电便宜。", "海豹"),
        ("We keep playing with the idea of selling the Honda. Nothing settled.", "Honda"),
        ("my wife and I are batting around the idea of moving to Tucson", "Tucson"),
        ("Getting my daughter a piano teacher, maybe after the holidays.", "piano"),
        ("想把车换成电动的，也许过完年吧。", "电动"),
        # the weighing-up comes last in its clause and names nothing: it doubts what came
        # before it ("…要不要去" of the offer named first)
        ("拿到个Grab的offer 钱给得挺多 但base在Jakarta 我还在想要不要接", "Grab"),
        ("got an offer from Datadog but not sure whether I should take it", "Datadog"),
    ],
)
def test_doubted_statements_are_tentative(text, value):
    found = [c for c in _extract(text) if value in c.content]
    assert found and all(c.confidence < 0.6 for c in found), [
        (c.content, c.confidence) for c in _extract(text)
    ]


def test_a_doubt_on_its_own_is_no_statement():
    contents = [c.content for c in _extract("I'm moving to Denver in May. Nothing's decided.")]
    assert not any("Nothing" in c for c in contents), contents


def test_a_doubt_about_another_thing_in_its_own_clause_leaves_the_statement_firm():
    # "不一定接" doubts the phone named in its own clause, not the channel named before
    found = _extract("周末有事发微信给我 电话不一定接得到")
    assert any("微信" in c.content and c.confidence >= 0.75 for c in found), [
        (c.content, c.confidence) for c in found
    ]


def test_a_change_after_a_doubt_about_its_cause_stands():
    found = _extract("上周复诊，医生说我脚踝肿可能是药的副作用，把药改成缬沙坦了，一天一粒。")
    assert any("缬沙坦" in c.content and c.confidence >= 0.9 for c in found), [
        (c.content, c.confidence) for c in found
    ]


@pytest.mark.parametrize(
    "text",
    [
        "and how do i make the screenshots go to a folder instead of the desktop",
        "ok so what should i cook tonight",
        "oh ok my bad.",
    ],
)
def test_questions_and_bare_apologies_are_no_memories(text):
    assert _extract(text) == [], [c.content for c in _extract(text)]


def test_a_statement_after_a_conjunction_is_still_one():
    found = _extract("and i moved to Denver last month")
    assert any("Denver" in c.content for c in found), [c.content for c in found]


def test_a_plan_on_a_weekday_is_no_mere_moment():
    found = _extract("我周五了要去体检")
    assert any("体检" in c.content for c in found), [c.content for c in found]


def test_a_lasting_wish_for_shorter_replies_stays():
    found = _extract("以后写邮件短一点")
    assert any("邮件" in c.content for c in found), [c.content for c in found]


def _extract_turns(*turns: tuple[str, str]):
    built = [
        Turn(role=role, content=text, event_id=i, occurred_at=T0)
        for i, (role, text) in enumerate(turns)
    ]
    return RuleExtractor().extract(built).candidates


def test_a_doubt_in_the_next_turn_doubts_what_the_user_just_said():
    found = _extract_turns(
        ("user", "有个猎头找我聊字节的算法岗。"),
        ("user", "不过 not sure，还没想好要不要去"),
    )
    offer = [c for c in found if "字节" in c.content]
    assert offer and all(c.confidence < 0.6 for c in offer), [
        (c.content, c.confidence) for c in found
    ]


def test_after_the_assistants_reply_a_doubt_may_answer_the_reply():
    found = _extract_turns(
        ("user", "I work at Stripe on the payments team."),
        ("assistant", "Want me to draft a transfer request to the risk team?"),
        ("user", "not sure yet, maybe later"),
    )
    assert any("Stripe" in c.content and c.confidence >= 0.7 for c in found), [
        (c.content, c.confidence) for c in found
    ]
