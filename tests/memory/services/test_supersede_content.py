import pytest
from django.utils import timezone

from audit.services import SYSTEM
from memory.extraction.base import Candidate
from memory.models import Memory, Subject
from memory.services import content_without_old_values, memory_ingest


@pytest.mark.parametrize(
    "content,old,new,expected",
    [
        ("用户家的宽带换成联通了，移动信号太差", ["移动"], ["联通"], "用户家的宽带换成联通了"),
        (
            "The user's barber is now Sam Lee, Dr. Fox moved away.",
            ["Dr. Fox"],
            ["Sam Lee"],
            "The user's barber is now Sam Lee.",
        ),
        ("用户的牙医改成张医生了", ["李医生"], ["张医生"], "用户的牙医改成张医生了"),
        ("用户不用钉钉了", ["钉钉"], ["飞书"], "用户不用钉钉了"),  # nothing would be left
    ],
)
def test_the_new_version_keeps_only_the_current_value(content, old, new, expected):
    assert content_without_old_values(content, old, new) == expected


@pytest.mark.parametrize(
    "content,old_content,expected",
    [
        # the old time said again in other numerals, beside the new one
        (
            "用户的早上推送改成七点，用户现在六点半就起了，八点太晚",
            "用户的助手每天早上8点推送天气和日程",
            "用户的早上推送改成七点，用户现在六点半就起了",
        ),
        # the old class ending, then the new one: the ending clause goes too
        (
            "用户salsa 那个班停了，用户现在改成每周四晚上学 bachata",
            "用户每周二晚上要去上 salsa 课",
            "用户现在改成每周四晚上学 bachata",
        ),
        (
            "The user's standup moved to 10:30, 9:00 was too early.",
            "Standup is at 9:00.",
            "The user's standup moved to 10:30.",
        ),
        # a clause repeating what still holds, with no new value anywhere, stays
        (
            "用户要求：以后都这样，comments用英文，但解释的时候用中文",
            "用户的 code review comments 直接写英文",
            None,
        ),
        # the old weekday beside a new place and activity is the new state, not the old one
        (
            "用户的舞蹈班退费了，现在周六上午改成去奥体中心学游泳，8点半到10点",
            "用户闺女每周六上午在少年宫学拉丁舞，9点到11点",
            None,
        ),
        ("The user moved to Raleigh, still 2 kids.", "The user lives in Austin with 2 kids.", None),
    ],
)
def test_clauses_naming_only_old_values_go_from_the_new_version(content, old_content, expected):
    got = content_without_old_values(content, [], [], old_content)
    assert got == (content if expected is None else expected)


def test_a_clause_giving_the_new_figure_stays_though_its_other_names_are_old():
    # "budget" is named by the old version too; 8000 is a bare figure, no atom — still the news
    got = content_without_old_values(
        "用户budget 8000 以内，跟 roommate 合租两室",
        ["5000"],
        ["8000"],
        "用户偏好budget 每月 5000 以内，最好靠近 2 号线",
    )
    assert "8000" in got


def test_a_bracket_opened_before_a_dropped_clause_is_closed():
    got = content_without_old_values(
        "用户的站会（是 10 点，9:30 那个是隔壁组的）", ["9:30"], ["10:00"]
    )
    assert got == "用户的站会（是 10 点）"


def test_a_supersede_stores_the_current_state_and_keeps_the_quote(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    memory_ingest(
        subject=subject,
        occurred_at=timezone.now() - timezone.timedelta(days=5),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户家的宽带是移动的",
            category="fact",
            slot="thing:宽带",
            values=["移动"],
            confidence=0.75,
        ),
    )
    quote = "宽带换成联通了，移动信号太差"
    result = memory_ingest(
        subject=subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户家的宽带换成联通了，移动信号太差",
            category="fact",
            slot="thing:宽带",
            values=["联通"],
            confidence=0.95,
            source_quote=quote,
        ),
    )
    assert result.action == "superseded"
    assert result.memory.content == "用户家的宽带换成联通了"
    assert result.memory.source_quote == quote
    active = Memory.objects.filter(subject=subject, status="active")
    assert [m.content for m in active] == ["用户家的宽带换成联通了"]
    assert (
        not Memory.objects.filter(subject=subject, search_text__contains="信号")
        .exclude(status="superseded")
        .exists()
    )


def test_a_memory_is_found_by_its_slot_topic_in_either_language(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    memory_ingest(
        subject=subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        candidate=Candidate(
            content="The user switched everything over to Bear.",
            category="preference",
            slot="thing:牙医",
            values=["Bear"],
            confidence=0.9,
        ),
    )
    response = cast.alice_client.get("/api/v1/subjects/u1/memories", {"q": "dentist"})
    assert [m["content"] for m in response.json()["results"]] == [
        "The user switched everything over to Bear."
    ]


def test_what_the_old_memory_said_besides_the_replaced_answer_stays_active(cast):
    from audit.models import AuditEntry

    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    first = memory_ingest(
        subject=subject,
        occurred_at=timezone.now() - timezone.timedelta(days=20),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户家里 WiFi 是电信 300M 的,住广州天河,晚上打游戏老是 lag",
            category="fact",
            confidence=0.75,
            source_quote="家里 WiFi 是电信 300M 的, 住广州天河, 晚上打游戏老是 lag",
        ),
    ).memory
    result = memory_ingest(
        subject=subject,
        occurred_at=timezone.now(),
        actor=SYSTEM,
        candidate=Candidate(
            content="用户的宽带换成移动的 1000M 了",
            category="fact",
            confidence=0.9,
            source_quote="宽带换成移动的 1000M 了",
        ),
    )
    assert result.action == "superseded"
    first.refresh_from_db()
    assert first.status == Memory.Status.SUPERSEDED
    kept = Memory.objects.get(subject=subject, status="active", content="用户住广州天河")
    # from the same words, as old as they are, and its creation audited
    assert kept.source_quote == first.source_quote
    assert kept.observed_at == first.observed_at
    assert AuditEntry.objects.filter(action="memory.create", target_id=str(kept.pk)).exists()
    active = Memory.objects.filter(subject=subject, status="active").values_list(
        "content", flat=True
    )
    assert not any("电信" in c for c in active)


@pytest.mark.parametrize(
    "new,old,kept",
    [
        (
            "用户的宽带换成移动的 1000M 了",
            "用户家里 WiFi 是电信 300M 的,住广州天河,晚上打游戏老是 lag",
            "用户住广州天河",
        ),
        # the move takes the old city's job with it: both name a city
        ("用户刚 relocate 到 Sydney 两周", "用户在 Singapore 工作，住 Tiong Bahru 附近", ""),
        # a request leaning on the replaced clause goes with it
        ("用户不吃肉的", "用户是素食者，推荐餐厅的时候注意菜单", ""),
        ("The user now lives in Denver.", "The user is a senior analyst at Deloitte.", ""),
    ],
)
def test_kept_apart(new, old, kept):
    from memory.decisions import kept_apart

    assert kept_apart(new, old) == kept
