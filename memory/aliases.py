"""Alias map: normalise entity names across Chinese and English surface forms.

Data lives in memory/extraction/lexicon.py (ENTITIES: canonical -> (type, surfaces)).

    normalize_entity("饭店") == "餐厅"; normalize_entity("hotel") == "酒店"
    normalize_entities(["馆子", "restaurant", "Java"]) == ["餐厅", "Java"]
    expand_entity("素食") == {"素食", "吃素", "vegetarian", ...}
    find_entities("帮我找家 vegetarian 馆子") == ["素食", "餐厅"]

Matching is case-insensitive; Latin surface forms match on word boundaries and also in their
plural form ("accountants" -> 会计). A surface form written "=Go" in the data is case-sensitive
("Go" the language, not "go with"). The longest surface wins, and a brand directly followed by
a product word is another product, not the brand ("阿里云盘" is a drive, not 阿里云).

`find_entities` (used on recall queries) also maps task words to the provider who does the task
("who does my taxes" -> 会计, "约个洗牙" -> 牙医; lexicon PROVIDER_TASKS).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory.extraction.lexicon import ENTITIES, PRODUCT_SUFFIXES, PROVIDER_TASKS, THING_SYNONYMS

_LATIN = re.compile(r"[A-Za-z0-9]")


def _key(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().lower())


def _plural(surface: str) -> str:
    """English plural of a Latin surface form ("dentist" -> "dentists"), "" when none."""
    if not re.fullmatch(r"[a-z][a-z -]*[a-z]", surface) or surface.endswith("s"):
        return ""
    if re.search(r"[^aeiou]y$", surface):
        return surface[:-1] + "ies"
    if surface.endswith(("sh", "ch", "x", "z")):
        return surface + "es"
    return surface + "s"


def _build():
    surface_to_canon: dict[str, str] = {}
    case_sensitive: dict[str, str] = {}
    forms: dict[str, set[str]] = {}
    types: dict[str, str] = {}
    for canon, (etype, surfaces) in ENTITIES.items():
        types[canon] = etype
        allf = {canon}
        if "=" + canon not in surfaces:
            surface_to_canon.setdefault(_key(canon), canon)
        for s in surfaces:
            if s.startswith("="):
                case_sensitive[s[1:]] = canon
                allf.add(s[1:])
            else:
                surface_to_canon.setdefault(_key(s), canon)
                allf.add(s)
        forms[canon] = allf
    # plural forms last: they never shadow a surface form listed in the data
    for canon, (_, surfaces) in ENTITIES.items():
        for s in [canon, *surfaces]:
            plural = _plural(_key(s))
            if plural:
                surface_to_canon.setdefault(plural, canon)
    return surface_to_canon, case_sensitive, forms, types


_SURFACE, _CASED, _FORMS, _TYPES = _build()


_LENGTHS = sorted({len(k) for k in _SURFACE}, reverse=True)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SUFFIX_RE = re.compile("|".join(sorted(map(re.escape, PRODUCT_SUFFIXES), key=len, reverse=True)))
_TASK_RES = [(re.compile(rx, re.IGNORECASE), canon) for rx, canon in PROVIDER_TASKS]
# entity types that name a brand / platform (a product word after them names another product)
_BRAND_TYPES = {"cloud", "tool", "device_brand", "hotel_brand", "airline", "database"}
_CASED_LENGTHS = sorted({len(k) for k in _CASED}, reverse=True)


def _is_word(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _bounded(text: str, start: int, end: int) -> bool:
    """Latin surface forms must not start/end inside a Latin word."""
    if _is_word(text[start]) and start > 0 and _is_word(text[start - 1]):
        return False
    return not (_is_word(text[end - 1]) and end < len(text) and _is_word(text[end]))


def normalize_entity(s: str) -> str:
    """Canonical name of an entity surface form; unknown names come back stripped."""
    if not s:
        return ""
    raw = s.strip()
    if raw in _CASED:
        return _CASED[raw]
    return _SURFACE.get(_key(raw), raw)


def normalize_entities(items) -> list[str]:
    """Normalise and deduplicate (order-stable, case-insensitive)."""
    out: list[str] = []
    seen: set[str] = set()
    for item in items or []:
        canon = normalize_entity(str(item))
        if canon and canon.lower() not in seen:
            seen.add(canon.lower())
            out.append(canon)
    return out


def expand_entity(s: str) -> set[str]:
    """All known surface forms of an entity (including the canonical and the given form)."""
    canon = normalize_entity(s)
    return set(_FORMS.get(canon, set())) | {canon, s.strip()} - {""}


def entity_type(s: str) -> str:
    """Lexicon type of an entity ("city", "database", ...), "" when unknown."""
    return _TYPES.get(normalize_entity(s), "")


@lru_cache(maxsize=4096)
def _find(text: str) -> tuple[tuple[int, str, str], ...]:
    low = re.sub(r"\s", " ", text.lower())
    n = len(low)
    out: list[tuple[int, str, str]] = []
    i = 0
    while i < n:
        if low[i] == " ":
            i += 1
            continue
        hit = None
        for length in _CASED_LENGTHS:
            sub = text[i : i + length]
            if len(sub) == length and sub in _CASED and _bounded(text, i, i + length):
                hit = (length, _CASED[sub])
                break
        for length in _LENGTHS:
            if hit and length <= hit[0]:
                break
            if i + length > n:
                continue
            canon = _SURFACE.get(low[i : i + length])
            if canon and _bounded(low, i, i + length):
                hit = (length, canon)
                break
        if hit and _brand_prefix(low, i + hit[0], hit[1]):
            hit = None
        if hit:
            out.append((i, hit[1], text[i : i + hit[0]]))
            i += hit[0]
        else:
            i += 1
    return tuple(out)


def _brand_prefix(low: str, end: int, canon: str) -> bool:
    """A Chinese brand hit that is only the front of a longer product name: a product word
    follows it directly ("阿里云盘" is a drive, "华为云" a cloud, neither is the brand)."""
    if _TYPES.get(canon) not in _BRAND_TYPES or end >= len(low):
        return False
    return bool(_CJK.match(low[end - 1]) and _SUFFIX_RE.match(low, end))


def find_entity_spans(text: str) -> list[tuple[int, str, str]]:
    """(offset, canonical, surface) for every entity mention, left to right."""
    return list(_find(text or ""))


def find_entities(text: str) -> list[str]:
    """Canonical entities mentioned in a text (zh and en), order of first mention, then the
    providers of the tasks it names ("who does my taxes" -> 会计)."""
    found = [c for _, c, _ in _find(text or "")]
    found += [canon for rx, canon in _TASK_RES if rx.search(text or "")]
    return normalize_entities(found)


@lru_cache(maxsize=4096)
def slot_topic_terms(slot: str) -> tuple[str, ...]:
    """Words that name a slot's topic in either language ("thing:笔记" → 笔记, notes, …), so a
    memory is found by its topic even when its sentence only names the new value."""
    if not slot:
        return ()
    topic = slot.split(":", 1)[1] if ":" in slot else slot
    topic = topic.strip()
    if not topic:
        return ()
    canonical = THING_SYNONYMS.get(topic, topic)
    forms = {topic, canonical, *expand_entity(canonical)}
    forms |= {surface for surface, target in THING_SYNONYMS.items() if target == canonical}
    return tuple(sorted(forms))
