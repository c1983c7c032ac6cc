"""mem0's filter grammar → a Django Q over Engram memories.

    {"AND": [{"user_id": "alice"}, {"created_at": {"gte": "2024-07-01"}}]}
    {"OR": [{"categories": {"contains": "plan"}}, {"memory": {"icontains": "hotel"}}]}
    {"NOT": [{"agent_id": "travel-bot"}]}
    {"user_id": "alice", "metadata": {"source": "crm"}}

A dict is the AND of its keys; a value is `eq` unless it is a dict of operators; `"*"`
means "any value". Only fields Engram has are accepted: anything else (an unknown field, an
unknown operator, a value of the wrong type) is an `invalid_filter` 400, never a silently
ignored condition that would widen a read or a delete.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from core.exceptions import ApplicationError

OPERATORS = ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains")
LOGICAL = ("AND", "OR", "NOT")
MAX_DEPTH = 8

# mem0 field → (Memory lookup, value parser, operators it takes)
_TEXT_OPS = ("eq", "ne", "in", "nin", "contains", "icontains")
_ORDERED_OPS = ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte")


def _text(value: Any) -> str:
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise ValueError("a string")
    return str(value)


def _number(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError("a number")
    return float(value)


def _memory_id(value: Any) -> int:
    text = str(value)
    if not text.isdigit() or len(text) > 18:
        raise ValueError("a memory id")
    return int(text)


def _moment(value: Any) -> dt.datetime:
    """A date or date-time; without a zone it is read in the server's time zone."""
    if isinstance(value, str):
        try:
            parsed = parse_datetime(value)
            if parsed is None and (day := parse_date(value)) is not None:
                parsed = dt.datetime.combine(day, dt.time())
        except ValueError:
            parsed = None
        if parsed is not None:
            return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed)
    raise ValueError("an ISO 8601 date or date-time")


# run_id, agent_id, app_id and metadata live on the memory's source event (run_id is the
# session; the others were kept in its metadata by the add call).
MEM0_META = "source_event__metadata__mem0"
FIELDS: dict[str, tuple[str, Callable[[Any], Any], tuple[str, ...]]] = {
    "user_id": ("subject__external_id", _text, _TEXT_OPS),
    "run_id": ("source_event__session_id", _text, _TEXT_OPS),
    "agent_id": (f"{MEM0_META}__agent_id", _text, _TEXT_OPS),
    "app_id": (f"{MEM0_META}__app_id", _text, _TEXT_OPS),
    "memory": ("content", _text, _TEXT_OPS),
    "keywords": ("content", _text, _TEXT_OPS),
    "categories": ("category", _text, ("eq", "ne", "in", "nin", "contains")),
    "entities": ("entities", _text, ("eq", "in", "contains")),
    "created_at": ("created_at", _moment, _ORDERED_OPS),
    "updated_at": ("updated_at", _moment, _ORDERED_OPS),
    "status": ("status", _text, ("eq", "ne", "in", "nin")),
    "version": ("version", _number, _ORDERED_OPS),
    "confidence": ("confidence", _number, _ORDERED_OPS),
    "importance": ("importance", _number, _ORDERED_OPS),
    "memory_ids": ("pk", _memory_id, ("eq", "in", "nin", "ne")),
    "ids": ("pk", _memory_id, ("eq", "in", "nin", "ne")),
    "id": ("pk", _memory_id, ("eq", "in", "nin", "ne")),
}
METADATA_OPS = ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains")


def invalid_filter(message: str, path: str) -> ApplicationError:
    return ApplicationError("invalid_filter", message, fields={f"filters.{path}": [message]})


def parse_filters(filters: Any) -> Q:
    """The whole filter tree as one Q (an empty filter matches everything)."""
    if filters is None:
        return Q()
    return _node(filters, "", 0)


def _node(node: Any, path: str, depth: int) -> Q:
    if depth > MAX_DEPTH:
        raise invalid_filter(f"Filters nest at most {MAX_DEPTH} levels.", path or "$")
    if not isinstance(node, dict):
        raise invalid_filter("A filter must be a JSON object.", path or "$")
    condition = Q()
    for key, value in node.items():
        where = f"{path}.{key}" if path else key
        if key in LOGICAL:
            condition &= _logical(key, value, where, depth)
        elif key == "metadata":
            condition &= _metadata(value, where)
        elif key in FIELDS:
            condition &= _field(key, value, where)
        else:
            known = ", ".join([*LOGICAL, *FIELDS, "metadata"])
            raise invalid_filter(f"Unknown filter field {key!r}; Engram filters on {known}.", where)
    return condition


def _logical(key: str, value: Any, path: str, depth: int) -> Q:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not value:
        raise invalid_filter(f"{key} takes a non-empty list of filters.", path)
    parts = [_node(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
    if key == "OR":
        combined = parts[0]
        for part in parts[1:]:
            combined |= part
        return combined
    combined = Q()
    for part in parts:
        combined &= part
    return ~combined if key == "NOT" else combined


def _field(name: str, value: Any, path: str) -> Q:
    lookup, parse, allowed = FIELDS[name]
    return _conditions(lookup, parse, allowed, value, path, list_field=name == "entities")


def _metadata(value: Any, path: str) -> Q:
    if not isinstance(value, dict) or not value:
        raise invalid_filter("metadata takes an object of key → value or operators.", path)
    condition = Q()
    for key, item in value.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise invalid_filter("Metadata keys must be plain identifiers.", f"{path}.{key}")
        condition &= _conditions(
            f"{MEM0_META}__metadata__{key}", _json_scalar, METADATA_OPS, item, f"{path}.{key}"
        )
    return condition


def _json_scalar(value: Any) -> Any:
    if isinstance(value, dict | list):
        raise ValueError("a string, number, boolean or null")
    return value


def _conditions(
    lookup: str,
    parse: Callable[[Any], Any],
    allowed: tuple[str, ...],
    value: Any,
    path: str,
    *,
    list_field: bool = False,
) -> Q:
    if value == "*":
        return Q(**{f"{lookup}__isnull": False})
    operators = value if isinstance(value, dict) else {"eq": value}
    if not operators:
        raise invalid_filter("An operator object needs at least one operator.", path)
    condition = Q()
    for op, operand in operators.items():
        if op not in allowed:
            raise invalid_filter(
                f"Unknown operator {op!r} here; use one of {', '.join(allowed)}.", f"{path}.{op}"
            )
        condition &= _one(lookup, parse, op, operand, f"{path}.{op}", list_field)
    return condition


def _one(
    lookup: str, parse: Callable[[Any], Any], op: str, operand: Any, path: str, list_field: bool
) -> Q:
    try:
        if op in ("in", "nin"):
            if not isinstance(operand, list) or not operand or len(operand) > 1000:
                raise ValueError("a non-empty list (at most 1000 values)")
            values = [parse(item) for item in operand]
        else:
            value = parse(operand)
    except ValueError as exc:
        raise invalid_filter(f"The value must be {exc}.", path) from exc
    # Each positive condition also says "has a value", so that its negation (ne, nin, NOT)
    # matches memories without one (no agent_id), not SQL's unknown.
    present = Q(**{f"{lookup}__isnull": False})
    if list_field:  # Memory.entities is an array: "eq"/"contains" = it holds the value
        if op in ("in", "nin"):
            condition = Q(**{f"{lookup}__overlap": values})
        else:
            condition = Q(**{f"{lookup}__contains": [value]})
    elif op in ("in", "nin"):
        condition = Q(**{f"{lookup}__in": values})
    elif op in ("eq", "ne") or (op == "contains" and lookup == "category"):
        condition = Q(**{lookup: value})
    else:
        condition = Q(**{f"{lookup}__{op}": value})
    condition &= present
    return ~condition if op in ("ne", "nin") else condition


def filter_fields(filters: Any) -> set[str]:
    """Every field name the (already parsed, so well-formed) filter tree mentions."""
    found: set[str] = set()
    if isinstance(filters, dict):
        for key, value in filters.items():
            if key in LOGICAL:
                for item in value if isinstance(value, list) else [value]:
                    found |= filter_fields(item)
            else:
                found.add(key)
    return found


def pinned_user_id(filters: Any) -> str | None:
    """The one user every match must belong to (`user_id` equal at the top level or in a
    top-level AND), or None when the filter may match several users."""
    if not isinstance(filters, dict):
        return None
    value = filters.get("user_id")
    if isinstance(value, dict) and set(value) == {"eq"}:
        value = value["eq"]
    if isinstance(value, str) and value != "*":
        return value
    ands = filters.get("AND")
    for item in ands if isinstance(ands, list) else [ands] if isinstance(ands, dict) else []:
        found = pinned_user_id({k: v for k, v in item.items() if k in ("user_id", "AND")})
        if found is not None:
            return found
    return None
