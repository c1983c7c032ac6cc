"""Words of a text: jieba, initialised lazily and once (its logging silenced), and its
part-of-speech segmentation, cached because the detectors, the dialogue state and the topic
matcher all look at the same sentences. Search tokens (memory/textsearch.py) build on it."""

from __future__ import annotations

import logging
import threading
from functools import lru_cache

_jieba = None
_jieba_lock = threading.Lock()


def get_jieba():
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba


def pos_cut(text: str) -> tuple[tuple[str, str], ...]:
    """jieba part-of-speech segmentation as (word, flag) pairs."""
    return _pos_cut(text)


@lru_cache(maxsize=8192)
def _pos_cut(text: str) -> tuple[tuple[str, str], ...]:
    from jieba import posseg

    get_jieba()
    return tuple((p.word, p.flag) for p in posseg.cut(text))
