"""Move free text out of the chained rows, re-chain every entry per tenant with an HMAC seal,
and refuse TRUNCATE with a statement-level trigger (row triggers never see a TRUNCATE).

The re-chain runs in id order, in batches, and can be re-run: texts already moved stay in
audit_auditentrytext and every hash and MAC is recomputed from the current rows. It needs the
table owner (it disables the append-only trigger while it rewrites the chain). The hashing
below is a frozen copy of audit/services.py as of this migration.
"""

import hashlib
import hmac
import json
import re

from django.conf import settings
from django.db import migrations

GENESIS_HASH = "0" * 64
BATCH = 2000
ID_PATTERN = re.compile(
    r"[0-9]{1,20}|[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    re.IGNORECASE,
)


def _key():
    return str(settings.ENGRAM_AUDIT_HMAC_KEY).encode()


def _split_id(value):
    return (value, "") if not value or ID_PATTERN.fullmatch(value) else ("", value)


def _hash(entry):
    fields = {
        "actor_type": entry.actor_type,
        "actor_id": entry.actor_id,
        "action": entry.action,
        "target_type": entry.target_type,
        "target_id": entry.target_id,
        "tenant_id": entry.tenant_id,
        "subject_id": entry.subject_id,
        "request_id": entry.request_id,
        "ip": entry.ip,
        "reason": entry.reason_code,
        "changed_fields": list(entry.changed_fields),
        "created_at": entry.created_at.isoformat(),
        "prev_hash": entry.prev_hash,
    }
    payload = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def _mac(digest):
    return hmac.new(_key(), b"engram-audit-v1:" + digest.encode(), hashlib.sha256).hexdigest()


def _text_mac(entry_id, reason, request_id, target_ref):
    payload = json.dumps([entry_id, reason, request_id, target_ref], ensure_ascii=False)
    return hmac.new(_key(), b"engram-audit-text-v1:" + payload.encode(), hashlib.sha256).hexdigest()


def rechain(apps, schema_editor):
    AuditEntry = apps.get_model("audit", "AuditEntry")
    AuditEntryText = apps.get_model("audit", "AuditEntryText")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_auditentry DISABLE TRIGGER audit_auditentry_append_only")
    previous = {}
    last_id = 0
    while True:
        batch = list(AuditEntry.objects.filter(pk__gt=last_id).order_by("pk")[:BATCH])
        if not batch:
            break
        for entry in batch:
            reason, entry.reason_code = entry.reason_code[:500], ""
            entry.target_id, target_ref = _split_id(entry.target_id)
            entry.request_id, request_id = _split_id(entry.request_id)
            if reason or target_ref or request_id:
                AuditEntryText.objects.update_or_create(
                    entry_id=entry.pk,
                    defaults={
                        "tenant_id": entry.tenant_id,
                        "subject_id": entry.subject_id,
                        "reason": reason,
                        "request_id": request_id,
                        "target_ref": target_ref,
                        "text_mac": _text_mac(entry.pk, reason, request_id, target_ref),
                    },
                )
            entry.prev_hash = previous.get(entry.tenant_id, GENESIS_HASH)
            entry.entry_hash = _hash(entry)
            entry.entry_mac = _mac(entry.entry_hash)
            previous[entry.tenant_id] = entry.entry_hash
        AuditEntry.objects.bulk_update(
            batch,
            ["reason_code", "target_id", "request_id", "prev_hash", "entry_hash", "entry_mac"],
        )
        last_id = batch[-1].pk
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_auditentry ENABLE TRIGGER audit_auditentry_append_only")


# A table owner (or superuser) may allow TRUNCATE for its own session, as Django's test
# runner needs to empty tables; a role that does not own the table never can.
TRUNCATE_GUARD = r"""
CREATE OR REPLACE FUNCTION engram_audit_truncate_guard() RETURNS trigger AS $$
BEGIN
    IF current_setting('engram.audit_truncate', true) = 'allow'
       AND pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE')
    THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION 'audit entries are append-only (TRUNCATE refused)'
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER audit_auditentry_no_truncate
    BEFORE TRUNCATE ON audit_auditentry
    FOR EACH STATEMENT EXECUTE FUNCTION engram_audit_truncate_guard();
"""

DROP_TRUNCATE_GUARD = r"""
DROP TRIGGER IF EXISTS audit_auditentry_no_truncate ON audit_auditentry;
DROP FUNCTION IF EXISTS engram_audit_truncate_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0003_audit_keyed_chain_and_text")]

    operations = [
        migrations.RunPython(rechain, migrations.RunPython.noop),
        migrations.RunSQL(TRUNCATE_GUARD, DROP_TRUNCATE_GUARD),
    ]
