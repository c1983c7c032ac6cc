"""Migration 0009 strips the memory text that older recall traces copied (the candidates'
content and the context block), so a memory deleted before the upgrade leaves no copy either."""

import json
import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.models import Tenant
from memory.models import RecallTrace, Subject

pytestmark = pytest.mark.django_db(transaction=True)

SENTENCE = "The user keeps a spare key under the blue flowerpot"
OLD_TRACE = (
    "INSERT INTO memory_recalltrace (trace_id, tenant_id, subject_id, query, route, parameters, "
    "candidates, selected_ids, context, token_count, timings_ms, total_ms, created_at) VALUES "
    "(%s, %s, %s, 'where is my key?', 'factual', '{}', %s, %s, %s, 12, '{}', 1.5, now())"
)


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def test_it_strips_candidate_content_and_drops_the_context_block():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    tenant = Tenant.objects.create(slug="migration-acme", name="Acme")
    subject = Subject.objects.create(tenant=tenant, external_id="u1")
    candidates = [
        {
            "id": 7,
            "content": SENTENCE,
            "category": "fact",
            "signals": {"semantic": 0.8},
            "score": 0.7,
            "selected": True,
            "cut": "",
        },
        {
            "id": 8,
            "content": "The user prefers aisle seats",
            "category": "preference",
            "signals": {},
            "score": 0.1,
            "selected": False,
            "cut": "top_k",
        },
    ]
    _migrate([("memory", "0008_index_top_recalled")])
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                OLD_TRACE,
                [
                    str(uuid.uuid4()),
                    tenant.pk,
                    subject.pk,
                    json.dumps(candidates),
                    [7],
                    f"- {SENTENCE}",
                ],
            )
    finally:
        _migrate(latest)

    trace = RecallTrace.objects.get(subject=subject)
    assert [c["id"] for c in trace.candidates] == [7, 8]
    assert all("content" not in c for c in trace.candidates)
    assert trace.candidates[0]["signals"] == {"semantic": 0.8} and trace.selected_ids == [7]
    with connection.cursor() as cursor:
        cursor.execute("SELECT row_to_json(t)::text FROM memory_recalltrace t")
        assert not [row for (row,) in cursor.fetchall() if SENTENCE in row]
