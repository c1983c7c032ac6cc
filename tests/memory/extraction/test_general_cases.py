"""The general extraction mechanisms on the cases in data/general_cases.json (one test each)."""

import json
from pathlib import Path

import pytest

from memory.extraction.base import Turn
from memory.extraction.rules.extractor import RuleExtractor

CASES = json.loads((Path(__file__).parent / "data" / "general_cases.json").read_text("utf-8"))[
    "cases"
]


def extract(turns):
    turns = [Turn(role, text) for role, text in turns]
    result = RuleExtractor().extract(turns, new_from=0)
    return [c for c in result.candidates if c.kind != "episodic"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_general_case(case):
    found = extract(case["turns"])
    contents = [c.content for c in found]
    if case.get("none"):
        assert found == [], contents
        return
    for needle in case.get("absent", []):
        assert not any(needle in c for c in contents), contents
    for needle in case.get("not_in_force", []):
        assert not any(needle in c.content and c.confidence >= 0.6 for c in found), [
            (c.content, c.confidence) for c in found
        ]
    if "memory" not in case:
        return
    matching = [c for c in found if all(k.lower() in c.content.lower() for k in case["memory"])]
    assert matching, contents
    if case.get("hedged"):
        assert all(c.confidence < 0.6 for c in matching), [(c.content, c.confidence) for c in found]
    if case.get("in_force"):
        assert any(c.confidence >= 0.6 for c in matching), [
            (c.content, c.confidence) for c in found
        ]
    if case.get("firm"):
        assert any(c.confidence >= 0.9 for c in matching), [
            (c.content, c.confidence) for c in found
        ]
