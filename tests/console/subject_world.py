"""Data for the subjects-part console tests: one subject per tenant, with memories and events.

Memories are built with `tests.factories.make_memory` (bypassing redaction on purpose, so a raw
phone number in the content shows whether masking works).
"""

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from audit.services import SYSTEM
from memory.models import Event, Memory, RecallTrace, Subject
from memory.services import EventInput, events_append
from tests.factories import make_memory

PHONE = "13812345678"


@dataclass
class World:
    subject_a: Subject
    memory_a: Memory  # active, with a phone number in the content and a source event
    event_a: Event  # the source event (contains the phone number)
    subject_b: Subject
    memory_b: Memory
    event_b: Event


def append_events(tenant, external_id: str, session_id: str, texts: list[str], *, start=None):
    start = start or timezone.now() - dt.timedelta(hours=1)
    return events_append(
        tenant=tenant,
        external_id=external_id,
        session_id=session_id,
        events=[
            EventInput(
                role="user" if i % 2 == 0 else "assistant",
                content=text,
                occurred_at=start + dt.timedelta(seconds=i),
            )
            for i, text in enumerate(texts)
        ],
        extract="none",
        actor=SYSTEM,
    )


def build_world(cast) -> World:
    appended_a = append_events(
        cast.tenant_a,
        "wang.fang",
        "chat-1",
        [f"我不吃辣。我的手机号是 {PHONE}", "好的，记住了。"],
    )
    subject_a = appended_a.subject
    Subject.objects.filter(pk=subject_a.pk).update(display_name="王芳")
    subject_a.refresh_from_db()
    event_a = appended_a.events[0]
    memory_a = make_memory(
        subject_a,
        f"用户不吃辣，手机号 {PHONE}",
        category="preference",
        source_event=event_a,
        source_quote="我不吃辣",
        entities=["辣"],
    )
    appended_b = append_events(cast.tenant_b, "outsider", "chat-b", ["I live in Berlin."])
    memory_b = make_memory(appended_b.subject, "User lives in Berlin.")
    return World(
        subject_a=subject_a,
        memory_a=memory_a,
        event_a=event_a,
        subject_b=appended_b.subject,
        memory_b=memory_b,
        event_b=appended_b.events[0],
    )


def make_trace(memory: Memory, *, query: str = "推荐餐厅") -> RecallTrace:
    return RecallTrace.objects.create(
        tenant_id=memory.tenant_id,
        subject_id=memory.subject_id,
        query=query,
        route="preference",
        selected_ids=[memory.pk],
        candidates=[{"id": memory.pk, "selected": True}],
    )
