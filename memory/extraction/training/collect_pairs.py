"""Build the labelled corpus of the replacement model: (new statement, older memory) pairs.

Runs scenario sets (the format of ../shared/eval/run_scenarios.py) through the real REST API
in-process — events posted with synchronous extraction, exactly as the evaluation runner posts
them — and records every pair the write decision weighs: the candidate and each live memory of
the subject it was compared with, with their cosine similarity. Labels come from the scenario's
own expectations, never from the rules:

* positive — in a changed-fact scenario, the candidate holds a new value the older memory does
  not (`expect.active` for a firm change, `expect.observed_or_absent` for a hedged one; what
  stays the same is expected active too) and the older memory holds the old
  value (`superseded` / `not_active`, or `active` for a hedged one): the new statement answers the
  question the old one answered;
* skipped — in such a scenario, an older memory holding the old value compared with a candidate
  that does not hold the new one (a restatement or a badly worded extraction: no label is safe);
* negative — every other pair.

Usage (a throwaway database, created when missing; each run's subjects stay in it):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/engram_pairs \\
      .venv/bin/python -m memory.extraction.training.collect_pairs \\
      --out memory/extraction/data/replace_pairs.jsonl SET.jsonl [SET.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from io import StringIO
from pathlib import Path


def setup_django() -> None:
    """Django for a command-line run (a no-op where it is already set up, as under pytest)."""
    from django.apps import apps

    if apps.ready:
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    os.environ.setdefault("DJANGO_DEBUG", "true")
    os.environ.setdefault("ENGRAM_RATE_LIMIT_ENABLED", "false")
    import django

    django.setup()


def _create_database(url: str) -> None:
    """The throwaway database of DATABASE_URL, created when missing."""
    import psycopg
    from dj_database_url import parse

    cfg = parse(url)
    name = cfg["NAME"]
    with psycopg.connect(
        host=cfg.get("HOST") or None,
        port=cfg.get("PORT") or None,
        user=cfg.get("USER") or None,
        password=cfg.get("PASSWORD") or None,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        if not conn.execute("select 1 from pg_database where datname = %s", [name]).fetchone():
            conn.execute(f'create database "{name}"')


def matches(text: str, m: dict) -> bool:
    """The keywords of the runner's MATCH (../shared/eval/run_scenarios.py): every `all`
    keyword and one `any` keyword in the text; the category is the caller's to check."""
    text = (text or "").lower()
    if not all(k.lower() in text for k in m.get("all", [])):
        return False
    return not m.get("any") or any(k.lower() in text for k in m["any"])


def label(scenario: dict, new: str, old: str) -> int | None:
    """1 replaces, 0 does not, None unknown (see the module docstring)."""
    expect = scenario["expect"]
    phenomenon = scenario["phenomenon"]
    if phenomenon == "conflict_firm":
        new_values = expect.get("active", [])
        old_values = expect.get("superseded", []) + expect.get("not_active", [])
    elif phenomenon == "conflict_tentative":
        new_values = expect.get("observed_or_absent", [])
        old_values = expect.get("active", [])
    else:
        return 0
    holds_old = any(matches(old, m) for m in old_values)
    # a new value the older memory does not hold: what stays the same ("还是做 DE" beside the
    # new employer) is expected active too, and the older memory holding it makes no
    # restatement of the pair
    brings_new = any(matches(new, m) and not matches(old, m) for m in new_values)
    old_holds_new = any(matches(old, m) for m in new_values)
    if holds_old and brings_new:
        return 1
    if holds_old and not old_holds_new:
        return None
    return 0


def collect(paths: list[str], out: Path) -> int:
    from memory import decisions

    recorded: list[dict] = []
    original = decisions.decide

    def recording_decide(candidate, occurred_at, existing, similarity):
        decision = original(candidate, occurred_at, existing, similarity)
        for mem in existing:
            if mem.kind == "episodic" or mem.status != decisions.ACTIVE:
                continue
            recorded.append(
                {
                    "new": {
                        "content": candidate.content,
                        "quote": candidate.source_quote,
                        "category": candidate.category,
                        "kind": candidate.kind,
                        "slot": candidate.slot,
                        "confidence": candidate.confidence,
                        "context": list(candidate.context_topics),
                        "at": occurred_at.isoformat() if occurred_at else None,
                    },
                    "old": {
                        "id": mem.id,
                        "content": mem.content,
                        "category": mem.category,
                        "slot": mem.slot,
                        "confidence": mem.confidence,
                        "at": mem.occurred_at.isoformat() if mem.occurred_at else None,
                    },
                    "similarity": round(float(similarity.get(mem.id, 0.0)), 4),
                    "others": sorted(
                        (
                            round(float(similarity.get(m.id, 0.0)), 4)
                            for m in existing
                            if m.id != mem.id and m.kind != "episodic" and m.status == "active"
                        ),
                        reverse=True,
                    )[:3],
                    "decision": decision.action,
                }
            )
        return decision

    replaced_memory = decisions._replaced_memory
    decisions.decide = recording_decide
    # the rules alone decide while collecting: the corpus must not depend on the model it
    # trains (nor on whether its features still match the shipped weights)
    decisions._replaced_memory = lambda *args, **kwargs: None
    try:
        return _post_and_label(paths, out, recorded)
    finally:
        decisions.decide, decisions._replaced_memory = original, replaced_memory


def _post_and_label(paths: list[str], out: Path, recorded: list[dict]) -> int:
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    buf = StringIO()
    # a fresh agent and fresh subjects every run: events posted again to the same subjects are
    # duplicates and would not be extracted again
    run = uuid.uuid4().hex[:8]
    call_command(
        "create_agent", f"pairs-{run}", "--tenant", "pairs", "--scopes", "read,write", stdout=buf
    )
    key = buf.getvalue().strip().splitlines()[-1]
    client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")
    rows = 0
    with out.open("w", encoding="utf-8") as fh:
        for path in paths:
            set_name = Path(path).stem
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                scenario = json.loads(line)
                subject = f"{run}-{set_name}-{scenario['id']}"
                recorded.clear()
                for session in scenario["sessions"]:
                    events = [
                        {
                            "role": e["role"],
                            "content": e["content"],
                            "occurred_at": e["occurred_at"],
                            "client_event_id": f"{subject}-{session['session_id']}-{i}",
                        }
                        for i, e in enumerate(session["events"])
                    ]
                    body = {
                        "session_id": f"{subject}-{session['session_id']}",
                        "events": events,
                        "extract": "sync",
                    }
                    client.post(
                        f"/api/v1/subjects/{subject}/events", body, content_type="application/json"
                    )
                for pair in recorded:
                    y = label(scenario, pair["new"]["content"], pair["old"]["content"])
                    if y is None:
                        continue
                    pair.update(
                        set=set_name,
                        scenario=scenario["id"],
                        lang=scenario["lang"],
                        phenomenon=scenario["phenomenon"],
                        label=y,
                    )
                    fh.write(json.dumps(pair, ensure_ascii=False) + "\n")
                    rows += 1
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("sets", nargs="+")
    args = ap.parse_args(argv)
    if not os.environ.get("DATABASE_URL"):
        ap.error("set DATABASE_URL to a throwaway database (it is created when missing)")
    _create_database(os.environ["DATABASE_URL"])
    setup_django()
    rows = collect(args.sets, args.out)
    print(f"{rows} pairs → {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
