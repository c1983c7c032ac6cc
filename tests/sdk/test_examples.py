"""The SDK example runs in CI: a subprocess against the live test server, as a user would run
it. (The mem0 and MCP examples run in tests/compat/ and tests/mcp_door/.)"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.models import Memory

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_sdk_agent_loop_example_runs_against_the_server(cast, live_server):
    env = {
        **os.environ,
        "ENGRAM_URL": live_server.url,
        "ENGRAM_KEY": cast.alice_key,
        "ENGRAM_SUBJECT": "example-user",
    }
    completed = subprocess.run(  # noqa: S603 - our own example, fixed argv
        [sys.executable, str(EXAMPLES / "sdk_agent_loop.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "aisle" in completed.stdout.lower()
    last_context = completed.stdout.split("context for the last turn:")[1]
    assert "aisle" in last_context.lower() and "辣" in last_context
    assert Memory.objects.filter(subject__external_id="example-user", status="active").count() >= 2
