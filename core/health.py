"""Dependency checks for /healthz and the worker heartbeat the web side reads.

The worker writes a timestamp into Redis every few seconds from a daemon thread started when it
is ready; /healthz reports the worker as down once that timestamp is older than
ENGRAM_WORKER_HEARTBEAT_TTL.
"""

import logging
import threading
import time
from typing import Any

import redis
from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

HEARTBEAT_KEY = "engram:worker:heartbeat"
HEARTBEAT_INTERVAL_SECONDS = 15


def redis_client() -> redis.Redis:
    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1
    )


def check_database() -> tuple[dict[str, Any], dict[str, Any]]:
    # Reported so an operator can see that dead persistent connections are replaced.
    health_checks = bool(connection.settings_dict.get("CONN_HEALTH_CHECKS"))
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means the database is down
        return (
            {"ok": False, "error": type(exc).__name__, "conn_health_checks": health_checks},
            {"ok": False, "error": "database down"},
        )
    db = {"ok": True, "conn_health_checks": health_checks}
    vector = {"ok": row is not None, "version": row[0] if row else None}
    return db, vector


def check_redis() -> dict[str, Any]:
    try:
        redis_client().ping()
    except redis.RedisError as exc:
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True}


def check_worker() -> dict[str, Any]:
    try:
        raw = redis_client().get(HEARTBEAT_KEY)
    except redis.RedisError:
        return {"ok": False, "error": "redis unreachable"}
    if raw is None:
        return {"ok": False, "error": "no heartbeat"}
    age = time.time() - float(raw)
    return {"ok": age <= settings.ENGRAM_WORKER_HEARTBEAT_TTL, "last_seen_seconds": round(age, 1)}


def check_outbox(*, database_ok: bool) -> dict[str, Any]:
    """Task messages waiting for the broker; not ok once the oldest waits too long."""
    if not database_ok:
        return {"ok": False, "error": "database down"}
    from core.outbox import outbox_backlog

    try:
        return outbox_backlog()
    except Exception as exc:  # noqa: BLE001 - the database went away between two checks
        return {"ok": False, "error": type(exc).__name__}


def health_report() -> tuple[bool, dict[str, Any]]:
    database, vector = check_database()
    checks = {
        "database": database,
        "vector": vector,
        "redis": check_redis(),
        "worker": check_worker(),
        "outbox": check_outbox(database_ok=database["ok"]),
    }
    return all(check["ok"] for check in checks.values()), checks


def write_heartbeat() -> None:
    redis_client().set(
        HEARTBEAT_KEY, str(time.time()), ex=settings.ENGRAM_WORKER_HEARTBEAT_TTL * 10
    )


def start_heartbeat_thread() -> None:
    def beat() -> None:
        while True:
            try:
                write_heartbeat()
            except redis.RedisError:
                logger.warning("worker heartbeat: Redis unreachable")
            time.sleep(HEARTBEAT_INTERVAL_SECONDS)

    threading.Thread(target=beat, name="engram-heartbeat", daemon=True).start()
