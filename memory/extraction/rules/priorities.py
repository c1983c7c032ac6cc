"""The order in which the detectors judge a sentence (Zulip markdown's `priorities.py`).

Each entry is (name, predicate, detector). The first entry whose predicate holds decides the
sentence: its detector returns a `Verdict`, or None when the sentence yields no memory after
all (a one-off wish, a revision request, a topic without a value) — later entries are not
asked then. The order is the order of precedence: a correction beats a decision, which beats
a plan, and so on; the last entry takes every sentence no earlier one claimed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from memory.extraction.rules import corrections, decisions, facts, plans, preferences
from memory.extraction.rules.hits import Statement, Verdict


class Rule(NamedTuple):
    name: str
    applies: Callable[[Statement], bool]
    detect: Callable[[Statement], Verdict | None]


PRIORITY: tuple[Rule, ...] = (
    Rule("correction", corrections.states_correction, corrections.corrected),
    Rule("decision", decisions.states_decision, decisions.decision),
    Rule("recent habit", facts.states_recent_habit, facts.fact),
    Rule("plan", plans.states_plan, plans.plan),
    Rule("dated event", plans.states_dated_event, plans.plan),
    Rule("preference", preferences.states_preference, preferences.preference),
    Rule("standing instruction", preferences.standing_with_slot, preferences.preferred),
    Rule("profile", facts.states_profile, facts.profile),
    Rule("habitual use", preferences.states_usage, preferences.preferred),
    Rule("fact", facts.states_fact, facts.fact),
    Rule("routine", facts.states_routine, facts.routine),
    Rule("topic", facts.always, facts.by_topic),
)


def judge(statement: Statement) -> Verdict | None:
    """The verdict of the first detector that claims the statement."""
    for rule in PRIORITY:
        if rule.applies(statement):
            return rule.detect(statement)
    return None
