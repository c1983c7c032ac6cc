"""Let key rotation re-encrypt event content (mode 'rotate': the content column only)."""

from django.db import migrations

FORWARD = r"""
CREATE OR REPLACE FUNCTION engram_event_guard() RETURNS trigger AS $$
DECLARE
    mode text := coalesce(current_setting('engram.event_write', true), '');
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF mode = 'erase' THEN
            RETURN OLD;
        END IF;
        RAISE EXCEPTION 'events are append-only: DELETE is allowed only through subject erasure'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.subject_id IS DISTINCT FROM OLD.subject_id
       OR NEW.session_id IS DISTINCT FROM OLD.session_id
       OR NEW.role IS DISTINCT FROM OLD.role
       OR NEW.type IS DISTINCT FROM OLD.type
       OR NEW.occurred_at IS DISTINCT FROM OLD.occurred_at
       OR NEW.received_at IS DISTINCT FROM OLD.received_at
       OR NEW.client_event_id IS DISTINCT FROM OLD.client_event_id THEN
        RAISE EXCEPTION 'events are append-only: identity columns never change'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF mode = 'rotate' THEN
        IF NEW.content_hash IS DISTINCT FROM OLD.content_hash
           OR NEW.metadata IS DISTINCT FROM OLD.metadata THEN
            RAISE EXCEPTION 'key rotation may only re-encrypt the content column'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.content IS DISTINCT FROM OLD.content
        OR NEW.content_hash IS DISTINCT FROM OLD.content_hash
        OR NEW.metadata IS DISTINCT FROM OLD.metadata)
       AND mode <> 'redact' THEN
        RAISE EXCEPTION 'events are append-only: content changes only through audited redaction'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0004_encrypt_event_content")]

    operations = [migrations.RunSQL(FORWARD, migrations.RunSQL.noop)]
