"""Keep 512-d embeddings inside the heap row (STORAGE MAIN) instead of TOAST.

A 512-d vector (2 KB) is over the TOAST threshold, so exact per-subject vector search read
each candidate's vector from the TOAST table: ~5x more buffers than with the vector in the row
(measured at 1 M memories: 3 296 vs 663 buffers for a 778-memory subject). Applies to rows
written from now on; `manage.py reembed --all` rewrites older rows.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memory", "0006_source_event_without_db_constraint")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE memory_memory ALTER COLUMN embedding SET STORAGE MAIN",
            "ALTER TABLE memory_memory ALTER COLUMN embedding SET STORAGE EXTERNAL",
        )
    ]
