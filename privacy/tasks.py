"""Thin tasks for privacy work."""

from typing import Any

from celery import shared_task


def _export_failed(
    self: Any, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any
) -> None:
    from privacy.services import export_failed

    export_failed(case_id=args[0] if args else kwargs["case_id"], error=str(exc))


@shared_task(
    bind=True, max_retries=2, autoretry_for=(OSError,), retry_backoff=5, on_failure=_export_failed
)
def build_export(self: Any, case_id: int) -> str:
    from privacy.services import export_build

    return export_build(case_id=case_id)


@shared_task
def cleanup_exports() -> int:
    from audit.services import actor_for_task
    from privacy.services import exports_cleanup

    return exports_cleanup(actor=actor_for_task("cleanup_exports"))


@shared_task
def prune_portal_nonces() -> int:
    from privacy.portal import portal_nonces_prune

    return portal_nonces_prune()
