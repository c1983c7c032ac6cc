"""The MCP server (official `mcp` SDK, 2.x) and its ASGI app for /mcp.

Streamable HTTP, stateless and with plain JSON answers: every POST carries its own agent key
and is answered on its own, so any web process (or any of several) can serve any request —
no session lives in one process's memory.
"""

from __future__ import annotations

import logging

from django.conf import settings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from mcp_door import tools
from mcp_door.auth import AgentKeyMiddleware

MCP_PATH = "/mcp"
INSTRUCTIONS = (
    "Engram is this user's long-term memory. Call search_memories before answering "
    "questions that depend on what you know about the user, and add_memory when they tell "
    "you something worth remembering (preferences, facts, plans, decisions, corrections)."
)

# mem0's hosted MCP tool names, then OpenMemory's names for the same tools.
TOOLS = {
    "add_memory": tools.add_memory,
    "search_memories": tools.search_memories,
    "get_memories": tools.get_memories,
    "get_memory": tools.get_memory,
    "update_memory": tools.update_memory,
    "delete_memory": tools.delete_memory,
    "delete_all_memories": tools.delete_all_memories,
    "delete_entities": tools.delete_entities,
    "list_entities": tools.list_entities,
    "get_event_status": tools.get_event_status,
}
ALIASES = {
    "add_memories": tools.add_memory,
    "search_memory": tools.search_memories,
    "list_memories": tools.get_memories,
    "delete_memories": tools.delete_memories,
}


def build_server() -> MCPServer:
    # Stateless mode "terminates" a throwaway transport after every POST and says so at INFO.
    logging.getLogger("mcp.server.streamable_http").setLevel(logging.WARNING)
    server = MCPServer("engram", instructions=INSTRUCTIONS, version="1")
    for name, fn in {**TOOLS, **ALIASES}.items():
        server.add_tool(tools.engram_tool(fn), name=name, description=fn.__doc__)
    return server


def transport_security() -> TransportSecuritySettings:
    """DNS-rebinding protection for the hosts Django serves (ALLOWED_HOSTS), any port."""
    hosts = [host for host in settings.ALLOWED_HOSTS if host]
    if "*" in hosts or any(host.startswith(".") for host in hosts):  # wildcards: no list
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    patterns = [pattern for host in hosts for pattern in (host, f"{host}:*")]
    origins = [f"{scheme}://{p}" for p in patterns for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=patterns, allowed_origins=origins
    )


def build_app() -> ASGIApp:
    """A fresh ASGI app serving MCP at /mcp (its lifespan runs the SDK's session manager,
    which can run once per app: build one per server)."""
    app = build_server().streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
    )
    return AgentKeyMiddleware(app)
