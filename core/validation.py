"""Checks for client-supplied text and free-form JSON before it reaches PostgreSQL.

PostgreSQL text and jsonb reject NUL (U+0000) and lone surrogates (U+D800–U+DFFF) with a
DataError, and documents nested hundreds deep overflow Python's recursion later (rendering an
access export), so both are refused at the door with a 400 instead.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

# Characters PostgreSQL cannot store in text/jsonb (NUL) or UTF-8 cannot encode (surrogates).
UNSTORABLE_CHARS = re.compile("[\x00\ud800-\udfff]")

# The same rule for OpenAPI (ECMA regex): what a client may send in a string, and in one that
# is trimmed and may not be blank (at least one character besides whitespace).
NO_NUL_PATTERN = "^[^\\u0000]*$"
NON_BLANK_NO_NUL_PATTERN = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"

MSG_UNSTORABLE = "must not contain NUL characters or lone surrogates (U+D800–U+DFFF)."


def text_problem(value: str) -> str | None:
    """Why `value` cannot be stored as text, or None."""
    return f"Text {MSG_UNSTORABLE}" if UNSTORABLE_CHARS.search(value) else None


@dataclass(frozen=True)
class JsonLimits:
    max_depth: int  # nesting of objects and arrays; the top-level object is depth 1
    max_keys: int  # object keys counted over the whole document
    max_key_length: int
    max_bytes: int  # the compact UTF-8 JSON encoding


def json_object_problem(value: Any, limits: JsonLimits) -> str | None:
    """Why `value` is not an acceptable free-form JSON object, or None.

    Walks the document iteratively (a deep document cannot overflow the stack here) and stops
    at the first problem: not an object, too deep, too many keys, a key that is not a string
    or too long, NUL or a lone surrogate in any key or string, a non-finite number, too big.
    """
    if not isinstance(value, dict):
        return "Must be a JSON object."
    keys = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list) and depth > limits.max_depth:
            return f"Nested more than {limits.max_depth} levels deep."
        if isinstance(node, dict):
            keys += len(node)
            if keys > limits.max_keys:
                return f"More than {limits.max_keys} keys in total."
            for key, child in node.items():
                if not isinstance(key, str):
                    return "Object keys must be strings."
                if len(key) > limits.max_key_length:
                    return f"A key is longer than {limits.max_key_length} characters."
                if text_problem(key):
                    return f"Keys: {MSG_UNSTORABLE}"
                stack.append((child, depth + 1))
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
        elif isinstance(node, str):
            if text_problem(node):
                return f"Strings: {MSG_UNSTORABLE}"
        elif isinstance(node, float):
            if not math.isfinite(node):
                return "Numbers must be finite."
        elif node is not None and not isinstance(node, bool | int):
            return "Values must be JSON: objects, arrays, strings, numbers, booleans or null."
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
    if size > limits.max_bytes:
        return f"Is {size} bytes as JSON; the limit is {limits.max_bytes} bytes."
    return None
