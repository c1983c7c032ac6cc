"""Recall benchmark at scale: bulk-load N subjects x M memories, then recall latency.

    .venv/bin/python bench/recall.py --memories 1000000 --subjects 10000
    .venv/bin/python bench/recall.py --memories 50000 --subjects 500      # a quick run

1. Load (dedicated database, default engram_bench_recall, dropped and re-created unless
   `--reuse`): `--templates` distinct memory statements (zh / en / mixed, from templates) are
   embedded with the real embedder (USE, 512-d) and tokenised with
   `memory.textsearch.search_document`; each is stored in `--variants` perturbed embeddings
   (cosine ~0.97 to the original). Per-memory rows (subject, statement, variant, status,
   importance, confidence, time) are sent with PostgreSQL COPY to an unlogged staging table and
   inserted into memory_memory with one INSERT … SELECT per core, secondary indexes dropped
   during the load and rebuilt afterwards, then ANALYZE. Memories per subject vary (log-normal
   around the mean); rows are in time order, so a subject's memories are spread over the heap
   as in a real table. Status mix: ~85 % active, the rest superseded / observed / archived /
   needs_review.
2. In-process: `recall_compute` (query embedding included) for `--queries` random
   (subject, query) pairs: p50/p95/p99 total and per stage, SQL queries per recall and the time
   of each candidate query (vector, keyword, entity).
3. HTTP: POST /api/v1/subjects/{id}/recall through gunicorn (`--workers`), one client
   (latency) and `--clients` clients (throughput). No Celery worker runs: the trace task is
   only published to Redis db 5 (part of the request) and the queue is dropped afterwards.
4. EXPLAIN (ANALYZE, BUFFERS) of the three candidate queries for the largest subject.

Goal on a 2-core machine: p95 <= 25 ms server-side at 1 M memories / 10 k subjects.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common

GOAL_P95_MS = 25.0
TENANT = "bench"
STATUSES = [
    ("active", 0.85),
    ("superseded", 0.07),
    ("observed", 0.04),
    ("archived", 0.03),
    ("needs_review", 0.01),
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[1:]),
    )
    parser.add_argument(
        "--database-url",
        default=common.with_database(common.DEFAULT_DATABASE_URL, "engram_bench_recall"),
        help="bench database (name must start with engram_bench)",
    )
    parser.add_argument("--redis-url", default=common.DEFAULT_REDIS_URL)
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument("--subjects", type=int, default=10_000)
    parser.add_argument("--templates", type=int, default=3000, help="distinct statements")
    parser.add_argument("--variants", type=int, default=4, help="perturbed embeddings each")
    parser.add_argument("--queries", type=int, default=500, help="in-process recalls")
    parser.add_argument("--http-requests", type=int, default=500, help="HTTP recalls per run")
    parser.add_argument("--clients", type=int, default=4, help="clients of the throughput run")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--base-url", help="use this running server (with --key) for HTTP")
    parser.add_argument("--key", help="agent key for --base-url")
    parser.add_argument("--reuse", action="store_true", help="reuse a loaded database")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument("--no-explain", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if args.base_url and not args.key:
        parser.error("--base-url needs --key")
    if args.subjects < 1 or args.memories < args.subjects:
        parser.error("need --memories >= --subjects >= 1")
    common.check_bench_database(args.database_url)
    return args


# ------------------------------------------------------------------------------ load


def build_templates(rng: random.Random, count: int) -> list[dict]:
    """`count` distinct memory statements with entities, slot and search text."""
    from memory.extraction.slots.derive import slot_for
    from memory.textsearch import search_document

    seen: set[str] = set()
    out: list[dict] = []
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        category, kind, content = common.memory_statement(rng)
        if content in seen:
            continue
        seen.add(content)
        slot, values, entities = slot_for(content, category)
        out.append(
            {
                "category": category,
                "kind": kind,
                "content": content,
                "entities": list(dict.fromkeys(entities))[:50],
                "slot": slot[:120],
                "values": [v[:120] for v in values][:20],
                "search_text": search_document(content),
            }
        )
    return out


def embed_variants(templates: list[dict], variants: int, rng_seed: int):
    """(len(templates) * variants, 512) float32: the real embedding, then perturbed copies."""
    import numpy as np

    from memory.embeddings import get_embedder

    embedder = get_embedder()
    base = np.vstack(
        [
            embedder.embed([t["content"] for t in templates[i : i + 64]])
            for i in range(0, len(templates), 64)
        ]
    )
    rng = np.random.default_rng(rng_seed)
    out = np.empty((len(templates) * variants, base.shape[1]), dtype=np.float32)
    for v in range(variants):
        noisy = base if v == 0 else base + rng.normal(0, 0.011, base.shape).astype(np.float32)
        out[v::variants] = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
    return out, embedder.name


def _pg_array(items: list[str]) -> str:
    return (
        "{" + ",".join('"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"' for s in items) + "}"
    )


def _copy_text(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _copy(conn, table: str, lines, chunk: int = 20000) -> None:
    with conn.cursor() as cur, cur.copy(f"COPY {table} FROM STDIN") as copy:
        buffer: list[str] = []
        for line in lines:
            buffer.append(line)
            if len(buffer) >= chunk:
                copy.write("".join(buffer))
                buffer.clear()
        if buffer:
            copy.write("".join(buffer))


def load(args: argparse.Namespace) -> dict:
    """Bulk-load subjects and memories; returns figures of the load."""
    import numpy as np
    import psycopg

    from accounts.models import Tenant

    timings: dict[str, float] = {}
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    templates = build_templates(rng, args.templates)
    vectors, model_name = embed_variants(templates, args.variants, args.seed)
    timings["templates + embed"] = time.perf_counter() - t0
    tenant_id = Tenant.objects.get(slug=TENANT).pk
    url = args.database_url

    mark = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")  # no FK triggers for the load
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(
            "DROP TABLE IF EXISTS bench_vec, bench_tpl, bench_stage;"
            "CREATE UNLOGGED TABLE bench_vec (id int PRIMARY KEY, embedding vector(512));"
            "CREATE UNLOGGED TABLE bench_tpl (id int PRIMARY KEY, category text, kind text,"
            " content text, entities varchar(100)[], slot text, slot_values varchar(120)[],"
            " search_text text);"
            "CREATE UNLOGGED TABLE bench_stage (seq bigint, subject_id bigint, vec int,"
            " status text, importance float8, confidence float8, created_at timestamptz,"
            " hit_count int, pinned bool)"
        )
        _copy(
            conn,
            "bench_vec",
            (
                f"{i}\t[{','.join(f'{x:.6f}' for x in row)}]\n"
                for i, row in enumerate(vectors.tolist())
            ),
            chunk=1000,
        )
        _copy(
            conn,
            "bench_tpl",
            (
                "\t".join(
                    [
                        str(i),
                        t["category"],
                        t["kind"],
                        _copy_text(t["content"]),
                        _copy_text(_pg_array(t["entities"])),
                        _copy_text(t["slot"]),
                        _copy_text(_pg_array(t["values"])),
                        _copy_text(t["search_text"]),
                    ]
                )
                + "\n"
                for i, t in enumerate(templates)
            ),
        )
        # Subjects (ids are what the staging rows point at).
        conn.execute(
            "INSERT INTO memory_subject (created_at, updated_at, external_id, display_name,"
            " paused, tenant_id, last_activity_at)"
            " SELECT now() - interval '400 days', now(), 'u' || g, '', false, %s, now()"
            " FROM generate_series(1, %s) g",
            (tenant_id, args.subjects),
        )
        first_subject = conn.execute(
            "SELECT min(id) FROM memory_subject WHERE tenant_id = %s", (tenant_id,)
        ).fetchone()[0]
        timings["COPY templates, subjects"] = time.perf_counter() - mark

        # Per-memory rows: log-normal memories per subject, time-ordered, statuses mixed.
        mark = time.perf_counter()
        nrng = np.random.default_rng(args.seed)
        weights = nrng.lognormal(0.0, 0.6, args.subjects)
        per_subject = nrng.multinomial(args.memories - args.subjects, weights / weights.sum()) + 1
        subject_ids = np.repeat(np.arange(args.subjects) + first_subject, per_subject)
        nrng.shuffle(subject_ids)
        n = args.memories
        vec = nrng.integers(0, len(vectors), n)
        names = [s for s, _ in STATUSES]
        status = nrng.choice(len(names), n, p=[p for _, p in STATUSES])
        importance = np.round(nrng.beta(4, 4, n), 3)
        confidence = np.round(0.6 + 0.4 * nrng.random(n), 3)
        age_s = np.sort(nrng.integers(0, 365 * 86400, n))[::-1]  # oldest first
        hits = nrng.poisson(0.5, n)
        pinned = nrng.random(n) < 0.01
        epoch = time.time()
        stage_lines = (
            f"{i}\t{subject_ids[i]}\t{vec[i]}\t{names[status[i]]}\t{importance[i]}\t"
            f"{confidence[i]}\t{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(epoch - age_s[i]))}"
            f"+00\t{hits[i]}\t{'t' if pinned[i] else 'f'}\n"
            for i in range(n)
        )
        _copy(conn, "bench_stage", stage_lines)
        timings["COPY staging rows"] = time.perf_counter() - mark

        mark = time.perf_counter()
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_memory'"
            " AND indexname NOT IN (SELECT conname FROM pg_constraint)"
        ).fetchall()
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name}"')
    insert_sql = (
        "INSERT INTO memory_memory (created_at, updated_at, kind, category, content, entities,"
        " importance, confidence, status, version, lineage, change_reason, source_quote,"
        " evidence, merge_count, linked_doc_id, pinned, hit_count, last_accessed_at,"
        " observed_at, valid_from, valid_to, slot, slot_values, fact_subject, fact_predicate,"
        " fact_object, decay_rate, decay_exempt, embedding, embedding_model, search_text,"
        " tenant_id, subject_id)"
        " SELECT s.created_at, s.created_at, t.kind, t.category, t.content, t.entities,"
        " s.importance, s.confidence, s.status, 1, gen_random_uuid(), '', t.content, '[]', 0,"
        " '', s.pinned, s.hit_count, NULL, s.created_at, s.created_at,"
        " CASE WHEN s.status = 'superseded' THEN s.created_at + interval '7 days' END,"
        " t.slot, t.slot_values, '', '', '', NULL, false, v.embedding, %s, t.search_text,"
        " %s, s.subject_id"
        " FROM bench_stage s JOIN bench_vec v ON v.id = s.vec JOIN bench_tpl t"
        " ON t.id = s.vec / %s WHERE s.seq %% %s = %s ORDER BY s.seq"
    )
    parts = 2  # one INSERT per core

    def insert_part(part: int) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET session_replication_role = replica")
            conn.execute("SET synchronous_commit = off")
            conn.execute(insert_sql, (model_name, tenant_id, args.variants, parts, part))

    threads = [threading.Thread(target=insert_part, args=(p,)) for p in range(parts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    timings["INSERT … SELECT memories"] = time.perf_counter() - mark

    mark = time.perf_counter()
    pending = list(indexes)
    lock = threading.Lock()

    def build_indexes() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET maintenance_work_mem = '1GB'")
            while True:
                with lock:
                    if not pending:
                        return
                    _, definition = pending.pop()
                conn.execute(definition)

    threads = [threading.Thread(target=build_indexes) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    timings[f"CREATE {len(indexes)} indexes"] = time.perf_counter() - mark

    mark = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE bench_vec, bench_tpl, bench_stage")
        conn.execute("VACUUM ANALYZE memory_memory")
        conn.execute("ANALYZE memory_subject")
        size = conn.execute(
            "SELECT pg_size_pretty(pg_total_relation_size('memory_memory')),"
            " pg_size_pretty(pg_relation_size('memory_memory'))"
        ).fetchone()
    timings["VACUUM ANALYZE"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - t0
    return {
        "timings": timings,
        "templates": len(templates),
        "vectors": len(vectors),
        "per_subject": per_subject,
        "size": size,
    }


# ------------------------------------------------------------------------------ measure


def classify(sql: str) -> str:
    if "<=>" in sql:
        return "vector"
    if "@@" in sql:
        return "keyword"
    if "&&" in sql:
        return "entity"
    return "other"


def sample_pairs(args: argparse.Namespace, count: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"u{rng.randint(1, args.subjects)}", common.recall_query(rng)) for _ in range(count)]


def bench_in_process(args: argparse.Namespace) -> dict:
    from django.db import connection

    from memory.models import Subject
    from memory.recall import RecallParams, recall_compute

    subjects = {s.external_id: s for s in Subject.objects.filter(tenant__slug=TENANT)}
    sql_ms: dict[str, list[float]] = defaultdict(list)
    current: Counter = Counter()

    def wrapper(execute, sql, params, many, context):
        t0 = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            kind = classify(sql)
            current[kind] += 1
            sql_ms[kind].append((time.perf_counter() - t0) * 1000)

    for external_id, query in sample_pairs(args, 30, args.seed + 100):  # warm-up
        recall_compute(subject=subjects[external_id], params=RecallParams(query=query))
    totals: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    queries_per_recall: Counter = Counter()
    candidates: list[int] = []
    with connection.execute_wrapper(wrapper):
        for external_id, query in sample_pairs(args, args.queries, args.seed + 200):
            current.clear()
            subject = subjects[external_id]
            t0 = time.perf_counter()
            result = recall_compute(subject=subject, params=RecallParams(query=query))
            totals.append((time.perf_counter() - t0) * 1000)
            for stage, ms in result.timings_ms.items():
                stages[stage].append(ms)
            queries_per_recall[sum(current.values())] += 1
            candidates.append(len(result.candidates))
    return {
        "totals": totals,
        "stages": stages,
        "sql_ms": sql_ms,
        "queries_per_recall": queries_per_recall,
        "candidates": candidates,
    }


def run_http(base_url: str, key: str, pairs: list, clients: int) -> dict:
    lock = threading.Lock()
    queue = list(reversed(pairs))
    latencies: list[float] = []
    errors: Counter = Counter()

    def worker() -> None:
        client = common.Client(base_url, key)
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    subject_id, query = queue.pop()
                t0 = time.perf_counter()
                status, _ = client.post(
                    f"/api/v1/subjects/{subject_id}/recall", {"query": query, "top_k": 5}
                )
                elapsed = (time.perf_counter() - t0) * 1000
                with lock:
                    if status == 200:
                        latencies.append(elapsed)
                    else:
                        errors[status] += 1
        finally:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {"latencies": latencies, "wall": wall, "errors": dict(errors)}


def bench_http(args: argparse.Namespace, key: str) -> list:
    server = None
    base_url, agent_key = args.base_url, args.key
    if not base_url:
        env = common.bench_env(args.database_url, args.redis_url)
        server = common.Server(env, workers=args.workers)
        base_url, agent_key = server.base_url, key
        print(f"gunicorn: {args.workers} worker(s) on {base_url} (log {server.log_path})")
    rows = []
    try:
        run_http(base_url, agent_key, sample_pairs(args, 10 * args.workers, args.seed + 300), 2)
        for clients, seed in ((1, 400), (args.clients, 500)):
            pairs = sample_pairs(args, args.http_requests, args.seed + seed)
            result = run_http(base_url, agent_key, pairs, clients)
            lat = result["latencies"]
            rows.append(
                (
                    f"HTTP, {clients} client(s)",
                    len(lat),
                    common.percentile(lat, 50),
                    common.percentile(lat, 95),
                    common.percentile(lat, 99),
                    round(len(lat) / result["wall"], 1),
                    str(result["errors"] or "-"),
                )
            )
    finally:
        if server is not None:
            server.stop()
        if not args.base_url:
            print(f"recall trace tasks published (queue dropped): {_flush(args)}")
    return rows


def _flush(args: argparse.Namespace) -> int:
    return common.redis_flush_queue(args.redis_url)


def explain(args: argparse.Namespace) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) the candidate queries of one recall of the largest subject."""
    from django.db import connection
    from django.db.models import Count

    from memory.models import Memory, Subject
    from memory.recall import RecallParams, recall_compute

    biggest = Memory.objects.values("subject_id").annotate(n=Count("id")).order_by("-n").first()
    subject = Subject.objects.get(pk=biggest["subject_id"])
    for query in ("给我推荐几个粤菜馆子", "When is the data team weekly meeting?"):
        captured: list[tuple[str, object]] = []

        def wrapper(execute, sql, params, many, context, captured=captured):
            captured.append((sql, params))
            return execute(sql, params, many, context)

        with connection.execute_wrapper(wrapper):
            recall_compute(subject=subject, params=RecallParams(query=query))
        print(
            f"\nEXPLAIN: subject {subject.external_id} ({biggest['n']} memories), query {query!r}"
        )
        for sql, params in captured:
            kind = classify(sql)
            if kind == "other":
                continue
            with connection.cursor() as cur:
                cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
                plan = "\n".join(f"    {row[0]}" for row in cur.fetchall())
            print(f"  [{kind}]")
            print(re.sub(r"\[[-0-9.e,]{200,}\]", "[…vector…]", plan))


# ------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(f"start: {common.machine_load()}")
    if not args.reuse:
        common.recreate_database(args.database_url)
    common.django_setup(args.database_url, args.redis_url)
    from django.db import connections

    try:
        if args.reuse:
            from accounts.models import Agent

            Agent.objects.filter(name="bench-recall").delete()
            key = common.create_agent("bench-recall", TENANT)
        else:
            common.migrate()
            key = common.create_agent("bench-recall", TENANT)
            print(
                f"loading {args.memories:,} memories over {args.subjects:,} subjects into "
                f"{common.database_name(args.database_url)} …"
            )
            figures = load(args)
            per = figures["per_subject"]
            common.print_table(
                ["load step", "seconds"],
                [(k, round(v, 2)) for k, v in figures["timings"].items()],
                title=(
                    f"load: {args.memories:,} memories, {args.subjects:,} subjects "
                    f"(per subject min {per.min()}, median {int(sorted(per)[len(per) // 2])}, "
                    f"max {per.max()}), {figures['templates']:,} statements x {args.variants} "
                    f"embeddings, memory_memory {figures['size'][0]} "
                    f"(heap {figures['size'][1]}); "
                    f"{args.memories / figures['timings']['total']:,.0f} rows/s overall"
                ),
            )
        from memory.embeddings import get_embedder

        get_embedder().embed(["warm up"])
        result = bench_in_process(args)
        rows = [
            ("recall_compute total", len(result["totals"]), *_pcts(result["totals"])),
            *[
                (f"  stage {name}", len(values), *_pcts(values))
                for name, values in result["stages"].items()
            ],
            *[
                (f"  SQL {name}", len(values), *_pcts(values))
                for name, values in sorted(result["sql_ms"].items())
            ],
        ]
        common.print_table(
            ["in-process (ms)", "n", "p50", "p95", "p99", "max"],
            rows,
            title=(
                f"in-process recall_compute, {args.queries} recalls (query embedding included); "
                "SQL queries per recall: "
                + ", ".join(f"{k} ({v}x)" for k, v in sorted(result["queries_per_recall"].items()))
                + f"; candidates per recall: median "
                f"{sorted(result['candidates'])[len(result['candidates']) // 2]}"
            ),
        )
        p95 = common.percentile(result["totals"], 95)
        print(
            f"goal p95 <= {GOAL_P95_MS} ms in-process: {'met' if p95 <= GOAL_P95_MS else 'MISSED'}"
        )
        if not args.skip_http:
            rows = bench_http(args, key)
            common.print_table(
                ["HTTP (ms, client-side)", "n", "p50", "p95", "p99", "req/s", "errors"],
                rows,
                title="HTTP POST …/recall via gunicorn (loopback; no Celery worker running)",
            )
        if not args.no_explain:
            explain(args)
    finally:
        print(f"end: {common.machine_load()}")
        connections.close_all()
        if not args.keep_db:
            common.drop_database(args.database_url)
    return 0


def _pcts(values: list[float]) -> tuple[float, float, float, float]:
    return (
        common.percentile(values, 50),
        common.percentile(values, 95),
        common.percentile(values, 99),
        max(values),
    )


if __name__ == "__main__":
    raise SystemExit(main())
