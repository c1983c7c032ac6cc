"""Topics: do two statements answer the same question about the person?

Slots only match when two statements are worded alike. People change a fact in other words —
"The user bikes to work" → "gave up the bike commute, Caltrain every day now"; "每天一杯 flat
white" → "已经 quit caffeine 了，现在早上喝 rooibos". Two statements are on one topic when
they are close in embedding space *and* share what they are about:

* a topic concept from `data/topics.json` (residence, employer, commute, drink, …), stronger
  when a person has one value of it at a time (`single`);
* a common noun (jieba nouns in Chinese, nouns after determiners in English) — the values
  themselves (brands, places, numbers) are what differs, so names do not count.

`topic_score` adds those to the cosine similarity; `same_topic` compares it with a threshold
calibrated on pairs written for that purpose (tests/memory/test_topics.py).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from memory.extraction.words import load, words
from memory.language.dates import WEEKDAY_VALUE, schedule_values
from memory.language.text import CJK

SINGLE_BONUS = 0.35
MULTI_BONUS = 0.15
NOUN_BONUS = 0.1
CONTRAST_BONUS = 0.05
# A change naming one thing where an older statement this close names another is a swap of the
# value even without a shared topic word (memory/decisions.py `_value_swapped`).
SWAP_SIMILARITY = 0.35
SAME_TOPIC = 0.6
SAME_SINGLE_TOPIC = 0.55
MIN_SIMILARITY = 0.2

_NUMBER = re.compile(r"\d+(?:[.:]\d+)?")


@cache
def _concepts() -> list[tuple[str, bool, re.Pattern | None, re.Pattern | None, frozenset, bool]]:
    out = []
    for name, spec in load("topics")["concepts"].items():
        zh = [re.escape(w) for w in spec.get("zh", []) if len(w) > 1]
        zh_chars = frozenset(w for w in spec.get("zh", []) if len(w) == 1)
        en = [rf"(?<![a-z]){re.escape(stem_words(w))}(?![a-z])" for w in spec.get("en", [])]
        out.append(
            (
                name,
                bool(spec.get("single")),
                re.compile("|".join(zh)) if zh else None,
                re.compile("|".join(en), re.I) if en else None,
                zh_chars,
                bool(spec.get("recall_only")),
            )
        )
    return out


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def stem_words(text: str) -> str:
    """English words crudely stemmed ("bikes"/"biking"/"biked" → "bik"), other text kept."""
    return re.sub(r"[A-Za-z]+", lambda m: _stem(m.group(0).lower()), text)


def concepts(text: str, *, words_of_one_char: bool = True, recall: bool = False) -> dict[str, bool]:
    """Topic concepts a statement touches → whether each is single-valued (cached).
    `words_of_one_char=False` skips the concept words of one Chinese character ("车", "住"),
    which need a segmentation: recall checks many memories on the request path. `recall=True`
    adds the concepts that only say what a request needs (`recall_only` in the file: the
    person's family for "with the kids"), never what links two statements for a change."""
    return dict(_concepts_of(text, words_of_one_char, recall))


@lru_cache(maxsize=8192)
def _concepts_of(
    text: str, words_of_one_char: bool, recall: bool = False
) -> tuple[tuple[str, bool], ...]:
    return tuple(_find_concepts(text, words_of_one_char, recall).items())


def _find_concepts(
    text: str, words_of_one_char: bool = True, recall: bool = False
) -> dict[str, bool]:
    """Topic concepts a statement touches → whether each is single-valued. A one-character
    Chinese word counts only as a word of its own ("车", not the 车 of "自行车")."""
    return {
        name: single
        for name, (single, _) in _concept_hits(text, words_of_one_char, recall=recall).items()
    }


def concepts_of_names(text: str) -> set[str]:
    """The concepts the named things of a statement stand for, for what a request needs only:
    "用户在 Amazon 做 SDE2" is about work without a word for it (a company → employer). Reads
    the encoder (`kinds.named_kinds`), so recall asks only when a word match failed."""
    from memory.extraction import kinds

    by_kind = _kind_concepts()
    named = set(kinds.named_kinds(text)) & set(by_kind)
    return {name for kind in named for name in by_kind[kind]}


@cache
def concepts_named_by_kinds() -> frozenset[str]:
    return frozenset(name for names in _kind_concepts().values() for name in names)


@cache
def _kind_concepts() -> dict[str, tuple[str, ...]]:
    """kind of thing (data/kinds.json) → the concepts it stands for (`kinds` in topics.json)."""
    out: dict[str, list[str]] = {}
    for name, spec in load("topics")["concepts"].items():
        for kind in spec.get("kinds", ()):
            out.setdefault(kind, []).append(name)
    return {kind: tuple(names) for kind, names in out.items()}


def _concept_hits(
    text: str, words_of_one_char: bool = True, *, recall: bool = False, first_only: bool = True
) -> dict[str, tuple[bool, set[str]]]:
    """Concept → (single-valued, the words of the text that touch it); `first_only` stops at
    the first word found, which is all that telling whether a concept is touched needs."""
    from memory.language.tokens import pos_cut

    found: dict[str, tuple[bool, set[str]]] = {}
    tokens = {w for w, _ in pos_cut(text)} if words_of_one_char and CJK.search(text) else set()
    stemmed = stem_words(text)
    for name, single, zh, en, zh_chars, recall_only in _concepts():
        if recall_only and not recall:
            continue
        if first_only:
            hit = (zh and zh.search(text)) or (en and en.search(stemmed))
            words = {hit.group(0)} if hit else zh_chars & tokens
        else:
            words = {m.group(0) for m in zh.finditer(text)} if zh else set()
            words |= {m.group(0).lower() for m in en.finditer(stemmed)} if en else set()
            words |= zh_chars & tokens
        if words:
            found[name] = (single, words)
    return found


@cache
def concept_word(name: str, zh: bool) -> str:
    """A word that names concept `name` ("car_service" → "保养"): lets the topic of earlier
    turns stand in the text of a statement that does not name it."""
    spec = load("topics")["concepts"][name]
    listed = [w for w in spec.get("zh" if zh else "en", []) if len(w) > 1] or [
        w for w in spec.get("en" if zh else "zh", []) if len(w) > 1
    ]
    return listed[0] if listed else ""


def recent_concepts(texts: list[str]) -> list[str]:
    """Concepts of the earlier turns, most recent first."""
    found: list[str] = []
    for text in reversed(texts):
        found.extend(c for c in concepts(text, words_of_one_char=False) if c not in found)
    return found


@cache
def _query_cues() -> tuple[dict[str, tuple[str, ...]], list[tuple[str, re.Pattern]]]:
    related: dict[str, tuple[str, ...]] = {}
    asks: list[tuple[str, re.Pattern]] = []
    for name, spec in load("topics")["concepts"].items():
        related[name] = tuple(spec.get("related", ()))
        cues = [re.escape(w) for w in spec.get("asks_zh", [])]
        # a cue counts in the plural too ("plan my dinners", "my shifts")
        cues += [rf"(?<![a-z]){re.escape(w)}(?:e?s)?(?![a-z])" for w in spec.get("asks_en", [])]
        if cues:
            asks.append((name, re.compile("|".join(cues), re.I)))
    return related, asks


def query_concepts(query: str) -> frozenset[str]:
    """The concepts a recall query bears on: those it names, those it asks about without
    naming them ("near me" → residence), and their related concepts (a trip → flight,
    hotel). For recall only: it never links two statements for a change."""
    related, asks = _query_cues()
    found = set(concepts(query, words_of_one_char=False, recall=True))
    found |= {name for name, rx in asks if rx.search(query)}
    return frozenset(found | {r for name in found for r in related.get(name, ())})


def common_nouns(text: str) -> set[str]:
    from memory.extraction.dialogue import head_nouns
    from memory.extraction.rules.rewrite import WE_AS_OWNER

    text = WE_AS_OWNER.sub(" ", text)
    nouns = {n.lower() for n in head_nouns(text, common_only=True)}
    if not CJK.search(text):
        nouns |= {
            w.rstrip("s")
            for w in re.findall(r"[a-z]{4,}", text.lower())
            if w not in words("en_topic_stop")
        }
    return nouns


def value_atoms(text: str) -> list[str]:
    """The concrete values of a statement: names, model numbers, numbers."""
    from memory.extraction.salience import named_things

    atoms = [n for n in named_things(text) if n.lower() not in ("user", "the user")]
    atoms += _NUMBER.findall(text)
    return list(dict.fromkeys(atoms))


def topic_score(
    new: str, old: str, similarity: float, *, single_only: bool = False, context: str = ""
) -> tuple[float, str]:
    """(score, why) of two statements being about the same topic; `single_only` counts only
    single-valued concepts; `context` (the conversation's topic words) adds concepts only."""
    if similarity < MIN_SIMILARITY:
        return similarity, ""
    a, b = concepts(f"{new} {context}" if context else new), concepts(old)
    shared = {c for c in set(a) & set(b) if a[c] or not single_only}
    if single_only and not shared:
        return similarity, ""
    score, why = similarity, []
    if shared:
        single = any(a[c] for c in shared)
        score += SINGLE_BONUS if single else MULTI_BONUS
        why.append("topic " + "/".join(sorted(shared)))
    nouns = common_nouns(new) & common_nouns(old)
    if nouns:
        score += NOUN_BONUS
        why.append("shared " + "/".join(sorted(nouns)[:3]))
    if why and names_differ(new, old):
        # a change replaces one named value by another: of two statements on the topic, the
        # one that names a value is the likelier one replaced
        score += CONTRAST_BONUS
        why.append("another name")
    return score, ", ".join(why)


def _concept_words(text: str, recall: bool = False) -> dict[str, set[str]]:
    """The words by which a statement touches each single-valued concept."""
    return {
        name: words
        for name, (single, words) in _concept_hits(text, first_only=False, recall=recall).items()
        if single
    }


def says_another_value(new: str, old: str) -> bool:
    """Of a question a person has one answer to at a time, each statement answers it in words
    the other does not use: "合租 / 室友" then "一个人住", "night shifts" then "on days": the
    words of the answer swapped, whatever the values are called. Somebody else's thing ("借了同事的
    MacBook") answers nothing of the speaker's."""
    from memory.extraction.kinds import without_others_things

    a = _concept_words(without_others_things(new))
    b = _concept_words(without_others_things(old))
    return any(a[c] - b[c] and b[c] - a[c] for c in set(a) & set(b))


def another_name_for_one_answer(new: str, old: str) -> bool:
    """Both statements answer a question a person has one answer to at a time (where they
    live, whom they work for) and name different things: "住 Fitzroy 这边老房子" after "周末想吃
    brunch，住 Tiong Bahru 附近", however little the rest of the wording has in common."""
    a, b = concepts(new), concepts(old)
    return any(a[c] or b[c] for c in set(a) & set(b)) and names_differ(new, old)


def answers_anew(new: str, old: str, asked: frozenset[str] = frozenset()) -> bool:
    """The newer statement gives another answer to a question a person has one answer to at a
    time: it names another thing of a one-at-a-time kind (another car, another bank), or, on a
    one-answer concept the request asks about (`asked`), another name or other words for the
    answer. Somebody else's things answer nothing of the speaker's. For recall: two answers
    to one question never both go into a context."""
    from memory.extraction.kinds import (
        ONE_AT_A_TIME_KINDS,
        other_of_same_kind,
        without_others_things,
    )

    if _about_someone_else(new) or _about_someone_else(old):
        return False
    if other_of_same_kind(new, old) in ONE_AT_A_TIME_KINDS:
        return True
    a = concepts(without_others_things(new), words_of_one_char=False, recall=True)
    b = concepts(without_others_things(old), words_of_one_char=False, recall=True)
    on_one_answer = {c for c in set(a) & set(b) & asked if a[c] or b[c]}
    if not on_one_answer:
        return False
    if names_differ(new, old):
        return True
    x = _concept_words(without_others_things(new), recall=True)
    y = _concept_words(without_others_things(old), recall=True)
    return any(x[c] - y[c] and y[c] - x[c] for c in on_one_answer & set(x) & set(y))


@cache
def _someone_else_rx() -> re.Pattern:
    people = sorted(
        {*words("kin_zh"), *words("kin_en"), *words("outsiders_zh"), *words("outsiders_en")},
        key=len,
        reverse=True,
    )
    alt = "|".join(re.escape(p) for p in people)
    return re.compile(rf"^(?:用户(?:的)?\s*(?:{alt})|the user's (?:{alt})s?\b)", re.I)


def _about_someone_else(text: str) -> bool:
    """ "用户的老公是律师", "The user's sister drives a Kia": the answer is someone else's."""
    return bool(_someone_else_rx().match(text.strip()))


def names_another(new: str, old: str) -> bool:
    """Each statement names something the other does not, whatever they share: "Mia starts
    at Roosevelt High" after "Mia is in 8th grade at Lincoln Middle" (Mia is shared; her
    school is not)."""
    a, b = _names(new), _names(old)
    return bool(a - b and b - a) and not any(x in y or y in x for x in a - b for y in b - a)


def _names(text: str) -> set[str]:
    from memory.extraction.kinds import without_others_things
    from memory.extraction.salience import named_things

    return {
        n.lower()
        for n in named_things(without_others_things(text))
        if n.lower() not in ("user", "the user") and not n[:1].isdigit()
    }


def names_in_one_frame(new: str, old: str) -> bool:
    """A name only the new statement has stands where a name only the old one has stood: the
    same words just before or just after both ("infra 全在 AWS 上" / "infra 全在 GCP 上",
    "目标浙大计算机" / "报的南大计算机", "住天河这边" / "番禺这边"). One filler swapped for
    another in one frame is what a change of a value looks like, whatever the value's kind."""
    a, b = _names(new), _names(old)
    mine, theirs = a - b, b - a
    if not mine or not theirs:
        return False
    frames_new = {f for name in mine for f in _frames(new, name)}
    return any(f in frames_new for name in theirs for f in _frames(old, name))


# the two Chinese characters just before / just after a name
_FRAME_ZH_BEFORE = re.compile(r"[\u4e00-\u9fff]{2}$")
_FRAME_ZH_AFTER = re.compile(r"^[\u4e00-\u9fff]{2}")


def _frames(text: str, name: str) -> set[tuple[str, str]]:
    """("before" / "after", the words there) for each place a name stands in a statement: two
    Chinese characters, or an English word with the short word between ("works at": "for"
    alone says nothing). The person's own words ("用户", "the user's") are no frame."""
    text = re.sub(r"用户|the user(?:'s)?|\buser'?s?\b", "  ", text.lower())
    out: set[tuple[str, str]] = set()
    for m in re.finditer(re.escape(name.lower()), text):
        before = _frame_words(text[: m.start()].rstrip(), reverse=True)
        after = _frame_words(text[m.end() :].lstrip(), reverse=False)
        out |= {("before", before)} if before else set()
        out |= {("after", after)} if after else set()
    return out


def _frame_words(side: str, *, reverse: bool) -> str:
    zh = (_FRAME_ZH_BEFORE if reverse else _FRAME_ZH_AFTER).search(side)
    if zh:
        return zh.group(0)
    if reverse:
        found = re.findall(r"[a-z][a-z'-]*", side[-40:]) if side[-1:].isalpha() else []
        picked = found[-2:] if found and found[-1] in words("en_stopwords") else found[-1:]
    else:
        found = re.findall(r"[a-z][a-z'-]*", side[:40]) if side[:1].isalpha() else []
        picked = found[:2] if found and found[0] in words("en_stopwords") else found[:1]
    phrase = " ".join(picked)
    if not picked or all(w in words("en_stopwords") for w in picked) or len(phrase) < 3:
        return ""
    return phrase


def names_differ(new: str, old: str) -> bool:
    """Both statements name something (a brand, a place, a person — not a quantity such as
    "5k"; not someone else's thing, "同事的MacBook") and no name is shared."""
    a, b = _names(new), _names(old)
    return bool(a and b and not a & b)


_NAME_SHAPED = re.compile(r"[A-Z0-9]")  # "United", "iPhone", "X-T4" — not "alert", "team"


def literal_names(text: str) -> list[str]:
    """Names and models as written ("United", "Mate 70", "X-T4"), not the lexicon's canonical
    entities a word maps to (those name topics, not values)."""
    return [
        v for v in value_atoms(text) if v in text and not v.isdigit() and _NAME_SHAPED.search(v)
    ]


_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])")  # "9:30", not the "1:1" of a meeting


def concrete_values(text: str) -> set[str]:
    """The concrete values a statement names: names and models as written, weekdays (as
    "周二" whatever the language), clock times as written."""
    named = {v.lower() for v in literal_names(text)}
    days = {v for v in schedule_values(text) if WEEKDAY_VALUE.match(v)}
    return named | days | set(_CLOCK.findall(text))


def shared_values(new: str, old: str) -> set[str]:
    """The concrete values both statements name."""
    return concrete_values(new) & concrete_values(old)


_AMOUNT = r"\d+(?:[.,]\d+)?"
_CURRENCY = re.compile(rf"([$¥￥€£])\s*({_AMOUNT})(k\b)?", re.I)


@cache
def _measure() -> re.Pattern:
    # units that count time are no measure: "for a few months", then "the first couple weeks"
    time = set(words("time_units"))
    units = sorted((u for u in words("units") if u not in time), key=len, reverse=True)
    alt = "|".join(re.escape(u) for u in units)
    return re.compile(rf"(?<![\d.])({_AMOUNT})\s*({alt})(?![A-Za-z])", re.I)


# One unit, several spellings: "82公斤" and "78.5kg" measure one thing.
_SAME_UNIT = {
    "千克": "kg",
    "公斤": "kg",
    "kilos": "kg",
    "lbs": "lb",
    "pounds": "lb",
    "公分": "cm",
    "厘米": "cm",
    "毫米": "mm",
    "千米": "km",
    "公里": "km",
    "毫克": "mg",
    "毫升": "ml",
    "元": "¥",
    "块": "¥",
    "￥": "¥",
    "美元": "$",
    "刀": "$",
    "dollars": "$",
    "bucks": "$",
    "usd": "$",
}
# A figure with no unit ("月租 6800", "房租 4500 一个月"): three digits or more, or a decimal;
# not a year, a clock time, a date, a version or part of a name ("RTX4050").
_FIGURE = re.compile(
    r"(?<![\d.:/\-A-Za-z$¥￥€£])(?!(?:19|20)\d\d(?!\d))(\d{3,}(?:,\d{3})*(?:\.\d+)?|\d+\.\d+)"
    r"(?![\d.:/\-A-Za-z%])"
)


def amounts(text: str) -> dict[str, set[float]]:
    """The measured amounts a statement names, by unit: "sertraline 50mg" → {mg: {50}},
    "rent $2,800" → {$: {2800}}, "82公斤" → {kg: {82}}; figures without a unit under "#"
    ("月租 6800" → {#: {6800}}). Not counts of time."""
    found: dict[str, set[float]] = {}
    spans: list[tuple[int, int]] = []
    for m in _measure().finditer(text):
        unit = m.group(2).lower()
        found.setdefault(_SAME_UNIT.get(unit, unit), set()).add(float(m.group(1).replace(",", "")))
        spans.append(m.span())
    for m in _CURRENCY.finditer(text):
        value = float(m.group(2).replace(",", "")) * (1000 if m.group(3) else 1)
        found.setdefault(_SAME_UNIT.get(m.group(1), m.group(1)), set()).add(value)
        spans.append(m.span())
    for m in _FIGURE.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            found.setdefault("#", set()).add(float(m.group(1).replace(",", "")))
    return found


def amounts_differ(new: str, old: str) -> bool:
    """Both statements measure something in one unit and the new one gives an amount the old
    does not ("bumped up to 100mg" after "on 50mg"; "预算提到5000元" after "预算3000元")."""
    a, b = amounts(new), amounts(old)
    return any(a[unit] - b[unit] for unit in set(a) & set(b))


def same_topic(
    new: str,
    old: str,
    similarity: float,
    *,
    single_only: bool = False,
    change: bool = False,
    context: str = "",
) -> tuple[bool, float, str]:
    """Same topic when the score reaches SAME_TOPIC — or SAME_SINGLE_TOPIC when they share a
    one-at-a-time concept (a person has one commute, one employer): there a change worded far
    from the old statement ("gave that up, light rail now" vs "bikes to work") still counts.
    A change that names a value of the old statement ("周二周四那个课已经停了" after "每周二、
    周四学钢琴") points at it whatever the topic words."""
    if change and similarity >= MIN_SIMILARITY:
        named = shared_values(new, old)
        if named:
            score, why = topic_score(new, old, similarity)
            why = ", ".join(filter(None, [why, "names " + "/".join(sorted(named)[:3])]))
            return True, score + SINGLE_BONUS, why
    mine = concepts(f"{new} {context}" if context else new)
    single = any(c for c, s in mine.items() if s and c in concepts(old))
    if single and change:
        # a change word on a one-at-a-time concept ("relocate 到新加坡了" / "base 在深圳"):
        # the concept says what is replaced even where the embedding is lost (code-switching)
        score, why = topic_score(
            new, old, max(similarity, MIN_SIMILARITY), single_only=True, context=context
        )
        return bool(why), score, why
    score, why = topic_score(new, old, similarity, single_only=single_only, context=context)
    needed = SAME_SINGLE_TOPIC if single else SAME_TOPIC
    return score >= needed and bool(why), score, why
