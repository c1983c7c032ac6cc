"""Recall traces hold memory ids and signals, not memory text.

Strips `content` from the stored candidates and drops the stored context block, so a memory
that was deleted before this migration leaves no copy of its text in old traces either.
"""

from django.db import migrations

BATCH_SIZE = 500


def strip_memory_text(apps, schema_editor):
    RecallTrace = apps.get_model("memory", "RecallTrace")
    last_id = 0
    while True:
        batch = list(
            RecallTrace.objects.filter(pk__gt=last_id)
            .order_by("pk")
            .only("pk", "candidates")[:BATCH_SIZE]
        )
        if not batch:
            break
        last_id = batch[-1].pk
        changed = []
        for trace in batch:
            candidates = trace.candidates if isinstance(trace.candidates, list) else []
            if any(isinstance(c, dict) and "content" in c for c in candidates):
                trace.candidates = [
                    {k: v for k, v in c.items() if k != "content"} if isinstance(c, dict) else c
                    for c in candidates
                ]
                changed.append(trace)
        RecallTrace.objects.bulk_update(changed, ["candidates"])


class Migration(migrations.Migration):
    dependencies = [("memory", "0008_index_top_recalled")]

    operations = [
        migrations.RunPython(strip_memory_text, migrations.RunPython.noop, elidable=True),
        migrations.RemoveField(model_name="recalltrace", name="context"),
    ]
