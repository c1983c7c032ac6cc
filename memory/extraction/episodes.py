"""Episodic memories: things that happened to the person ("I went to Kyoto last week",
"我女儿上周开始上幼儿园了"). Called by the rule extractor for every user turn, after the
semantic rules; sentences those rules already used are passed in `covered` and skipped."""

from memory.extraction.base import Candidate, Turn


def episodes_for_turn(turn: Turn, index: int, covered: set[str]) -> list[Candidate]:
    return []
