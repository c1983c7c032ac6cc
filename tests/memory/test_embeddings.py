import threading

import numpy as np
import pytest

from memory.embeddings import (
    EMBEDDING_DIM,
    Embedder,
    EmbeddingError,
    HashingEmbedder,
    OpenAIEmbedder,
    UniversalSentenceEncoderEmbedder,
    cosine,
    get_embedder,
    reset_embedder_cache,
)

# The `fake_openai` fixture lives in tests/fake_openai.py.
pytest_plugins = ["tests.fake_openai"]


@pytest.fixture(scope="module")
def use():
    return UniversalSentenceEncoderEmbedder(preload=True)


def _sim(embedder, a, b):
    va, vb = embedder.embed([a, b])
    return float(va @ vb)


def _assert_unit_rows(m, n, dim=EMBEDDING_DIM):
    assert isinstance(m, np.ndarray)
    assert m.shape == (n, dim)
    assert m.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)


# ------------------------------------------------------------------ USE (default, offline)


def test_use_shape_dtype_normalised(use):
    assert use.dim == 512
    assert isinstance(use, Embedder)
    _assert_unit_rows(use.embed(["我不吃辣", "The user avoids spicy food", ""]), 3)
    assert use.embed([]).shape == (0, 512)


def test_use_embed_one_is_plain_list(use):
    vec = use.embed_one("用户喜欢住全季酒店")
    assert isinstance(vec, list) and len(vec) == 512
    assert all(isinstance(x, float) for x in vec[:5])


def test_use_batch_equals_single(use):
    texts = ["我不吃辣", "周会改到周三", "The user prefers concise answers", "预算是八万元"] * 10
    batch = use.embed(texts)
    for i in (0, 1, 2, 3, 39):
        single = np.asarray(use.embed_one(texts[i]), dtype=np.float32)
        assert float(single @ batch[i]) > 0.999


@pytest.mark.parametrize(
    ("anchor", "paraphrase", "unrelated"),
    [
        # zh
        ("我不吃辣", "用户不吃辣的食物", "周会改到周三"),
        ("周会改到周三下午三点", "每周例会挪到了星期三下午", "用户不吃辣的食物"),
        # en
        (
            "I don't eat spicy food",
            "The user avoids spicy food",
            "The weekly meeting moved to Wednesday",
        ),
        (
            "The user prefers concise answers",
            "The user likes brief replies",
            "The user avoids spicy food",
        ),
        # cross-lingual
        ("我不吃辣", "The user avoids spicy food", "周会改到周三"),
        ("周会改到周三", "The weekly meeting moved to Wednesday", "我不吃辣"),
        ("The user avoids spicy food", "用户不吃辣", "The weekly meeting moved to Wednesday"),
    ],
)
def test_use_paraphrase_closer_than_unrelated(use, anchor, paraphrase, unrelated):
    assert _sim(use, anchor, paraphrase) > _sim(use, anchor, unrelated) + 0.2


def test_use_thread_safe(use):
    texts = ["我不吃辣", "The user avoids spicy food"]
    expected = use.embed(texts)
    errors = []

    def worker():
        try:
            for _ in range(5):
                got = use.embed(texts)
                assert np.allclose(got, expected, atol=1e-5)
        except Exception as exc:  # noqa: BLE001  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ------------------------------------------------------------------ hashing


def test_hashing_deterministic_and_normalised():
    h = HashingEmbedder()
    a = h.embed(["用户不吃辣", "The user avoids spicy food"])
    b = HashingEmbedder().embed(["用户不吃辣", "The user avoids spicy food"])
    _assert_unit_rows(a, 2)
    np.testing.assert_array_equal(a, b)
    assert h.embed([""]).shape == (1, 512)  # zero text → zero vector, no NaN
    assert not np.isnan(h.embed([""])).any()


def test_hashing_surface_overlap():
    h = HashingEmbedder()
    assert _sim(h, "用户不吃辣", "用户不吃辣的食物") > _sim(h, "用户不吃辣", "周会改到周三")
    assert _sim(h, "spicy food", "avoids spicy food") > _sim(h, "spicy food", "meeting moved")


# ------------------------------------------------------------------ factory


def test_get_embedder_env_choice_and_cache():
    reset_embedder_cache()
    try:
        assert isinstance(get_embedder(env={}), UniversalSentenceEncoderEmbedder)
        assert isinstance(get_embedder(env={"ENGRAM_EMBEDDER": "hashing"}), HashingEmbedder)
        assert get_embedder(env={"ENGRAM_EMBEDDER": "hashing"}) is get_embedder("hashing")
        with pytest.raises(ValueError, match="unknown ENGRAM_EMBEDDER"):
            get_embedder(env={"ENGRAM_EMBEDDER": "word2vec"})
    finally:
        reset_embedder_cache()


def test_cosine_helper():
    assert cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert cosine([1, 0], [0, 1]) == pytest.approx(0.0)
    assert cosine([0, 0], [0, 1]) == 0.0


# ------------------------------------------------------------------ OpenAI (fake server)


def test_openai_embedder_against_fake_openai(fake_openai):
    emb = OpenAIEmbedder(api_key="test-key", base_url=fake_openai.base_url)
    assert emb.name == "openai:text-embedding-3-small"
    m = emb.embed(["我不吃辣", "The user avoids spicy food", ""])
    _assert_unit_rows(m, 3)
    req = fake_openai.requests_to("embeddings")[0]
    assert req.json["model"] == "text-embedding-3-small"
    assert req.json["dimensions"] == 512
    assert req.json["input"] == ["我不吃辣", "The user avoids spicy food", " "]
    assert req.headers["authorization"] == "Bearer test-key"
    # deterministic per text
    assert emb.embed_one("我不吃辣") == pytest.approx(m[0].tolist(), abs=1e-6)


def test_openai_embedder_batches(fake_openai):
    emb = OpenAIEmbedder(api_key="k", base_url=fake_openai.base_url, batch_size=2)
    m = emb.embed([f"text {i}" for i in range(5)])
    assert m.shape == (5, 512)
    assert [len(r.json["input"]) for r in fake_openai.requests_to("embeddings")] == [2, 2, 1]


def test_openai_embedder_from_env(fake_openai):
    env = {
        "OPENAI_API_KEY": "k",
        "OPENAI_BASE_URL": fake_openai.base_url,
        "ENGRAM_EMBEDDING_MODEL": "my-embed",
        "ENGRAM_EMBEDDER": "openai",
    }
    reset_embedder_cache()
    try:
        emb = get_embedder(env=env)
        assert isinstance(emb, OpenAIEmbedder) and emb.name == "openai:my-embed"
        emb.embed(["x"])
        assert fake_openai.requests[-1].json["model"] == "my-embed"
    finally:
        reset_embedder_cache()


def test_openai_embedder_wrong_dim_is_an_error(fake_openai):
    fake_openai.queue_embeddings([[1.0, 0.0, 0.0]])
    emb = OpenAIEmbedder(api_key="k", base_url=fake_openai.base_url, max_retries=0)
    with pytest.raises(EmbeddingError, match="512-d"):
        emb.embed(["x"])


def test_openai_embedder_http_error(fake_openai):
    fake_openai.queue_error(401, endpoint="embeddings", message="bad key")
    emb = OpenAIEmbedder(api_key="k", base_url=fake_openai.base_url, max_retries=0)
    with pytest.raises(EmbeddingError, match="bad key"):
        emb.embed(["x"])
