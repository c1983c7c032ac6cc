"""Dialogue state: what a user turn is about when it does not say so itself.

People answer questions and continue topics elliptically: "海尔的" after "哪个牌子的？" in a talk
about a fridge, "那就不报了" after a weekend course was offered, "United, always" after "Which
airline?". The extractor completes such turns from a small state built from the session:

* `question`: the assistant's question right before the turn (its last interrogative sentence);
* `topics`: head nouns of the recent turns, most recent first — Chinese nouns from jieba's
  part-of-speech tags, English nouns after determiners / question words ("the laptop",
  "which airline"), Latin product names in either language.

`topic_for(clause)` picks the noun the clause is about: the most recent topic the clause does not
mention itself, preferring one named in the assistant's question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from memory.extraction.topics import concept_word, concepts, recent_concepts
from memory.extraction.words import words
from memory.language.text import CJK
from memory.language.tokens import pos_cut

_NOUN_FLAGS = ("n", "nz", "nt", "ns", "vn", "nrt", "nr", "ng")
_EN_NOUN = re.compile(
    r"\b(?:the|a|an|my|our|your|this|that|which|what|any|some|new)\s+"
    r"([a-z][a-z-]+)",
    re.IGNORECASE,
)
_EN_PREP_NOUN = re.compile(r"\b(?:for|about|on|of)\s+(?:the\s+)?([a-z][a-z-]{2,})\b", re.I)
_QUESTION_END = re.compile(r"[？?]\s*$")
_OPTION_LINES = re.compile(r"\n+|[。；;！!]|(?<=[.?])\s+|(?:^|\s)(?:\d+[.)、]|[-*•])\s*")
_LABEL_END = re.compile(r"[，,：:（(]|\s[-–—]\s|\s{2,}")
_ATTR_STOP = frozenset(
    [
        "那款",
        "这款",
        "那个",
        "这个",
        "那种",
        "这种",
        "就要",
        "就",
        "要",
        "那就",
        "的",
        "吧",
        "了",
        "呢",
        "啊",
        "one",
        "the",
        "that",
        "this",
        "it",
    ]
)


def _attribute_words(clause: str) -> list[str]:
    """Words that tell options apart ("白色", "贵", "blue", "14"), not deictics or particles."""
    if CJK.search(clause):
        words_ = [w for w, f in pos_cut(clause) if w.strip() and w not in _ATTR_STOP]
        words_ = [w for w in words_ if not _is_particle(w)]
    else:
        words_ = [w for w in re.findall(r"[a-z0-9]+", clause.lower()) if w not in _ATTR_STOP]
        words_ = [w for w in words_ if len(w) >= 2 and w not in _en_stop()]
    return [w.lower() for w in words_]


def _is_particle(word: str) -> bool:
    return bool(re.fullmatch(r"[的了吧呢啊呀哦嘛，,。.!！?？\s]+", word))


_SENTENCES = re.compile(r"(?<=[。！？!?\n])|(?<=\.)\s+")


def _generic() -> frozenset[str]:
    return frozenset(words("generic_nouns_zh")) | frozenset(words("generic_nouns_en"))


def _en_stop() -> frozenset[str]:
    return frozenset(words("en_stopwords"))


def head_nouns(text: str, *, common_only: bool = False) -> list[str]:
    """Content nouns of a text in order of appearance (no generic nouns, no duplicates);
    `common_only` leaves out proper names (the values, not the topics, of a statement).
    Cached: each turn is looked at again for the next turns' dialogue state."""
    return list(_head_nouns(text, common_only))


@lru_cache(maxsize=8192)
def _head_nouns(text: str, common_only: bool) -> tuple[str, ...]:
    generic, stop = _generic(), _en_stop()
    flags = ("n", "vn", "ng") if common_only else _NOUN_FLAGS
    found: list[str] = []
    if CJK.search(text):
        for word, flag in pos_cut(text):
            w = word.strip()
            if flag == "eng" and len(w) >= 3 and w.lower() not in stop and w not in generic:
                # code-switching mostly borrows nouns ("region 呢？", "用哪个 cloud"); names
                # ("AWS", "Terraform") are values, not topics
                if not (common_only and (w[0].isupper() or any(ch.isdigit() for ch in w))):
                    found.append(w.lower())
                continue
            if not w or w in generic or (flag not in flags and not flag.startswith(flags)):
                continue
            if common_only and flag.startswith(("nr", "ns", "nt", "nz")):
                continue
            if CJK.search(w) and (len(w) < 2 or w[0] in "太很好真挺超蛮较更最"):
                continue  # "太贵" is a judgement, not a thing
            found.append(w)
    for rx in (_EN_NOUN, _EN_PREP_NOUN):
        for m in rx.finditer(text):
            phrase = [t for t in m.group(1).lower().split() if t not in stop]
            if phrase and phrase[-1] not in generic and not phrase[-1].endswith(("ing", "ly")):
                found.append(" ".join(phrase))
    return tuple(dict.fromkeys(found))


def last_question(text: str) -> str:
    sentences = [s.strip() for s in _SENTENCES.split(text or "") if s.strip()]
    questions = [s for s in sentences if _QUESTION_END.search(s) or re.search(r"吗|呢", s[-3:])]
    return questions[-1] if questions else ""


@dataclass(frozen=True)
class DialogueState:
    question: str = ""
    topics: tuple[str, ...] = ()
    question_topics: tuple[str, ...] = ()
    concepts: tuple[str, ...] = ()  # topic concepts of the earlier turns, most recent first
    reply: str = ""  # the assistant's turn right before, whole
    person: str = ""  # the family member or pet the user talked about last ("儿子", "daughter")
    # the user's turn before hedged ("iPhone 17 出了 有点想换…再观望观望吧"): what the topic names
    # is a thing weighed up, not one of theirs, and an answer about it is as tentative
    weighing: bool = False
    # the reply right before is a text the user asked the assistant to write, translate or
    # rewrite: a name inside it is the text's, not an option offered
    reply_is_a_draft: bool = False

    def resolve_pronoun(self, sentence: str) -> str:
        """A sentence that starts with he / she / 他 / 她 about the person last talked about
        ("他是初二了" after "我儿子今年初一" → "我儿子是初二了"); unchanged otherwise."""
        if not self.person:
            return sentence
        lead = _LEAD_FILLER.match(sentence)
        head, rest = (sentence[: lead.end()], sentence[lead.end() :]) if lead else ("", sentence)
        if CJK.search(self.person):
            m = re.match(r"(?:他|她|它)(?!们)", rest)
            return head + f"我{self.person}" + rest[m.end() :] if m else sentence
        m = re.match(r"(?:he|she)(?='s\b|\s)", rest, re.I)
        return head + f"my {self.person}" + rest[m.end() :] if m else sentence

    def referent(self, clause: str) -> str:
        """The named option of the assistant's last reply that a deictic choice points at:
        the one whose line shares the clause's attribute words ("白色的" → the line naming a
        white model), or the only one named. "" when none or ambiguous."""
        from memory.extraction.salience import deictic, elliptical, named_things

        if not self.reply or self.reply_is_a_draft or not deictic(clause) or not elliptical(clause):
            return ""
        if named_things(clause):
            return ""
        options: list[tuple[str, str]] = []
        for line in _OPTION_LINES.split(self.reply):
            names = [n for n in named_things(line) if len(n) >= 2]
            if not names:
                continue
            # the option's label: its line up to the first separator ("飞利浦 HX6730，白色…")
            label = _LABEL_END.split(line.strip(), maxsplit=1)[0].strip()
            short = len(label) <= 16 if CJK.search(label) else len(label.split()) <= 4
            name = label if names[0] in label and short else names[0]
            if not any(name == o for o, _ in options):
                options.append((name, line.lower()))
        if not options:
            return ""
        attrs = _attribute_words(clause)
        if len(options) == 1:
            # one option offered: a bare "that one" takes it; a described one must match it
            return options[0][0] if not attrs or any(a in options[0][1] for a in attrs) else ""
        scored = sorted(
            ((sum(a in line for a in attrs), name) for name, line in options), reverse=True
        )
        if scored[0][0] > 0 and (len(scored) == 1 or scored[0][0] > scored[1][0]):
            return scored[0][1]
        return ""

    def topic_for(self, clause: str) -> str:
        """The noun an elliptical clause is about, "" when the state has none: the thing the
        user was talking about, narrowed by the aspect the assistant asked for ("trip" +
        "airline", "冰箱" + a generic "牌子" → "冰箱")."""
        low = clause.lower()
        aspect = next((n for n in self.question_topics if n.lower() not in low), "")
        # the aspect asked for is one of a thing, not of a place or a person ("预算" of the
        # 空调 talked about, not of 重庆 where the user lives)
        things = [n for n in self.topics if n.lower() not in low]
        if aspect:
            things = [n for n in things if not _a_place_or_person(n)] or things
        thing = next(iter(things), "")
        if thing and aspect and aspect not in thing:
            return f"{thing}的{aspect}" if CJK.search(thing + aspect) else f"{thing} {aspect}"
        return thing or aspect


def _concept_words_in(question: str) -> list[str]:
    """Topic words a question asks about when the tagger reads none as a noun ("预算大概多
    少？": 预算 is tagged a verb)."""
    zh = bool(CJK.search(question))
    named = (concept_word(c, zh) for c in concepts(question, words_of_one_char=False))
    return [w for w in named if w and w in question]


def _a_place_or_person(noun: str) -> bool:
    return any(flag.startswith(("ns", "nr")) for _, flag in pos_cut(noun))


# Asking for a text to be produced from one's words: what comes back is that text
_DRAFT_REQUEST = re.compile(
    r"翻译|翻成|译成|改写|润色|改得|改成|顺一点|通顺|formal一点|正式一点|"
    r"\b(?:translate|rewrite|reword|rephrase|proofread|polish|paraphrase|make it (?:more )?"
    r"(?:formal|casual|shorter|concise))\b",
    re.I,
)


# weighing up a change of something ("有点想换", "还没想好要不要换", "thinking of switching"),
# not deliberating over a step to take ("我要不要提前准备点问题")
_WEIGHS_A_CHANGE = re.compile(
    r"(?:想|要不要|该不该|考虑|打算|在想|犹豫|纠结|心动)[^，,。！？?!]{0,4}?(?:换|搬|买|入手|升级|转|辞职|跳槽)|"
    r"\b(?:thinking (?:about|of)|considering|might|maybe|tempted to)\b[^.?!,;]{0,30}?"
    r"\b(?:switch\w*|mov(?:e|ing)|buy\w*|upgrad\w+|trad\w+|chang\w+|quit\w*)\b",
    re.IGNORECASE,
)


def dialogue_state(turns, idx: int, *, window: int = 4) -> DialogueState:
    """State before `turns[idx]` from at most `window` earlier turns of the session."""
    question = ""
    if idx > 0 and turns[idx - 1].role == "assistant":
        question = last_question(turns[idx - 1].content or "")
    recent: list[str] = []
    start = max(0, idx - window)
    for turn in reversed(turns[start:idx]):
        if turn.role not in ("user", "assistant"):
            continue
        text = turn.content or ""
        if turn.role == "assistant":
            # only the assistant's question names the topic; its long replies name many things
            text = last_question(text)
        for noun in head_nouns(text):
            if noun not in recent:
                recent.append(noun)
    q_topics = tuple(head_nouns(question) or _concept_words_in(question)) if question else ()
    earlier = [
        (t.content or "") if t.role == "user" else last_question(t.content or "")
        for t in turns[start:idx]
        if t.role in ("user", "assistant")
    ]
    reply = turns[idx - 1].content or "" if idx > 0 and turns[idx - 1].role == "assistant" else ""
    # the user's own words are the topic; the question's nouns ("颜色", "airline") say which
    # aspect of it is answered
    user_nouns = [n for n in recent if n not in q_topics]
    person = ""
    for turn in reversed(turns[start:idx]):
        if turn.role == "user":
            found = _person_rx().findall(turn.content or "")
            if found:
                person = next(p for p in reversed(found[-1]) if p)
                break
    asked_for = next(
        (t.content or "" for t in reversed(turns[start : idx - 1]) if t.role == "user"), ""
    )
    last_user = next((t.content or "" for t in reversed(turns[start:idx]) if t.role == "user"), "")
    return DialogueState(
        weighing=bool(_WEIGHS_A_CHANGE.search(last_user)),
        reply_is_a_draft=bool(reply and _DRAFT_REQUEST.search(asked_for)),
        question=question,
        topics=tuple(user_nouns),
        question_topics=q_topics,
        concepts=tuple(recent_concepts(earlier)),
        reply=reply,
        person=person,
    )


@cache
def _person_rx() -> re.Pattern:
    """A family member the user mentions ("我儿子", "my daughter")."""
    zh = "|".join(sorted(words("kin_zh"), key=len, reverse=True))
    en = "|".join(sorted(words("kin_en"), key=len, reverse=True))
    return re.compile(rf"我(?:的|家)?({zh})|\bmy ({en})\b", re.I)


_LEAD_FILLER = re.compile(
    r"^(?:(?:啊|哦|嗯|对|不对|不是|我说错了|说错了|sorry|oh|no|wait)[\s,，!！.。]*)+", re.I
)
