"""Preferences, tastes and standing instructions ("我不吃香菜", "以后写周报先放结论", "I always
fly United"), and habitual use of a named service ("买菜一般用盒马")."""

from __future__ import annotations

import re

from memory.extraction.rules.filters import ONE_OFF_RE, REVISION_RE, clause_core
from memory.extraction.rules.hits import Statement, Verdict
from memory.extraction.rules.markers import PREF_NEG, PREF_POS
from memory.extraction.slots.derive import derive_slot, usage_claims

# A sentence that opens with a standing marker is an instruction for the future even when it
# has no first person ("以后写周报先放结论", "From now on, reply in English").
STANDING_LEAD = re.compile(
    r"^(?:那|那就|所以)?(?:以后|今后|往后|从今往后|从现在起|从现在开始|下次起)|"
    r"^(?:from now on|going forward|in (?:the )?future|whenever|every time|each time)\b",
    re.IGNORECASE,
)


def standing_obj(body: str) -> bool:
    """Instructions about future output ("以后给我写的东西…") are not deictic remarks."""
    return bool(
        re.search(
            r"以后|今后|from now on|whenever|every time|by default|going forward",
            body,
            re.IGNORECASE,
        )
    )


# A standing taste of the user stated inside a story ("…，我一直很喜欢这家店"): kept as a
# preference even when the sentence is an episode.
SELF_PREF = re.compile(
    r"(?:^|[，,。；;\s])(?:我|咱)(?:们)?(?:家)?(?:一直|很|特别|最|也|还是|比较|真的|挺|超|更|都)*"
    r"(?:喜欢|爱吃|爱喝|偏好|讨厌|不吃|不喝|吃不了|受不了|不喜欢)|"
    r"\bI (?:(?:really|still|also|much|always|absolutely) )*(?:prefer|like|love|hate|enjoy|"
    r"don't like|can't stand)\b",
    re.IGNORECASE,
)


def states_preference(s: Statement) -> bool:
    return bool(
        PREF_POS.search(s.body)
        or PREF_NEG.search(s.body)
        or s.styles
        or (s.standing and (s.first_person or s.firm_n or STANDING_LEAD.match(s.body)))
    )


def preference(s: Statement) -> Verdict | None:
    if ONE_OFF_RE.search(s.body) and not s.standing:
        return None  # "这次", "for this one": a one-off wish, not a taste
    if not s.standing and REVISION_RE.match(clause_core(s.body)):
        return None  # a request to revise the current answer
    return Verdict("preference")


def standing_with_slot(s: Statement) -> bool:
    """A standing instruction whose topic has a slot, worded without a preference verb."""
    return s.standing and bool(derive_slot(s.body, "preference", list(s.styles))[0])


def states_usage(s: Statement) -> bool:
    return bool(s.first_person or re.match(r"^[A-Za-z]", s.body)) and usage_claims(
        s.body, list(s.styles)
    )


def preferred(s: Statement) -> Verdict:
    return Verdict("preference")
