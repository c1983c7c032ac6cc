"""Events are append-only in the database, not only by convention.

UPDATE may touch the extraction bookkeeping columns only; the content columns change solely when
the transaction has set `engram.event_write = 'redact'` (the audited rectification path), and
DELETE is refused unless it set `engram.event_write = 'erase'` (the audited erasure path).
"""

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

CREATE TRIGGER memory_event_append_only
    BEFORE UPDATE OR DELETE ON memory_event
    FOR EACH ROW EXECUTE FUNCTION engram_event_guard();
"""

REVERSE = r"""
DROP TRIGGER IF EXISTS memory_event_append_only ON memory_event;
DROP FUNCTION IF EXISTS engram_event_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, REVERSE)]
