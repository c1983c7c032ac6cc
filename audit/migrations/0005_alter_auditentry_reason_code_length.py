"""The reason column holds a short code now that 0004 moved the free text out."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("audit", "0004_audit_rechain_and_truncate_guard")]

    operations = [
        migrations.AlterField(
            "auditentry",
            "reason_code",
            models.CharField(blank=True, db_column="reason", max_length=64),
        ),
    ]
