"""Sentences, clauses, language and question shape of a text (Chinese, English, mixed)."""

from __future__ import annotations

import re

from memory.extraction.lexicon import QUESTION_LIKE_NAMES

CJK = re.compile(r"[\u4e00-\u9fff]")

QUESTION_END = re.compile(r"[？?]\s*$|(?:吗|呢|么|嘛)[。.!！…]*$")

QUESTION_START = re.compile(
    # "and how do i…", "ok so what's…": a conjunction or filler may lead in
    r"^(?:(?:and|so|but|also|then|ok|okay|oh|ah+|um+|hey)[,\s]+)*"
    r"(?:what|which|how|why|where|when|who|whom|whose|is|are|do|does|did|can|could|should|"
    # as typed in chats, without the apostrophe: "whats 18% of 64.50"
    r"would|will|shall|whats|hows|wheres|whos|whys|whens)\b|什么|怎么|为什么|哪(?:个|些|家|里|儿)|多少|几(?:个|点|天|号)|是不是|有没有|"
    r"能不能|要不要|可不可以",
    re.IGNORECASE,
)

SENT_SPLIT = re.compile(
    # "!" / "?" inside a word ("Qw!9zLm#42", "Yahoo!Japan") end no sentence; a lowercase
    # sentence starts after a word, or after a number when it asks ("…w/ Windows 11. how do i…";
    # not "Zone 6b. also…", which goes on with the same answer)
    r"(?<=[。！？\n])|(?<=[!?])(?![A-Za-z0-9#$%&*@^_])|(?<=……)|(?<=\.)(?=\s+[A-Z\u4e00-\u9fff])|(?<=[a-z]{2}\.)(?=\s+[a-z])|"
    r"(?<=[0-9]\.)(?=\s+(?:how|what|why|where|when|which|who|can|could|should|would|is|are|do|does|any)\b)"
)

CLAUSE_SPLIT = re.compile(
    r"(?<=[，：、；])(?=\s*\S)|(?<=[,:;])(?=\s+\S|[\u4e00-\u9fff])|"
    # Chinese typed without punctuation: a space between two characters is the comma
    # ("帮我找个健身房 我在望京上班 最好带泳池的")
    r"(?<=[\u4e00-\u9fff] )(?=[\u4e00-\u9fff])"
)


def lang_of(text: str) -> str:
    return "zh" if len(CJK.findall(text)) >= 2 else "en"


# Sentences glued back: an abbreviated title ("Dr. Patel") and a change stated over two
# sentences ("I switched dentists. It's now Dr. Gomez.").
TITLE_END = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St)\.$")

CONTINUES = re.compile(
    r"^(?:it's|it is|now it's|now it is|the new one is|(?:she|he|they)(?:'s| is| are) now)\b",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[str]:
    parts = [p.strip() for p in SENT_SPLIT.split(text or "")]
    parts = [p for p in parts if p and not re.fullmatch(r"[\W_]+", p)]
    out: list[str] = []
    for p in parts:
        if out and TITLE_END.search(out[-1]):
            out[-1] = f"{out[-1]} {p}"
        elif out and CONTINUES.match(p) and re.search(r"\b(?:switched|changed)\b", out[-1], re.I):
            out[-1] = f"{out[-1].rstrip('.')}, {p[:1].lower()}{p[1:]}"
        else:
            out.append(p)
    return out


def split_clauses(sentence: str) -> list[str]:
    return [
        part for c in CLAUSE_SPLIT.split(sentence) if c.strip() for part in _split_after_latin(c)
    ]


# Mixed Chinese typed without punctuation: a space after a Latin word ends the clause when the
# Chinese that follows opens a new one — an adverb, a time word, a conjunction or the speaker
# ("在shopee做backend 主要写go 最近oncall好累"); not when it goes on with the same one
# ("下周要去 Berlin 出差", "tiktok 这边", "Melbourne 的冬天"), nor after words that are no clause
# ("另一个 account 已经关掉了": the account is what was closed)
_LATIN_SPACE_CJK = re.compile(r"(?<=[A-Za-z0-9]) +(?=[\u4e00-\u9fff])")
_OPENS_A_CLAUSE = ("d", "t", "c")
# jieba tags these b / f, with 大型 and 里
_OPENS_TOO = ("我", "我们", "咱们", "主要", "最近", "之前", "以前", "后来", "平时")
# a degree word says how the thing just named is ("住 Brooklyn 的 apartment 太干了")
_GOES_ON = ("太", "很", "好", "挺", "特别", "非常", "超", "真", "比较", "有点", "不")


def _split_after_latin(clause: str) -> list[str]:
    if not CJK.search(clause) or not _LATIN_SPACE_CJK.search(clause):
        return [clause]
    from memory.language.tokens import pos_cut

    parts, start = [], 0
    for m in _LATIN_SPACE_CJK.finditer(clause):
        before, after = clause[start : m.start()], clause[m.end() :]
        first = next(((w, f) for w, f in pos_cut(after[:8]) if w.strip()), ("", ""))
        said = CJK.search(before) and any(f.startswith("v") for _, f in pos_cut(before))
        opens = first[1].startswith(_OPENS_A_CLAUSE) and first[0] not in _GOES_ON
        if said and (opens or first[0] in _OPENS_TOO):
            parts.append(clause[start : m.end()])
            start = m.end()
    parts.append(clause[start:])
    return [p for p in parts if p.strip()]


def join_clauses(kept: list[str], zh: bool) -> str:
    """Clauses kept of a sentence, joined again: a Chinese clause that ended at a space (typed
    without punctuation, after a Chinese or a Latin word) gets the comma the space stood for."""
    if not zh:
        return " ".join(kept)
    out = ""
    for clause in kept:
        if out and re.match(r"[\u4e00-\u9fffA-Za-z0-9]", out[-1]) and CJK.match(clause[:1]):
            out += "，"
        out += clause
    return out


QUESTION_NAME_RE = re.compile("|".join(re.escape(n) for n in QUESTION_LIKE_NAMES))


def looks_like_question(s: str) -> bool:
    # a name ending in a particle ("饿了么") or holding a question word is not a question
    s = QUESTION_NAME_RE.sub("X", s.strip())
    return bool(QUESTION_END.search(s)) or (
        bool(QUESTION_START.match(s)) and not re.search(r"[。.!！]$", s) and lang_of(s) == "en"
    )
