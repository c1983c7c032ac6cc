from typing import Any

from celery.signals import worker_process_init, worker_ready


@worker_ready.connect
def _start_worker_heartbeat(**_: Any) -> None:
    from core.health import start_heartbeat_thread

    start_heartbeat_thread()


@worker_process_init.connect
def _warm_up_models(**_: Any) -> None:
    from core.warmup import warm_up

    warm_up()
