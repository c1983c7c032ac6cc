"""A changed fact, posted as conversation events, replaces the old one through extraction, the
write decision and the shipped embedder — and a hedged one does not."""

import pytest

from memory.models import Memory

EVENTS = "/api/v1/subjects/{}/events"


@pytest.fixture
def use_embedder(monkeypatch):
    monkeypatch.setenv("ENGRAM_EMBEDDER", "use")


def post_session(client, subject, session, turns, day):
    events = [
        {"role": role, "content": text, "occurred_at": f"2026-03-{day:02d}T09:{i:02d}:00Z"}
        for i, (role, text) in enumerate(turns)
    ]
    response = client.post(
        EVENTS.format(subject),
        {"session_id": session, "events": events, "extract": "sync"},
        format="json",
    )
    assert response.status_code in (200, 201), response.json()


def memories(subject, status):
    return list(
        Memory.objects.filter(subject__external_id=subject, status=status).values_list(
            "content", flat=True
        )
    )


@pytest.mark.parametrize(
    "first,second,old,new",
    [
        (
            [("user", "I bike to work every day, it's about 20 minutes")],
            [("user", "after the knee thing I gave that up, I take the light rail in now")],
            "bike",
            "light rail",
        ),
        (
            [("user", "我每天早上都要一杯冰美式，不然没精神")],
            [("user", "医生让我戒咖啡因，现在早上改喝大麦茶了")],
            "冰美式",
            "大麦茶",
        ),
        (
            [("user", "我们的团队都在 Slack 上沟通，有事 DM 我")],
            [("user", "公司被收购了，以后统一用飞书，有事飞书找我")],
            "Slack",
            "飞书",
        ),
    ],
)
def test_a_changed_fact_supersedes_the_old_one(cast, use_embedder, first, second, old, new):
    c = cast.alice_client
    post_session(c, "u1", "s1", first, 1)
    assert any(old in m for m in memories("u1", "active"))
    post_session(c, "u1", "s2", second, 20)
    active = memories("u1", "active")
    assert any(new in m for m in active), active
    assert any(old in m for m in memories("u1", "superseded")), memories("u1", "superseded")
    assert not any(old in m and new not in m for m in active), active


def test_a_hedged_change_leaves_the_old_fact_active(cast, use_embedder):
    c = cast.alice_client
    post_session(c, "u1", "s1", [("user", "我家宽带是电信的，500兆")], 1)
    post_session(c, "u1", "s2", [("user", "听说移动便宜，可能会考虑换过去吧，还没定")], 20)
    assert any("电信" in m for m in memories("u1", "active"))
    assert not any("移动" in m for m in memories("u1", "active"))


@pytest.mark.parametrize(
    "turns,old,new",
    [
        (
            [
                ("user", "我儿子对猕猴桃过敏，带水果去幼儿园要注意什么"),
                ("assistant", "可以带苹果、葡萄和香蕉，避开猕猴桃。"),
                ("user", "啊我记错了，他过敏的是桃子，猕猴桃他一直吃的"),
            ],
            "猕猴桃过敏",
            "桃子",
        ),
        (
            [
                ("user", "our lease renewal is due in August, any negotiating tips?"),
                ("assistant", "Start talking to the landlord about 60 days ahead."),
                ("user", "my mistake, the lease renewal is due in October"),
            ],
            "August",
            "October",
        ),
    ],
)
def test_taking_back_what_was_said_replaces_it_in_the_same_conversation(
    cast, use_embedder, turns, old, new
):
    post_session(cast.alice_client, "u1", "s1", turns, 1)
    active = memories("u1", "active")
    assert any(new in m for m in active), active
    assert not any(old in m for m in active), active
    assert any(old in m for m in memories("u1", "superseded")), memories("u1", "superseded")


def test_a_change_of_something_else_replaces_nothing(cast, use_embedder):
    c = cast.alice_client
    post_session(c, "u1", "s1", [("user", "我对花生过敏，点菜的时候注意一下")], 1)
    post_session(c, "u1", "s2", [("user", "我换了个新手机，iPhone 16")], 20)
    assert any("花生" in m for m in memories("u1", "active"))
    assert memories("u1", "superseded") == []


def test_a_direct_write_of_a_new_employer_replaces_the_old_one(cast, use_embedder):
    c = cast.alice_client
    url = "/api/v1/subjects/u1/memories"
    first = {"content": "The user works at Shopify as a PM.", "category": "profile"}
    assert c.post(url, {**first, "confidence": 0.8}, format="json").status_code == 201
    second = {"content": "The user works at Stripe on the billing team.", "category": "profile"}
    response = c.post(url, {**second, "confidence": 0.95}, format="json")
    assert response.status_code in (200, 201), response.json()
    assert response.json()["action"] == "superseded"
    assert memories("u1", "superseded") == ["The user works at Shopify as a PM."]


RECALL = "/api/v1/subjects/{}/recall"


def test_recall_abstains_on_an_unrelated_query(cast, use_embedder):
    c = cast.alice_client
    url = "/api/v1/subjects/u1/memories"
    for content in (
        "用户喜欢喝绿茶，不加糖",
        "用户对花生过敏",
        "The user's daughter takes piano lessons",
    ):
        body = {"content": content, "category": "preference", "importance": 0.9}
        assert c.post(url, body, format="json").status_code == 201
    unrelated = c.post(RECALL.format("u1"), {"query": "解释一下什么是量子纠缠"}, format="json")
    assert unrelated.status_code == 200
    assert unrelated.json()["memories"] == [] and unrelated.json()["context"] == ""
    related = c.post(RECALL.format("u1"), {"query": "帮我点一杯喝的"}, format="json").json()
    assert [m["content"] for m in related["memories"]][:1] == ["用户喜欢喝绿茶，不加糖"]


def test_a_move_told_as_an_event_replaces_the_old_home(cast, use_embedder):
    c = cast.alice_client
    post_session(c, "u1", "s1", [("user", "我住在南京鼓楼区，周末常去玄武湖")], 1)
    post_session(c, "u1", "s2", [("user", "上个月底搬到厦门了，租在思明区")], 20)
    assert any("厦门" in m for m in memories("u1", "active"))
    assert any("南京" in m for m in memories("u1", "superseded"))


@pytest.mark.parametrize(
    "first,second,old,new",
    [
        # no change word, no shared word: each names a thing of one kind (extraction/kinds.py)
        (
            [("user", "我开的是一台马自达昂克赛拉，快十年了，最近空调不太凉")],
            [("user", "上个月提了辆问界M7，智驾上高速挺省心的")],
            "昂克赛拉",
            "问界",
        ),
        (
            [("user", "My go-to editor is Sublime Text, I have a ton of snippets in it")],
            [("user", "Been living in JetBrains Fleet lately, its remote dev is great")],
            "Sublime",
            "Fleet",
        ),
        # told as an event with a date: an episode, and one that leaves the person in a new state
        (
            [("user", "My old Pixel 6 battery barely lasts till lunch")],
            [("user", "Last week I switched to a Galaxy S24, the battery is way better")],
            "Pixel",
            "Galaxy",
        ),
    ],
)
def test_another_thing_of_one_kind_replaces_the_old_one(
    cast, use_embedder, first, second, old, new
):
    c = cast.alice_client
    post_session(c, "u1", "s1", first, 1)
    post_session(c, "u1", "s2", second, 20)
    active = memories("u1", "active")
    assert any(new in m for m in active), active
    assert not any(old in m for m in active), active
    assert any(old in m for m in memories("u1", "superseded"))


def test_a_thing_of_the_same_kind_only_looked_at_replaces_nothing(cast, use_embedder):
    c = cast.alice_client
    post_session(c, "u1", "s1", [("user", "我现在用的是小米14，拍照还行")], 1)
    post_session(c, "u1", "s2", [("user", "刷到 vivo X100 的评测挺心动，估计还是不会换")], 20)
    assert any("小米14" in m for m in memories("u1", "active"))
    assert memories("u1", "superseded") == []


@pytest.mark.parametrize(
    "first,second",
    [
        # an event that changes nothing about the person
        (
            [("user", "I drive a 2015 Honda Civic, still runs fine")],
            [("user", "Test drove a Tesla Model Y last Saturday, so smooth")],
        ),
        (
            [("user", "我住在苏州园区，离公司挺近")],
            [("user", "上周去杭州出差了三天，累死了")],
        ),
        # someone else's thing says nothing about the speaker's
        (
            [("user", "我的电脑是联想ThinkPad，用了三年了")],
            [("user", "昨天借了同事的MacBook用了一下，触控板真好用")],
        ),
    ],
)
def test_a_passing_event_replaces_nothing(cast, use_embedder, first, second):
    c = cast.alice_client
    post_session(c, "u1", "s1", first, 1)
    post_session(c, "u1", "s2", second, 20)
    assert memories("u1", "superseded") == []
