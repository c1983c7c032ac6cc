"""Recall of plans for look-ahead questions: plans dated inside the period the question looks
ahead to rank first.

Sentences here are written for the tests, not taken from any scenario file.
"""

import datetime as dt

import pytest
from django.utils import timezone

from memory.language.dates import plan_dates, plan_window
from memory.models import Memory, Subject
from memory.recall import RecallParams, recall_compute
from tests.factories import make_memory

URL = "/api/v1/subjects/{}/recall"
TODAY = dt.date(2026, 5, 20)
MONTHS = "January February March April May June July August September October November December"


@pytest.mark.parametrize(
    ("query", "window"),
    [
        ("这个季度有什么安排？", (dt.date(2026, 5, 20), dt.date(2026, 7, 1))),
        ("Anything big next quarter?", (dt.date(2026, 7, 1), dt.date(2026, 10, 1))),
        ("下个月有啥计划", (dt.date(2026, 6, 1), dt.date(2026, 7, 1))),
        ("What's lined up next week?", (dt.date(2026, 5, 25), dt.date(2026, 6, 1))),
        ("Any deadlines coming up?", (dt.date(2026, 5, 20), dt.date(2026, 8, 18))),
    ],
)
def test_plan_window(query, window):
    assert plan_window(query, TODAY) == window


def test_plan_dates_reads_months_days_and_slot_values():
    def dates(content, values=()):
        memory = Memory(content=content, slot_values=list(values))
        return [a for a, _ in plan_dates(memory.content, memory.slot_values, TODAY)]

    assert dates("用户公司的秋季运动会定在九月二十六号") == [dt.date(2026, 9, 26)]
    assert dates("The user's plan: ship the mobile app in October.") == [dt.date(2026, 10, 1)]
    assert dates("The user's book club meets on Feb 7.") == [dt.date(2027, 2, 7)]
    assert dates("用户的家长会改到了下周", ["06-02"]) == [dt.date(2026, 6, 2)]
    assert dates("The user may bring snacks.") == []


def test_plans_dated_in_the_coming_window_rank_first(cast):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    today = timezone.now().date()
    soon = today + dt.timedelta(days=20)
    later = today + dt.timedelta(days=200)
    far = make_memory(
        subject,
        f"The user's plan: the charity gala is on {MONTHS.split()[later.month - 1]} {later.day}.",
        category="plan",
        importance=0.6,
    )
    near = make_memory(
        subject,
        f"The user's team hackathon is set for {MONTHS.split()[soon.month - 1]} {soon.day}.",
        category="plan",
        importance=0.5,
    )
    make_memory(subject, "The user prefers window seats on trains.", category="preference")
    result = recall_compute(
        subject=subject, params=RecallParams(query="Any milestones coming up soon?")
    )
    ids = [item.memory.pk for item in result.selected]
    assert ids.index(near.pk) < ids.index(far.pk)


def test_plan_recall_keeps_a_constant_number_of_queries(cast, django_assert_max_num_queries):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    for i in range(8):
        make_memory(subject, f"用户的第{i}个项目节点定在{i + 1}月{i + 3}号", category="plan")
    with django_assert_max_num_queries(3):
        result = recall_compute(subject=subject, params=RecallParams(query="这个季度有什么安排"))
    assert result.selected
