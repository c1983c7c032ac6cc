"""The MCP door: Engram's memory as Model Context Protocol tools over streamable HTTP.

`server.build_app()` is the ASGI app served at /mcp (config/asgi.py routes it). Like the
REST API it only translates: every tool calls the same services and selectors, so tenant
isolation, grants, scopes, PII redaction, paused subjects, erasure and audit hold as in
/api/v1/.
"""
