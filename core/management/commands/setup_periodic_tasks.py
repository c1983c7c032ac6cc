from django.core.management.base import BaseCommand
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

# name → (task, every N seconds)
PERIODIC_TASKS = {
    "Relay outbox messages (after broker outages)": ("core.tasks.outbox_relay", 10),
    "Queue events left pending (broker outages)": ("memory.tasks.sweep_pending_events", 60),
    "Consolidation: pending extraction, near-duplicate merge": ("memory.tasks.consolidate", 300),
    "Delete expired data exports": ("privacy.tasks.cleanup_exports", 3600),
    "Forget used portal-link nonces of expired links": ("privacy.tasks.prune_portal_nonces", 3600),
}
# name → (task, hour, minute) in CELERY_TIMEZONE
DAILY_TASKS = {
    "Decay, forgetting and purge": ("memory.tasks.decay", 3, 17),
}


class Command(BaseCommand):
    help = "Create or update the Celery beat schedule (idempotent)."

    @transaction.atomic
    def handle(self, *args: object, **options: object) -> None:
        for name, (task, seconds) in PERIODIC_TASKS.items():
            schedule, _ = IntervalSchedule.objects.get_or_create(
                every=seconds, period=IntervalSchedule.SECONDS
            )
            PeriodicTask.objects.update_or_create(
                name=name, defaults={"task": task, "interval": schedule, "enabled": True}
            )
            self.stdout.write(f"scheduled {task} every {seconds}s")
        for name, (task, hour, minute) in DAILY_TASKS.items():
            crontab, _ = CrontabSchedule.objects.get_or_create(
                minute=str(minute),
                hour=str(hour),
                day_of_week="*",
                day_of_month="*",
                month_of_year="*",
            )
            PeriodicTask.objects.update_or_create(
                name=name,
                defaults={"task": task, "crontab": crontab, "interval": None, "enabled": True},
            )
            self.stdout.write(f"scheduled {task} daily at {hour:02d}:{minute:02d}")
