from typing import Any

from celery.signals import worker_ready


@worker_ready.connect
def _start_worker_heartbeat(**_: Any) -> None:
    from core.health import start_heartbeat_thread

    start_heartbeat_thread()
