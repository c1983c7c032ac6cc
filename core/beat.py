"""Celery beat's scheduler, kept alive through a database outage.

django-celery-beat's DatabaseScheduler re-reads the whole schedule from the database every
five minutes (and after every change) without catching database errors: an outage that
overlaps such a re-read kills beat, and with it `make run`, which stops web and worker when
one of its processes exits. Here a failed re-read keeps the schedule beat already holds and
tries again on the next tick (its other database calls already survive an outage).
"""

import datetime
import logging
from typing import Any

from django.db import DatabaseError, InterfaceError
from django_celery_beat.schedulers import SCHEDULE_SYNC_MAX_INTERVAL, DatabaseScheduler

logger = logging.getLogger(__name__)


class OutageTolerantDatabaseScheduler(DatabaseScheduler):  # type: ignore[misc]
    @property
    def schedule(self) -> dict[str, Any]:
        try:
            return super().schedule  # type: ignore[no-any-return]
        except (DatabaseError, InterfaceError) as exc:
            logger.warning("beat: schedule not re-read (database unavailable: %s); retrying", exc)
            # The failed re-read counted as this tick's full sync (its clock is naive local
            # time, like the base class's): back-date it so the next tick re-reads.
            self._last_full_sync -= datetime.timedelta(seconds=SCHEDULE_SYNC_MAX_INTERVAL)
            return self._schedule or {}
