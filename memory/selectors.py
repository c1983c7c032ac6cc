"""Reads of personal data. Every query is scoped by tenant and subject; ids from outside the
caller's tenant (or subjects a restricted agent was not granted) resolve to 404."""

from __future__ import annotations

import base64
import logging
import re
from dataclasses import dataclass
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db.models import Q, QuerySet

from accounts.models import Agent, Tenant
from accounts.permissions import agent_may_access_subject
from core.exceptions import ApplicationError, NotFound
from memory import textsearch
from memory.models import Event, Memory, Observation, Subject

logger = logging.getLogger(__name__)

SUBJECT_ID_RE = re.compile(r"^[A-Za-z0-9._~:@+=-]{1,128}$")
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
MSG_BAD_SUBJECT = (
    "subject_id must be 1–128 URL-safe characters (letters, digits and . _ ~ : @ + = -)."
)


@dataclass
class Page:
    items: list[Any]
    next_cursor: str | None


def validate_subject_id(external_id: str) -> str:
    if not SUBJECT_ID_RE.fullmatch(external_id or ""):
        raise ApplicationError(
            "invalid_subject_id", MSG_BAD_SUBJECT, fields={"subject_id": [MSG_BAD_SUBJECT]}
        )
    return external_id


def subject_for_agent(*, agent: Agent, external_id: str) -> Subject | None:
    """The agent's subject, or None when it was never written (reads answer empty).

    A restricted agent (guardian grants) gets 404 for anything not granted, including
    subjects that do not exist yet — exactly as if they did not exist.
    """
    validate_subject_id(external_id)
    subject = Subject.objects.filter(tenant_id=agent.tenant_id, external_id=external_id).first()
    if subject is None:
        if agent.restricted_to_granted_subjects:
            raise NotFound("No such subject.")
        return None
    if not agent_may_access_subject(agent, subject):
        raise NotFound("No such subject.")
    return subject


def memory_get_for_agent(*, agent: Agent, external_id: str, memory_id: int) -> Memory:
    subject = subject_for_agent(agent=agent, external_id=external_id)
    if subject is None:
        raise NotFound("No such memory.")
    memory = (
        Memory.objects.filter(pk=memory_id, subject=subject, tenant_id=agent.tenant_id)
        .select_related("subject")
        .defer("embedding", "search_vector")
        .first()
    )
    if memory is None:
        raise NotFound("No such memory.")
    return memory


def encode_cursor(value: int) -> str:
    return base64.urlsafe_b64encode(f"id:{value}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int | None:
    if not cursor:
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        raw = base64.urlsafe_b64decode(padded.encode()).decode()
        if not raw.startswith("id:"):
            raise ValueError(raw)
        return int(raw[3:])
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApplicationError(
            "invalid_cursor",
            "The cursor is not valid; use the `next` value of a previous page.",
            fields={"cursor": ["Invalid cursor."]},
        ) from exc


def _page(queryset: QuerySet, *, cursor: str | None, limit: int, descending: bool) -> Page:
    after = decode_cursor(cursor)
    if after is not None:
        queryset = queryset.filter(pk__lt=after) if descending else queryset.filter(pk__gt=after)
    queryset = queryset.order_by("-pk" if descending else "pk")
    rows = list(queryset[: limit + 1])
    next_cursor = encode_cursor(rows[limit - 1].pk) if len(rows) > limit else None
    return Page(items=rows[:limit], next_cursor=next_cursor)


def memory_keyword_condition(q: str) -> Q:
    """Keyword match for memory lists (API and console): jieba/CJK/English terms against the
    search vector, or a plain substring of the content."""
    condition = Q(content__icontains=q)
    terms = textsearch.search_query_terms(q)
    if terms:
        tsquery = textsearch.build_tsquery(terms)
        condition |= Q(search_vector=SearchQuery(tsquery, search_type="raw", config="simple"))
    return condition


def memory_list(
    *,
    subject: Subject | None,
    status: str | None = None,
    category: str | None = None,
    q: str | None = None,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
) -> Page:
    """A subject's memories, newest first. `q` matches keywords (zh + en) or a substring."""
    if subject is None:
        decode_cursor(cursor)
        return Page(items=[], next_cursor=None)
    queryset = Memory.objects.filter(subject=subject).defer("embedding", "search_vector")
    if status:
        queryset = queryset.filter(status=status)
    if category:
        queryset = queryset.filter(category=category)
    if q:
        queryset = queryset.filter(memory_keyword_condition(q))
    return _page(queryset.select_related("subject"), cursor=cursor, limit=limit, descending=True)


def event_list(
    *,
    subject: Subject | None,
    session_id: str | None = None,
    cursor: str | None = None,
    limit: int = DEFAULT_PAGE_SIZE,
) -> Page:
    """A subject's events in arrival order (oldest first)."""
    if subject is None:
        decode_cursor(cursor)
        return Page(items=[], next_cursor=None)
    queryset = Event.objects.filter(subject=subject)
    if session_id:
        queryset = queryset.filter(session_id=session_id)
    return _page(queryset, cursor=cursor, limit=limit, descending=False)


def memory_history(*, memory: Memory) -> list[Memory]:
    """The version chain of a memory, oldest first (one query through the lineage)."""
    return list(
        Memory.objects.filter(subject_id=memory.subject_id, lineage=memory.lineage)
        .select_related("subject")
        .defer("embedding", "search_vector")
        .order_by("version", "pk")
    )


def console_overview(*, user: Any) -> dict[str, int]:
    return {
        "tenants": Tenant.objects.count(),
        "subjects": Subject.objects.count(),
        "memories": Memory.objects.count(),
        "pending_observations": Observation.objects.filter(status="pending").count(),
    }


SUMMARY_SHARE = 0.3  # of the token budget, for the rolling summary of older turns
SUMMARY_CLAUSE_CHARS = 80
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;.])\s*")


def _extractive_summary(events: list[Event], budget: int) -> str:
    """Older turns, condensed: the first sentence of each user turn, newest last."""
    from core.tokens import count_tokens

    pieces: list[str] = []
    used = 0
    for event in events:
        if event.role != Event.Role.USER:
            continue
        first = _SENTENCE_END.split(event.content.strip(), maxsplit=1)[0][:SUMMARY_CLAUSE_CHARS]
        if not first:
            continue
        cost = count_tokens(first) + 1
        if used + cost > budget:
            break
        pieces.append(first)
        used += cost
    return " / ".join(pieces)


def session_context(
    *, subject: Subject | None, session_id: str, token_budget: int
) -> dict[str, Any]:
    """The short-term layer: the latest turns that fit the budget plus a summary of the rest."""
    from core.tokens import count_tokens

    empty = {
        "session_id": session_id,
        "summary": "",
        "summarized_turns": 0,
        "turns": [],
        "token_count": 0,
    }
    if subject is None:
        return empty
    events = list(
        Event.objects.filter(subject=subject, session_id=session_id)
        .only("pk", "role", "content", "occurred_at")
        .order_by("-occurred_at", "-pk")[:500]
    )
    if not events:
        return empty
    turn_budget = int(token_budget * (1 - SUMMARY_SHARE))
    recent: list[Event] = []
    used = 0
    for event in events:  # newest first
        cost = count_tokens(event.content) + 4
        if used + cost > turn_budget:
            break
        recent.append(event)
        used += cost
    older = events[len(recent) :][::-1]
    summary = ""
    if older:
        summary = summarize_turns(older, budget=token_budget - used)
    return {
        "session_id": session_id,
        "summary": summary,
        "summarized_turns": len(older),
        "turns": recent[::-1],
        "token_count": used + count_tokens(summary),
    }


def summarize_turns(events: list[Event], *, budget: int) -> str:
    """LLM summary when configured (falls back to extractive on any error)."""
    from django.conf import settings

    if settings.OPENAI_API_KEY and settings.ENGRAM_EXTRACTOR == "llm":
        try:
            from memory.summaries import llm_summary

            return llm_summary(events, max_tokens=budget)
        except Exception:
            logger.warning("LLM summary failed; using the extractive summary", exc_info=True)
    return _extractive_summary(events, budget)


PROFILE_CATEGORIES = ("profile", "preference", "decision")
PROFILE_STATUSES = ("active", "needs_review", "superseded", "expired", "archived")


def _profile_value(memory: Memory) -> dict[str, Any]:
    return {
        "memory_id": memory.pk,
        "content": memory.content,
        "values": list(memory.slot_values),
        "category": memory.category,
        "status": memory.status,
        "confidence": memory.confidence,
        "valid_from": memory.valid_from,
        "valid_to": memory.valid_to,
    }


def subject_profile(
    *, subject: Subject | None, as_of: Any = None, history: int = 5
) -> list[dict[str, Any]]:
    """The current value of each profile slot with its last `history` earlier values.

    Slots come from profile/preference/decision memories; a memory without a slot forms its own
    slot through its version chain. With `as_of`, "current" is what was valid at that moment.
    """
    if subject is None:
        return []
    memories = list(
        Memory.objects.filter(
            subject=subject, category__in=PROFILE_CATEGORIES, status__in=PROFILE_STATUSES
        )
        .defer("embedding", "search_vector", "search_text")
        .order_by("-valid_from", "-pk")
    )
    slots: dict[str, list[Memory]] = {}
    for memory in memories:
        key = memory.slot or f"{memory.category}:{str(memory.lineage)[:8]}"
        slots.setdefault(key, []).append(memory)
    result = []
    for key, versions in slots.items():
        if as_of is None:
            current = next((m for m in versions if m.status in ("active", "needs_review")), None)
        else:
            current = next(
                (
                    m
                    for m in versions
                    if m.valid_from <= as_of
                    and (m.valid_to is None or m.valid_to > as_of)
                    and m.status != "archived"
                ),
                None,
            )
        if current is None:
            continue
        earlier = [m for m in versions if m.pk != current.pk and m.valid_from <= current.valid_from]
        result.append(
            {
                "slot": key,
                "current": _profile_value(current),
                "history": [_profile_value(m) for m in earlier[:history]],
            }
        )
    result.sort(key=lambda item: item["slot"])
    return result
