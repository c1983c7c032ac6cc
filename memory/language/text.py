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
    r"would|will|shall)\b|什么|怎么|为什么|哪(?:个|些|家|里|儿)|多少|几(?:个|点|天|号)|是不是|有没有|"
    r"能不能|要不要|可不可以",
    re.IGNORECASE,
)

SENT_SPLIT = re.compile(
    # "!" / "?" inside a word ("Qw!9zLm#42", "Yahoo!Japan") end no sentence
    r"(?<=[。！？\n])|(?<=[!?])(?![A-Za-z0-9#$%&*@^_])|(?<=……)|(?<=\.)(?=\s+[A-Z\u4e00-\u9fff])|(?<=[a-z]{2}\.)(?=\s+[a-z])"
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
    return [c for c in CLAUSE_SPLIT.split(sentence) if c.strip()]


def join_clauses(kept: list[str], zh: bool) -> str:
    """Clauses kept of a sentence, joined again: a Chinese clause that ended at a space (typed
    without punctuation) gets the comma the space stood for."""
    if not zh:
        return " ".join(kept)
    out = ""
    for clause in kept:
        if out and CJK.match(out[-1]) and CJK.match(clause[:1]):
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
