import time

from core.tokens import ENCODING_NAME, count_tokens, get_encoding


def test_encoding_name_is_o200k():
    assert ENCODING_NAME == "o200k_base"
    assert get_encoding().name == ENCODING_NAME


def test_empty_is_zero():
    assert count_tokens("") == 0


def test_english_counts_are_plausible():
    assert count_tokens("hello world") == 2  # same as tiktoken o200k_base
    n = count_tokens("The user prefers concise answers and avoids spicy food.")
    assert 8 <= n <= 14


def test_chinese_counts_are_plausible():
    text = "用户不吃辣，周会改到了每周三下午三点钟开"  # 20 characters
    assert len(text) == 20
    n = count_tokens(text)
    assert 10 < n <= 30


def test_special_token_text_counts_as_ordinary_text():
    assert count_tokens("<|endoftext|>") > 1


def test_long_text_is_counted_in_pieces_exactly():
    text = ("用户的网络设备预算是八万元。 The budget is 80,000 CNY. " * 4000).strip()
    assert len(text) > 100_000  # more than one 50k-char piece
    assert count_tokens(text) == len(get_encoding().encode_ordinary(text))


def test_fast():
    count_tokens("warm")
    text = "用户不吃辣 The user avoids spicy food " * 10
    t0 = time.perf_counter()
    for _ in range(200):
        count_tokens(text)
    assert (time.perf_counter() - t0) / 200 < 0.005
