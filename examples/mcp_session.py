"""An MCP client session against Engram's MCP server (`/mcp`, streamable HTTP), with the `mcp`
Python SDK (`pip install mcp`): list the tools, add a memory, search it back.

    ENGRAM_MCP_URL=http://127.0.0.1:8001/mcp ENGRAM_KEY=egk_… python examples/mcp_session.py

(`make run` serves MCP on its port + 1; ENGRAM_MCP_URL defaults to http://127.0.0.1:8001/mcp.)
"""

import asyncio
import os

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

try:  # mcp 2.x speaks through httpx2, 1.x through httpx
    import httpx2 as httpx_module
except ImportError:
    import httpx as httpx_module

USER = os.environ.get("ENGRAM_SUBJECT", "demo.mcp")


def text_of(result) -> str:
    return "\n".join(part.text for part in result.content if getattr(part, "text", None))


async def main() -> None:
    url = os.environ.get("ENGRAM_MCP_URL", "http://127.0.0.1:8001/mcp")
    headers = {"Authorization": f"Bearer {os.environ['ENGRAM_KEY']}"}
    async with (
        httpx_module.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        print("tools:", ", ".join(tool.name for tool in tools.tools))
        added = await session.call_tool(
            "add_memory", {"text": "I always prefer aisle seats on flights.", "user_id": USER}
        )
        print("add_memory:", text_of(added))
        found = await session.call_tool(
            "search_memories", {"query": "book me a flight", "user_id": USER}
        )
        print("search_memories:", text_of(found))


asyncio.run(main())
