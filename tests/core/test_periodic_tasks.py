from django.core.management import call_command
from django_celery_beat.models import PeriodicTask


def test_setup_periodic_tasks_is_idempotent_and_complete(db):
    call_command("setup_periodic_tasks")
    call_command("setup_periodic_tasks")
    tasks = dict(PeriodicTask.objects.values_list("task", "enabled"))
    for name in (
        "memory.tasks.sweep_pending_events",
        "memory.tasks.consolidate",
        "memory.tasks.decay",
        "privacy.tasks.cleanup_exports",
    ):
        assert tasks.get(name) is True
    assert PeriodicTask.objects.filter(task="memory.tasks.consolidate").count() == 1
    assert PeriodicTask.objects.get(task="memory.tasks.consolidate").interval.every == 300


def test_each_periodic_task_runs_end_to_end(cast):
    from memory.tasks import consolidate, decay, sweep_pending_events
    from privacy.tasks import cleanup_exports

    assert consolidate.delay().get() == {
        "queued_events": 0,
        "merged_memories": 0,
        "fusion_proposals": 0,
    }
    result = decay.delay().get()
    assert result["purged"] == 0 and set(result["changed"]) >= {"expire_finished_plan"}
    assert sweep_pending_events.delay().get() == 0
    assert cleanup_exports.delay().get() == 0
