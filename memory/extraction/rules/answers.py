"""Answers to the assistant's question: "海尔的" after "哪个牌子的？" about a fridge becomes
"用户的冰箱是海尔的"; a yes/no reply decides about the question's topic; an offer ("要不要我…")
is not a question about the person."""

from __future__ import annotations

import re

from memory.extraction import general
from memory.extraction.dialogue import DialogueState
from memory.extraction.rules.episodes import is_episode
from memory.extraction.rules.filters import ACK_RE, FILLER_RE, TASK_EN, TASK_ZH, clause_core
from memory.extraction.rules.hits import Hit
from memory.extraction.rules.markers import HEDGE_RE
from memory.extraction.salience import noise_only
from memory.extraction.slots.derive import derive_slot
from memory.language.text import (
    join_clauses,
    looks_like_question,
    split_clauses,
    split_sentences,
)

ADDRESS_Q = re.compile(
    r"请问|您|你们|\byou\b|\byour\b|\bwe\b|\bour\b|多少|几|多大|什么|哪|"
    r"\bhow many\b|\bhow much\b|\bwhich\b|\bwhat\b|偏好|要求",
    re.IGNORECASE,
)


OFFER_Q = re.compile(
    r"需要我|要我|要不要|要帮您|要帮你|帮您|可以吗|好吗|行吗|对吗|是吗|"
    r"\bshall I\b|\bshould I\b|\bdo you want\b|\bwould you like\b|\bwant me\b|"
    r"\banything (?:else|I can)\b|\bcan I\b",
    re.IGNORECASE,
)


PREF_Q = re.compile(
    r"偏好|喜欢|要求|口味|习惯|平时|一般|通常|preference|prefer|\blike\b|"
    r"\busually\b|\bnormally\b|\bany (?:seat|airline)",
    re.IGNORECASE,
)


# The agent's question is about the person ("您平时喝什么咖啡？", "Which airline do you fly?").
ABOUT_YOU_Q = re.compile(r"您|你|\byou\b|\byour\b|请问", re.IGNORECASE)


def answer(text: str, lang: str, prev_reply: str, state: DialogueState) -> Hit | None:
    """A fragment answering the assistant's question, completed from the dialogue state
    ("海尔的" after "哪个牌子的？" about a fridge → "用户的冰箱是海尔的")."""
    if is_episode(text):
        return None
    qs = [s for s in split_sentences(prev_reply) if looks_like_question(s)]
    if not qs:
        return general.detect(text, state, answer=False)
    q = qs[-1]
    q = re.sub(r"^(?:好的|明白|了解|收到|谢谢)?[！!，,。]?\s*(?:请问)?", "", q).strip()
    if OFFER_Q.search(q):
        return general.detect(text, state, answer=False)
    if not ADDRESS_Q.search(q):  # a yes/no question: the reply decides about its topic
        return general.detect(text, state, answer=True)
    kept = [
        c
        for c in split_clauses(text)
        if not ACK_RE.match(clause_core(c))
        and not TASK_ZH.match(clause_core(c))
        and not TASK_EN.match(clause_core(c))
        and not FILLER_RE.match(clause_core(c))
    ]
    ans = clause_core(join_clauses([k.strip() for k in kept], lang == "zh"))
    if len(ans) < 2 or noise_only(ans):
        return None
    is_pref = bool(PREF_Q.search(q))
    asked = bool(ABOUT_YOU_Q.search(q)) or (is_pref and len(ans) >= 4)
    hit = general.detect(ans, state, answer=True, asked=asked)
    if hit is None:
        return None
    hedged = bool(HEDGE_RE.search(ans))
    category = "preference" if is_pref else hit.category
    slot, values, ents = derive_slot(f"{q} {ans}" if is_pref else ans, category, [])
    if not slot:
        slot, values, ents = hit.slot, hit.values, hit.entities or ents
    return Hit(
        category=category,
        kind="semantic",
        general=True,
        content_body=hit.content_body,
        quote=text.strip(),
        confidence=0.45 if hedged else 0.7,
        importance=0.5,
        slot=slot,
        values=values,
        entities=ents,
        hedged=hedged,
    )
