"""Plans and goals with a time or a target ("下个月去日本", "目标是年底前跑完半马"), and dated
events of the user's world ("公司的年会定在一月十八号", "Our team offsite is on March 3")."""

from __future__ import annotations

import re

from memory.extraction.rules.hits import Statement, Verdict
from memory.extraction.rules.markers import PLAN_RE, TIME_RE
from memory.extraction.slots.events import dated_event


def states_plan(s: Statement) -> bool:
    return bool(
        PLAN_RE.search(s.body)
        and (TIME_RE.search(s.body) or re.search(r"目标|goal|target|计划|plan", s.body, re.I))
    )


def states_dated_event(s: Statement) -> bool:
    return dated_event(s.body)[2]


def plan(s: Statement) -> Verdict:
    return Verdict("plan")
