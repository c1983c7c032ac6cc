"""Topic matching with the shipped embedder: a change worded differently finds the statement it
replaces; a change about something else does not (pairs in data/topic_pairs.json)."""

import json
from pathlib import Path

import pytest

from memory.embeddings import get_embedder
from memory.extraction import topics
from memory.extraction.rules.markers import CHANGE_RE

PAIRS = json.loads((Path(__file__).parent / "data" / "topic_pairs.json").read_text("utf-8"))


def _similarity(a: str, b: str) -> float:
    vectors = get_embedder("use").embed([a, b])
    return float(vectors[0] @ vectors[1])


@pytest.mark.parametrize("old,new", PAIRS["same"])
def test_a_change_in_other_words_is_on_the_same_topic(old, new):
    change = bool(CHANGE_RE.search(new))  # as memory/decisions.py asks
    ok, score, why = topics.same_topic(new, old, _similarity(old, new), change=change)
    assert ok, (score, why)


@pytest.mark.parametrize("old,new", PAIRS["different"])
def test_a_change_of_something_else_is_not(old, new):
    change = bool(CHANGE_RE.search(new))
    ok, score, why = topics.same_topic(new, old, _similarity(old, new), change=change)
    assert not ok, (score, why)


def test_concepts_respect_word_boundaries():
    assert "car" in topics.concepts("用户的车停在B2")
    assert "car" not in topics.concepts("用户的自行车锁在车棚")
    assert "commute" in topics.concepts("The user bikes to work every day")
    assert topics.concepts("The user moved all the banking over to Alliant") == {"bank": True}


def test_single_only_ignores_many_valued_concepts():
    old, new = "用户喜欢安静的餐厅", "用户现在常去公司楼下那家新开的餐厅"
    assert "food" in topics.concepts(old) and "food" in topics.concepts(new)
    score, why = topics.topic_score(new, old, 0.5, single_only=True)
    assert why == "" and score == 0.5


def test_recall_queries_reach_concepts_they_ask_about_without_naming_them():
    assert "residence" in topics.query_concepts("any good bakeries near me?")
    assert "residence" in topics.query_concepts("附近有什么好吃的")
    assert {"trip", "flight", "hotel"} <= topics.query_concepts("book me a trip to Chicago")
    assert "contact_channel" in topics.query_concepts("what's the best way to ping me")
    # recall only: a statement's own concepts are not widened
    assert "residence" not in topics.concepts("there's a gym nearby")
    assert topics.query_concepts("帮我订个酒店") == {"hotel", "trip"}


def test_the_conversations_topic_names_what_a_change_replaces():
    # "以后保养别提醒我去之前那家了" came first; the change itself names other things
    old, new = "用户一直在那家 4S 店做车辆保养，原厂件放心", "用户换到途虎了，离家近，便宜一半"
    sim = _similarity(old, new)
    assert not topics.same_topic(new, old, sim, change=True)[0]
    assert topics.same_topic(new, old, sim, change=True, context="保养")[0]


def test_a_request_about_the_family_finds_the_family_but_never_links_two_statements():
    from memory.extraction import topics

    assert "family" in topics.query_concepts("ideas for a rainy day at home with the kids")
    assert "family" in topics.concepts("The user's twins are 4.", recall=True)
    # for a change, two statements about one's children are not thereby about one thing
    assert "family" not in topics.concepts("The user's twins are 4.")


def test_a_task_finds_the_health_facts_and_writing_rules_it_needs_but_links_nothing():
    from memory.extraction import topics

    # packing, a hike or a form to fill in needs what the person's body needs
    assert "health" in topics.query_concepts("what should I pack for a ski weekend?")
    assert "health" in topics.query_concepts("下周去露营，帮我列个清单")
    assert "health" in topics.concepts("The user is allergic to bee stings.", recall=True)
    assert "health" in topics.concepts("用户有哮喘，换季容易犯", recall=True)
    # whatever is written for the person follows their rules on style
    assert "writing_style" in topics.query_concepts("帮我写段生日祝福发给我妈")
    assert "writing_style" in topics.concepts("用户不喜欢文案里有感叹号", recall=True)
    # a query about the job reaches the job
    assert "employer" in topics.query_concepts("draft a note to HR about my PTO balance")
    # for a change, two health facts or two style rules are not thereby about one thing
    assert "health" not in topics.concepts("用户有哮喘，换季容易犯")
    assert "writing_style" not in topics.concepts("用户不喜欢文案里有感叹号")


def test_lifting_is_about_the_gym():
    # "no more heavy lifting, so it's yoga now" answers where one trains (crossfit before)
    assert "gym" in topics.concepts("doctor says no more heavy lifting with my knee")
    assert "gym" in topics.concepts("I do weightlifting three times a week")


def test_two_places_to_live_answer_one_question():
    assert topics.another_name_for_one_answer(
        "用户住 Mitte 这边", "用户周末想去爬山，用户住 Pankow 附近"
    )
    assert not topics.another_name_for_one_answer(
        "用户住 Mitte 这边", "用户住 Mitte 附近，喜欢安静"
    )
    # many answers at a time (food): no single answer to replace
    assert not topics.another_name_for_one_answer("用户喜欢吃 Nando's", "用户喜欢吃 KFC")


def test_the_we_of_a_rewrite_is_no_shared_topic():
    a = "The user's family just bought a used piano for the kids."
    b = "The user's family is on the 5th floor of an old building."
    assert not topics.common_nouns(a) & topics.common_nouns(b)
    assert "piano" in topics.common_nouns(a)


def test_a_request_reaches_the_facts_it_needs_besides_its_own_topic():
    # a trip starts from home; a commute needs the way one travels and the hours one works;
    # an appointment has to fit the shifts; a meal plan needs the kind of diet one keeps
    assert "residence" in topics.query_concepts("plan a day trip for us next saturday")
    assert {"car", "work_shift"} <= topics.query_concepts("heavy rain tomorrow, how do I commute")
    assert "work_shift" in topics.query_concepts("when can I fit in a dentist checkup")
    assert "diet_type" in topics.query_concepts("plan my lunches for next week")
    # a cue in the plural is the cue
    assert "work_shift" in topics.query_concepts("help me cook around my shifts")
    assert "residence" not in topics.query_concepts("write me a haiku about autumn")


def test_a_request_about_ones_work_reaches_what_one_does_for_a_living():
    # "The user is a pharmacist…" names no employer, but it is what a bio or a lesson plan needs
    for query in ("write a two-line bio for my conference badge", "帮我准备下周的教案"):
        wanted = topics.query_concepts(query)
        assert "occupation" in wanted, query
    assert "occupation" in topics.concepts(
        "The user is a pharmacist, mostly weekend shifts", recall=True
    )
    assert "occupation" in topics.concepts("用户在一所小学当班主任", recall=True)
    # recall only: what one does for a living never links two statements for a change
    assert "occupation" not in topics.concepts("The user is a pharmacist, mostly weekend shifts")
    assert "occupation" not in topics.query_concepts("recommend a sci-fi novel")


def test_a_named_thing_stands_for_its_topic_in_what_a_request_needs():
    # no word for work, a phone or a music app: the names say what they are
    assert "employer" in topics.concepts_of_names("用户在 Amazon 做 SDE2")
    assert "music" in topics.concepts_of_names("The user has Spotify Premium")
    # never when two statements are compared for a change
    assert "employer" not in topics.concepts("用户在 Amazon 做 SDE2")
    assert "employer" not in topics.concepts("用户在 Amazon 做 SDE2", recall=True)
    assert "coding" in topics.query_concepts("write me a debounce function for a search box")
    assert "language_learning" in topics.query_concepts("推荐几个播客 我想练练听力")
    assert "pet" in topics.query_concepts("im going away for 4 days, what do i need to arrange")
    assert "health" in topics.query_concepts("build me a strength routine for the gym")
    assert "coding" not in topics.query_concepts("recommend a sci-fi novel")


@pytest.mark.parametrize(
    "old,new,query",
    [
        ("用户是初中数学老师", "用户入行做律师才半年", "帮我写个年终总结"),
        ("The user drives a Toyota Corolla", "The user drives a Kia EV6", "my car needs a service"),
    ],
)
def test_a_later_answer_to_a_one_answer_question_is_another_answer(old, new, query):
    assert topics.answers_anew(new, old, topics.query_concepts(query))


@pytest.mark.parametrize(
    "old,new,query",
    [
        # the request asks about neither's work
        ("用户是初中数学老师", "用户入行做律师才半年", "推荐一部电影"),
        # somebody else's job answers nothing of the user's
        ("用户是初中数学老师", "用户的老公是律师", "帮我写个年终总结"),
        # two things the user has side by side
        ("The user has a cat named Miso", "The user walks the dog every morning", "pet sitter"),
    ],
)
def test_other_statements_are_no_other_answer(old, new, query):
    assert not topics.answers_anew(new, old, topics.query_concepts(query))
