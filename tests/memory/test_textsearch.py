import re

import pytest

from memory.textsearch import (
    build_tsquery,
    keyword_overlap,
    search_document,
    search_query_terms,
    telling_terms,
)

# What PostgreSQL's default parser keeps as a single lexeme: words, numbers, decimals.
_PG_SAFE = re.compile(r"^[^\W_]+$|^\d+\.\d+$")


def doc_tokens(text):
    return search_document(text).split()


def matches(query, text):
    return keyword_overlap(search_query_terms(query), search_document(text)) > 0


# ------------------------------------------------------------------ documents


def test_english_document_lowercased_stemmed_without_stopwords():
    tokens = doc_tokens("The user prefers Hilton HOTELS and companies' e-mail updates!")
    assert "hilton" in tokens
    assert {"hotels", "hotel", "companies", "company"} <= set(tokens)
    assert {"e", "mail", "email"} <= set(tokens)
    assert "the" not in tokens and "and" not in tokens and "user" not in tokens
    assert "!" not in "".join(tokens)


def test_chinese_document_has_words_bigrams_and_chars():
    tokens = doc_tokens("用户的网络设备预算是8万")
    assert {"网络", "设备", "网络设备", "预算"} <= set(tokens)  # jieba search mode
    assert {"络设", "备预"} <= set(tokens)  # character bigrams
    assert "网" in tokens  # single characters
    assert "的" not in tokens and "用户" not in tokens  # stop words
    assert {"8万", "80000"} <= set(tokens)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("预算八万元", {"八万", "80000"}),
        ("两千五百块", {"2500"}),
        ("budget 80,000 USD", {"80000"}),
        ("about 1.5k", {"1.5", "1500"}),
        ("3w 预算", {"3w", "30000"}),
        ("meeting at 15:00", {"15", "15h00"}),
        ("二〇二四年", {"2024"}),
        ("十五个人", {"15"}),
    ],
)
def test_numbers_are_kept_and_normalised(text, expected):
    assert expected <= set(doc_tokens(text))


def test_document_tokens_are_pg_parser_safe_and_unique():
    text = (
        "用户的网络设备预算是8万，下周三 15:00 开会；The user's budget is 1.5k USD "
        "(e-mail: bob@example.com) 用iPhone拍照。"
    )
    tokens = doc_tokens(text)
    assert len(tokens) == len(set(tokens))
    bad = [t for t in tokens if not _PG_SAFE.match(t)]
    assert not bad
    assert {"iphone", "拍照", "bob", "example", "com"} <= set(tokens)


def test_empty_document():
    assert search_document("") == ""
    assert search_document("？！…  ,.") == ""


# ------------------------------------------------------------------ queries


def test_query_drops_question_and_stop_words_zh():
    terms = search_query_terms("产品部周会改到什么时候？")
    assert {"产品部", "周会"} <= set(terms)
    assert not {"什么", "时候", "什么时候", "？"} & set(terms)


def test_query_drops_question_and_stop_words_en():
    terms = search_query_terms("Which hotel does the user prefer?")
    assert terms == ["hotel", "prefer"]
    assert search_query_terms("What is it?") == []


def test_query_mixed_language():
    terms = search_query_terms("用户的 iPhone 预算是多少 dollars?")
    assert {"iphone", "预算", "dollars", "dollar"} <= set(terms)
    assert "多少" not in terms


def test_long_chinese_query_words_add_bigrams():
    terms = search_query_terms("网络设备")
    assert "网络设备" in terms and "络设" in terms


def test_query_matches_partial_chinese_words():
    doc = "用户不吃辣味食物"
    assert matches("辣", doc)  # single character
    assert matches("吃辣吗", doc)  # crosses jieba word boundaries → bigrams
    assert matches("食物偏好", doc)
    assert not matches("周会", doc)


def test_query_matches_numbers_across_notations():
    assert matches("预算80000", "用户的网络设备预算是8万")
    assert matches("80,000 budget", "用户的网络设备预算是八万元")


def test_query_matches_english_plural():
    assert matches("hotel", "The user stays in Hilton hotels")
    assert matches("Which hotels?", "The user likes the Hilton hotel")


# ------------------------------------------------------------------ helpers


def test_build_tsquery_quotes_terms():
    assert build_tsquery(["a", "b", "a"]) == "'a' | 'b'"
    assert build_tsquery(["it's", "back\\slash"]) == "'it''s' | 'backslash'"
    assert build_tsquery([]) == ""


def test_keyword_overlap():
    assert keyword_overlap(["a", "b"], "a c d") == 0.5
    assert keyword_overlap(["a", "b"], ["a", "b"]) == 1.0
    assert keyword_overlap([], "a") == 0.0


def test_telling_terms_drop_words_too_short_to_mean_anything():
    terms = search_query_terms("帮我用 Excel 做个透视表, ok 10 个")
    assert "用" in terms and "ok" in terms
    assert telling_terms(terms) == [t for t in terms if len(t) > 1 and t != "ok"]
    assert "excel" in telling_terms(terms) and "10" in telling_terms(terms)
    # a query made only of short words keeps them all
    assert telling_terms(search_query_terms("辣")) == ["辣"]
