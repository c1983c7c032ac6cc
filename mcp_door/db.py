"""Django ORM work from the ASGI side: each call runs in a worker thread and closes that
thread's database connections afterwards.

The SDK and the auth middleware run blocking code on anyio's shared thread pool; a
connection left open in one of its threads would stay idle there (one per pooled thread,
per process) instead of being returned, so every call opens and closes its own, as a
request under gunicorn does with CONN_MAX_AGE=0.
"""

from collections.abc import Callable
from typing import Any

from django.db import close_old_connections, connections


def with_db_connection(fn: Callable[[], Any]) -> Any:
    """Run `fn` (already in a worker thread) and close this thread's connections after."""
    close_old_connections()
    try:
        return fn()
    finally:
        connections.close_all()
