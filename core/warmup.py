"""Load the embedding model, the tokenizer and jieba once per process, before traffic.

Without this the first recall (or extraction) in a fresh worker pays ~1–3 s of model and
dictionary loading. Called from gunicorn's `post_worker_init` and Celery's
`worker_process_init`; failures are logged, never fatal (the lazy paths still work).
"""

import logging
import time

logger = logging.getLogger(__name__)


def warm_up() -> None:
    started = time.perf_counter()
    try:
        from core.tokens import count_tokens
        from memory import textsearch
        from memory.embeddings import get_embedder

        get_embedder().embed(["warm-up 预热"])
        count_tokens("warm-up 预热")
        textsearch.search_document("预热 warm-up")
    except Exception:
        logger.warning("warm-up failed; models will load on first use", exc_info=True)
        return
    logger.info("models warmed up in %.0f ms", (time.perf_counter() - started) * 1000)
