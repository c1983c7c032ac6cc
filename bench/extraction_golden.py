"""Golden output of the offline extractor, to prove a restructuring changes no behaviour.

Runs `RuleExtractor` over every session of every scenario file (the dev set and
bench/scenarios/*.jsonl, each session's events as turns) and over the extractor calls the tests
make (recorded once into bench/extraction_golden_inputs.json), and writes every candidate with
all its fields, plus the helper outputs that writers and recall read from the same texts
(slots, schedule / amount / date values, topic concepts, recall's date windows), as JSON.

    python bench/extraction_golden.py OUT.json          # run and write
    python bench/extraction_golden.py --record-tests     # re-record the tests' extractor inputs

Two runs on unchanged behaviour give byte-identical files (`cmp before.json after.json`).
Compare runs over the same committed inputs file: re-recording gives the same turns, but the
service tests' calls carry database ids and times that differ from run to run.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEV_FILE = Path("/work/shared/eval/dev-scenarios.jsonl")
INPUTS = Path(__file__).with_name("extraction_golden_inputs.json")
TODAY = dt.date(2026, 6, 10)


def _setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    os.environ.setdefault("DJANGO_SECRET_KEY", "golden")

    django.setup()


def _turn_dict(t) -> dict:
    return {
        "role": t.role,
        "content": t.content,
        "event_id": t.event_id,
        "occurred_at": t.occurred_at.isoformat() if t.occurred_at else None,
    }


def record_tests() -> None:
    """Run tests/memory with RuleExtractor.extract wrapped; store every distinct call."""
    import pytest

    calls: dict[str, dict] = {}

    class Recorder:
        def pytest_configure(self, config):
            from memory.extraction.rules.extractor import RuleExtractor

            original = RuleExtractor.extract

            def extract(self, turns, *, new_from=0, known=None):
                call = {"turns": [_turn_dict(t) for t in turns], "new_from": new_from}
                calls.setdefault(json.dumps(call, ensure_ascii=False, sort_keys=True), call)
                return original(self, turns, new_from=new_from, known=known)

            RuleExtractor.extract = extract

    code = pytest.main(["-q", "-p", "no:cacheprovider", "tests/memory"], plugins=[Recorder()])
    if code not in (0, 1):
        raise SystemExit(code)
    ordered = [calls[k] for k in sorted(calls)]
    INPUTS.write_text(json.dumps(ordered, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"recorded {len(ordered)} extractor calls → {INPUTS}")


def _jsonable(value):
    if dataclasses.is_dataclass(value):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_jsonable(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _parse_time(s: str | None):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00")) if s else None


def _scenario_calls() -> list[tuple[str, list, list[str]]]:
    """(label, turns, recall queries) per session of every scenario file."""
    from memory.extraction.base import Turn

    files = [DEV_FILE, *sorted((ROOT / "bench" / "scenarios").glob("*.jsonl"))]
    out = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            scn = json.loads(line)
            queries = [r["query"] for r in scn.get("recall", []) if r.get("query")]
            for n, session in enumerate(scn.get("sessions", [])):
                turns = [
                    Turn(
                        role=e["role"],
                        content=e["content"],
                        event_id=i,
                        occurred_at=_parse_time(e.get("occurred_at")),
                    )
                    for i, e in enumerate(session.get("events", []))
                ]
                out.append((f"{path.name}:{scn.get('id')}:{n}", turns, queries if n == 0 else []))
    return out


def _helpers(text: str, category: str) -> dict:
    """What writers and recall derive from one text besides the extractor's candidates."""
    from memory.extraction import topics
    from memory.extraction.rules.markers import CHANGE_RE, FIRM_RE
    from memory.extraction.slots.derive import slot_for
    from memory.extraction.slots.events import dated_event
    from memory.language import dates, numerals

    return _jsonable(
        {
            "slot_for": slot_for(text, category),
            "schedule": dates.schedule_values(text),
            "amount": numerals.amount_values(text),
            "date": dates.date_values(text),
            "dated_event": dated_event(text),
            "concepts": topics.concepts(text),
            "memory_dates": dates.memory_dates(text),
            "plan_dates": dates.plan_dates(text, [], TODAY),
            "change": bool(CHANGE_RE.search(text)),
            "firm": bool(FIRM_RE.search(text)),
        }
    )


def _query_helpers(query: str) -> dict:
    from memory import recall
    from memory.language import dates

    return _jsonable(
        {
            "route": recall.route_query(query),
            "topics": recall.query_topics(query),
            "language": recall.query_language(query),
            "plan_window": dates.plan_window(query, TODAY),
            "date_window": dates.query_date_window(query, TODAY),
        }
    )


def run(out_path: str) -> None:
    from memory.extraction.base import Turn
    from memory.extraction.rules.extractor import RuleExtractor

    extractor = RuleExtractor()
    calls = []
    for label, turns, queries in _scenario_calls():
        calls.append((label, turns, 0, queries))
    for n, call in enumerate(json.loads(INPUTS.read_text(encoding="utf-8"))):
        turns = [
            Turn(t["role"], t["content"], t["event_id"], _parse_time(t["occurred_at"]))
            for t in call["turns"]
        ]
        calls.append((f"tests:{n}", turns, call["new_from"], []))
    result = []
    for label, turns, new_from, queries in calls:
        found = extractor.extract(turns, new_from=new_from).candidates
        result.append(
            {
                "call": label,
                "candidates": [_jsonable(c) for c in found],
                "candidate_helpers": [_helpers(c.content, c.category) for c in found],
                "turn_helpers": [
                    _helpers(t.content, "fact") for t in turns[new_from:] if t.role == "user"
                ],
                "queries": [_query_helpers(q) for q in queries],
            }
        )
    Path(out_path).write_text(
        json.dumps(result, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    print(f"{len(result)} calls, {sum(len(r['candidates']) for r in result)} candidates")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record-tests"]:
        record_tests()
    elif len(sys.argv) == 2:
        _setup()
        run(sys.argv[1])
    else:
        raise SystemExit(__doc__)
