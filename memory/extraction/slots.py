"""Conflict slots for memories written directly (API / console), derived like extraction's."""

from memory.extraction.rules import STYLE_RES, derive_slot


def slot_for(content: str, category: str) -> tuple[str, list[str], list[str]]:
    """(slot, values, entities) of a statement, so direct writes dedupe and conflict exactly
    like extracted ones."""
    styles = [atom for atom, _, regex in STYLE_RES if regex.search(content)]
    return derive_slot(content, category, styles)
