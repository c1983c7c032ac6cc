"""Retry a unit of work whose transaction PostgreSQL aborted to break a lock cycle.

A deadlock (SQLSTATE 40P01) or a serialization failure (40001) rolls back the whole
transaction and says nothing about the request itself: running it again is the documented
remedy. The API (core.exception_handler) and Celery tasks both retry through `run_with_db_retry`.
Only a caller outside any transaction may retry: inside one, the outer transaction is
already aborted and must fail as a whole.
"""

import logging
import random
import time
from collections.abc import Callable

from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)

TRANSIENT_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock_detected, serialization_failure
DB_RETRY_ATTEMPTS = 4
_BASE_DELAY_S = 0.02


def is_transient_db_error(exc: BaseException) -> bool:
    """True for a deadlock or serialization failure (Django wraps the psycopg error)."""
    if not isinstance(exc, DatabaseError):
        return False
    cause = exc.__cause__ if exc.__cause__ is not None else exc
    return getattr(cause, "sqlstate", None) in TRANSIENT_SQLSTATES


def run_with_db_retry[T](work: Callable[[], T], *, attempts: int = DB_RETRY_ATTEMPTS) -> T:
    """Call `work()`; on a transient database error roll back, wait a little and call it
    again, up to `attempts` calls in all. Other errors (and the last transient one) propagate."""
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except DatabaseError as exc:
            if attempt == attempts or not is_transient_db_error(exc) or connection.in_atomic_block:
                raise
            logger.warning("transient database error (attempt %d/%d): %s", attempt, attempts, exc)
            # Jittered exponential back-off, so the retried transactions do not meet again.
            time.sleep(_BASE_DELAY_S * 2**attempt * random.random())  # noqa: S311
    raise AssertionError("unreachable")
