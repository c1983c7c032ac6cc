"""The mem0 example runs in CI: the real mem0ai client, pointed at the live test server."""

import pytest

from memory.models import Memory
from tests.examples import run_example

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_mem0_client_example_runs_against_the_server(cast, live_server):
    completed = run_example(
        "mem0_client.py",
        ENGRAM_URL=live_server.url,
        ENGRAM_KEY=cast.alice_key,
        ENGRAM_SUBJECT="mem0-example-user",
        MEM0_TELEMETRY="False",
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "search:" in completed.stdout, completed.stdout
    assert Memory.objects.filter(subject__external_id="mem0-example-user").exists()
