"""Shared helpers for the rule-extractor tests: one user turn in, candidates out."""

import datetime as dt

from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.extractor import RuleExtractor

EXTRACTOR = RuleExtractor()
WHEN = dt.datetime(2026, 6, 10, 10, tzinfo=dt.UTC)


def cands(text: str, when: dt.datetime = WHEN) -> list[Candidate]:
    return EXTRACTOR.extract([Turn("user", text, occurred_at=when)]).candidates


def semantic(text: str) -> list[Candidate]:
    return [c for c in cands(text) if c.kind != "episodic"]


def episodic(text: str) -> list[Candidate]:
    return [c for c in cands(text) if c.kind == "episodic"]
