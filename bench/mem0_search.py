"""mem0-compatible search vs native recall, through one gunicorn server.

    .venv/bin/python bench/mem0_search.py                      # 20 subjects x 50 memories
    .venv/bin/python bench/mem0_search.py --subjects 50 --memories 200 --queries 400

1. A dedicated database (default engram_bench_mem0, dropped and re-created): `--subjects`
   subjects with `--memories` statements each, written through `memory_create` (the
   service behind mem0's `infer=false`), so embeddings, keyword text and slots are real.
2. gunicorn (`--workers`), then for the same random (subject, query) pairs, in turn:
   native `POST /api/v1/subjects/{id}/recall`, the adapter's `POST /mem0/v3/memories/search/`
   with the same keep-alive client (the adapter's own cost), and the real `mem0ai`
   `MemoryClient.search` (what a mem0 user measures, client overhead included).
3. p50 / p95 / p99 of each; the goal: adapter p95 within 5 ms of native recall p95.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common

GOAL_DELTA_MS = 5.0
TENANT = "bench-mem0"
TOPICS = [
    ("I prefer {} seats on long flights.", ["aisle", "window", "exit-row", "front"]),
    ("My favourite tea is {}.", ["oolong", "jasmine", "green tea", "pu-erh", "earl grey"]),
    ("I live in {}.", ["Lisbon", "Berlin", "Osaka", "Toronto", "Shenzhen"]),
    ("I am allergic to {}.", ["peanuts", "shellfish", "pollen", "penicillin"]),
    ("I usually book {} hotels.", ["budget", "boutique", "business", "airport"]),
    ("My daughter plays {} on weekends.", ["football", "piano", "chess", "tennis"]),
    ("我喜欢喝{}。", ["乌龙茶", "咖啡", "绿茶", "豆浆"]),
    ("我下个月要去{}出差。", ["上海", "北京", "杭州", "成都"]),
    ("I drive a {} to work.", ["bicycle", "scooter", "hybrid car", "van"]),
    ("My budget for the new laptop is {} dollars.", ["800", "1200", "2000", "1500"]),
]
QUERIES = [
    "which seat should I book",
    "what tea do I like",
    "where do I live",
    "any allergies I should know about",
    "find me a hotel",
    "what does my daughter do on weekends",
    "我喜欢喝什么",
    "下个月的出差安排",
    "how do I get to work",
    "recommend a laptop",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=20)
    parser.add_argument("--memories", type=int, default=50, help="per subject")
    parser.add_argument("--queries", type=int, default=200, help="per path")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument(
        "--database-url",
        default=common.with_database(common.DEFAULT_DATABASE_URL, "engram_bench_mem0"),
    )
    parser.add_argument("--redis-url", default=common.DEFAULT_REDIS_URL)
    parser.add_argument("--seed", type=int, default=13)
    return parser.parse_args(argv)


def load(args: argparse.Namespace, rng: random.Random) -> None:
    from accounts.services import tenant_get_or_create
    from audit.services import SYSTEM
    from memory.services import memory_create, subject_get_or_create

    tenant = tenant_get_or_create(slug=TENANT, actor=SYSTEM)
    from django.utils import timezone

    for s in range(args.subjects):
        subject = subject_get_or_create(tenant=tenant, external_id=f"u{s}", actor=SYSTEM)
        for m in range(args.memories):
            template, values = TOPICS[m % len(TOPICS)]
            text = template.format(rng.choice(values))
            if m >= len(TOPICS):  # more statements than topics: distinct, dated notes
                text = f"{text} (note {m}, {rng.randint(2019, 2025)})"
            memory_create(subject=subject, content=text, occurred_at=timezone.now(), actor=SYSTEM)


def timed(call: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    started = time.perf_counter()
    call(*args, **kwargs)
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rng = random.Random(args.seed)
    common.check_bench_database(args.database_url)
    common.recreate_database(args.database_url)
    common.django_setup(args.database_url, args.redis_url)
    common.migrate()
    started = time.perf_counter()
    load(args, rng)
    elapsed = time.perf_counter() - started
    print(f"loaded {args.subjects} x {args.memories} memories in {elapsed:.1f} s")
    key = common.create_agent("bench-mem0", TENANT)
    env = common.bench_env(args.database_url, args.redis_url)
    server = common.Server(env, workers=args.workers)
    os.environ.setdefault("MEM0_TELEMETRY", "false")
    try:
        from mem0 import MemoryClient

        native = common.Client(server.base_url, key)
        adapter = common.Client(f"{server.base_url}/mem0", key)
        mem0_client = MemoryClient(api_key=key, host=f"{server.base_url}/mem0")
        pairs = [
            (f"u{rng.randrange(args.subjects)}", rng.choice(QUERIES)) for _ in range(args.queries)
        ]
        for subject, query in pairs[:20]:  # warm-up: embedder, connections, caches
            native.post(f"/api/v1/subjects/{subject}/recall", {"query": query, "top_k": 5})
        figures: dict[str, list[float]] = {"native recall": [], "adapter": [], "mem0 client": []}
        for subject, query in pairs:
            body = {"query": query, "top_k": args.top_k, "token_budget": 20000}
            search = {"query": query, "filters": {"user_id": subject}, "top_k": args.top_k}
            native_path = f"/api/v1/subjects/{subject}/recall"
            figures["native recall"].append(timed(native.post, native_path, body))
            figures["adapter"].append(timed(adapter.post, "/v3/memories/search/", search))
            figures["mem0 client"].append(
                timed(mem0_client.search, query, filters={"user_id": subject}, top_k=args.top_k)
            )
        rows = [
            [name, len(v), *(round(common.percentile(v, p), 2) for p in (50, 95, 99))]
            for name, v in figures.items()
        ]
        common.print_table(
            ["path", "n", "p50 ms", "p95 ms", "p99 ms"], rows, title=common.machine_load()
        )
        delta = common.percentile(figures["adapter"], 95) - common.percentile(
            figures["native recall"], 95
        )
        client_delta = common.percentile(figures["mem0 client"], 95) - common.percentile(
            figures["native recall"], 95
        )
        verdict = "within" if delta <= GOAL_DELTA_MS else "NOT within"
        print(
            f"adapter p95 - native p95 = {delta:+.2f} ms ({verdict} {GOAL_DELTA_MS:.0f} ms); "
            f"mem0 client p95 - native p95 = {client_delta:+.2f} ms"
        )
        return 0 if delta <= GOAL_DELTA_MS else 1
    finally:
        server.stop()
        common.redis_flush_queue(args.redis_url)
        common.drop_database(args.database_url)


if __name__ == "__main__":
    raise SystemExit(main())
