"""Erasure benchmark: erase one subject with 10 k memories and 100 k events.

Loads the subject (plus a few neighbours that must survive) into its own database, then times
`privacy.services.subject_erase` and prints the rows deleted, the residue count (must be 0) and
whether the neighbours are intact. Goal: < 2 s.

    .venv/bin/python bench/erase.py [--memories 10000] [--events 100000]
"""

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--database", default="engram_bench_erase")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_DEBUG", "true")
    os.environ.setdefault("ENGRAM_EMBEDDER", "hashing")
    os.environ["DATABASE_URL"] = os.environ.get(
        "BENCH_DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{args.database}"
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{args.database}"')
        c.execute(f'CREATE DATABASE "{args.database}"')

    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from accounts.services import tenant_get_or_create
    from audit.services import SYSTEM
    from memory.models import Event, Memory, Subject
    from privacy.services import subject_erase

    call_command("migrate", verbosity=0)
    tenant = tenant_get_or_create(slug="bench", actor=SYSTEM)
    rng = random.Random(7)
    now = timezone.now()

    def load(subject, n_events, n_memories):
        events = [
            Event(
                subject=subject,
                session_id=f"s{i // 50}",
                role="user" if i % 2 else "assistant",
                content=f"第{i}条消息：我喜欢{rng.choice(['川菜', '粤菜', '日料'])}，"
                f"message {i} for {subject.external_id}",
                occurred_at=now,
                content_hash=f"{i:064d}",
                extraction_status="done",
            )
            for i in range(n_events)
        ]
        for start in range(0, len(events), 5000):
            Event.objects.bulk_create(events[start : start + 5000])
        vector = [rng.random() for _ in range(512)]
        memories = [
            Memory(
                tenant=tenant,
                subject=subject,
                category="preference",
                content=f"用户偏好 {i} of {subject.external_id}: {rng.random():.6f}",
                observed_at=now,
                valid_from=now,
                embedding=vector,
                search_text=f"偏好 {i}",
            )
            for i in range(n_memories)
        ]
        for start in range(0, len(memories), 2000):
            Memory.objects.bulk_create(memories[start : start + 2000])

    started = time.perf_counter()
    target = Subject.objects.create(tenant=tenant, external_id="erase-me")
    load(target, args.events, args.memories)
    neighbours = [Subject.objects.create(tenant=tenant, external_id=f"keep-{i}") for i in range(5)]
    for neighbour in neighbours:
        load(neighbour, 200, 50)
    print(
        f"loaded {args.events} events + {args.memories} memories in "
        f"{time.perf_counter() - started:.1f}s"
    )

    started = time.perf_counter()
    receipt = subject_erase(subject=target, actor=SYSTEM)
    elapsed = time.perf_counter() - started
    intact = all(
        Event.objects.filter(subject=n).count() == 200
        and Memory.objects.filter(subject=n).count() == 50
        for n in neighbours
    )
    print(f"{'erase time':<24} {elapsed:.3f} s (goal < 2 s)")
    for table, count in receipt["deleted"].items():
        print(f"  deleted {table:<34} {count}")
    for stage, ms in receipt["timings_ms"].items():
        print(f"  {stage:<22} {ms:.0f} ms")
    print(f"{'residue count':<24} {receipt['residue_total']} (must be 0)")
    print(f"{'neighbours intact':<24} {intact}")
    return 0 if receipt["residue_total"] == 0 and intact else 1


if __name__ == "__main__":
    sys.exit(main())
