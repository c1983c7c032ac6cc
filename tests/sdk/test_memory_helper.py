import pytest
from engram.memory import EngramMemory

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_memory_helper_saves_turns_and_loads_the_recalled_context(alice_sdk):
    memory = EngramMemory(alice_sdk, subject_id="chain-user", session_id="c1", extract="sync")
    memory.save_context(
        {"question": "I always prefer aisle seats on flights."}, {"answer": "Noted."}
    )
    variables = memory.load_memory_variables({"question": "Book me a flight to Tokyo."})
    assert list(variables) == memory.memory_variables == ["history"]
    assert "aisle" in variables["history"].lower()
    assert [e.role for e in alice_sdk.iter_events("chain-user")] == ["user", "assistant"]
