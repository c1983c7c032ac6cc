"""The MCP example runs in CI: the `mcp` client session of examples/mcp_session.py against the
MCP server started by the test (uvicorn on a free port)."""

import os
import subprocess
import sys
from pathlib import Path

from memory.models import Memory
from tests.mcp_door.test_mcp_server import mcp_url  # noqa: F401 - the server fixture

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_mcp_session_example_runs_against_the_server(cast, mcp_url):  # noqa: F811
    env = {
        **os.environ,
        "ENGRAM_MCP_URL": mcp_url,
        "ENGRAM_KEY": cast.alice_key,
        "ENGRAM_SUBJECT": "mcp-example-user",
    }
    completed = subprocess.run(  # noqa: S603 - our own example, fixed argv
        [sys.executable, str(EXAMPLES / "mcp_session.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "add_memory" in completed.stdout and "search_memories:" in completed.stdout
    assert Memory.objects.filter(subject__external_id="mcp-example-user").exists()
