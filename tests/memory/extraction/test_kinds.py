"""A name's kind comes from the encoder's neighbourhood, not from a list: names that are not in
data/kinds.json land among their kind's examples, common words land nowhere."""

import pytest

from memory.extraction import kinds
from memory.extraction.words import load

# none of these is in data/kinds.json: the kind must come from the encoder
UNLISTED = {
    "car": ["Mazda CX-30", "吉利星越", "Chevy Bolt", "凯迪拉克", "Nissan Leaf"],
    "phone": ["Galaxy S23", "红米 K70", "Nothing Phone", "iPhone 13 mini"],
    "city": ["厦门", "青岛", "Phoenix", "Melbourne", "Osaka"],
    "editor": ["Sublime Text", "Eclipse"],
    "cloud": ["IBM Cloud", "百度智能云"],
    "bank": ["平安银行", "Barclays"],
    "airline": ["川航", "Air Canada"],
    "music_service": ["Apple Music", "网易云音乐"],
    "insurer": ["新华保险", "阳光保险"],
}
COMMON_WORDS = ["likes", "reports", "bullet", "团队", "照片", "批量", "meeting", "weekend"]


def test_the_file_does_not_list_the_names_the_test_types():
    listed = {n.lower() for spec in load("kinds")["kinds"].values() for n in spec["examples"]}
    assert not listed & {n.lower() for names in UNLISTED.values() for n in names}


def test_unlisted_names_land_among_their_kind():
    names = [(kind, name) for kind, group in UNLISTED.items() for name in group]
    right = [name for kind, name in names if kinds.kind_of(name) == kind]
    # the encoder's world knowledge, not a lookup: most, not all
    assert len(right) >= 0.75 * len(names), sorted(set(n for _, n in names) - set(right))


@pytest.mark.parametrize("word", COMMON_WORDS)
def test_a_common_word_is_no_value_of_a_kind(word):
    assert kinds.kind_of(word, proper=False) is None


@pytest.mark.parametrize("word", ["手机", "laptop", "car", "城市"])
def test_the_word_for_a_kind_is_not_a_value_of_it(word):
    assert kinds.kind_of(word) is None


def test_a_run_of_chinese_nouns_is_one_name_and_its_parts():
    names = dict(kinds.candidates("用户的服务都跑在阿里云上，新买的吉利星越也到了"))
    assert names.get("阿里云") and names.get("吉利星")


def test_the_object_of_a_verb_is_a_name_jieba_does_not_know():
    # jieba makes 网易 / 京东 / 建行 common nouns or splits them; where they stand says "a name"
    assert kinds.named_kinds("用户最近在网易上班").get("company") == {"网易"}
    assert kinds.named_kinds("用户去年跳槽到京东了").get("company") == {"京东"}
    assert kinds.named_kinds("用户一直刷建行的信用卡").get("bank") == {"建行"}


def test_what_a_thing_is_names_it():
    # "X是Y的": jieba makes 工行 an abbreviation and 建行 a verb; 是 says a name follows
    assert "工行" in kinds.named_kinds("用户的房贷是工行的").get("bank", ())
    assert kinds.named_kinds("车险一直是人保的").get("insurer") == {"人保"}
    # what one is, in common nouns or a verb phrase, names nothing
    assert kinds.named_kinds("我是程序员") == {}
    assert kinds.named_kinds("公司是做跨境电商的") == {}


def test_home_internet_is_a_carrier_too():
    assert kinds.other_of_same_kind(
        "switched to Spectrum internet", "Comcast Xfinity keeps dropping"
    )


def test_a_brand_typed_in_lowercase_is_still_a_name():
    # people do not capitalise in chat; a lowercase word must sit well inside a kind
    assert kinds.named_kinds("im on verizon, like $90/mo").get("carrier") == {"verizon"}
    assert "carrier" in kinds.named_kinds("just switched to mint mobile lol")
    assert kinds.other_of_same_kind("switched to mint mobile", "im on verizon") == "carrier"


def test_a_word_and_a_model_number_typed_in_lowercase_make_a_name():
    assert "phone" in kinds.named_kinds("my galaxy s23 battery is dying")
    assert kinds.other_of_same_kind("finally got an iphone 13 mini", "my galaxy s23 lags") == (
        "phone"
    )
    assert "macbook pro m2" in kinds.named_kinds("setting up my macbook pro m2").get("computer", ())
    # a number after a common word is no model, nor is a time or an amount
    assert kinds.named_kinds("about 3 weeks ago, under 20 minutes") == {}
    assert kinds.named_kinds("band practice after class till 6:30 or 7pm") == {}


@pytest.mark.parametrize(
    "text", ["the dashboard is slow", "my manager wants a plan", "we had a long meeting"]
)
def test_lowercase_common_words_are_no_names(text):
    assert kinds.named_kinds(text) == {}


@pytest.mark.parametrize("text", ["用户到公司楼下了", "用户在家里吃饭", "用户想找到店里的人"])
def test_the_speakers_places_are_no_names(text):
    assert kinds.named_kinds(text) == {}


@pytest.mark.parametrize(
    "new,old,kind",
    [
        ("The user just got a Chevy Bolt.", "The user drives a 2014 Mazda 3.", "car"),
        ("用户去年跳槽到京东了", "用户最近在网易上班", "company"),
        ("用户现在住在厦门", "用户在青岛住了三年", "city"),
        ("用户换了一台红米 K70", "The user's phone is a Galaxy S23.", "phone"),
    ],
)
def test_another_thing_of_one_kind(new, old, kind):
    assert kinds.other_of_same_kind(new, old) == kind


@pytest.mark.parametrize(
    "new,old",
    [
        # the same thing named again
        ("The user's Mazda 3 needs new tyres.", "The user drives a 2014 Mazda 3."),
        # things of different kinds
        ("用户下个月去厦门出差", "用户换了一台红米 K70"),
        # no named thing at all
        ("The user likes short answers.", "The user reports to the CTO."),
    ],
)
def test_no_other_thing_of_one_kind(new, old):
    assert kinds.other_of_same_kind(new, old) is None


def test_someone_elses_thing_is_not_a_thing_of_the_speakers():
    assert kinds.named_kinds("The user borrowed a friend's Tesla Model 3 for the weekend") == {}
    assert "car" not in kinds.named_kinds("用户老婆那台宝马X3该保养了")
    borrowed = "用户借了同事的MacBook用了一下"
    assert kinds.other_of_same_kind(borrowed, "用户的电脑是联想ThinkPad") is None
    assert kinds.other_of_same_kind("用户提了辆问界M7", "用户开一台马自达昂克赛拉") == "car"


def test_a_common_word_near_the_sports_but_as_near_other_things_is_no_sport():
    assert kinds.kind_of("hiking", proper=False) == "sport"
    assert kinds.kind_of("walkup", proper=False) is None


@pytest.mark.parametrize(
    "text",
    [
        "the user doesn't own a car, the user bikes everywhere",  # "doesn't car"
        "we are hosting 6 people for dinner",  # a count, not a model "hosting 6"
        "had to open the laptop again after dinner",  # a kind's own word, described
        "i take the car to work",
    ],
)
def test_lowercase_descriptions_and_counts_name_nothing(text):
    assert kinds.named_kinds(text) == {}


def test_a_model_number_still_makes_a_name_before_a_verb():
    assert "pixel 8" in kinds.named_kinds("my pixel 8 keeps dropping wifi").get("phone", set())


def test_a_lowercase_word_is_read_as_the_kind_the_other_statement_names():
    # "equinox" alone is no name typed in lowercase; after Planet Fitness a listener knows
    assert kinds.named_kinds("ok so equinox it is now") == {}
    earlier = "The user is at Planet Fitness like 4x a week."
    assert kinds.other_of_same_kind("ok so equinox it is now", earlier) == "gym"
    # and the kind said in the statement itself: "we bank with chase"
    assert kinds.named_kinds("we bank with chase") == {"bank": frozenset({"chase"})}


def test_a_name_taken_from_the_conversation_before_is_not_named_anew():
    old = "用户开的2019款卡罗拉，快到6万公里了"
    new = "关于比亚迪，用户来回40公里"
    assert kinds.other_of_same_kind(new, old) == "car"
    assert kinds.other_of_same_kind(new, old, said="来回40公里吧 再看看 不急") is None
    assert kinds.other_of_same_kind(new, old, said="比亚迪提了，来回40公里") == "car"
