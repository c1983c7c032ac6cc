"""Consolidation never breaks a version chain: a corrected memory (v2 with its change reason)
that duplicates a standalone memory survives as it is and absorbs the duplicate; two memories
that each have a history are left alone."""

import pytest

from audit.services import SYSTEM
from memory.lifecycle import memories_consolidate
from memory.models import Memory, Observation, Subject
from memory.selectors import memory_history
from memory.services import memory_correct
from tests.factories import make_memory

OLD = "The user prefers aisle seats"
NEW = "The user prefers window seats"
REASON = "the user said window, not aisle"


@pytest.fixture
def subject(cast):
    return Subject.objects.create(tenant=cast.tenant_a, external_id="u1")


def test_a_corrected_version_survives_and_absorbs_its_standalone_duplicate(subject):
    v1 = make_memory(
        subject, OLD, category="preference", entities=["座位"], source_quote="I like aisle seats"
    )
    # written by another path before the correction, saying what the correction will say
    duplicate = make_memory(
        subject,
        NEW,
        category="preference",
        entities=["座位"],
        source_quote="window seat please",
        hit_count=3,
    )
    review = Observation.objects.create(
        tenant=subject.tenant, subject=subject, kind=Observation.Kind.NEEDS_REVIEW, memory=duplicate
    )
    v2 = memory_correct(memory=v1, content=NEW, reason=REASON, actor=SYSTEM)
    assert v2.pk > duplicate.pk and v2.version == 2

    assert memories_consolidate(actor=SYSTEM) == 1

    assert not Memory.objects.filter(pk=duplicate.pk).exists()
    survivor = Memory.objects.get(pk=v2.pk)
    assert survivor.status == "active"
    assert survivor.content == NEW
    assert survivor.version == 2
    assert survivor.change_reason == REASON
    assert survivor.supersedes_id == v1.pk
    assert Memory.objects.get(pk=v1.pk).superseded_by_id == v2.pk
    assert [m.pk for m in memory_history(memory=survivor)] == [v1.pk, v2.pk]
    # the duplicate's own statement is added as evidence; the old sentence is not
    quotes = [item["quote"] for item in survivor.evidence]
    assert quotes == ["window seat please"]
    assert survivor.merge_count == 1 and survivor.hit_count == 3
    assert Observation.objects.get(pk=review.pk).memory_id == v2.pk
    assert memories_consolidate(actor=SYSTEM) == 0


def test_an_older_chain_head_absorbs_a_newer_standalone_duplicate(subject):
    v1 = make_memory(subject, OLD, category="preference", entities=["座位"])
    v2 = memory_correct(memory=v1, content=NEW, reason=REASON, actor=SYSTEM)
    duplicate = make_memory(subject, NEW, category="preference", entities=["座位"])

    assert memories_consolidate(actor=SYSTEM) == 1

    assert not Memory.objects.filter(pk=duplicate.pk).exists()
    survivor = Memory.objects.get(pk=v2.pk)
    assert (survivor.version, survivor.change_reason, survivor.content) == (2, REASON, NEW)
    assert [m.pk for m in memory_history(memory=survivor)] == [v1.pk, v2.pk]


def test_two_memories_that_each_have_a_history_are_not_merged(subject):
    first = make_memory(subject, OLD, category="preference", entities=["座位"])
    first_v2 = memory_correct(memory=first, content=NEW, reason=REASON, actor=SYSTEM)
    second = make_memory(subject, "The user likes aisle seats", category="preference")
    second_v2 = memory_correct(
        memory=second, content=NEW, entities=["座位"], reason="also window", actor=SYSTEM
    )

    assert memories_consolidate(actor=SYSTEM) == 0

    for head, root in ((first_v2, first), (second_v2, second)):
        kept = Memory.objects.get(pk=head.pk)
        assert kept.status == "active" and kept.version == 2
        assert [m.pk for m in memory_history(memory=kept)] == [root.pk, head.pk]
