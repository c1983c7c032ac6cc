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
