"""What a statement is about and whose it is: a year describing a thing dates no event; the
place one starts at names it ("去X报到"); someone else's doing does not take the user's
statement on its topic along when it is dropped; a hedge word written in Latin letters inside
Chinese is no name; drinking alcohol and counting carbs are topics of their own. Examples
written for these tests."""

import datetime as dt

from memory.extraction import kinds, topics
from memory.extraction.base import Turn
from memory.extraction.rules.episodes import is_episode
from memory.extraction.rules.extractor import RuleExtractor

T0 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)


def _extract(text: str):
    return RuleExtractor().extract([Turn(role="user", content=text, occurred_at=T0)]).candidates


def test_a_year_describing_a_thing_dates_no_event():
    assert not is_episode("我开的是一辆2018年的思域，跑了九万公里了")
    found = _extract("我开的是一辆2018年的思域，跑了九万公里了")
    assert any("思域" in c.content and c.kind == "semantic" for c in found), found
    # a year that says when something happened still does
    assert is_episode("2019年的时候我在成都住过半年")


def test_where_one_goes_to_start_work_is_named():
    assert "bank" in kinds.named_kinds("用户下个月去工商银行报到，还是做柜员")


def test_someone_elses_doing_does_not_take_the_users_statement_along():
    found = _extract("同事约我下午去喝咖啡，帮我推一下。我胃不好，咖啡是一口都不能喝的。")
    assert any("胃不好" in c.content for c in found), found
    assert not any("同事" in c.content for c in found), found


def test_a_hedge_word_in_latin_letters_is_no_name():
    found = _extract(
        "附近开了家 F45，环境好很多，我现在的卡下个月到期，我 maybe 会转过去，看看价格再说。"
    )
    hedged = [c for c in found if "F45" in c.content]
    assert hedged and all(c.confidence < 0.6 for c in hedged), found


def test_alcohol_and_carbs_are_topics():
    assert "alcohol" in topics.concepts("周末喜欢喝点啤酒")
    assert "alcohol" in topics.concepts("I've been sober for a year")
    assert "diet_type" in topics.concepts("最近在控碳水，一天不超过50g")
    assert "diet_type" in topics.concepts("trying low carb this month")


def test_where_one_works_or_lives_said_in_passing_inside_a_question_is_kept():
    found = [c.content for c in _extract("How do I ask my manager at Stripe for a raise?")]
    assert any("Stripe" in c for c in found), found
    found = [c.content for c in _extract("我住望京这边，周末带娃去哪玩比较好？")]
    assert any("望京" in c for c in found), found
    # someone else's place of work, or a question naming no topic of the person's, says nothing
    assert not _extract("Can you recommend a gift for my friend at Google?")
    assert not _extract("What's the weather like in Denver this weekend?")


def test_the_speaker_naming_a_thing_of_their_life_is_kept():
    # no name, no number, no preference word: the speaker and what their life is arranged around
    found = _extract("我们部门的报销单都在共享表格里审批")
    assert any("共享表格" in c.content for c in found), found
    # first person as people type it ("ive", "im") names the speaker too
    found = _extract("my physio told me to swim more so ive been doing laps at the rec center")
    assert any("laps" in c.content for c in found), found


def test_a_remark_a_mood_or_someone_elses_wish_is_not_kept():
    assert not _extract("我觉得这个配色挺好看")  # a remark on what is in front of them
    assert not _extract("我这几天干什么都提不起劲")  # a mood about anything at all
    # somebody else's wish, reported: the sentence's subject is not the speaker
    assert not [c for c in _extract("她上周又说想去学滑板") if c.kind == "semantic"]


def test_an_answer_worded_anew_is_another_value():
    # one home, one shift pattern at a time: other words for the answer are another answer
    assert topics.says_another_value("用户现在一个人住", "用户跟室友合租")
    assert topics.says_another_value("The user is on day shifts", "The user works night shifts")
    # the same words again, or only more of them, answer nothing anew
    assert not topics.says_another_value("用户跟室友合租，离地铁近", "用户跟室友合租")
    # a question of many answers (food) has no other value to swap in
    assert not topics.says_another_value("用户爱吃川菜", "用户爱吃粤菜的早茶")
    # somebody else's thing is not the speaker's answer
    assert not topics.says_another_value("用户借了同事的MacBook", "用户的电脑是ThinkPad")


def test_mixed_chinese_typed_without_punctuation_breaks_after_a_latin_word():
    from memory.language.text import split_clauses

    # the Chinese after the Latin word opens a new clause: an adverb, a time word, the speaker
    assert split_clauses("在ByteDance做infra 主要写rust 最近好困") == [
        "在ByteDance做infra ",
        "主要写rust ",
        "最近好困",
    ]
    # it goes on with the same clause, or what came before says nothing on its own
    assert len(split_clauses("我月底要去 Lisbon 开会")) == 1
    assert len(split_clauses("旧的那张 card 已经注销了")) == 1
    found = _extract("在ByteDance做infra 主要写rust 最近好困 有什么提神的办法吗")
    assert any("ByteDance" in c.content and "rust" in c.content for c in found), found
    # a passing state in its own clause is no longer carried along with the job
    assert not any("好困" in c.content for c in found), found


def test_a_clause_about_ones_child_or_spouse_is_the_speakers_family():
    from memory.extraction import salience

    # Chinese leaves "my" out before one's own child or spouse, as before one's company
    assert salience.analyse("女儿在读小学三年级").possession
    assert salience.analyse("老公在医院上夜班").possession
    assert not salience.analyse("同事在医院上夜班").possession
    found = _extract("女儿在读小学三年级，数学老是跟不上，有什么好的练习册吗")
    assert any("女儿" in c.content and "三年级" in c.content for c in found), found
    found = _extract("老公在医院上夜班，白天都在睡觉")
    assert any("老公" in c.content and "夜班" in c.content for c in found), found


def test_a_brand_typed_in_lowercase_is_a_name():
    from memory.extraction import salience

    assert kinds.names_a_brand("we bank with chase")
    assert salience.analyse("we bank with chase").named
    # a lowercase common noun is no brand
    assert not kinds.names_a_brand("i have a cold")
    assert not kinds.names_a_brand("i have a dog and two cats")


def _answers(turns):
    from memory.extraction.base import Turn
    from memory.extraction.rules.extractor import RuleExtractor

    convo = [Turn(role, text) for role, text in turns]
    return RuleExtractor().extract(convo, new_from=0).candidates


def test_an_answer_about_a_thing_being_weighed_up_is_as_tentative():
    found = _answers(
        [
            ("user", "iPhone 17 出了 有点想换 但 Android 用惯了 怕不习惯, 再观望观望吧"),
            ("assistant", "可以等等看评测。你主要在意相机还是续航？"),
            ("user", "续航 其他都还好"),
        ]
    )
    answer = [c for c in found if "续航" in c.content]
    assert answer and all(c.confidence < 0.6 for c in answer)


def test_an_answer_after_deliberating_a_step_is_not_tentative():
    found = _answers(
        [
            ("user", "女儿下周开家长会，我要不要提前准备点问题"),
            ("assistant", "可以问问各科进度。你最担心哪一科？"),
            ("user", "英语进度我最担心"),
        ]
    )
    answer = [c for c in found if "英语" in c.content]
    assert answer and all(c.confidence >= 0.6 for c in answer)


def test_a_common_word_with_a_model_letter_is_a_name():
    assert ("Model Y", True) in kinds.candidates("Model Y 上高速 autopilot 怎么开啊")
    assert not any(name == "Model" for name, _ in kinds.candidates("The Model is great"))
