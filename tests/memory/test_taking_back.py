"""Taking back a value later in the same conversation, end to end through the extractor and the
write path (real Postgres): the slip may be named in any clause of the turn and in many words
("哎不对", "打错了", "wrong day", "I'm mixing it up with…"), or the figure may simply be given
more exactly ("actually it's…"). The statement taken back is superseded and, where the
correction gives only the value, the new version is that statement put right. Examples written
for these tests."""

import datetime as dt

import pytest

from audit.services import SYSTEM
from memory import services
from memory.extraction.rules.corrections import corrected_statement, gives_another_value
from memory.extraction.rules.markers import SELF_CORRECTION_RE
from memory.models import Memory

T0 = dt.datetime(2026, 5, 4, 19, 0, tzinfo=dt.UTC)


def _talk(cast, name: str, *turns: str, start: dt.datetime = T0) -> dict[str, list[str]]:
    """Post one conversation (user / assistant alternating), extract it, and return the
    subject's memory contents by status."""
    events = [
        services.EventInput(
            role="user" if i % 2 == 0 else "assistant",
            content=text,
            occurred_at=start + dt.timedelta(minutes=i),
        )
        for i, text in enumerate(turns)
    ]
    appended = services.events_append(
        tenant=cast.tenant_a,
        external_id=name,
        session_id=f"{name}-{start:%Y%m%d}",
        events=events,
        extract="sync",
        actor=SYSTEM,
    )
    services.events_extract(event_ids=appended.new_event_ids, actor=SYSTEM)
    found: dict[str, list[str]] = {}
    for memory in Memory.objects.filter(subject__external_id=name):
        found.setdefault(memory.status, []).append(memory.content)
    return found


def _any(texts: list[str], word: str) -> bool:
    return any(word.lower() in t.lower() for t in texts)


@pytest.mark.parametrize(
    "clause",
    [
        "哎呀不对，",
        "等下，我打错了",
        "我又记串了",
        "oops, wrong day",
        "I'm mixing it up with my sister",
        "I mistyped",
    ],
)
def test_a_slip_is_read_in_many_words(clause):
    assert SELF_CORRECTION_RE.search(clause)


@pytest.mark.parametrize(
    "text", ["这个说法不对劲", "女儿老把6和9写反", "what is wrong with my code?"]
)
def test_no_slip_of_the_speaker(text):
    assert not SELF_CORRECTION_RE.search(text)


def test_the_statement_is_put_right_with_the_value_only():
    assert corrected_statement("用户是18楼", "用户住3栋8楼，电梯常坏") == "用户住3栋18楼，电梯常坏"
    assert (
        corrected_statement("The user said the 5th.", "The user's dentist visit is on March 3rd.")
        == "The user's dentist visit is on March 5th."
    )
    # two new values of the shape: not clear which one corrects, the statement stays as said
    assert corrected_statement("用户是18楼或者19楼", "用户住3栋8楼") is None


def test_another_value_is_one_the_new_statement_does_not_give():
    assert gives_another_value("用户是18楼", "用户住8楼")
    assert not gives_another_value("用户要找 Grade 6 的练习", "用户儿子读 Grade 6")


def test_a_floor_taken_back_in_chinese_supersedes_and_keeps_the_rest(cast):
    found = _talk(
        cast,
        "floor-zh",
        "快递帮我备注一下放门口，我住3栋8楼，电梯经常坏。",
        "好的，已备注：3栋8楼，放门口。",
        "等下，我打错了，是18楼。",
        "收到，已改成3栋18楼。",
    )
    assert _any(found.get("superseded", []), "8楼")
    active = found.get("active", [])
    assert _any(active, "18楼") and not any("3栋8楼" in t for t in active), active
    assert _any(active, "电梯"), active  # what the corrected statement also said stays said


def test_a_date_taken_back_in_english_keeps_the_month(cast):
    found = _talk(
        cast,
        "date-en",
        "My dentist visit is on March 3rd, can you remind me to leave work early?",
        "Sure, I'll note March 3rd.",
        "Oops, wrong day — it's the 5th.",
        "Got it.",
    )
    active = " ".join(found.get("active", []))
    assert "March 5th" in active and "March 3rd" not in active, found


def test_a_figure_given_more_exactly_replaces_the_rough_one(cast):
    found = _talk(
        cast,
        "commute-en",
        "I drive about 20 km to the office every day.",
        "That's a manageable commute.",
        "Actually I looked it up, it's 34 km each way.",
        "Good to know.",
    )
    assert _any(found.get("superseded", []), "20 km"), found
    assert not _any(found.get("active", []), "20 km"), found


def test_someone_elses_slip_takes_nothing_back(cast):
    found = _talk(
        cast,
        "other-slip",
        "我儿子今年上三年级，数学还行。",
        "三年级是打基础的时候。",
        "就是乘法口诀他老记串，七八五十六总说成五十四。",
        "可以多做口算卡片。",
    )
    assert _any(found.get("active", []), "三年级"), found
    assert not found.get("superseded"), found


def test_a_sentence_that_only_names_the_slip_answers_nothing():
    from memory.extraction.base import Turn
    from memory.extraction.rules.extractor import RuleExtractor

    turns = [
        Turn(role="user", content="For the intake form I wrote my blood type is A."),
        Turn(role="assistant", content="Okay. Anything else for the form?"),
        Turn(role="user", content="Wait, I'm mixing it up with my sister. Mine is O negative."),
    ]
    contents = [c.content for c in RuleExtractor().extract(turns).candidates]
    assert not any("Wait" in c or "sister" in c for c in contents), contents
    assert any("O negative" in c for c in contents), contents


def test_a_past_tense_stays_past_in_the_third_person():
    from memory.extraction.base import Turn
    from memory.extraction.rules.extractor import RuleExtractor

    turns = [Turn(role="user", content="My knee is the problem, I tore a ligament playing soccer.")]
    contents = " ".join(c.content for c in RuleExtractor().extract(turns).candidates)
    assert "the user tore a ligament" in contents, contents


def test_having_mistyped_is_no_event_the_rest_of_the_sentence_reports():
    from memory.extraction.base import Turn
    from memory.extraction.rules.extractor import RuleExtractor

    turns = [Turn(role="user", content="不好意思打错了，我是 A 型血，体检单上写的。")]
    found = RuleExtractor().extract(turns).candidates
    assert any("A 型血" in c.content and c.kind == "semantic" for c in found), found
