"""ASGI entry point: /mcp is the MCP server (mcp_door), every other path is Django.

Served by uvicorn (`make run` starts it as the `mcp` process next to gunicorn; the compose
stack as the `mcp` service): `uvicorn config.asgi:application`. gunicorn keeps serving the
WSGI app (config.wsgi) for the REST API, console and portal.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")


def build_application():
    """Django for every path but /mcp, which goes to a fresh MCP app (tests build their own
    server with this; the MCP app's lifespan can run only once)."""
    django_app = get_asgi_application()  # sets Django up before the MCP tools import models

    from mcp_door.server import MCP_PATH, build_app

    mcp_app = build_app()

    async def application(scope, receive, send):
        # The lifespan goes to the MCP app: it starts and stops the SDK's session manager.
        path = scope.get("path", "")
        if scope["type"] == "lifespan" or path == MCP_PATH or path.startswith(MCP_PATH + "/"):
            await mcp_app(scope, receive, send)
        else:
            await django_app(scope, receive, send)

    return application


application = build_application()
