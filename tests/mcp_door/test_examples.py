"""The MCP example runs in CI: the `mcp` client session of examples/mcp_session.py against the
MCP server started by the test (uvicorn on a free port)."""

from memory.models import Memory
from tests.examples import run_example
from tests.mcp_door.test_mcp_server import mcp_url  # noqa: F401 - the server fixture


def test_the_mcp_session_example_runs_against_the_server(cast, mcp_url):  # noqa: F811
    completed = run_example(
        "mcp_session.py",
        ENGRAM_MCP_URL=mcp_url,
        ENGRAM_KEY=cast.alice_key,
        ENGRAM_SUBJECT="mcp-example-user",
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "add_memory" in completed.stdout and "search_memories:" in completed.stdout
    assert Memory.objects.filter(subject__external_id="mcp-example-user").exists()
