#!/usr/bin/env python
"""Django's command-line utility.

With DATABASE_URL / REDIS_URL unset, it uses this checkout's embedded stack while it runs
(`make run`, `make devstack`), with the same DEBUG default as `make run`, so that the README's
`.venv/bin/python manage.py create_agent …` works as written in a second terminal (and the key
it prints is hashed with the same development secret as the running server's).
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def _use_running_embedded_stack() -> None:
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        return
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import devstack
    finally:
        sys.path.pop(0)
    running = devstack.current_env()  # reads .data/ only; starts nothing
    database_from_stack = "DATABASE_URL" not in os.environ and "DATABASE_URL" in running
    for key, value in running.items():
        os.environ.setdefault(key, value)
    if database_from_stack:
        os.environ.setdefault("DJANGO_DEBUG", "true")  # the embedded stack is a dev stack
    elif not os.environ.get("DATABASE_URL") and devstack.PGDATA.exists():
        print(
            "manage.py: DATABASE_URL is unset and the embedded PostgreSQL is not running; "
            "start it with `make run` or `make devstack` (or set DATABASE_URL).",
            file=sys.stderr,
        )


def main() -> None:
    _use_running_embedded_stack()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
