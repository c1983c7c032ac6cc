"""Migration 0004 moves the free text of existing entries out of the chained rows and
re-chains them per tenant with the HMAC seal."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from audit.models import AuditEntry, AuditEntryText
from audit.selectors import audit_chain_verify

pytestmark = pytest.mark.django_db(transaction=True)

OLD_ROW = (
    "INSERT INTO audit_auditentry (actor_type, actor_id, action, target_type, target_id, "
    "tenant_id, subject_id, request_id, ip, reason, changed_fields, created_at, prev_hash, "
    "entry_hash) VALUES ('agent', '3', %s, 'knowledge.document', %s, %s, 9, %s, NULL, %s, "
    "'{}', now(), '', md5(random()::text) || md5(random()::text))"
)


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def test_it_moves_free_text_out_and_rechains_every_tenant():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    _migrate([("audit", "0002_audit_append_only")])
    try:
        with connection.cursor() as cursor:
            cursor.execute(OLD_ROW, ["memory.needs_review", "contract-jane", 1, "jane-r", "Jane"])
            cursor.execute(OLD_ROW, ["memory.delete", "42", 2, "0f" * 16, "deleted by agent"])
            cursor.execute(OLD_ROW, ["memory.recall", "43", 1, "", ""])
    finally:
        _migrate(latest)

    rows = list(AuditEntry.objects.order_by("pk"))
    assert [(r.target_id, r.request_id, r.reason_code) for r in rows] == [
        ("", "", ""),
        ("42", "0f" * 16, ""),
        ("43", "", ""),
    ]
    texts = {
        t.entry_id: (t.reason, t.request_id, t.target_ref) for t in AuditEntryText.objects.all()
    }
    assert texts == {
        rows[0].pk: ("Jane", "jane-r", "contract-jane"),
        rows[1].pk: ("deleted by agent", "", ""),
    }
    assert rows[2].prev_hash == rows[0].entry_hash  # tenant 1's chain skips tenant 2's entry
    assert audit_chain_verify().ok
