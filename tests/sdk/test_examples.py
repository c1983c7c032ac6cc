"""The SDK example runs in CI: a subprocess against the live test server, as a user would run
it. (The mem0 and MCP examples run in tests/compat/ and tests/mcp_door/.)"""

import pytest

from memory.models import Memory
from tests.examples import run_example

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_sdk_agent_loop_example_runs_against_the_server(cast, live_server):
    completed = run_example(
        "sdk_agent_loop.py",
        timeout=120,
        ENGRAM_URL=live_server.url,
        ENGRAM_KEY=cast.alice_key,
        ENGRAM_SUBJECT="example-user",
    )
    assert completed.returncode == 0, completed.stderr
    assert "aisle" in completed.stdout.lower()
    last_context = completed.stdout.split("context for the last turn:")[1]
    assert "aisle" in last_context.lower() and "辣" in last_context
    assert Memory.objects.filter(subject__external_id="example-user", status="active").count() >= 2
