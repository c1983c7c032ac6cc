"""Console benchmark: server time of the heaviest staff pages with 100 k memories in a tenant.

    .venv/bin/python bench/console.py [--memories 100000] [--subjects 2000] [--runs 15]
                                      [--reuse] [--keep-db]

Seeds one tenant (bulk_create in batches, no embeddings: no console page reads them) with
`--memories` memories over `--subjects` subjects — one "big" subject holds 5 % of them —, mixed
statuses and categories, creation dates over 60 days, hit counts, ~2 % pending review items
with source messages, failed extractions and 20 k recall traces over 30 days. Then renders each
page with Django's test client in this process (no network: this is server time, template
rendering included) as an admin, `--runs` times after two warm-up requests, and prints the
median, p90 and the number of SQL queries. Goal: median < 150 ms per page.

Uses its own database (default engram_bench_console, re-created unless `--reuse`; `--keep-db`
keeps it afterwards). `--proposed-indexes` measures with the indexes proposed for the schema.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common

GOAL_MS = 150
TENANT = "bench-console"
BATCH = 5000
# Now in the schema (memory migration 0008, `memory_top_recalled`); kept so the flag still
# works on databases migrated before it. The dashboard's "most recalled" panel is a top-N over
# hit_count: a parallel seq scan of every memory (~45 ms at 100 k) without it, ~1 ms with it.
PROPOSED_INDEXES = [
    "CREATE INDEX IF NOT EXISTS memory_top_recalled ON memory_memory "
    "(tenant_id, hit_count DESC, id DESC) WHERE hit_count > 0",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[1:]),
    )
    parser.add_argument(
        "--database-url",
        default=common.with_database(common.DEFAULT_DATABASE_URL, "engram_bench_console"),
        help="bench database (name must start with engram_bench)",
    )
    parser.add_argument("--redis-url", default=common.DEFAULT_REDIS_URL)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--subjects", type=int, default=2_000)
    parser.add_argument("--traces", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=15, help="timed requests per page")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reuse", action="store_true", help="reuse an already seeded database")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database")
    parser.add_argument(
        "--proposed-indexes",
        action="store_true",
        help="first create the indexes proposed for memory/models.py (see PROPOSED_INDEXES)",
    )
    return parser.parse_args(argv)


# ------------------------------------------------------------------------------ seeding


def seed(args: argparse.Namespace) -> None:
    """Bulk-insert the tenant's subjects, memories, events, observations and traces."""
    from django.db import connection
    from django.utils import timezone

    from accounts.models import Tenant
    from memory import textsearch
    from memory.models import Event, Memory, Observation, RecallTrace, Subject

    rng = random.Random(args.seed)
    now = timezone.now()
    started = time.perf_counter()
    tenant = Tenant.objects.create(slug=TENANT, name="Bench console")
    subjects = Subject.objects.bulk_create(
        [
            Subject(tenant=tenant, external_id=f"user-{i:05d}", display_name=f"User {i}")
            for i in range(args.subjects)
        ],
        batch_size=BATCH,
    )
    big = subjects[0]
    statuses = (
        ["active"] * 80
        + ["superseded"] * 10
        + ["archived"] * 4
        + ["expired"] * 3
        + ["needs_review"] * 1
        + ["observed"] * 2
    )
    search_cache: dict[str, str] = {}
    rows: list[Memory] = []
    for n in range(args.memories):
        category, kind, content = common.memory_statement(rng)
        subject = big if n % 20 == 0 else subjects[rng.randrange(1, len(subjects))]
        if content not in search_cache:
            search_cache[content] = textsearch.search_document(content)
        rows.append(
            Memory(
                tenant=tenant,
                subject=subject,
                kind=kind,
                category=category,
                content=content,
                importance=round(rng.random(), 2),
                confidence=round(rng.uniform(0.3, 1.0), 2),
                status=rng.choice(statuses),
                hit_count=int(rng.paretovariate(1.2)) - 1,
                observed_at=now,
                valid_from=now,
                search_text=search_cache[content],
            )
        )
    Memory.objects.bulk_create(rows, batch_size=BATCH)
    del rows
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memory_memory SET created_at = now() - random() * interval '60 days' "
            "WHERE tenant_id = %s",
            [tenant.pk],
        )
    print(f"  {args.memories:,} memories in {time.perf_counter() - started:.1f} s")

    # Pending review items for the observed memories, each with its source message.
    observed = list(
        Memory.objects.filter(tenant=tenant, status="observed").only("id", "subject_id", "content")
    )
    events = Event.objects.bulk_create(
        [
            Event(
                subject_id=m.subject_id,
                session_id="bench",
                role="user",
                content=f"我觉得吧，{m.content} 大概是这样。",
                occurred_at=now,
                content_hash=f"{m.pk:064d}",
                extraction_status="done",
            )
            for m in observed
        ],
        batch_size=BATCH,
    )
    for memory, event in zip(observed, events, strict=True):
        memory.source_event_id = event.pk
        memory.source_quote = memory.content[:40]
    Memory.objects.bulk_update(observed, ["source_event_id", "source_quote"], batch_size=BATCH)
    active_by_subject: dict[int, int] = dict(
        Memory.objects.filter(tenant=tenant, status="active").values_list("subject_id", "id")
    )
    observations = Observation.objects.bulk_create(
        [
            Observation(
                tenant=tenant,
                subject_id=m.subject_id,
                kind="conflict" if i % 3 == 0 else "low_confidence",
                memory=m,
                reason="bench",
            )
            for i, m in enumerate(observed)
        ],
        batch_size=BATCH,
    )
    through = Observation.related_memories.through
    through.objects.bulk_create(
        [
            through(observation_id=o.pk, memory_id=active_by_subject[o.subject_id])
            for o in observations
            if o.kind == "conflict" and o.subject_id in active_by_subject
        ],
        batch_size=BATCH,
    )
    Event.objects.bulk_create(
        [
            Event(
                subject=subjects[i],
                session_id="bench",
                role="user",
                content="…",
                occurred_at=now,
                content_hash=f"f{i:063d}",
                extraction_status="failed",
                extraction_error="LLM extractor: upstream timeout after 30 s",
            )
            for i in range(100)
        ]
    )
    RecallTrace.objects.bulk_create(
        [
            RecallTrace(
                tenant=tenant,
                subject=subjects[rng.randrange(len(subjects))],
                query=common.recall_query(rng),
                route=rng.choice(["preference", "factual", "mixed", "continuation"]),
                total_ms=rng.lognormvariate(3.0, 0.5),
                selected_ids=[],
            )
            for _ in range(args.traces)
        ],
        batch_size=BATCH,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memory_recalltrace SET created_at = now() - random() * interval '30 days' "
            "WHERE tenant_id = %s",
            [tenant.pk],
        )
        cursor.execute("VACUUM ANALYZE")  # as autovacuum would: hint bits, visibility map
    print(
        f"  {len(observations):,} pending review items, {args.traces:,} recall traces; "
        f"seeded in {time.perf_counter() - started:.1f} s"
    )


# ------------------------------------------------------------------------------ timing


def measure(args: argparse.Namespace) -> list[list[object]]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from memory.models import Subject

    admin, _ = get_user_model().objects.get_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client()
    client.force_login(admin)
    big = Subject.objects.filter(tenant__slug=TENANT).order_by("external_id").first()
    pages = [
        ("dashboard", reverse("console-home")),
        ("queue", reverse("console-queue")),
        ("subject page (5 % of memories)", reverse("console-subject", args=[big.pk])),
        ("recall traces", reverse("console-traces")),
    ]
    rows: list[list[object]] = []
    for name, url in pages:
        for _ in range(2):
            assert client.get(url).status_code == 200, url
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        median = statistics.median(times)
        rows.append(
            [
                name,
                median,
                common.percentile(times, 90),
                len(queries.captured_queries),
                "ok" if median < GOAL_MS else "SLOW",
            ]
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    common.check_bench_database(args.database_url)
    if not args.reuse:
        common.recreate_database(args.database_url)
    common.django_setup(args.database_url, args.redis_url)
    common.migrate()
    from memory.models import Memory

    seeded = Memory.objects.filter(tenant__slug=TENANT).count()
    if not seeded:
        print(f"Seeding {args.memories:,} memories over {args.subjects:,} subjects …")
        seed(args)
    else:
        print(f"Reusing {seeded:,} seeded memories")
    if args.proposed_indexes:
        from django.db import connection

        with connection.cursor() as cursor:
            for statement in PROPOSED_INDEXES:
                cursor.execute(statement)
            cursor.execute("ANALYZE memory_memory")
        print("With the proposed indexes: " + "; ".join(PROPOSED_INDEXES))
    try:
        rows = measure(args)
    finally:
        if not args.keep_db and not args.reuse:
            from django.db import connections

            connections.close_all()
            common.drop_database(args.database_url)
    common.print_table(
        ["page", "median ms", "p90 ms", "queries", f"< {GOAL_MS} ms"],
        rows,
        title=f"Console server time ({args.runs} runs, Django test client in-process)",
    )


if __name__ == "__main__":
    main()
