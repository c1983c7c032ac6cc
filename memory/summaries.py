"""Rolling session summaries through the optional OpenAI-compatible chat model."""

from typing import Any

from django.conf import settings

from memory.llm import llm_client

SUMMARY_PROMPT = (
    "Summarise the earlier part of this conversation for an assistant that continues it. "
    "Keep facts, decisions, open tasks and the user's stated preferences; drop small talk. "
    "Answer in the conversation's main language, at most {max_tokens} tokens, plain text."
)


def llm_summary(events: list[Any], *, max_tokens: int) -> str:
    transcript = "\n".join(f"{event.role}: {event.content}" for event in events)
    response = llm_client(timeout=20).chat.completions.create(
        model=settings.ENGRAM_LLM_MODEL,
        messages=[
            {"role": "system", "content": SUMMARY_PROMPT.format(max_tokens=max_tokens)},
            {"role": "user", "content": transcript[:50_000]},
        ],
        max_tokens=max(16, max_tokens),
        temperature=0,
    )
    return (response.choices[0].message.content or "").strip()
