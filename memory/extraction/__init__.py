"""Extractor selection: the offline rules by default, the LLM when configured."""

from functools import lru_cache

from django.conf import settings

from memory.extraction.base import Extractor


@lru_cache(maxsize=1)
def get_extractor() -> Extractor:
    if settings.ENGRAM_EXTRACTOR == "llm":
        if not settings.OPENAI_API_KEY:
            raise RuntimeError(
                "ENGRAM_EXTRACTOR=llm needs OPENAI_API_KEY (and optionally OPENAI_BASE_URL)."
            )
        from memory.extraction.llm import LLMExtractor

        return LLMExtractor.from_env()
    from memory.extraction.rules import RuleExtractor

    return RuleExtractor()
