"""The mem0 example runs in CI: the real mem0ai client, pointed at the live test server."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.models import Memory

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_mem0_client_example_runs_against_the_server(cast, live_server):
    env = {
        **os.environ,
        "ENGRAM_URL": live_server.url,
        "ENGRAM_KEY": cast.alice_key,
        "ENGRAM_SUBJECT": "mem0-example-user",
        "MEM0_TELEMETRY": "False",
    }
    completed = subprocess.run(  # noqa: S603 - our own example, fixed argv
        [sys.executable, str(EXAMPLES / "mem0_client.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "search:" in completed.stdout, completed.stdout
    assert Memory.objects.filter(subject__external_id="mem0-example-user").exists()
