"""Classification of one filtered sentence: the priority table picks the category, then
kind, confidence, importance, slot and the declarative body are worked out the same way for
every category."""

from __future__ import annotations

from memory.aliases import find_entity_spans, normalize_entities
from memory.extraction.rules.decisions import still_hedged
from memory.extraction.rules.hits import SAFETY_HEDGED_CONFIDENCE, Hit, Statement
from memory.extraction.rules.markers import (
    AGENT_IMPERATIVE,
    CHANGE_RE,
    DEICTIC,
    EMPHASIS_RE,
    FIRM_RE,
    FIRST_PERSON,
    HEDGE_RE,
    SAFETY_RE,
    STYLE_RES,
    main_clause,
    short_remark,
)
from memory.extraction.rules.preferences import standing_obj
from memory.extraction.rules.priorities import judge
from memory.extraction.rules.rewrite import rewrite
from memory.extraction.slots.derive import derive_slot


def classify(
    body: str,
    signal: str,
    full: str,
    lang: str,
    hedged: bool,
    standing: bool,
    prev_asst: str,
) -> Hit | None:
    emphasis = bool(EMPHASIS_RE.search(full))
    hedged = still_hedged(hedged, signal, full)
    firm_n = len(FIRM_RE.findall(signal)) or int(bool(CHANGE_RE.search(signal)))
    styles = [atom for atom, _, rx in STYLE_RES if rx.search(body)]
    first_person = bool(FIRST_PERSON.search(full))
    statement = Statement(
        body=body,
        signal=signal,
        full=full,
        lang=lang,
        hedged=hedged,
        standing=standing,
        prev_asst=prev_asst,
        styles=tuple(styles),
        first_person=first_person,
        firm_n=firm_n,
    )
    verdict = judge(statement)
    if verdict is None:
        return None
    category, kind, slot_info = verdict.category, "semantic", verdict.slot_info
    right_text = verdict.right_text
    if verdict.body is not None:
        body = verdict.body
    if category == "preference" and (standing or styles or AGENT_IMPERATIVE.search(body)):
        kind = "procedural"
    if category in ("decision", "fact") and styles and standing:
        kind = "procedural"
    confidence = 0.75
    if firm_n or category == "correction":
        confidence = 0.95 if firm_n >= 2 else 0.9
    if hedged:
        confidence = 0.35 if len(HEDGE_RE.findall(full)) >= 2 else 0.45
        if SAFETY_RE.search(full):
            # "好像对青霉素过敏": a possible allergy is kept in force, hedge and all
            confidence = SAFETY_HEDGED_CONFIDENCE
    importance = {
        "preference": 0.6,
        "profile": 0.6,
        "fact": 0.5,
        "plan": 0.6,
        "decision": 0.7,
        "correction": 0.65,
    }[category]
    if kind == "procedural":
        importance += 0.05
    if emphasis:
        importance += 0.2
    if SAFETY_RE.search(body):
        importance = 0.95
    slot, values, ents = slot_info or derive_slot(body, category, styles)
    if (
        category == "preference"
        and not slot
        and not ents
        and not standing_obj(body)
        and DEICTIC.search(main_clause(body))
        and short_remark(body)
    ):
        return None  # "I love this answer", "这个挺好" — about the current reply, not a taste
    if right_text:  # a correction keeps only the corrected values
        right_ents = {
            e.lower() for e in normalize_entities(c for _, c, _ in find_entity_spans(right_text))
        }
        values = [
            v.lstrip("!")
            for v in values
            if v.lstrip("!").lower() in right_ents or v.lstrip("!") in right_text
        ]
    return Hit(
        category=category,
        kind=kind,
        content_body=rewrite(body, lang) if category != "correction" else body,
        quote=full,
        confidence=confidence,
        importance=min(1.0, importance),
        slot=slot,
        values=values,
        entities=ents,
        hedged=hedged,
        firm=firm_n > 0,
    )
