"""Audit entries can never be updated or deleted through SQL (row triggers)."""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION engram_audit_guard() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit entries are append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER audit_auditentry_append_only
    BEFORE UPDATE OR DELETE ON audit_auditentry
    FOR EACH ROW EXECUTE FUNCTION engram_audit_guard();
"""

REVERSE = r"""
DROP TRIGGER IF EXISTS audit_auditentry_append_only ON audit_auditentry;
DROP FUNCTION IF EXISTS engram_audit_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, REVERSE)]
