"""Ingest benchmark: events accepted per second over HTTP, events extracted per second per worker.

    .venv/bin/python bench/ingest.py [--requests 300] [--clients 4] [--workers 2]
                                     [--modes none,async] [--extract-events 3000]
                                     [--extract-batches 10,100] [--base-url URL --key KEY]

(a) accepted: POST /api/v1/subjects/{id}/events with batches of `--batch` (100) events from
    `--clients` keep-alive client threads, against a gunicorn server this script starts on a
    free port (8031+) with `--workers` workers — or against `--base-url` with `--key`.
    `extract: "none"` stores only; `extract: "async"` also publishes one Celery task per
    request to Redis after commit (and marks the events `queued`). No worker runs: the queue
    is dropped afterwards (its length is printed as a check).
(b) extracted: `memory.services.events_extract` in this process (= one Celery worker with
    concurrency 1) over queued events of realistic zh / en / mixed user + assistant turns,
    `--extract-batches` events per call (one call = one task). Includes the rule extractor,
    the embedding of candidates (USE, 1 BLAS thread), the decision queries and the writes.

Uses its own database (default engram_bench_ingest, dropped and re-created; `--keep-db` keeps it
afterwards) and Redis db 5. Goals: >= 2 000 events/s accepted, >= 300 events/s extracted per
worker.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common

GOAL_ACCEPTED = 2000
GOAL_EXTRACTED = 300


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[1:]),
    )
    parser.add_argument(
        "--database-url",
        default=common.with_database(common.DEFAULT_DATABASE_URL, "engram_bench_ingest"),
        help="bench database (name must start with engram_bench; dropped and re-created)",
    )
    parser.add_argument("--redis-url", default=common.DEFAULT_REDIS_URL)
    parser.add_argument(
        "--keep-db", action="store_true", help="do not drop the database at the end"
    )
    parser.add_argument("--base-url", help="use this running server for (a) instead of gunicorn")
    parser.add_argument("--key", help="agent key for --base-url")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--clients", type=int, default=4, help="client threads (default 4)")
    parser.add_argument("--requests", type=int, default=300, help="timed requests per mode")
    parser.add_argument("--batch", type=int, default=100, help="events per request (default 100)")
    parser.add_argument("--modes", default="none,async", help="extract modes to measure")
    parser.add_argument("--extract-events", type=int, default=3000, help="events for (b)")
    parser.add_argument(
        "--extract-batches", default="10,100", help="events per events_extract call, comma list"
    )
    parser.add_argument("--skip-http", action="store_true", help="only (b)")
    parser.add_argument("--skip-extract", action="store_true", help="only (a)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.base_url and not args.key:
        parser.error("--base-url needs --key")
    common.check_bench_database(args.database_url)
    return args


# ------------------------------------------------------------------------------ (a) accepted


def build_payloads(rng: random.Random, count: int, batch: int, mode: str, tag: str) -> list:
    """(subject_id, body) per request, each a fresh session of `batch` turns."""
    payloads = []
    for n in range(count):
        turns = common.conversation(rng, batch)
        events = [
            {
                "role": role,
                "content": content,
                "client_event_id": f"{tag}-{n}-{i}",
                "occurred_at": f"2026-0{1 + n % 9}-{1 + i % 28:02d}T10:{i % 60:02d}:00Z",
                "metadata": {"channel": "bench"},
            }
            for i, (role, content) in enumerate(turns)
        ]
        body = {"session_id": f"{tag}-s{n}", "extract": mode, "events": events}
        payloads.append((f"{tag}-u{n % 200}", body))
    return payloads


def run_http(base_url: str, key: str, payloads: list, clients: int) -> dict:
    lock = threading.Lock()
    queue = list(reversed(payloads))
    latencies: list[float] = []
    accepted = 0
    errors: Counter = Counter()

    def worker() -> None:
        nonlocal accepted
        client = common.Client(base_url, key)
        try:
            while True:
                with lock:
                    if not queue:
                        return
                    subject_id, body = queue.pop()
                t0 = time.perf_counter()
                status, data = client.post(f"/api/v1/subjects/{subject_id}/events", body)
                elapsed = (time.perf_counter() - t0) * 1000
                with lock:
                    latencies.append(elapsed)
                    if status == 201:
                        accepted += len(data["events"])
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
    return {
        "accepted": accepted,
        "wall": wall,
        "rate": accepted / wall,
        "p50": common.percentile(latencies, 50),
        "p95": common.percentile(latencies, 95),
        "errors": dict(errors),
    }


def bench_accepted(args: argparse.Namespace, env: dict[str, str], key: str | None) -> list:
    server = None
    base_url, agent_key = args.base_url, args.key
    if not base_url:
        server = common.Server(env, workers=args.workers)
        base_url, agent_key = server.base_url, key
        print(f"gunicorn: {args.workers} worker(s) on {base_url} (log {server.log_path})")
    rng = random.Random(args.seed)
    rows = []
    try:
        warm = build_payloads(rng, 4 * args.workers, args.batch, "none", "warm")
        run_http(base_url, agent_key, warm, args.clients)
        for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
            if mode == "async" and not args.base_url:
                common.redis_flush_queue(args.redis_url)
            payloads = build_payloads(
                rng, args.requests, args.batch, mode, f"{mode}{rng.randrange(10**6)}"
            )
            result = run_http(base_url, agent_key, payloads, args.clients)
            queued = ""
            if mode == "async" and not args.base_url:
                queued = str(common.redis_flush_queue(args.redis_url))
            rows.append(
                (
                    f"accepted, extract={mode}",
                    result["accepted"],
                    round(result["wall"], 2),
                    round(result["rate"]),
                    result["p50"],
                    result["p95"],
                    queued or "-",
                    str(result["errors"] or "-"),
                    "yes" if result["rate"] >= GOAL_ACCEPTED else "NO",
                )
            )
    finally:
        if server is not None:
            server.stop()
    return rows


# ------------------------------------------------------------------------------ (b) extracted


def prepare_events(rng: random.Random, total: int, batch: int, tag: str) -> list[list[int]]:
    """Store `total` queued events (sessions of `batch` turns over many subjects) in-process."""
    from accounts.models import Tenant
    from audit.services import actor_for_task
    from memory import services

    tenant = Tenant.objects.get(slug="bench")
    actor = actor_for_task("bench-ingest")
    batches: list[list[int]] = []
    subjects = max(1, total // 60)  # ~60 events (~17 memories) per subject
    for n in range(0, total, batch):
        turns = common.conversation(rng, min(batch, total - n))
        appended = services.events_append(
            tenant=tenant,
            external_id=f"{tag}-x{(n // batch) % subjects}",
            session_id=f"{tag}-s{n // batch}",
            events=[services.EventInput(role=role, content=text) for role, text in turns],
            extract="sync",  # stored as `queued`, nothing published
            actor=actor,
        )
        batches.append(appended.new_event_ids)
    return batches


def bench_extracted(args: argparse.Namespace) -> list:
    from django.db import connection

    from audit.services import actor_for_task
    from memory import services
    from memory.embeddings import get_embedder
    from memory.extraction import get_extractor
    from memory.models import Event

    embedder = get_embedder()
    extractor = get_extractor()
    embedder.embed(["warm up"])  # load the model outside the timing
    # …and the extractor's dictionaries (jieba's part-of-speech tables, compiled patterns), as
    # a running worker has them after its first task
    from memory.extraction.base import Turn

    extractor.extract([Turn("user", "我下个月去成都出差，I usually fly United.")])
    print(f"extractor: {extractor.name}, embedder: {embedder.name}")
    timers = Counter()
    original_embed, original_extract = embedder.embed, extractor.extract

    def timed_embed(texts):
        t0 = time.perf_counter()
        try:
            return original_embed(texts)
        finally:
            timers["embed"] += time.perf_counter() - t0
            timers["embedded"] += len(texts)

    def timed_extract(*a, **kw):
        t0 = time.perf_counter()
        try:
            return original_extract(*a, **kw)
        finally:
            timers["extract"] += time.perf_counter() - t0

    sql_time: Counter = Counter()

    def count_queries(execute, sql, params, many, context):
        timers["queries"] += 1
        t0 = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if os.environ.get("BENCH_SQL_PROFILE"):
                sql_time[" ".join(sql.split())[:90]] += time.perf_counter() - t0

    embedder.embed, extractor.extract = timed_embed, timed_extract
    actor = actor_for_task("bench-extract")
    rng = random.Random(args.seed + 1)
    rows = []
    try:
        for batch in [int(b) for b in args.extract_batches.split(",") if b.strip()]:
            batches = prepare_events(rng, args.extract_events, batch, f"b{batch}")
            events = sum(len(b) for b in batches)
            timers.clear()
            actions: Counter = Counter()
            with connection.execute_wrapper(count_queries):
                started = time.perf_counter()
                for ids in batches:
                    for result in services.events_extract(event_ids=ids, actor=actor):
                        actions[result.action] += 1
                wall = time.perf_counter() - started
            done = Event.objects.filter(
                pk__in=[i for b in batches for i in b], extraction_status="done"
            ).count()
            rate = events / wall
            for statement, seconds in sql_time.most_common(12):
                print(f"  sql {seconds * 1000 / events:6.3f} ms/ev  {statement}")
            sql_time.clear()
            rows.append(
                (
                    f"extracted, {batch}/call",
                    events,
                    round(wall, 2),
                    round(rate),
                    round(1000 * timers["extract"] / events, 3),
                    round(1000 * timers["embed"] / events, 3),
                    round(1000 * (wall - timers["extract"] - timers["embed"]) / events, 3),
                    round(timers["queries"] / events, 1),
                    sum(actions.values()),
                    " ".join(f"{k}={v}" for k, v in sorted(actions.items())),
                    f"{done}/{events}",
                    "yes" if rate >= GOAL_EXTRACTED else "NO",
                )
            )
    finally:
        embedder.embed, extractor.extract = original_embed, original_extract
    return rows


# ------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(f"start: {common.machine_load()}")
    env = common.bench_env(args.database_url, args.redis_url)
    common.recreate_database(args.database_url)
    common.django_setup(args.database_url, args.redis_url)
    try:
        t0 = time.perf_counter()
        common.migrate()
        key = common.create_agent("bench-agent", "bench")
        print(f"database {common.database_name(args.database_url)} ready in ", end="")
        print(f"{time.perf_counter() - t0:.1f}s")
        if not args.skip_http:
            rows = bench_accepted(args, env, key)
            common.print_table(
                [
                    "(a) HTTP",
                    "events",
                    "wall s",
                    "events/s",
                    "p50 ms/req",
                    "p95 ms/req",
                    "tasks queued",
                    "errors",
                    f">= {GOAL_ACCEPTED}",
                ],
                rows,
                title=(
                    f"(a) accepted: {args.clients} client threads, {args.batch} events/request, "
                    f"{args.requests} requests/mode, "
                    + (f"server {args.base_url}" if args.base_url else f"{args.workers} workers")
                ),
            )
        if not args.skip_extract:
            rows = bench_extracted(args)
            common.print_table(
                [
                    "(b) in-process",
                    "events",
                    "wall s",
                    "events/s",
                    "extract ms/ev",
                    "embed ms/ev",
                    "db+rest ms/ev",
                    "queries/ev",
                    "candidates",
                    "actions",
                    "done",
                    f">= {GOAL_EXTRACTED}",
                ],
                rows,
                title="(b) extracted per worker (one process, one thread): events_extract",
            )
    finally:
        print(f"end: {common.machine_load()}")
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            common.drop_database(args.database_url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
