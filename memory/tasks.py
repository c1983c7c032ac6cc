"""Thin Celery tasks: ids in, one service call."""

from typing import Any

from celery import shared_task


def _mark_failed(
    self: Any, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any
) -> None:
    from memory.services import events_mark_failed

    event_ids = args[0] if args else kwargs.get("event_ids", [])
    events_mark_failed(event_ids=event_ids, error=f"{type(exc).__name__}: {exc}")


@shared_task(
    bind=True,
    autoretry_for=(Exception,),
    retry_backoff=5,
    retry_backoff_max=120,
    max_retries=3,
    on_failure=_mark_failed,
)
def extract_events(self: Any, event_ids: list[int]) -> int:
    from audit.services import actor_for_task
    from memory.services import events_extract

    return len(
        events_extract(
            event_ids=event_ids, actor=actor_for_task("extract_events"), retry_raises=True
        )
    )


@shared_task
def sweep_pending_events() -> int:
    from django.conf import settings

    from memory.services import events_sweep_pending

    return events_sweep_pending(older_than_seconds=settings.ENGRAM_PENDING_SWEEP_AGE)


@shared_task(bind=True, acks_late=True, max_retries=3)
def record_recall(self: Any, trace: dict, actor: dict) -> None:
    from django.db import DatabaseError

    from audit.services import Actor
    from core.db_retry import is_transient_db_error, run_with_db_retry
    from memory.services import recall_record

    try:
        run_with_db_retry(lambda: recall_record(trace=trace, actor=Actor(**actor)))
    except DatabaseError as exc:
        if is_transient_db_error(exc):  # still contended: later, rather than lose the trace
            raise self.retry(exc=exc, countdown=2) from exc
        raise


@shared_task
def consolidate() -> dict:
    """Every 5 minutes: queue events still pending extraction, merge near-duplicates."""
    from django.conf import settings

    from audit.services import actor_for_task
    from memory.lifecycle import memories_consolidate, observations_propose_fusions
    from memory.services import events_sweep_pending

    actor = actor_for_task("consolidate")
    queued = events_sweep_pending(older_than_seconds=settings.ENGRAM_PENDING_SWEEP_AGE)
    merged = memories_consolidate(actor=actor)
    fusions = observations_propose_fusions(actor=actor)
    return {"queued_events": queued, "merged_memories": merged, "fusion_proposals": fusions}


@shared_task
def decay() -> dict:
    """Daily: apply the decay rules, then purge what stayed purge_pending past the grace."""
    from audit.services import actor_for_task
    from memory.lifecycle import memories_decay, memories_purge

    actor = actor_for_task("decay")
    report = memories_decay(actor=actor)
    return {"changed": report.by_rule(), "purged": memories_purge(actor=actor)}
