"""Write decisions (memory/decisions.py): dedupe, conflict, supersede, low confidence."""

import datetime as dt

import pytest

from memory.decisions import (
    DEDUPE_SIMILARITY,
    LOW_CONFIDENCE,
    SUPERSEDE_MARGIN,
    ExistingMemory,
    compare_values,
    decide,
    slots_compatible,
)
from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.extractor import RuleExtractor

T0 = dt.datetime(2026, 1, 1, 9, 0, tzinfo=dt.UTC)
T1 = T0 + dt.timedelta(days=30)


def mem(id=1, **kw):
    base = dict(
        id=id,
        category="preference",
        kind="semantic",
        content="",
        entities=[],
        slot="",
        values=[],
        confidence=0.75,
        occurred_at=T0,
        status="active",
    )
    base.update(kw)
    return ExistingMemory(**base)


def cand(**kw):
    base = dict(content="", category="preference", kind="semantic", confidence=0.75)
    base.update(kw)
    return Candidate(**base)


def test_constants():
    assert DEDUPE_SIMILARITY == 0.85 and SUPERSEDE_MARGIN == 0.15 and LOW_CONFIDENCE == 0.6


def test_create_when_nothing_related():
    d = decide(cand(content="用户不吃辣", slot="food", values=["!辣"]), T1, [], {})
    assert d.action == "create" and d.target_id is None


def test_low_confidence_observed():
    d = decide(cand(content="用户也许换成飞书", confidence=0.45), T1, [], {})
    assert d.action == "observe_low_confidence"


def test_an_episode_is_never_merged():
    old = mem(slot="hotel", values=["如家"], content="用户住如家")
    d = decide(cand(kind="episodic", slot="hotel", values=["如家"]), T1, [old], {1: 0.99})
    assert d.action == "create"
    d = decide(cand(kind="episodic", confidence=0.4), T1, [old], {1: 0.99})
    assert d.action == "observe_low_confidence"


CIVIC = mem(category="fact", content="用户开一台15年的卡罗拉，快九万公里了")


def test_an_episode_that_changes_a_state_replaces_what_it_changes():
    sold = cand(
        kind="episodic",
        category="fact",
        content="用户提到：上个月（2026年1月）把旧车卖了，提了辆比亚迪海豹",
        confidence=0.8,
    )
    d = decide(sold, T1, [CIVIC], {1: 0.3})
    assert d.action == "supersede" and d.target_id == 1
    # a trip names no state of the person; nor does a hedged episode change one
    drove = cand(
        kind="episodic",
        category="fact",
        content="用户上周（2026-01-19那一周）试驾了一辆比亚迪海豹",
        confidence=0.8,
    )
    assert decide(drove, T1, [CIVIC], {1: 0.3}).action == "create"
    hedged = cand(
        kind="episodic",
        category="fact",
        content="用户上个月把旧车卖了，可能会提一辆比亚迪海豹",
        confidence=0.8,
    )
    assert decide(hedged, T1, [CIVIC], {1: 0.3}).action == "create"


def test_an_episode_weighs_as_an_older_memory_only_when_it_holds_a_state():
    treated = mem(
        kind="episodic",
        category="fact",
        content="用户确诊三年了，现在每天吃二甲双胍500mg，早晚各一片",
    )
    dose = cand(
        category="fact",
        content="用户上周复诊，医生把二甲双胍给用户加到了850，还是一天两次",
        confidence=0.9,
    )
    assert decide(dose, T1, [treated], {1: 0.6}).action == "supersede"
    visit = mem(kind="episodic", category="fact", content="用户上周去医院拿了二甲双胍")
    assert decide(dose, T1, [visit], {1: 0.6}).action == "create"
    # what has gone on until now ("V了 + a duration + 了") is how things stand, too
    lived = mem(kind="episodic", category="fact", content="用户在杭州住了快五年了，周末常去爬山")
    moved = cand(category="fact", content="用户搬来成都快一个月了，火锅真不错")
    assert decide(moved, T1, [lived], {1: 0.25}).action == "supersede"


def test_merge_by_slot_values():
    old = mem(slot="diet", values=["素食"], content="用户吃素")
    d = decide(cand(content="用户不吃肉", slot="diet", values=["素食"]), T1, [old], {1: 0.3})
    assert d.action == "merge" and d.target_id == 1


def test_merge_by_similarity_needs_entity_overlap_and_compatible_category():
    old = mem(content="The user prefers aisle seats", entities=["过道"])
    c = cand(content="Put the user on the aisle", entities=["过道"])
    assert decide(c, T1, [old], {1: 0.9}).action == "merge"
    assert decide(c, T1, [old], {1: 0.8}).action == "create"
    other = cand(content="x", entities=["靠窗"])
    assert decide(other, T1, [old], {1: 0.95}).action == "create"
    plan = cand(content="x", category="plan", entities=["过道"])
    assert decide(plan, T1, [old], {1: 0.95}).action == "create"


def test_merge_updates_content_when_newer_and_more_specific():
    old = mem(category="plan", slot="trip:成都", content="用户五月中旬去成都")
    c = cand(category="plan", slot="trip:成都", content="用户 5 月 12 号出发去成都")
    d = decide(c, T1, [old], {1: 0.7})
    assert d.action == "merge" and d.update_content


def test_a_merge_never_rewrites_away_a_name_only_the_old_memory_holds():
    old = mem(slot="transport", values=["航班"], content="The user flies United, has status there")
    c = cand(slot="transport", values=["航班"], content="The user gets up 4 times a flight")
    d = decide(c, T1, [old], {1: 0.3})
    assert d.action == "create" and "united" in d.reason.lower()
    # a refinement that keeps the name still updates the memory
    c = cand(slot="transport", values=["航班"], content="The user flies United 4 times a month")
    d = decide(c, T1, [old], {1: 0.6})
    assert d.action == "merge" and d.update_content


def test_supersede_firmer_newer():
    old = mem(slot="hotel", values=["如家"], content="用户出差住如家", confidence=0.75)
    c = cand(content="以后统一订希尔顿", slot="hotel", values=["希尔顿"], confidence=0.9)
    d = decide(c, T1, [old], {1: 0.4})
    assert d.action == "supersede" and d.target_id == 1


def test_conflict_not_firm_enough_or_older_is_observed():
    old = mem(slot="hotel", values=["如家"], confidence=0.75)
    c = cand(slot="hotel", values=["希尔顿"], confidence=0.8)
    # the same conversation: a second value beside the first is no change of it
    assert decide(c, T0 + dt.timedelta(hours=1), [old], {}).action == "observe_conflict"
    weaker = cand(slot="hotel", values=["希尔顿"], confidence=0.7)
    assert decide(weaker, T1, [old], {}).action == "observe_conflict"
    firm = cand(slot="hotel", values=["希尔顿"], confidence=0.95)
    assert decide(firm, T0 - dt.timedelta(days=1), [old], {}).action == "observe_conflict"
    hedged = cand(slot="hotel", values=["希尔顿"], confidence=0.4)
    d = decide(hedged, T1, [old], {})
    assert d.action == "observe_conflict" and d.target_id == 1


def test_a_later_conversation_answering_a_slot_anew_supersedes_it():
    old = mem(category="fact", slot="schedule:yoga", values=["周二", "周四"], confidence=0.75)
    new = cand(category="fact", slot="schedule:yoga", values=["周一", "周三"], confidence=0.75)
    d = decide(new, T1, [old], {1: 0.5})
    assert d.action == "supersede" and d.target_id == 1
    hedged = cand(
        content="瑜伽可能改到周一周三",
        category="fact",
        slot="schedule:yoga",
        values=["周一", "周三"],
        confidence=0.75,
    )
    assert decide(hedged, T1, [old], {1: 0.5}).action == "observe_conflict"


def test_meeting_schedule_conflict_and_loose_slot():
    old = mem(category="fact", slot="meeting:市场部", values=["周二", "16:00"])
    assert (
        decide(
            cand(category="fact", slot="meeting", values=["周五"], confidence=0.45), T1, [old], {}
        ).action
        == "observe_conflict"
    )
    assert (
        decide(
            cand(category="fact", slot="meeting:市场部", values=["周二", "16:00"]), T1, [old], {}
        ).action
        == "merge"
    )
    assert (
        decide(cand(category="fact", slot="meeting:销售部", values=["周五"]), T1, [old], {}).action
        == "create"
    )


def test_value_comparison_rules():
    assert compare_values("hotel", ["全季"], ["汉庭"]) == "conflict"
    assert compare_values("hotel", ["全季"], ["全季"]) == "same"
    assert compare_values("food", ["湘菜"], ["粤菜"]) is None  # list-like slot: both can hold
    assert compare_values("food", ["辣"], ["!辣"]) == "conflict"
    assert compare_values("budget", ["80000"], ["50000"]) == "conflict"
    assert compare_values("meeting", ["周二", "10:00"], ["周二", "15:00"]) == "conflict"
    assert compare_values("style:answer", ["concise"], ["detailed"]) == "conflict"
    assert compare_values("style:answer", ["concise"], ["bullets"]) is None
    assert compare_values("plan:x", [], []) == "same"
    assert slots_compatible("meeting", "meeting:产品部")
    assert not slots_compatible("meeting:销售部", "meeting:产品部")


def test_only_active_memories_are_merged_into_or_superseded():
    observed = mem(slot="hotel", values=["全季"], status="observed", confidence=0.4)
    d = decide(cand(slot="hotel", values=["全季"], confidence=0.9), T1, [observed], {})
    assert d.action == "create"
    d = decide(cand(slot="hotel", values=["全季"], confidence=0.4), T1, [observed], {})
    assert d.action == "merge"


# ---- end to end with the rule extractor (similarity 0: slots only) ---------------------------
def simulate(*sessions: list[str]):
    ex, store, next_id = RuleExtractor(), [], 1
    for day, texts in enumerate(sessions):
        turns = [Turn("user", t) for t in texts]
        for c in ex.extract(turns).candidates:
            when = T0 + dt.timedelta(days=day)
            live = [m for m in store if m.status != "superseded"]
            d = decide(c, when, live, {})
            if d.action == "merge":
                continue
            if d.action == "supersede":
                next(m for m in store if m.id == d.target_id).status = "superseded"
            store.append(
                ExistingMemory(
                    id=next_id,
                    category=c.category,
                    kind=c.kind,
                    content=c.content,
                    entities=c.entities,
                    slot=c.slot,
                    values=c.values,
                    confidence=c.confidence,
                    occurred_at=when,
                    status="observed" if d.action.startswith("observe") else "active",
                )
            )
            next_id += 1
    return store


def active(store):
    return [m.content for m in store if m.status == "active"]


def test_e2e_paraphrases_dedupe_zh_en():
    store = simulate(
        ["我是吃素的，帮我订个餐厅。"], ["我不吃肉，你记一下。"], ["提醒一下，我吃素。"]
    )
    assert len(active(store)) == 1
    store = simulate(
        ["I like aisle seats."],
        ["Always put me on the aisle, please."],
        ["Remember: aisle seats for me."],
    )
    assert len(active(store)) == 1


def test_e2e_firm_update_supersedes():
    store = simulate(
        ["我出差一般住如家，以后默认帮我订如家。"], ["公司新规定，以后出差酒店统一订希尔顿。"]
    )
    assert any("希尔顿" in c for c in active(store))
    assert not any("如家" in c for c in active(store))
    assert any(m.status == "superseded" and "如家" in m.content for m in store)
    store = simulate(
        ["For coffee I usually get a flat white."],
        ["New standing order: cappuccino every time, from now on."],
    )
    assert any("cappuccino" in c for c in active(store))
    assert not any("flat white" in c for c in active(store))


def test_e2e_budget_update_and_tentative():
    store = simulate(["今年团建预算是三万。"], ["团建预算最终定为 4.5 万，按这个来。"])
    assert any("4.5" in c for c in active(store))
    assert not any("三万" in c for c in active(store))
    store = simulate(["我们市场部的例会是每周二下午四点。"], ["听说例会可能要改到周五，还没定。"])
    assert any("周二" in c for c in active(store))
    assert not any("周五" in c for c in active(store))


def test_e2e_tentative_tech_switch_is_not_active():
    store = simulate(["我们前端一直用 Angular，团队都熟。"], ["也许以后换成 Svelte？我再想想。"])
    assert any("Angular" in c for c in active(store))
    assert not any("Svelte" in c for c in active(store))


# ---- generic thing slots and the slotless value-atom fallback ------------------------------


def test_generic_thing_slots_compatible_by_containment():
    assert slots_compatible("thing:保洁", "thing:保洁阿姨")
    assert slots_compatible("thing:plan", "thing:phone plan")
    assert not slots_compatible("thing:牙医", "thing:家庭医生")
    assert not slots_compatible("thing:gym", "thing:swimming pool")
    assert not slots_compatible("thing:医", "thing:牙医")  # never one character
    assert not slots_compatible("thing:plan", "thing:planner")  # whole words only


def test_slotless_same_sentence_other_name_conflicts():
    old = mem(id=1, category="fact", content="The user streams music on Spotify.", confidence=0.75)
    new = cand(category="fact", content="The user streams music on Tidal.", confidence=0.9)
    d = decide(new, T1, [old], {1: 0.8})
    assert d.action == "supersede" and d.target_id == 1


def test_slotless_different_things_do_not_conflict():
    # within one conversation the rules alone judge: close wording is not a contradiction
    same_talk = T0 + dt.timedelta(minutes=5)
    old = mem(id=1, category="fact", content="The user writes scripts in Python.", confidence=0.75)
    new = cand(category="fact", content="The user edits photos in Lightroom.", confidence=0.9)
    assert decide(new, same_talk, [old], {1: 0.8}).action == "create"
    # a month later the replacement model judges too, at the similarity the offline embedder
    # measures for the pair (0.23)
    assert decide(new, T1, [old], {1: 0.23}).action == "create"
    old = mem(id=1, category="fact", content="用户的车停在B2层", confidence=0.75)
    new = cand(category="fact", content="用户的自行车锁在小区车棚旁边的B区", confidence=0.9)
    assert decide(new, same_talk, [old], {1: 0.8}).action == "create"
    assert decide(new, T1, [old], {1: 0.55}).action == "create"


def test_slotless_fallback_needs_similarity_or_a_shared_topic():
    old = mem(id=1, category="fact", content="The user streams music on Spotify.", confidence=0.75)
    new = cand(
        category="fact", content="The user switched to streaming music on Tidal.", confidence=0.9
    )
    # a change on the same topic (shared "music"/"stream"), another service: it replaces
    assert decide(new, T1, [old], {1: 0.5}).action == "supersede"
    # far apart in embedding space, but another thing of one kind (two music services,
    # memory/extraction/kinds.py): still the same question answered anew
    assert decide(new, T1, [old], {1: 0.2}).action == "supersede"
    # far apart and of different kinds: unrelated however the words overlap
    bank = mem(id=1, category="fact", content="The user banks with Chase.", confidence=0.75)
    assert decide(new, T1, [bank], {1: 0.2}).action == "create"
    # a plain remark (no change word, not firm) never replaces anything on topic alone
    plain = cand(category="fact", content="The user streams music on Tidal.", confidence=0.75)
    assert decide(plain, T1, [old], {1: 0.5}).action == "create"
    # a firm statement without a change word replaces only a one-at-a-time value
    firm = cand(category="fact", content="The user streams music on Tidal.", confidence=0.95)
    assert decide(firm, T1, [old], {1: 0.5}).action == "create"
    job = mem(id=2, category="profile", content="The user works at Shopify.", confidence=0.75)
    new_job = cand(category="profile", content="The user works at Stripe as a PM.", confidence=0.95)
    assert decide(new_job, T1, [job], {2: 0.45}).action == "supersede"


def test_a_change_naming_another_value_than_a_close_statement_swaps_it():
    old = mem(category="fact", content="The user has paid for Spotify premium for years")
    change = cand(
        category="fact",
        content="The user cancelled the old music sub and went with Apple Music",
        confidence=0.9,  # a change statement is firm
    )
    d = decide(change, T1, [old], {1: 0.45})
    assert d.action == "supersede" and d.target_id == 1
    # not close enough and naming a thing of another kind, or naming nothing: no swap
    airline = mem(category="fact", content="The user has flown Delta for years")
    assert decide(change, T1, [airline], {1: 0.2}).action == "create"
    # the rule itself, within one conversation (across conversations the replacement model
    # weighs the pair too): an old statement naming nothing is no value to swap
    plain = mem(category="fact", content="The user runs 5k three times a week")
    soon = T0 + dt.timedelta(minutes=5)
    assert decide(change, soon, [plain], {1: 0.45}).action == "create"
    # without a change word a different name is just another fact
    other = cand(category="fact", content="The user also likes Apple Music playlists")
    assert decide(other, T1, [old], {1: 0.45}).action == "create"


def test_only_a_first_clause_that_adds_keeps_a_statement_from_replacing():
    dose = mem(category="fact", content="用户每天吃二甲双胍500mg，早晚各一片")
    changed = cand(
        category="fact",
        content="用户上周复诊，医生把二甲双胍加到了850，另外让用户每天饭后走路",
    )
    assert decide(changed, T1, [dose], {1: 0.6}).action == "supersede"
    added = cand(
        category="fact",
        content="用户另外还在吃二甲双胍缓释片850，晚上一片",
    )
    assert decide(added, T1, [dose], {1: 0.6}).action != "supersede"


def test_a_change_retires_every_statement_about_the_thing_it_replaced():
    plan = mem(id=1, category="fact", content="The user pays for the Netflix premium plan")
    about = mem(id=2, category="fact", content="The user watches Netflix on the bedroom TV")
    friend = mem(id=3, category="fact", content="The user's sister shares a Spotify family plan")
    change = cand(
        category="fact",
        content="The user switched to Disney+ and cancelled the rest",
        confidence=0.9,
    )
    d = decide(change, T1, [plan, about, friend], {1: 0.5, 2: 0.3, 3: 0.2})
    assert d.action == "supersede" and d.target_id == 1
    assert d.also_supersede == [2]


def test_the_model_picks_which_memory_a_change_answers_when_the_topic_rule_differs():
    # the topic rule finds "网速太慢" (same topic, telecom); the replacement model links the
    # statement of the provider and its speed, which the change answers anew
    from memory.embeddings import get_embedder

    slow = "用户家里网速太慢了，晚上看球 ping 好几百"
    provider = "用户的电信，200M 的"
    change = "用户已经换成联通 500M 了，价格还更便宜"
    v_slow, v_provider, v_change = get_embedder("use").embed([slow, provider, change])
    existing = [
        mem(1, category="fact", content=slow, occurred_at=T0),
        mem(2, category="fact", content=provider, confidence=0.7, occurred_at=T0),
    ]
    candidate = Candidate(content=change, category="fact", confidence=0.9, source_quote=change)
    similarity = {1: float(v_change @ v_slow), 2: float(v_change @ v_provider)}
    decision = decide(candidate, T1, existing, similarity)
    assert (decision.action, decision.target_id) == ("supersede", 2), decision


def test_a_value_taken_back_later_in_the_conversation_supersedes_the_statement_holding_it():
    earlier = mem(1, category="fact", content="The user's train to Leeds leaves at 7:15am.")
    other = mem(2, category="fact", content="The user likes a window seat.", occurred_at=T0)
    earlier.occurred_at = T0
    later = T0 + dt.timedelta(minutes=3)
    candidate = Candidate(
        content="The user checked the booking, it's 9:15.",
        category="fact",
        confidence=0.75,
        source_quote="checked the booking, it's 9:15 not 7:15",
    )
    decision = decide(candidate, later, [earlier, other], {1: 0.3, 2: 0.1})
    assert (decision.action, decision.target_id) == ("supersede", 1), decision
    # a later conversation is no correction of this one: the model and the rules decide there
    far = decide(candidate, T0 + dt.timedelta(days=20), [earlier, other], {1: 0.3, 2: 0.1})
    assert "took it back" not in far.reason


def test_one_thing_picked_from_the_offer_does_not_answer_a_standing_instruction_anew(monkeypatch):
    """ "以后别给我订红眼航班" is not replaced, weeks later, by picking one of the flights the
    assistant listed — however strongly the replacement model links the two; an instruction
    given anew does replace it."""
    from memory.extraction import replacement

    monkeypatch.setattr(replacement, "linked", lambda *a, **k: 0.99)
    rule = mem(1, kind="procedural", content="用户以后订机票别给用户订红眼航班，睡不好")
    later = T0 + dt.timedelta(days=30)
    picked = Candidate(
        content="用户选了那班早上七点的航班（就这个吧）",
        category="fact",
        confidence=0.75,
        source_quote="就这个吧，选了那班早上七点的",
    )
    assert decide(picked, later, [rule], {1: 0.62}).action == "create"
    anew = Candidate(
        content="用户以后订机票哪班便宜订哪班，红眼航班也行",
        category="preference",
        kind="procedural",
        confidence=0.75,
        source_quote="以后订机票哪班便宜订哪班，红眼航班也行",
    )
    assert decide(anew, later, [rule], {1: 0.62}).target_id == 1


def test_a_hedged_statement_never_replaces_however_firmly_it_was_scored():
    """The extractor may score a hedged sentence high (here as a preference); the decision
    still observes it beside the firm fact instead of replacing it."""
    old = mem(slot="work_mode", values=["remote"], content="The user is fully remote")
    floated = cand(
        content="The user's manager floated maybe going hybrid, 3 days in office",
        slot="work_mode",
        values=["hybrid"],
        confidence=0.9,
    )
    d = decide(floated, T1, [old], {1: 0.5})
    assert d.action == "observe_conflict" and d.target_id == 1


def test_a_hedge_about_something_else_does_not_hold_back_a_firm_change():
    old = mem(slot="medication", values=["氨氯地平"], content="用户每天早上吃一片氨氯地平")
    changed = cand(
        content="医生说用户脚踝肿可能是药的副作用，把药改成缬沙坦了",
        slot="medication",
        values=["缬沙坦"],
        confidence=0.9,
    )
    d = decide(changed, T1, [old], {1: 0.5})
    assert d.action == "supersede" and d.target_id == 1


def test_one_slot_with_no_value_read_and_little_else_alike_is_no_repetition():
    """Merging "reminders go to my telegram" into "email me the reminders at 7am" because both
    are slot reminder would lose the new channel: it is kept, beside the old one or, said in a
    later conversation, in its place."""
    old = mem(slot="reminder", content="Email the daily reminders to the user around 7am")
    new = cand(slot="reminder", content="The user's reminders go to the user's Telegram")
    d = decide(new, T1, [old], {1: 0.3})
    assert d.action in ("create", "supersede") and not d.update_content, d
    # alike beyond the slot: still the same statement said again
    assert decide(new, T1, [old], {1: 0.9}).action == "merge"


@pytest.mark.parametrize(
    "said,expected",
    [
        ("we finally moved to Portland last weekend", "finally moved"),
        ("I honestly prefer window seats", "honestly prefers"),
        ("I apply for two jobs a week", "applies"),
    ],
)
def test_an_adverb_before_the_verb_is_not_conjugated(said, expected):
    contents = [c.content for c in RuleExtractor().extract([Turn("user", said)]).candidates]
    assert any(expected in c for c in contents), contents
    assert not any("finallies" in c or "honestlies" in c for c in contents), contents


def test_a_two_character_chinese_name_goes_stale_with_the_change():
    # the segmenter often cuts an unknown model short ("卡罗" of 卡罗拉): two Chinese characters
    # still name the old car, and every statement naming it goes with the change
    car = mem(id=1, category="fact", content="用户的车：用户那台卡罗拉快四万公里了")
    mileage = mem(id=2, category="fact", content="用户的卡罗：11万多公里")
    change = cand(category="fact", content="用户刚提了比亚迪海豹，家里就这一台车", confidence=0.9)
    d = decide(change, T1, [car, mileage], {1: 0.5, 2: 0.3})
    assert d.action == "supersede", d
    assert {d.target_id, *d.also_supersede} == {1, 2}, d


def test_a_later_home_named_in_passing_replaces_the_home_told_beside_a_request():
    # where a person lives has one answer at a time: another place to live replaces the first,
    # however far apart the rest of the two requests puts them in embedding space
    old = mem(category="fact", content="用户周末想约朋友吃早午餐，用户住 Kitsilano 附近")
    new = cand(
        category="fact",
        content="用户住 Mount Pleasant 这边的老公寓",
        source_quote="这几天降温好冷，我住 Mount Pleasant 这边的老公寓，暖气不太行，推荐个电暖器",
    )
    d = decide(new, T1, [old], {1: 0.12})
    assert (d.action, d.target_id) == ("supersede", 1)
