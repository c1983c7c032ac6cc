"""Schema for the keyed per-tenant chain and the erasable free-text side table.

The `reason` column stays (it now holds a reason code); free text moves to
audit_auditentrytext in 0004, which also re-chains every entry; 0005 shortens the column.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_audit_append_only")]

    operations = [
        migrations.RenameField("auditentry", "reason", "reason_code"),
        migrations.AlterField(
            "auditentry",
            "reason_code",
            models.CharField(blank=True, db_column="reason", max_length=500),
        ),
        migrations.AddField(
            "auditentry",
            "entry_mac",
            models.CharField(blank=True, db_default="", max_length=64),
        ),
        migrations.AddIndex(
            "auditentry",
            models.Index(fields=["tenant_id", "-id"], name="audit_chain_tail"),
        ),
        migrations.CreateModel(
            name="AuditEntryText",
            fields=[
                (
                    "entry",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="text",
                        serialize=False,
                        to="audit.auditentry",
                    ),
                ),
                ("tenant_id", models.BigIntegerField(blank=True, null=True)),
                ("subject_id", models.BigIntegerField(blank=True, null=True)),
                ("reason", models.CharField(blank=True, max_length=500)),
                ("request_id", models.CharField(blank=True, max_length=64)),
                ("target_ref", models.CharField(blank=True, max_length=200)),
                ("text_mac", models.CharField(max_length=64)),
            ],
            options={
                "indexes": [models.Index(fields=["subject_id"], name="audit_text_subject")],
            },
        ),
    ]
