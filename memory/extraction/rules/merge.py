"""After classification: a deferral ("…再说吧", "not sure yet") makes what the turn just said
tentative, and adjacent hits of one turn about the same topic are merged into one candidate
(the higher-ranked category wins)."""

from __future__ import annotations

import re
from dataclasses import replace

from memory.aliases import normalize_entities
from memory.extraction import salience
from memory.extraction.rules.hits import Hit
from memory.extraction.slots.derive import topic_base
from memory.language.text import CJK


def deferred(hits: list[Hit], hit_sentence: list[int], sentences: list[str]) -> list[Hit]:
    """A deferral ("…不过也就想想，再说吧", "not sure yet") puts off what the turn just said:
    the hits of its own sentence and of the one before it are tentative."""
    deferring = {n for n, s in enumerate(sentences) if salience.defers(s)}
    if not deferring:
        return hits
    put_off = deferring | {n - 1 for n in deferring}
    return [
        replace(h, confidence=min(h.confidence, 0.45), hedged=True)
        if n in put_off and h.kind != "episodic"
        else h
        for h, n in zip(hits, hit_sentence, strict=True)
    ]


def merge_hits(hits: list[Hit]) -> list[Hit]:
    """Merge adjacent hits of one turn that talk about the same topic."""
    out: list[Hit] = []
    for h in hits:
        if out:
            prev = out[-1]
            pv = {v.lstrip("!") for v in prev.values}
            hv = {v.lstrip("!") for v in h.values}
            same_topic = (
                (not h.slot)
                or (not prev.slot and h.category == prev.category)
                or (topic_base(h.slot) == topic_base(prev.slot))
                or bool(pv & hv)
            )
            if h.general or prev.general:
                # statements the general detector found stay separate memories unless they talk
                # about one thing: a knee surgery and a new commute are two facts
                same_topic = _share_topic(prev.content_body, h.content_body)
            if (
                same_topic
                and h.hedged == prev.hedged
                and prev.category != "correction"
                and h.category != "correction"
            ):
                out[-1] = _combine(prev, h)
                continue
        out.append(h)
    return out


def _share_topic(a: str, b: str) -> bool:
    from memory.extraction import topics

    return bool(set(topics.concepts(a)) & set(topics.concepts(b))) or bool(
        topics.common_nouns(a) & topics.common_nouns(b)
    )


CATEGORY_RANK = ["correction", "decision", "plan", "preference", "profile", "fact"]


def _combine(a: Hit, b: Hit) -> Hit:
    zh = bool(CJK.search(a.content_body))
    sep = "；" if zh else "; "
    bbody = b.content_body
    abody = a.content_body.rstrip("。.")
    # a bare complaint about the current reply ("太长了", "too long") followed by the standing
    # instruction it motivates: the instruction alone is the memory (values are kept)
    bare = re.sub(r"用户|the user|[\s，,。.!！]", "", abody, flags=re.IGNORECASE)
    if b.kind == "procedural" and not a.entities and len(bare) <= (6 if zh else 14):
        abody = ""
    category = min(a.category, b.category, key=CATEGORY_RANK.index)
    slot = a.slot or b.slot
    values = list(a.values)
    if not a.slot or topic_base(a.slot) == topic_base(b.slot):
        values += [v for v in b.values if v not in values]
    return Hit(
        category=category,
        kind="procedural" if "procedural" in (a.kind, b.kind) else a.kind,
        content_body=(abody + sep + bbody) if abody else bbody,
        quote=(a.quote + " " + b.quote).strip(),
        confidence=max(a.confidence, b.confidence),
        importance=max(a.importance, b.importance),
        slot=slot,
        values=values,
        entities=normalize_entities(a.entities + b.entities),
        hedged=a.hedged,
        firm=a.firm or b.firm,
    )
