from django.core.management.base import BaseCommand
from django.db import transaction
from django_celery_beat.models import IntervalSchedule, PeriodicTask

# name → (task, every N seconds). Later lifecycle jobs add their rows here.
PERIODIC_TASKS = {
    "Queue events left pending (broker outages)": ("memory.tasks.sweep_pending_events", 60),
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
