"""Thin tasks for the core app."""

from celery import shared_task


@shared_task
def outbox_relay() -> int:
    """Every few seconds: publish outbox messages the request path could not (broker down)."""
    from core.outbox import outbox_relay as relay

    return relay()
