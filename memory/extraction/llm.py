"""LLM-backed extractor: an OpenAI-compatible chat model proposes memory candidates.

Configuration (arguments win over the environment, see `LLMExtractor.from_env`):
    OPENAI_API_KEY, OPENAI_BASE_URL (optional), ENGRAM_LLM_MODEL (default "gpt-4o-mini").

Flow: turns + the subject's related active memories (``known``: ids and content, at most
MAX_KNOWN, nearest to what the user just said) → one chat completion with
``response_format={"type": "json_object"}`` → JSON parsed and validated against a hand-written
schema (`validate_payload`) → Candidates. Like mem0's update phase the model decides each
candidate against what is known — "add", "update" (memory_id) or "duplicate" (memory_id) —
instead of inventing a slot key per call; an id that was not shown is a validation error. The
write decision service applies the decision (memory/decisions.py `_hinted`), still keeping a
hedged or older statement from replacing anything.

Failure policy (an extraction failure must be visible, never "no memories"):
* transport errors (connection, timeout), HTTP 408/409/429 and 5xx are retried with
  exponential backoff (``backoff_base * 2**n``, capped, jittered; ``Retry-After`` honoured up
  to the cap), at most `max_attempts` (3) requests in total;
* malformed output (not JSON, truncated, refusal, schema violation) is also retried (the
  model samples again) within the same attempt budget;
* other 4xx (bad key, unknown model...) fail at once;
* when the budget is spent, `ExtractionError` is raised with the last problem in the message.
  The exception carries ``.usage`` (tokens spent so far) and ``.attempts``.

Token usage of every request (also failed-output ones) is summed into
``ExtractionResult.usage`` = {"prompt_tokens", "completion_tokens", "total_tokens"}.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import random
import time
from collections.abc import Callable
from typing import Any

from memory.extraction.base import (
    CATEGORIES,
    HINTS,
    KINDS,
    Candidate,
    ExtractionError,
    ExtractionResult,
    KnownMemory,
    Turn,
)

logger = logging.getLogger(__name__)

DEFAULT_LLM_MODEL = "gpt-4o-mini"
MAX_ATTEMPTS = 3
MAX_CONTENT_CHARS = 500
MAX_CANDIDATES = 50
MAX_KNOWN = 20  # related active memories shown to the model (ids + content)
_RETRYABLE_STATUS = frozenset({408, 409, 429})

SYSTEM_PROMPT = """\
You extract long-term memories about a person (the user) from a conversation with an AI \
assistant. Answer with a single JSON object and nothing else.

Input: a JSON object with "turns" (each with "index", "role", "content", maybe "occurred_at") \
and "new_from". Turns with index < new_from are CONTEXT ONLY: use them to understand the new \
turns, never extract from them.

Rules:
1. Only facts about the user, stated by the user: extract only from turns with role "user" \
and index >= new_from. Assistant, tool and system turns are context (e.g. the user answering \
"yes" to an assistant's suggestion is a user statement). Ignore greetings, small talk, \
questions without personal information, and general knowledge.
2. Category, one of:
   - "preference": likes, dislikes, habits, style wishes ("我不吃辣", "prefer short answers");
   - "plan": intended future actions or scheduled events ("下周三去上海", meeting times);
   - "correction": the user corrects or updates something said earlier ("不是周二，是周三");
   - "decision": a choice the user has made ("we'll go with vendor A");
   - "fact": other facts about the user's situation, work, projects, budgets;
   - "profile": stable identity facts (name, job, city, family, language).
3. "content": ONE self-contained declarative sentence about the user, in the language of the \
source turn, starting with "用户" (Chinese) or "The user" (English), no pronouns, no \
references like "that/上面那个" — resolve them from context. Keep the concrete words, names, \
numbers, dates and times exactly as the user said them (e.g. "用户不吃辣", \
"用户把产品部周会改到周三 15:00", "The user prefers concise answers").
4. "confidence" 0..1: 0.9+ for clear direct statements; lower it for hedges \
("可能", "好像", "maybe", "I think", "probably") to about 0.4-0.6.
5. "importance" 0..1: default 0.5; raise it (0.8-1.0) when the user emphasises \
("一定要", "千万别", "记住", "always", "never", "important") or for safety/health facts \
(allergies); lower it (0.2-0.3) for trivia.
6. "slot": a short normalised topic key shared by statements that answer the same question \
about the user, so that a later different answer in the same slot replaces the old one: \
e.g. "diet", "hotel.default", "meeting:产品部周会", "budget:网络设备", "home_city", \
"answer_style". Use "" if no slot fits. "values": the normalised answer(s) in that slot, \
short ("全季", "周三 15:00", "80000"); [] when slot is "".
7. "source_index": the index of the user turn the memory comes from; "source_quote": the \
shortest exact substring of that turn supporting it.
8. "kind": "semantic" (lasting facts/preferences, the default), "episodic" (a one-off event), \
or "procedural" (how the user wants things done).
9. Optional: "entities" (names of people, places, products, organisations mentioned), \
"triple" [subject, predicate, object] or null, "valid_to" (ISO 8601 date-time when the \
memory stops being true, e.g. for a one-off plan; resolve relative dates from the turn's \
occurred_at) or null.
10. Do not invent anything. If there is nothing worth remembering, return {"candidates": []}.
11. "known" (may be empty) lists memories already stored about the user, each with an "id". \
Decide every candidate against them: "decision": "add" (new information), "update" (it \
replaces or revises known memory "memory_id": a changed value, a correction, a newer plan), \
or "duplicate" (known memory "memory_id" already says it). A hedged statement about a change \
is still "update", with a low confidence. Never output a candidate only to repeat a known \
memory unchanged: use "duplicate". "memory_id" must be one of the known ids, or null for "add".

Output format:
{"candidates": [{"content": str, "category": str, "kind": str, "importance": number, \
"confidence": number, "slot": str, "values": [str], "entities": [str], "source_index": int, \
"source_quote": str, "triple": [str, str, str] | null, "valid_to": str | null, \
"decision": "add" | "update" | "duplicate", "memory_id": int | null}]}
"""


class OutputValidationError(ValueError):
    """The model output does not match the expected schema."""


# --------------------------------------------------------------------------------------------
# Schema validation (hand-written, strict on types and ranges)
# --------------------------------------------------------------------------------------------


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _str_list(value: Any, where: str, *, max_items: int = 20) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise OutputValidationError(f"{where} must be a list of strings")
    if len(value) > max_items:
        raise OutputValidationError(f"{where} has more than {max_items} items")
    return [x.strip() for x in value if x.strip()]


def _parse_valid_to(value: Any, where: str, default_tz: dt.tzinfo) -> dt.datetime | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise OutputValidationError(f"{where} must be an ISO 8601 string or null")
    try:
        parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        try:
            day = dt.date.fromisoformat(value.strip())
        except ValueError as exc:
            raise OutputValidationError(f"{where} is not ISO 8601: {value!r}") from exc
        parsed = dt.datetime.combine(day, dt.time(23, 59, 59))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=default_tz)
    return parsed


def _decision(item: dict, where: str, known_ids: frozenset[int]) -> tuple[str, int | None]:
    """("add" | "update" | "duplicate", memory id or None), checked against the known ids."""
    decision = item.get("decision", "add")
    if decision is None:
        decision = "add"
    if decision not in HINTS:
        raise OutputValidationError(
            f"{where}.decision {decision!r} is not one of {', '.join(HINTS)}"
        )
    memory_id = item.get("memory_id")
    if decision == "add":
        if memory_id is not None:
            raise OutputValidationError(f'{where}.memory_id must be null for "add"')
        return decision, None
    if not isinstance(memory_id, int) or isinstance(memory_id, bool):
        raise OutputValidationError(f'{where}.memory_id must be a known id for "{decision}"')
    if memory_id not in known_ids:
        raise OutputValidationError(f"{where}.memory_id {memory_id} is not a known memory")
    return decision, memory_id


def validate_payload(
    payload: Any, turns: list[Turn], new_from: int, known_ids: frozenset[int] = frozenset()
) -> list[Candidate]:
    """Check the decoded model output and build Candidates; raise OutputValidationError.

    Strict: wrong types, out-of-range numbers, unknown category/kind, empty content, a
    source_index that is not a user turn in ``turns[new_from:]`` are errors. Unknown extra
    keys inside a candidate are ignored (models like to add "reason").
    """
    if not isinstance(payload, dict):
        raise OutputValidationError("top level must be a JSON object")
    if "candidates" not in payload:
        raise OutputValidationError('missing key "candidates"')
    items = payload["candidates"]
    if not isinstance(items, list):
        raise OutputValidationError('"candidates" must be a list')
    if len(items) > MAX_CANDIDATES:
        raise OutputValidationError(f'"candidates" has more than {MAX_CANDIDATES} items')

    candidates = []
    for i, item in enumerate(items):
        w = f"candidates[{i}]"
        if not isinstance(item, dict):
            raise OutputValidationError(f"{w} must be an object")

        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            raise OutputValidationError(f"{w}.content must be a non-empty string")
        content = content.strip()
        if len(content) > MAX_CONTENT_CHARS:
            raise OutputValidationError(f"{w}.content is longer than {MAX_CONTENT_CHARS} chars")

        category = item.get("category")
        if category not in CATEGORIES:
            raise OutputValidationError(
                f"{w}.category {category!r} is not one of {', '.join(CATEGORIES)}"
            )

        kind = item.get("kind", "semantic")
        if kind is None:
            kind = "semantic"
        if kind not in KINDS:
            raise OutputValidationError(f"{w}.kind {kind!r} is not one of {', '.join(KINDS)}")

        scores = {}
        for key, default in (("importance", 0.5), ("confidence", 0.8)):
            value = item.get(key, default)
            if not _is_number(value) or not 0.0 <= float(value) <= 1.0:
                raise OutputValidationError(f"{w}.{key} must be a number in [0, 1], got {value!r}")
            scores[key] = float(value)

        slot = item.get("slot", "")
        if slot is None:
            slot = ""
        if not isinstance(slot, str) or len(slot) > 100:
            raise OutputValidationError(f"{w}.slot must be a string of at most 100 chars")
        values = _str_list(item.get("values") or [], f"{w}.values")
        entities = _str_list(item.get("entities") or [], f"{w}.entities")

        source_index = item.get("source_index")
        if not isinstance(source_index, int) or isinstance(source_index, bool):
            raise OutputValidationError(f"{w}.source_index must be an integer")
        if not new_from <= source_index < len(turns):
            raise OutputValidationError(
                f"{w}.source_index {source_index} is outside the new turns "
                f"[{new_from}, {len(turns)})"
            )
        if turns[source_index].role != "user":
            raise OutputValidationError(
                f"{w}.source_index {source_index} is a {turns[source_index].role!r} turn, "
                "not a user turn"
            )

        quote = item.get("source_quote", "")
        if quote is None:
            quote = ""
        if not isinstance(quote, str):
            raise OutputValidationError(f"{w}.source_quote must be a string")

        triple = item.get("triple")
        if triple is not None:
            if (
                not isinstance(triple, list)
                or len(triple) != 3
                or not all(isinstance(x, str) and x.strip() for x in triple)
            ):
                raise OutputValidationError(f"{w}.triple must be null or 3 non-empty strings")
            triple = tuple(x.strip() for x in triple)

        occurred = turns[source_index].occurred_at
        tz = occurred.tzinfo if occurred is not None and occurred.tzinfo else dt.UTC
        valid_to = _parse_valid_to(item.get("valid_to"), f"{w}.valid_to", tz)
        hint, target_id = _decision(item, w, known_ids)

        candidates.append(
            Candidate(
                content=content,
                category=category,
                kind=kind,
                entities=entities,
                importance=scores["importance"],
                confidence=scores["confidence"],
                slot=slot.strip(),
                values=values if slot.strip() else [],
                source_index=source_index,
                source_quote=quote.strip(),
                triple=triple,
                valid_to=valid_to,
                hint=hint,
                target_id=target_id,
            )
        )
    return candidates


def parse_output(
    text: str | None, turns: list[Turn], new_from: int, known_ids: frozenset[int] = frozenset()
) -> list[Candidate]:
    """Decode the model's message content and validate it (OutputValidationError if bad)."""
    if text is None or not text.strip():
        raise OutputValidationError("empty model output")
    body = text.strip()
    if body.startswith("```"):  # tolerate a fenced block from OpenAI-compatible servers
        body = body.strip("`").removeprefix("json").strip()
    try:
        payload = json.loads(body)
    except ValueError as exc:
        raise OutputValidationError(
            f"model output is not valid JSON ({exc}): {text[:200]!r}"
        ) from exc
    return validate_payload(payload, turns, new_from, known_ids)


# --------------------------------------------------------------------------------------------
# Extractor
# --------------------------------------------------------------------------------------------


def _render_turns(turns: list[Turn], new_from: int, known: list[KnownMemory] | None = None) -> str:
    rows = []
    for i, turn in enumerate(turns):
        row: dict[str, Any] = {"index": i, "role": turn.role, "content": turn.content}
        if turn.occurred_at is not None:
            row["occurred_at"] = turn.occurred_at.isoformat()
        rows.append(row)
    known_rows = [{"id": m.id, "content": m.content} for m in (known or [])[:MAX_KNOWN]]
    return json.dumps(
        {"new_from": new_from, "turns": rows, "known": known_rows}, ensure_ascii=False
    )


class LLMExtractor:
    """`Extractor` backed by an OpenAI-compatible chat completions endpoint."""

    wants_known = True

    def __init__(
        self,
        *,
        model: str = DEFAULT_LLM_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        client=None,
        max_attempts: int = MAX_ATTEMPTS,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        timeout: float = 60.0,
        temperature: float | None = 0.0,
        max_output_tokens: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        self.model = model
        self.name = f"llm:{model}"
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self._sleep = sleep
        if client is None:
            from openai import OpenAI

            # Retries are ours (one budget for transport errors and bad output).
            client = OpenAI(
                api_key=api_key, base_url=base_url or None, timeout=timeout, max_retries=0
            )
        self._client = client

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides) -> LLMExtractor:
        env = os.environ if env is None else env
        kwargs: dict[str, Any] = {
            "model": env.get("ENGRAM_LLM_MODEL") or DEFAULT_LLM_MODEL,
            "api_key": env.get("OPENAI_API_KEY") or None,
            "base_url": env.get("OPENAI_BASE_URL") or None,
        }
        kwargs.update(overrides)
        return cls(**kwargs)

    # ------------------------------------------------------------------ helpers
    def _messages(
        self, turns: list[Turn], new_from: int, known: list[KnownMemory] | None = None
    ) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {
                "role": "user",
                "content": "Extract memories from this conversation and answer "
                "in JSON.\n" + _render_turns(turns, new_from, known),
            },
        ]

    def _delay(self, attempt: int, exc: Exception | None) -> float:
        delay = min(self.backoff_max, self.backoff_base * (2 ** (attempt - 1)))
        delay *= 0.5 + random.random() / 2  # noqa: S311 - jitter, not crypto
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) if response is not None else None
        retry_after = headers.get("retry-after") if headers is not None else None
        if retry_after:
            with contextlib.suppress(ValueError):
                delay = max(delay, min(self.backoff_max, float(retry_after)))
        return delay

    @staticmethod
    def _is_retryable(exc: Exception) -> bool:
        import openai

        if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
            return True
        if isinstance(exc, openai.APIStatusError):
            return exc.status_code in _RETRYABLE_STATUS or exc.status_code >= 500
        return False

    @staticmethod
    def _add_usage(total: dict[str, int], response) -> None:
        usage = getattr(response, "usage", None)
        if usage is None:
            return
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = getattr(usage, key, None)
            if isinstance(value, int):
                total[key] = total.get(key, 0) + value

    def _fail(
        self, message: str, usage: dict[str, int], attempts: int, cause: Exception | None
    ) -> ExtractionError:
        err = ExtractionError(message)
        err.usage = dict(usage)  # type: ignore[attr-defined]
        err.attempts = attempts  # type: ignore[attr-defined]
        if cause is not None:
            err.__cause__ = cause
        return err

    # ------------------------------------------------------------------ API
    def extract(
        self, turns: list[Turn], *, new_from: int = 0, known: list[KnownMemory] | None = None
    ) -> ExtractionResult:
        turns = list(turns)
        known = list(known or [])[:MAX_KNOWN]
        known_ids = frozenset(m.id for m in known)
        new_from = max(0, new_from)
        if not any(t.role == "user" and t.content.strip() for t in turns[new_from:]):
            return ExtractionResult(candidates=[], usage={}, extractor=self.name)

        import openai

        request: dict[str, Any] = {
            "model": self.model,
            "messages": self._messages(turns, new_from, known),
            "response_format": {"type": "json_object"},
        }
        if self.temperature is not None:  # reasoning models reject it: pass None there
            request["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            request["max_completion_tokens"] = self.max_output_tokens
        usage: dict[str, int] = {}
        last_problem = ""
        last_exc: Exception | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                response = self._client.chat.completions.create(**request)
            except openai.OpenAIError as exc:
                last_exc = exc
                status = getattr(exc, "status_code", None)
                last_problem = f"HTTP {status}: {exc}" if status else f"{type(exc).__name__}: {exc}"
                if not self._is_retryable(exc):
                    raise self._fail(
                        f"{self.name}: request failed (not retryable): {last_problem}",
                        usage,
                        attempt,
                        exc,
                    ) from exc
                logger.warning(
                    "%s: attempt %d/%d failed: %s",
                    self.name,
                    attempt,
                    self.max_attempts,
                    last_problem,
                )
                if attempt < self.max_attempts:
                    self._sleep(self._delay(attempt, exc))
                continue

            self._add_usage(usage, response)
            try:
                if not response.choices:
                    raise OutputValidationError("response has no choices")
                choice = response.choices[0]
                if choice.finish_reason == "length":
                    raise OutputValidationError("model output was truncated (finish_reason=length)")
                refusal = getattr(choice.message, "refusal", None)
                if refusal:
                    raise OutputValidationError(f"model refused: {refusal[:200]}")
                candidates = parse_output(choice.message.content, turns, new_from, known_ids)
            except OutputValidationError as exc:
                last_exc = exc
                last_problem = f"malformed model output: {exc}"
                # Not a transient fault: sample again right away.
                logger.warning(
                    "%s: attempt %d/%d: %s", self.name, attempt, self.max_attempts, last_problem
                )
                continue
            return ExtractionResult(candidates=candidates, usage=usage, extractor=self.name)

        raise self._fail(
            f"{self.name}: extraction failed after {self.max_attempts} attempts; "
            f"last error: {last_problem}",
            usage,
            self.max_attempts,
            last_exc,
        )


__all__ = [
    "DEFAULT_LLM_MODEL",
    "SYSTEM_PROMPT",
    "LLMExtractor",
    "OutputValidationError",
    "parse_output",
    "validate_payload",
]
