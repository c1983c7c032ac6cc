"""Decisions ("定了，就选全季", "we're going with Postgres"), and the deliberation that ends in
one: hedges of the weighing-up ("纠结了半天，最后决定…") do not make the decision tentative."""

from __future__ import annotations

import re

from memory.extraction.rules.hits import Statement, Verdict
from memory.extraction.rules.markers import HEDGE_RE, REPORTED_RE

DECISION_RE = re.compile(
    r"定了(?!个)|定下来|(?<![没未])决定|(?<![不没])确定(?!.*吗)|敲定|拍板|选定|定为|定一下|就这么定|"
    r"就按.{0,12}(?:推进|来|办|执行|做|走|定)|最终(?:定|选|决定|采用|用|确定)|就用|"
    r"\block(?:ed)? (?:it|this|that) in\b|"
    r"(?<!nothing's )(?<!nothing is )(?<!not )(?<!n't )\bdecided\b|"
    r"\blet's settle\b|\bsettled on\b|"
    r"就定|(?<![没还未])(?:想好了|商量好了)|\bfinal (?:call|decision|word)\b|"
    r"\bgo(?:ing)? with\b|\bwe chose\b|\bfinal decision\b|\bagreed (?:on|to)\b|\bwe'll use\b|"
    r"\bwe will use\b",
    re.IGNORECASE,
)


DELIBERATION_RE = re.compile(
    r"纠结(?:了)?|犹豫(?:了)?|\btorn\b|\bhesitat\w*|\bwent back and forth\b", re.IGNORECASE
)


RESOLVED_RE = re.compile(
    r"(?:最后|最终|终于|后来)(?:还是)?(?:决定|定了|选了|拍板)|"
    r"\b(?:in the end|finally|eventually|ultimately)\b[^.]{0,20}"
    r"\b(?:decided|chose|went with|picked)\b",
    re.IGNORECASE,
)


def still_hedged(hedged: bool, signal: str, full: str) -> bool:
    """ "纠结了半天，最后决定报游泳": once the deliberation is over, the decision is firm; only
    hedges other than the weighing-up (or reported words) keep it tentative."""
    if hedged and DECISION_RE.search(signal) and RESOLVED_RE.search(full):
        hedges = HEDGE_RE.findall(full)
        return bool(REPORTED_RE.search(full)) or not all(
            DELIBERATION_RE.fullmatch(h) for h in hedges
        )
    return hedged


def states_decision(s: Statement) -> bool:
    return bool(DECISION_RE.search(s.signal))


def decision(s: Statement) -> Verdict:
    return Verdict("decision")
