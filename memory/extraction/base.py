"""The extraction contract: conversation turns in, memory candidates out.

Every extractor (the offline rule-based default, the LLM one) implements `Extractor`.
Candidates are plain data; the write decision service (memory/services.py) turns them into
memories (redact → dedupe → conflict → store). Nothing here touches the database.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol

CATEGORIES = ("preference", "plan", "correction", "decision", "fact", "profile")
KINDS = ("semantic", "episodic", "procedural")
ROLES = ("user", "assistant", "tool", "system")


@dataclass(frozen=True)
class Turn:
    """One conversation event as the extractor sees it."""

    role: str
    content: str
    event_id: int | None = None
    occurred_at: dt.datetime | None = None


@dataclass
class Candidate:
    """A memory the extractor proposes.

    content: a self-contained declarative sentence about the person, no pronouns
        ("用户不吃辣味食物" / "The user prefers concise answers").
    slot: a normalised topic key shared by statements that answer the same question
        about the person ("hotel.default", "meeting:产品部周会", "diet", "budget:网络设备");
        two candidates with one slot and different `values` contradict each other.
        Empty when no slot can be derived (then only similarity-based dedupe applies).
    values: the normalised answer(s) inside the slot ("全季", "周三 15:00", "80000").
    source_index: index of the source turn in the list given to `extract`.
    """

    content: str
    category: str
    kind: str = "semantic"
    entities: list[str] = field(default_factory=list)
    importance: float = 0.5
    confidence: float = 0.8
    slot: str = ""
    values: list[str] = field(default_factory=list)
    source_index: int = 0
    source_quote: str = ""
    triple: tuple[str, str, str] | None = None
    valid_to: dt.datetime | None = None
    # What the conversation was about when this was said (dialogue state nouns, not stored):
    # lets a change worded without its topic ("换途虎了" while talking about 保养) find the
    # memory it replaces.
    context_topics: list[str] = field(default_factory=list)
    # Said in a turn where the user takes back something they said earlier in the conversation
    # ("哎不对，是21楼", "sorry, wrong date — it's the 18th"): the write decision looks for the
    # statement of this conversation it corrects, whichever clause named the slip.
    takes_back: bool = False
    # From an extractor that was shown the subject's known memories (the LLM's update phase):
    # "add" a new memory, "update" memory `target_id` with this one, or it is a "duplicate" of
    # `target_id`. Empty: the write decision service relates it to what is stored by itself.
    hint: str = ""
    target_id: int | None = None


@dataclass(frozen=True)
class KnownMemory:
    """An active memory shown to an extractor so it can decide against what is known."""

    id: int
    content: str


@dataclass
class ExtractionResult:
    candidates: list[Candidate]
    # Filled by extractors that call a model: {"prompt_tokens": .., "completion_tokens": ..}.
    usage: dict[str, int] = field(default_factory=dict)
    extractor: str = ""


class ExtractionError(Exception):
    """The extractor could not produce a valid result (e.g. malformed model output).

    Recorded on the events as a visible extraction failure; never swallowed as "no memories".
    """


HINTS = ("add", "update", "duplicate")


class Extractor(Protocol):
    name: str
    # True when `extract` uses `known` (the subject's related active memories); the pipeline
    # then looks them up (one embedding + one vector query per session group).
    wants_known: bool

    def extract(
        self, turns: list[Turn], *, new_from: int = 0, known: list[KnownMemory] | None = None
    ) -> ExtractionResult:
        """Extract candidates from `turns[new_from:]`; earlier turns are context only."""
        ...
