"""Word classes for the general extraction mechanisms, loaded once from `data/*.json`.

Lists of words, never of sentences: the mechanisms in dialogue.py, salience.py and topics.py
decide with them; growing a class is a data change reviewed like code.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from memory.language.text import CJK

DATA = Path(__file__).with_name("data")


@cache
def load(name: str) -> dict:
    with (DATA / f"{name}.json").open(encoding="utf-8") as fh:
        return json.load(fh)


def words(key: str) -> tuple[str, ...]:
    return tuple(load("language")[key])


def alternation(items, *, en_words: bool = False) -> re.Pattern:
    """One regex for a word class; English entries match as whole words."""
    parts = []
    for item in sorted(items, key=len, reverse=True):
        esc = re.escape(item)
        if en_words and not CJK.search(item) and item[:1].isalnum():
            esc = rf"(?<![A-Za-z]){esc}(?![A-Za-z])"
        parts.append(esc)
    return re.compile("|".join(parts), re.IGNORECASE)


@cache
def word_class(key: str) -> re.Pattern:
    """The word class `key` of data/language.json as one regex (cached)."""
    return alternation(words(key), en_words=True)
