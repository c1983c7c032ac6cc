"""Extractor selection: the offline rules by default, the LLM when configured."""

from functools import lru_cache

from django.conf import settings

from memory.extraction.base import Extractor

MSG_LLM_NEEDS_KEY = "ENGRAM_EXTRACTOR=llm needs OPENAI_API_KEY (and optionally OPENAI_BASE_URL)."


@lru_cache(maxsize=1)
def get_extractor() -> Extractor:
    if settings.ENGRAM_EXTRACTOR == "llm":
        if not settings.OPENAI_API_KEY:
            raise RuntimeError(MSG_LLM_NEEDS_KEY)
        from memory.extraction.llm import LLMExtractor

        return LLMExtractor(
            model=settings.ENGRAM_LLM_MODEL,
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL or None,
        )
    from memory.extraction.rules.extractor import RuleExtractor

    return RuleExtractor()
