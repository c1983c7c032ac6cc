"""Word lists for the offline rule extractor and the alias map, loaded once from
`data/lexicon.json` (pure data, zh + en; each list's `_doc` says what it is for).

ENTITIES: canonical name -> (type, surface forms). The type tells the rule extractor which slot
a value belongs to (hotel brand, coffee drink, database...). A surface form starting with "="
is matched case-sensitively and as a whole word ("=Go" must not match "go with").
The marker lists (hedges, firm / change / emphasis words, topic cues, style atoms) are regex
fragments; the modules that use them compile them once at import.
Everything here is general life/work vocabulary, not sentences from any evaluation set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_TYPES = {"dict": dict, "list": list, "tuple": tuple, "set": set}


def _build(entry: dict[str, Any]) -> Any:
    """One list of the file as the Python value the code reads: its groups (kept in the file
    for their comments) joined in order, elements as tuples where `of` says so."""
    groups = entry["groups"] if "groups" in entry else [{"items": entry["items"]}]
    element = {
        "tuple": tuple,
        "tuple of tuples": lambda v: tuple(tuple(x) if isinstance(x, list) else x for x in v),
    }.get(entry.get("of", ""), lambda v: v)
    if entry["type"] == "dict":
        out: dict = {}
        for group in groups:
            for key, value in group["items"].items():
                if entry.get("by_value"):  # {value: [keys]}: one value for many keys
                    out.update(dict.fromkeys(value, key))
                else:
                    out[key] = element(value)
        return out
    return _TYPES[entry["type"]](element(v) for group in groups for v in group["items"])


def _load() -> dict[str, Any]:
    path = Path(__file__).with_name("data") / "lexicon.json"
    with path.open(encoding="utf-8") as fh:
        raw = json.load(fh)
    return {name: _build(entry) for name, entry in raw.items() if not name.startswith("_")}


_LEXICON = _load()

ENTITIES: dict[str, tuple[str, list[str]]] = _LEXICON["ENTITIES"]
TYPE_SLOT: dict[str, str] = _LEXICON["TYPE_SLOT"]
MULTI_VALUE_SLOTS: set[str] = _LEXICON["MULTI_VALUE_SLOTS"]
TOPIC_CUES: list[tuple[str, str]] = _LEXICON["TOPIC_CUES"]
STYLE_ATOMS: dict[str, tuple[str, str]] = _LEXICON["STYLE_ATOMS"]
STYLE_GENRES: list[tuple[str, str]] = _LEXICON["STYLE_GENRES"]
HEDGES_ZH: list[str] = _LEXICON["HEDGES_ZH"]
HEDGES_EN: list[str] = _LEXICON["HEDGES_EN"]
FIRM_ZH: list[str] = _LEXICON["FIRM_ZH"]
FIRM_EN: list[str] = _LEXICON["FIRM_EN"]
CHANGE_ZH: list[str] = _LEXICON["CHANGE_ZH"]
CHANGE_EN: list[str] = _LEXICON["CHANGE_EN"]
EMPHASIS_ZH: list[str] = _LEXICON["EMPHASIS_ZH"]
EMPHASIS_EN: list[str] = _LEXICON["EMPHASIS_EN"]
SAFETY: list[str] = _LEXICON["SAFETY"]
QUESTION_LIKE_NAMES: tuple[str, ...] = _LEXICON["QUESTION_LIKE_NAMES"]
SLOT_CATEGORY: dict[str, str] = _LEXICON["SLOT_CATEGORY"]
TASK_TOPICS: list[tuple[str, tuple[str, ...]]] = _LEXICON["TASK_TOPICS"]
PROVIDER_TASKS: list[tuple[str, str]] = _LEXICON["PROVIDER_TASKS"]
THING_SYNONYMS: dict[str, str] = _LEXICON["THING_SYNONYMS"]
PRODUCT_SUFFIXES: tuple[str, ...] = _LEXICON["PRODUCT_SUFFIXES"]
PRODUCT_KIND: dict[str, str] = _LEXICON["PRODUCT_KIND"]
