import pytest

from audit.services import SYSTEM
from core.exceptions import ApplicationError
from memory.mem0_compat.filters import filter_fields, parse_filters, pinned_user_id
from memory.mem0_compat.selectors import memories_for_agent
from memory.models import Event
from memory.services import EventInput, events_append, memory_create


def remember(cast, user, text, agent_id=None, category="fact"):
    meta = {"mem0": {"agent_id": agent_id}} if agent_id else {}
    appended = events_append(
        tenant=cast.tenant_a,
        external_id=user,
        session_id="s",
        events=[EventInput(role="user", content=text, metadata=meta)],
        extract="none",
        actor=SYSTEM,
    )
    event = Event.objects.get(pk=appended.new_event_ids[0])
    return memory_create(
        subject=appended.subject,
        content=text,
        occurred_at=event.occurred_at,
        source_event=event,
        actor=SYSTEM,
        category=category,
    ).memory


def matching(cast, filters):
    rows = memories_for_agent(
        agent=cast.alice,
        condition=parse_filters(filters),
        user_id=pinned_user_id(filters),
        any_status="status" in filter_fields(filters),
    )
    return sorted(m.content for m in rows)


@pytest.mark.parametrize(
    ("filters", "where"),
    [
        ({"colour": "red"}, "filters.colour"),
        ({"user_id": {"near": "u1"}}, "filters.user_id.near"),
        ({"AND": [{"user_id": "u1"}, {"created_at": {"gte": "yesterday"}}]}, "created_at"),
        ({"OR": []}, "filters.OR"),
        ({"user_id": {"in": "u1"}}, "filters.user_id.in"),
        ({"confidence": {"gt": "high"}}, "filters.confidence.gt"),
        ({"metadata": {"a-b": 1}}, "filters.metadata.a-b"),
        ({"categories": {"icontains": "pl"}}, "filters.categories.icontains"),
        ("user_id=u1", "filters.$"),
    ],
)
def test_it_refuses_what_it_cannot_filter_on(filters, where):
    with pytest.raises(ApplicationError) as caught:
        parse_filters(filters)
    assert caught.value.code == "invalid_filter"
    assert any(where in key for key in caught.value.fields), caught.value.fields


def test_it_finds_the_one_pinned_user():
    assert pinned_user_id({"user_id": "u1"}) == "u1"
    assert pinned_user_id({"AND": [{"user_id": {"eq": "u1"}}, {"agent_id": "x"}]}) == "u1"
    assert pinned_user_id({"OR": [{"user_id": "u1"}, {"user_id": "u2"}]}) is None
    assert pinned_user_id({"user_id": "*"}) is None


def test_the_grammar_on_real_memories(cast):
    remember(cast, "u1", "I live in Lisbon.", agent_id="travel")
    remember(cast, "u1", "I am planning a trip to Kyoto in May.", category="plan")
    remember(cast, "u2", "I live in Oslo.", agent_id="travel")

    assert matching(cast, {"user_id": "u1"}) == [
        "I am planning a trip to Kyoto in May.",
        "I live in Lisbon.",
    ]
    assert matching(cast, {"agent_id": "travel"}) == ["I live in Lisbon.", "I live in Oslo."]
    assert matching(cast, {"OR": [{"user_id": "u2"}, {"categories": {"contains": "plan"}}]}) == [
        "I am planning a trip to Kyoto in May.",
        "I live in Oslo.",
    ]
    assert matching(cast, {"user_id": "u1", "NOT": [{"agent_id": "*"}]}) == [
        "I am planning a trip to Kyoto in May."
    ]
    assert matching(cast, {"memory": {"icontains": "LISBON"}}) == ["I live in Lisbon."]
    assert matching(cast, {"agent_id": {"ne": "travel"}, "user_id": "u1"}) == [
        "I am planning a trip to Kyoto in May."
    ]
    assert matching(cast, {"created_at": {"gte": "2000-01-01"}, "user_id": {"nin": ["u1"]}}) == [
        "I live in Oslo."
    ]
