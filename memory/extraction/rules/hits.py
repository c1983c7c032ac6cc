"""What the detectors look at (`Statement`), what one of them decides (`Verdict`) and what a
classified sentence becomes (`Hit`, turned into a `Candidate` by the extractor)."""

from __future__ import annotations

from dataclasses import dataclass, field

# A hedged safety fact ("好像对青霉素过敏") stays in force: firm enough not to be an observation.
SAFETY_HEDGED_CONFIDENCE = 0.65


@dataclass
class Hit:
    category: str
    kind: str
    content_body: str
    quote: str
    confidence: float
    importance: float
    slot: str = ""
    values: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    hedged: bool = False
    firm: bool = False
    general: bool = False  # from the general detector (general.py), not a specific rule


@dataclass(frozen=True)
class Statement:
    """One sentence after the clause filters, as every detector of the priority table sees it.

    body: the kept clauses (what a memory would say); signal: kept clauses and fillers (decision
    and firm markers live in fillers too: "定了"); full: the whole sentence; prev_asst: the
    assistant's last turn; styles: the answer-style atoms the body names; firm_n: how many firm
    markers the signal holds (a change statement counts as one).
    """

    body: str
    signal: str
    full: str
    lang: str
    hedged: bool
    standing: bool
    prev_asst: str
    styles: tuple[str, ...]
    first_person: bool
    firm_n: int


@dataclass(frozen=True)
class Verdict:
    """A detector's decision: the category, and what it already worked out on the way (a
    correction's rewritten body and corrected value, a slot it derived)."""

    category: str
    body: str | None = None
    right_text: str = ""
    slot_info: tuple[str, list[str], list[str]] | None = None
