"""Keyword search terms for Chinese + English on PostgreSQL's built-in ``simple`` config.

PostgreSQL has no Chinese parser, so the text is pre-tokenised here and stored as a
space-separated token string; the database only splits on spaces and lowercases::

    search_vector = to_tsvector('simple', search_document(content))
    ... WHERE search_vector @@ to_tsquery('simple', build_tsquery(search_query_terms(q)))
    ORDER BY ts_rank(search_vector, to_tsquery('simple', build_tsquery(...))) DESC

Every token emitted is letters/digits only (plus a decimal point inside numbers), so PG's
default parser keeps it as exactly one lexeme.

Document tokens (`search_document`):
* English / other alphabetic scripts: NFKC + lowercase words, apostrophes dropped
  ("user's" → "users"), hyphenated words split and joined ("e-mail" → "e mail email"),
  plus a light plural stem ("hotels" → "hotels hotel", "companies" → "companies company").
  Stop words are dropped.
* Chinese: jieba search-mode segmentation (finer sub-words of long words too: 产品部 →
  产品 产品部) PLUS every character bigram of each CJK run PLUS single characters that are not
  stop characters, so partial words and single-character queries ("辣") still match.
* Numbers are kept and normalised: "8万" → "8万 80000", "八万" → "八万 80000",
  "1.5k" → "1.5 1500", "80,000" → "80000", "15:00" → "15 15h00".

Query terms (`search_query_terms`): the same analysis, minus question/stop words
("什么", "哪个", "怎么", "what", "which", ...), minus character unigrams; bigrams only for
Chinese words of 3+ characters (their 2-character pieces are what documents index).
Meant for an OR query (`build_tsquery`) ranked by ts_rank.

"用户"/"user" are treated as stop words: nearly every memory is phrased "用户…"/"The user…",
so they carry no signal. jieba is initialised lazily, once, with its logging silenced.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from memory.language.numerals import cn_numeral_value
from memory.language.tokens import get_jieba

# ----------------------------------------------------------------------------- vocabularies

_EN_STOPWORDS_TEXT = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing done down during each few for from
further had has have having he her here hers herself him himself his i if in into is it its
itself just let lets me more most my myself no nor not now of off on once only or other our
ours ourselves out over own same she should so some such than that thats the their theirs
them themselves then there these they this those through to too under until up very was we
were what whats when whens where wheres which while who whos whom why whys how hows will
with would you your yours yourself yourselves im ive id ill youre dont doesnt didnt isnt
arent wasnt werent cant wont please tell know remember recall user users s t
"""
EN_STOPWORDS = frozenset(_EN_STOPWORDS_TEXT.split())

# Chinese function words and question words. Single characters here are also never indexed
# as unigrams.
_ZH_STOPWORDS_TEXT = """
的 了 着 过 是 在 和 与 及 或 也 都 就 还 又 而 并 但 被 把 给 对 向 从 于 以 之 其 这 那 这个 那个
这些 那些 这样 那样 我 你 您 他 她 它 我们 你们 他们 她们 它们 自己 吗 呢 吧 啊 呀 嘛 哦 哈 么 得 地
什么 甚么 啥 哪 哪个 哪些 哪里 哪儿 哪种 哪家 怎么 怎样 怎么样 如何 为什么 为何 多少 几 几个
谁 是否 是不是 有没有 有无 请问 请 一下 告诉 知道 记得 记住 时候 什么时候 用户 一个 个
"""
ZH_STOPWORDS = frozenset(_ZH_STOPWORDS_TEXT.split())

# Characters that never become single-character document tokens (besides ZH_STOPWORDS).
_ZH_STOPCHARS = frozenset(
    "的了着过是在和与及或也都就还又而并但被把给对向从于以之其这那"
    "我你您他她它们吗呢吧啊呀嘛哦么得地个"
)

_CJK = r"\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR_RE = re.compile(f"[{_CJK}]")
_NUM_SUFFIX = {"万": 10_000, "w": 10_000, "千": 1000, "k": 1000, "百": 100, "亿": 100_000_000}

# Chunks: a CJK run | a number (with optional unit) | a latin/other word (with inner ' or -).
_CHUNK_RE = re.compile(
    rf"(?P<cjk>[{_CJK}]+)"
    r"|(?P<time>\d{1,2}:\d{2})(?!\d)"
    r"|(?P<num>\d+(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<unit>[万千百亿]|[kw](?![a-z]))?"
    rf"|(?P<word>[^\W\d_{_CJK}](?:[^\W_{_CJK}]|['’-](?=[^\W_{_CJK}]))*)"
)
_CN_NUMERAL_RE = re.compile(r"[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]+")


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").lower()


def _light_stem(word: str) -> str:
    """Plural-only English stemmer (deliberately conservative: no -ed/-ing guessing)."""
    if not word.isascii() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "'s")):
        return word[:-1]
    return word


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _number_tokens(num: str, unit: str | None) -> list[str]:
    plain = num.replace(",", "")
    # "8万" stays one lexeme for PG's parser, "1.5k" would not ("1.5" + "k"): keep the bare
    # decimal then.
    tokens = [plain + unit] if unit and "." not in plain else [plain]
    if unit:
        value = float(plain) * _NUM_SUFFIX[unit]
        tokens.append(_format_number(value))
    return tokens


def _cjk_tokens(run: str, *, for_query: bool) -> list[str]:
    jieba = get_jieba()
    out: list[str] = []
    for word in jieba.cut_for_search(run):
        word = word.strip()
        if not word or word in ZH_STOPWORDS:
            continue
        if for_query:
            out.append(word)
            if len(word) >= 3:
                out.extend(word[i : i + 2] for i in range(len(word) - 1))
        else:
            out.append(word)
    for m in _CN_NUMERAL_RE.finditer(run):
        value = cn_numeral_value(m.group())
        if value is not None:
            if not for_query:
                out.append(m.group())
            out.append(str(value))
    if not for_query:
        bigrams = (run[i : i + 2] for i in range(len(run) - 1))
        out.extend(b for b in bigrams if b not in ZH_STOPWORDS)
        out.extend(ch for ch in run if ch not in _ZH_STOPCHARS and ch not in ZH_STOPWORDS)
    return out


def _word_tokens(word: str) -> list[str]:
    word = word.replace("'", "").replace("’", "")
    parts = [p for p in word.split("-") if p]
    words = [*parts, "".join(parts)] if len(parts) > 1 else parts
    out: list[str] = []
    for w in words:
        if w in EN_STOPWORDS:
            continue
        out.append(w)
        stem = _light_stem(w)
        if stem != w:
            out.append(stem)
    return out


def _analyse(text: str, *, for_query: bool) -> list[str]:
    text = _normalise(text)
    tokens: list[str] = []
    for m in _CHUNK_RE.finditer(text):
        if m.group("cjk"):
            tokens.extend(_cjk_tokens(m.group("cjk"), for_query=for_query))
        elif m.group("time"):
            hh, mm = m.group("time").split(":")
            tokens.extend([str(int(hh)), f"{int(hh)}h{mm}"])
        elif m.group("num"):
            tokens.extend(_number_tokens(m.group("num"), m.group("unit")))
        elif m.group("word"):
            tokens.extend(_word_tokens(m.group("word")))
    return tokens


def _dedupe(tokens: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(t for t in tokens if t))


# ----------------------------------------------------------------------------- public API


def search_document(text: str) -> str:
    """Space-separated token string for ``to_tsvector('simple', ...)``.

    Tokens are de-duplicated (first occurrence order); ts_rank's term-frequency signal is lost,
    which is fine for short memory sentences.
    """
    return " ".join(_dedupe(_analyse(text, for_query=False)))


def search_query_terms(query: str) -> list[str]:
    """Distinct keyword terms of a search query (stop/question words and punctuation removed).

    Build an OR tsquery from them with `build_tsquery`. May be empty (e.g. "what is it?").
    """
    return _dedupe(_analyse(query, for_query=True))


def build_tsquery(terms: Iterable[str]) -> str:
    """OR-tsquery text for ``to_tsquery('simple', ...)``: ``'a' | 'b'``. '' when no terms.

    Terms are quoted (single quotes doubled, backslashes dropped) so no term is read as
    tsquery syntax.
    """
    quoted = []
    for term in _dedupe(terms):
        term = term.replace("\\", "").replace("'", "''").strip()
        if term:
            quoted.append(f"'{term}'")
    return " | ".join(quoted)


def telling_terms(query_terms: Iterable[str]) -> list[str]:
    """The query terms a shared match means something for: Chinese words of two characters or
    more, other words of three letters or more, numbers. A one-character word ("用", "帮",
    "好") or a two-letter one is shared by requests and memories about anything; a query made
    only of such words keeps them all ("辣" still finds the spicy-food preference)."""
    terms = list(query_terms)
    telling = [
        t
        for t in terms
        if (len(t) >= 2 if _CJK_CHAR_RE.search(t) else len(t) >= 3 or t.replace(".", "").isdigit())
    ]
    return telling or terms


def keyword_overlap(query_terms: Iterable[str], doc_terms: str | Iterable[str]) -> float:
    """Share (0..1) of the distinct query terms present in the document's terms.

    `doc_terms` is a `search_document` string or any iterable of tokens.
    """
    q = set(query_terms)
    if not q:
        return 0.0
    d = set(doc_terms.split()) if isinstance(doc_terms, str) else set(doc_terms)
    return len(q & d) / len(q)


__all__ = [
    "EN_STOPWORDS",
    "ZH_STOPWORDS",
    "build_tsquery",
    "keyword_overlap",
    "search_document",
    "search_query_terms",
    "telling_terms",
]
