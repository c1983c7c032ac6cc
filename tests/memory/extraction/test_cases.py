"""The extraction cases in cases/*.json, one test each (like Zulip's markdown_test_cases.json).

A file names its `runner` ("extract": the rule extractor over `turns`; "episodes": the episodes
detector over one user `text` said on `day`; "slots": one slot `function` on `text`) and which
`candidates` count ("all", or "semantic" to leave episodes out). A case states what it expects:

    none            no candidate at all
    one             exactly one candidate, with any of: category, kind, slot, values (exact),
                    contains / not_contains (substrings of the content), starts_with,
                    no_pronouns (no first or second person left), min_confidence
    all_hedged      at least one candidate, every one below the active threshold (0.6)
    never_in_force  no candidate at or above the active threshold
    equals / first  ("slots") the function's whole result (tuples as lists) / its first element

Add a case by adding an object to a file; a new kind of expectation needs a line here.
"""

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.episodes import episodes_for_turn
from memory.extraction.rules.extractor import RuleExtractor
from memory.extraction.slots.events import dated_event
from memory.extraction.slots.generic import well_formed_thing
from memory.extraction.slots.usage import product_slot, usage_slot

ACTIVE = 0.6
PRONOUNS = re.compile(r"我|你|您|\bI\b|\bmy\b|\bme\b|\bwe\b|\bour\b|\byou\b", re.IGNORECASE)
EXTRACTOR = RuleExtractor()
SLOT_FUNCTIONS = {f.__name__: f for f in (dated_event, product_slot, usage_slot, well_formed_thing)}


def _load() -> list[tuple[dict, dict]]:
    out = []
    for path in sorted((Path(__file__).parent / "cases").glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        settings = {"file": path.stem, "runner": data["runner"], "candidates": data["candidates"]}
        out.extend((settings, case) for case in data["cases"])
    return out


CASES = _load()


def _found(settings: dict, case: dict) -> list[Candidate]:
    if settings["runner"] == "episodes":
        when = dt.datetime.fromisoformat(f"{case['day']}T10:00:00+00:00")
        found = episodes_for_turn(Turn("user", case["text"], occurred_at=when), 0, set())
    else:
        turns = [Turn(role, text) for role, text in case["turns"]]
        found = EXTRACTOR.extract(turns).candidates
    if settings["candidates"] == "semantic":
        found = [c for c in found if c.kind != "episodic"]
    return found


def _check_one(c: Candidate, want: dict) -> None:
    for field in ("category", "kind", "slot", "values"):
        if field in want:
            assert getattr(c, field) == want[field], (field, getattr(c, field), c.content)
    for needle in want.get("contains", []):
        assert needle in c.content, c.content
    for needle in want.get("not_contains", []):
        assert needle not in c.content, c.content
    if "starts_with" in want:
        assert c.content.startswith(want["starts_with"]), c.content
    if want.get("no_pronouns"):
        assert not PRONOUNS.search(c.content), c.content
    if "min_confidence" in want:
        assert c.confidence >= want["min_confidence"], (c.content, c.confidence)


def _as_json(value):
    return [_as_json(v) for v in value] if isinstance(value, (tuple, list)) else value


def _check_slot_function(case: dict) -> None:
    result = SLOT_FUNCTIONS[case["function"]](case["text"])
    if "equals" in case:
        assert _as_json(result) == case["equals"], result
    if "first" in case:
        assert result[0] == case["first"], result


@pytest.mark.parametrize(
    ("settings", "case"), CASES, ids=[f"{s['file']}:{c['name']}" for s, c in CASES]
)
def test_extraction_case(settings, case):
    if settings["runner"] == "slots":
        _check_slot_function(case)
        return
    found = _found(settings, case)
    shown = [(c.content, c.confidence) for c in found]
    if case.get("none"):
        assert found == [], shown
    if "one" in case:
        assert len(found) == 1, shown
        _check_one(found[0], case["one"])
    if case.get("all_hedged"):
        assert found and all(c.confidence < ACTIVE for c in found), shown
    if case.get("never_in_force"):
        assert all(c.confidence < ACTIVE for c in found), shown
