"""The OpenAI-compatible chat model used outside extraction: session summaries, fusion
proposals for conflicts and recall query rewriting. Optional: nothing here runs unless
OPENAI_API_KEY is set (and the feature's own switch is on)."""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)


def llm_configured() -> bool:
    return bool(settings.OPENAI_API_KEY)


def llm_client(*, timeout: float) -> Any:
    from openai import OpenAI

    return OpenAI(
        api_key=settings.OPENAI_API_KEY,
        base_url=settings.OPENAI_BASE_URL or None,
        timeout=timeout,
        max_retries=1,
    )


def chat_json(*, system: str, user: str, timeout: float = 30.0) -> dict[str, Any]:
    """One JSON-mode chat completion; raises on transport errors or non-JSON output."""
    response = llm_client(timeout=timeout).chat.completions.create(
        model=settings.ENGRAM_LLM_MODEL,
        temperature=0,
        response_format={"type": "json_object"},
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
    )
    payload = json.loads(response.choices[0].message.content or "{}")
    if not isinstance(payload, dict):
        raise ValueError("the model did not answer with a JSON object")
    return payload


REWRITE_PROMPT = (
    "You rewrite an assistant's turn into a search query for a memory store about the user. "
    "Keep the language(s) of the input. Name the kinds of facts that would help (preferences, "
    "constraints, past decisions, people, places, dates). Answer JSON only: "
    '{"query": "<one short search query>", "entities": ["<topic nouns>"]}'
)


def rewrite_query(query: str) -> tuple[str, list[str]] | None:
    """(rewritten query, topic entities) from the model; None on any error (recall then uses
    the query as given). Cached per subject by `memory.recall.cached_rewrite`."""
    try:
        payload = chat_json(
            system=REWRITE_PROMPT, user=query, timeout=settings.ENGRAM_RECALL_REWRITE_TIMEOUT
        )
    except Exception:
        logger.warning("query rewriting failed; recalling with the original query", exc_info=True)
        return None
    rewritten = payload.get("query")
    entities = payload.get("entities") or []
    if not isinstance(rewritten, str) or not rewritten.strip():
        return None
    entities = [e[:100] for e in entities if isinstance(e, str) and e.strip()][:10]
    return rewritten.strip()[:500], entities
