"""What kind of thing a name is — a car, a phone, a city, a music service — by its neighbours.

People change a fact without a change word and without repeating its topic: "我那台卡罗拉快两万
公里了" and, weeks later, "比亚迪海豹冬天续航掉得太狠"; "my manager Priya likes bullet points" and
"after the reorg I report to Marcus"; "写代码用 VS Code" and "全面切到 Neovim 了". The two
sentences share no word and sit far apart in embedding space, but each names one thing of the
same kind, and a person drives one car, uses one editor, reports to one manager at a time.

A name's kind is read off the multilingual sentence encoder's world knowledge: the kind whose
well-known examples (`data/kinds.json`) it sits closest to (mean of the three nearest), when
that is close enough. No name list is matched: an unseen model ("理想L7", "Kia EV6") lands among
the cars because the encoder has read about it. The kinds feed the replacement model
(memory/extraction/replacement.py) as one signal among its others; they decide nothing alone.

The encoder is the local multilingual USE whatever embedder stores the vectors: the examples
were placed in its space.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

import numpy as np

from memory.extraction.words import load, words
from memory.language.text import CJK
from memory.language.tokens import pos_cut

# mean similarity of a name to its kind's three nearest examples: below this it is no member
# of any kind (calibrated in tests/memory/extraction/test_kinds.py on names outside the file)
MEMBER = 0.42
# ahead of the next kind by this much, or the name is ambiguous ("Apple": company or phone)
LEAD = 0.06
# a common noun ("绿茶", "tea", "团队") is a value only of a kind whose members are common nouns
# (`common` in the file: drinks, sports, pets) and only when it sits right among them, well
# ahead of any other kind ("walkup" and "racing" sit about as close to the sports as to
# anything else: no sport)
COMMON_MEMBER = 0.6
# a lowercase word in English text ("im on verizon", "switched to mint mobile": people do not
# capitalise brands in chat) is a name of any kind only when it sits well inside it
LOWERCASE_MEMBER = 0.62
LOWERCASE_LEAD = 0.15
NEAREST = 3
# a candidate this close to a kind's own label word is the kind, not a value ("手机", "laptop")
LABEL = 0.8

# Things a person has one of at a time: when a change replaces one, every live statement about
# the old one goes stale with it ("关于netflix，用户Dark 看过了" after keeping only Disney+), and
# a question about one of them presupposes it is theirs. Not cities, people or employers: a
# friend in the old city is still there.
ONE_AT_A_TIME_KINDS = frozenset(
    {
        "car",
        "phone",
        "computer",
        "music_service",
        "video_service",
        "editor",
        "cloud",
        "chat_app",
        "notes_app",
        "bank",
        "carrier",
        "os",
        "gym",
        "headphones",
        "watch",
    }
)

_LATIN_RUN = re.compile(r"[a-z][a-z0-9&'.-]*(?: [a-z][a-z0-9&'.-]*)?")
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9+&'.-]*|\d+[A-Za-z0-9+.-]*")
_NAME_SHAPED = re.compile(r"[A-Z0-9]")
# "doesn't", "i'd", "they're": function words, never part of a name
_CONTRACTION = re.compile(r"(?:n't|'re|'ve|'ll|'d|'m)$", re.I)
# "j": an abbreviation (建行, 工行, 北大), a name more often than not
_PROPER_FLAGS = ("nr", "ns", "nt", "nz", "eng", "j")
# The object of a verb of using, joining or buying is where a Chinese name stands, whatever
# jieba makes of a brand it does not know ("来拼多多快一个月" → 拼/多多, "在平安做理赔" → an
# adjective, "换了人保" → 人/保): the span up to the next particle or verb is read as a name
# too, and typed like any other. So is
# what a thing is ("工资卡是建行的" → 建行, which jieba makes a verb).
_OBJECT_FRAME = re.compile(
    r"(?:(?<![做看想找得收听遇达受感提过失回])(?:在|来|去|到|用|改用|换(?:成|到|了)?|刷|办了?|喝|买了?|入职|跳槽到|加入|选了?|转到|投了?)"
    # "工资卡是建行的": what a thing of the speaker's is; not 就是 / 还是 / 要是 / 不是…
    r"|(?<![就还但可要若或于不算像总老真正凡倒只])是)"
    r"(?![的了个一这那几些在来到用])([\u4e00-\u9fffA-Za-z0-9]{2,6}?)"
    r"(?=[了的，,。！!？?；;、\s]|做|上班|工作|报到|实习|面试|读|念|当|买|办|快|开|上|里|那边|这边|一|每|$)"
)
_NOUN_FLAGS = ("n", "vn")


@cache
def _space() -> tuple[np.ndarray, np.ndarray, tuple[str, ...], np.ndarray, frozenset[str]]:
    """(example vectors, their kind index, kind names, label vectors, label words)."""
    from memory.embeddings import get_embedder

    spec = load("kinds")["kinds"]
    names = tuple(spec)
    texts, owner, labels = [], [], []
    for i, name in enumerate(names):
        for text in spec[name]["label"] + spec[name]["examples"]:
            texts.append(text)
            owner.append(i)
        labels.extend(spec[name]["label"])
    embedder = get_embedder("use")
    vectors = embedder.embed(texts)
    return (
        vectors,
        np.array(owner),
        names,
        embedder.embed(labels),
        frozenset(w.lower() for w in labels),
    )


@cache
def _not_values() -> frozenset[str]:
    return frozenset(
        w.lower()
        for key in ("generic_nouns_zh", "generic_nouns_en", "en_stopwords", "en_topic_stop")
        for w in words(key)
    ) | {"user", "the user", "用户", "助手"}


def candidates(text: str) -> list[tuple[str, bool]]:
    return [(name, proper) for name, proper, _ in _candidates(text)]


def _candidates(text: str) -> list[tuple[str, bool, str | None]]:
    """What in a statement could name a thing, and whether it is written as a name: runs of
    name-shaped Latin words ("Apple Music", "iPhone 16 Pro", "Kia EV6"), runs of Chinese nouns
    with a proper noun among them ("卡罗拉双擎", "比亚迪海豹", "华为Mate 60") and their parts,
    Latin words inside Chinese text ("spotify"); common nouns ("绿茶", "tea") as common."""
    found: dict[str, tuple[bool, str | None]] = {}
    zh = bool(CJK.search(text))
    tokens = list(pos_cut(text)) if zh else _latin_tokens(text)
    run: list[tuple[str, bool]] = []

    def add(name: str, proper: bool, whole: str | None = None) -> None:
        name = name.strip()
        if len(name) >= 2 and not name.isdigit() and name.lower() not in _not_values():
            if name in found:  # seen before: a name once, a part of the first run it was in
                found[name] = (found[name][0] or proper, found[name][1])
            else:
                found[name] = (proper, whole)

    def close() -> None:
        while run and not run[-1][0].strip():
            run.pop()
        parts = [(w, p) for w, p in run if w.strip()]
        if parts:
            whole = "".join(w for w, _ in run).strip()
            add(whole, any(p for _, p in parts))
            if len(parts) > 1:
                for w, p in parts:
                    add(w, p, whole)
        run.clear()

    if zh:
        # "用户" and "现在" hold frame verbs of no frame
        for m in _OBJECT_FRAME.finditer(re.sub(r"用户|现在|正在|实在|存在", "  ", text)):
            span = m.group(1)
            if _starts_generic(span):
                continue  # "到公司楼下", "在家里": a place of the speaker's, not a name
            if m.group(0).startswith("是") and _is_no_name(span):
                continue
            add(span, True)
            for end in range(2, len(span)):  # "招行经典白": the bank, then its card
                add(span[:end], True, span)
    lowercase_before = ""  # the lowercase English word just before, for two-word names
    # the lowercase words right before, none of them a common function word ("macbook air")
    lowercase_words: list[str] = []
    for at, (word, flag) in enumerate(tokens):
        latin = bool(_LATIN.fullmatch(word))
        if word.strip() and not latin:
            lowercase_before = ""
            lowercase_words.clear()
        if not word.strip():
            if run:
                run.append((" ", False))
        elif (
            word.lower() in _not_values() or _CONTRACTION.search(word)
        ) and not _before_a_designator(word, tokens[at + 1 : at + 3]):
            close()  # "用户" is nobody's name: "用户Mate 60" names "Mate 60"
            lowercase_words.clear()
            lowercase_before = ""  # "pizza the car" holds no "pizza car"
        elif latin:
            # a lowercase English word in English text is most likely a common word
            proper = bool(_NAME_SHAPED.search(word)) or zh
            if (
                proper
                and not run
                and lowercase_words
                and any(ch.isdigit() for ch in word)
                and not _clock_or_measure(word, tokens[at + 1 : at + 3])
            ):
                # words and a model number make a name, however it is typed: "pixel 7",
                # "iphone 15 pro", "macbook air m3"
                for before in lowercase_words[-2:]:
                    run.extend([(before, True), (" ", False)])
            lowercase_words = [] if proper or not word.isalpha() else [*lowercase_words, word]
            if not proper:
                close()
                if (
                    lowercase_before
                    and len(word) >= 3
                    and lowercase_before.lower() not in _not_values()
                    and word.lower() not in _not_values()
                ):
                    add(f"{lowercase_before} {word}", False)  # "mint mobile"
            run.append((word, proper))
            if not proper:
                close()
            lowercase_before = "" if proper or len(word) < 3 else word
            continue
        elif flag.startswith(_PROPER_FLAGS) and (len(word) >= 2 or run):
            run.append((word, True))
        elif flag.startswith(_NOUN_FLAGS) and (len(word) >= 2 or run):
            # one noun character continues a name jieba split ("阿里" + "云")
            run.append((word, False))
        else:
            close()
    close()
    return [(name, proper, whole) for name, (proper, whole) in found.items()]


def _is_no_name(span: str) -> bool:
    """What follows 是 is no name when said in common nouns ("我是程序员") or when it goes on
    with a verb phrase ("公司是做跨境电商的", "是在腾讯上班")."""
    cut = [(w, f) for w, f in pos_cut(span) if w.strip()]
    if all(f.startswith(_NOUN_FLAGS) for _, f in cut):
        return True
    return len(cut) > 1 and cut[0][1].startswith(("v", "p", "d", "r"))


_MEASURE_AFTER = re.compile(r"^(?::\d|am\b|pm\b|%|min|hr|h\b|k\b|kg|km|lb|mi\b|x\b)", re.I)


def _before_a_designator(word: str, after: list[tuple[str, str]]) -> bool:
    """A capitalised common word with a model letter or number after it is a name ("Model Y",
    "Series 7", "Pro 14")."""
    following = "".join(w for w, _ in after).strip()
    return word[:1].isupper() and bool(re.fullmatch(r"[A-Z0-9][A-Za-z0-9]{0,2}", following))


def _clock_or_measure(word: str, after: list[tuple[str, str]]) -> bool:
    """A number that tells the time, an amount or a count ("till 5:30", "till 5pm", "like 5
    km", "hosting 6 people"), not a model number."""
    if re.fullmatch(r"\d{1,2}(?:am|pm)", word, re.I):
        return True
    if not word.isdigit():
        return False
    following = "".join(w for w, _ in after)
    return bool(_MEASURE_AFTER.match(following) or _COUNTED.match(following.strip()))


# what a number before them counts: people, times and repeats ("hosting 6 people", "4 laps"),
# where a model number would go on with a name's word ("pixel 8 keeps", "iphone 15 pro")
_COUNTED = re.compile(
    r"^(?:people|persons?|guests?|friends?|kids?|children|adults?|members?|times?|days?|"
    r"nights?|weeks?|months?|years?|hours?|minutes?|mins?|seconds?|laps?|reps?|sets?|"
    r"miles?|steps?|pages?|items?|cups?|glasses?|bottles?|slices?|pieces?|rounds?)\b",
    re.I,
)


def _starts_generic(span: str) -> bool:
    """The span opens with a common word, a kind's own word or one of the speaker's places
    ("公司楼下", "银行卡", "家里")."""
    generic = _generic_openings()
    return any(span[:n] in generic for n in range(1, len(span) + 1))


@cache
def _generic_openings() -> frozenset[str]:
    return _not_values() | _space()[4] | frozenset(words("own_places_zh"))


def _latin_tokens(text: str) -> list[tuple[str, str]]:
    """English text as (word, flag) pairs: spaces kept, so adjacent names join into one."""
    out: list[tuple[str, str]] = []
    for piece in re.split(r"(\s+|[,;:!?()\"/]|\.(?=\s|$))", text):
        if not piece:
            continue
        if piece.isspace():
            out.append((" ", "x"))
        elif _LATIN.fullmatch(piece):
            out.append((piece.strip("'"), "eng"))
        else:
            out.append((piece, "w"))
    return out


def kind_of(
    name: str,
    *,
    proper: bool = True,
    expected: frozenset[str] = frozenset(),
    object_of_a_preposition: bool = False,
) -> str | None:
    """The kind a name is a member of, or None (no kind, or ambiguous between two: "Apple").
    `expected`: kinds the conversation already names something of; a lowercase word that sits
    nearest one is read as a name on the floor of a written name ("equinox it is now" after
    "I'm at Planet Fitness"), as a listener would."""
    _type((name,))
    kind, score, lead, by_kind = _typed[name]
    # a lowercase English word that could be a name at all
    lowercase_name = not proper and bool(_LATIN_RUN.fullmatch(name)) and not _describes_a_kind(name)
    if lowercase_name and expected:
        if kind in expected and not _common(kind) and score >= MEMBER and lead >= LOWERCASE_LEAD:
            return kind
        if kind is not None and _common(kind) and object_of_a_preposition:
            # a common word's reading ("chase" the sport) gives way to the kind said, where the
            # word stands where a provider's name goes ("we bank with chase")
            for wanted in sorted(expected):
                if by_kind.get(wanted, 0.0) >= max(MEMBER, score - LOWERCASE_LEAD):
                    return wanted
    if kind is None or lead < LEAD:
        return None
    if proper:
        return kind if score >= MEMBER else None
    if _common(kind):
        return kind if score >= COMMON_MEMBER and lead >= LOWERCASE_LEAD else None
    return kind if lowercase_name and score >= LOWERCASE_MEMBER and lead >= LOWERCASE_LEAD else None


def _describes_a_kind(name: str) -> bool:
    """Lowercase words that hold a kind's own word ("car picked", "work laptop", "bank login",
    "carriers") describe the thing, not name it, unless the file knows them as a name ("mint
    mobile", "apple watch")."""
    if name.lower() in _example_names():
        return False
    return any(_stem(token) in _label_tokens() for token in name.lower().split())


def _stem(token: str) -> str:
    """ "car's", "cars", "carriers" → "car", "carrier": the label word a token is a form of."""
    token = re.sub(r"'s$|s'$", "", token)
    if token.endswith("s") and not token.endswith("ss") and token[:-1] in _label_tokens():
        return token[:-1]
    return token


def _kinds_said(text: str) -> frozenset[str]:
    lowered = text.lower()
    tokens = {_stem(token) for token in re.findall(r"[a-z][a-z'-]*", lowered)}
    return frozenset(
        kind
        for kind, spec in load("kinds")["kinds"].items()
        if any(
            (word in lowered) if CJK.search(word) else (word.lower() in tokens)
            for word in spec["label"]
        )
    )


@cache
def _label_tokens() -> frozenset[str]:
    return frozenset(
        token
        for spec in load("kinds")["kinds"].values()
        for label_word in spec["label"]
        if not CJK.search(label_word)
        for token in label_word.lower().split()
    )


@cache
def _example_names() -> frozenset[str]:
    return frozenset(
        example.lower() for spec in load("kinds")["kinds"].values() for example in spec["examples"]
    )


def label(kind: str, *, zh: bool) -> str:
    """The shortest word the file has for a kind, in Chinese or in English ("手机", "phone")."""
    words_of_kind = [w for w in load("kinds")["kinds"][kind]["label"] if bool(CJK.search(w)) == zh]
    return min(words_of_kind, key=len)


@cache
def _common(kind: str) -> bool:
    return bool(load("kinds")["kinds"][kind].get("common"))


# name → (nearest kind, its score, its lead over the next, every kind's score), filled a
# statement at a time (one encoder call for its new names)
_typed: dict[str, tuple[str | None, float, float, dict[str, float]]] = {}
_MAX_TYPED = 50_000


def _type(names: tuple[str, ...]) -> None:
    todo = tuple(dict.fromkeys(n for n in names if n not in _typed))
    if not todo:
        return
    if len(_typed) > _MAX_TYPED:
        _typed.clear()
    _typed.update(zip(todo, _nearest_kinds(todo), strict=True))


def _nearest_kinds(
    names: tuple[str, ...],
) -> list[tuple[str | None, float, float, dict[str, float]]]:
    from memory.embeddings import get_embedder

    vectors, owner, kinds, label_vectors, label_words = _space()
    embedded = get_embedder("use").embed(list(names))
    out: list[tuple[str | None, float, float, dict[str, float]]] = []
    for name, v in zip(names, embedded, strict=True):
        if name.lower() in label_words or float((label_vectors @ v).max()) >= LABEL:
            out.append((None, 0.0, 0.0, {}))
            continue
        sims = vectors @ v
        scores = np.array([np.sort(sims[owner == i])[-NEAREST:].mean() for i in range(len(kinds))])
        order = np.argsort(scores)[::-1]
        best, second = float(scores[order[0]]), float(scores[order[1]])
        by_kind = {kind: float(score) for kind, score in zip(kinds, scores, strict=True)}
        out.append((kinds[order[0]], best, best - second, by_kind))
    return out


def named_kinds(text: str) -> dict[str, frozenset[str]]:
    """kind → the names of that kind a statement mentions (lowercased)."""
    return dict(_named_kinds(text))


def names_a_brand(text: str) -> bool:
    """Names a thing of a kind whose members are names (a carrier, a music service, a car), however
    it is written: people type brands in lowercase ("i have spotify premium", "im on verizon")."""
    return any(not _common(kind) for kind in named_kinds(text))


@cache
def _others_possessive() -> re.Pattern:
    """ "同事的", "my friend's", "老婆那台": what follows is someone else's."""
    people = sorted(
        {*words("kin_zh"), *words("kin_en"), *words("outsiders_zh"), *words("outsiders_en")},
        key=len,
        reverse=True,
    )
    alt = "|".join(re.escape(p) for p in people)
    return re.compile(
        rf"(?:{alt})(?:的|'s|’s|那|这)\s*(?:那|这)?(?:一)?(?:台|辆|部|个|款|只|块)?\s*$", re.I
    )


def someone_elses(text: str, name: str) -> bool:
    """The name stands right after another person's possessive ("借了同事的MacBook")."""
    at = text.lower().find(name.lower())
    return at > 0 and bool(_others_possessive().search(text[max(0, at - 12) : at]))


@lru_cache(maxsize=8192)
def without_others_things(text: str) -> str:
    """The statement with the names of other people's things blanked out: another person's car
    or phone says nothing about the speaker's."""
    for name, _, _ in sorted(_candidates(text), key=lambda c: -len(c[0])):
        if someone_elses(text, name):
            text = re.sub(re.escape(name), " ", text, flags=re.I)
    return text


@lru_cache(maxsize=8192)
def _typed_candidates(
    text: str, expected: frozenset[str] = frozenset()
) -> tuple[tuple[str, bool, str | None, str | None], ...]:
    """(name, written as a name, the run it is part of, its kind or None) for each candidate of
    a statement, other people's things left out; one encoder call types the new names."""
    found = _candidates(without_others_things(text))
    _type(tuple(name for name, _, _ in found))
    # a kind the statement says in so many words leads the reading of its lowercase words too
    # ("we bank with chase", "my gym is equinox")
    expected = expected | _kinds_said(text)
    return tuple(
        (
            name,
            proper,
            whole,
            kind_of(
                name,
                proper=proper,
                expected=expected,
                object_of_a_preposition=bool(expected) and _after_a_preposition(text, name),
            ),
        )
        for name, proper, whole in found
    )


def _after_a_preposition(text: str, name: str) -> bool:
    return bool(
        re.search(
            rf"\b(?:with|at|on|to|from|via|through|into)\s+(?:the\s+)?{re.escape(name)}\b",
            text,
            re.I,
        )
    )


@lru_cache(maxsize=8192)
def _named_kinds(
    text: str, expected: frozenset[str] = frozenset()
) -> tuple[tuple[str, frozenset[str]], ...]:
    typed = _typed_candidates(text, expected)
    of_run = {name: kind for name, _, whole, kind in typed if not whole}
    by_kind: dict[str, set[str]] = {}
    for name, _, whole, kind in typed:
        # a part of a typed name counts only as more of that kind: "Pro" of "iPhone 16 Pro" is
        # no computer
        if kind is not None and (whole is None or of_run.get(whole) in (None, kind)):
            by_kind.setdefault(kind, set()).add(name.lower())
    return tuple((k, frozenset(v)) for k, v in sorted(by_kind.items()))


def kinds_named_as_names(text: str, *, lowercase: bool = True) -> set[str]:
    """The kinds a statement names something of in a name's shape: Chinese, capitalised or with
    a model number ("卡罗拉双擎", "Pixel", "galaxy s25"), or a lowercase word that clears the
    lowercase bar (unless `lowercase` is false). A common English word inside Chinese ("log
    一直刷") names no notes app."""
    return {
        kind
        for name, _, _, kind in _typed_candidates(text)
        if kind is not None
        and (
            CJK.search(name)
            or _NAME_SHAPED.search(name)
            or (lowercase and kind_of(name, proper=False))
        )
    }


def same_name(a: str, b: str) -> bool:
    """One name within the other, spaces aside ("model y" ~ "tesla modely")."""
    a, b = a.replace(" ", ""), b.replace(" ", "")
    return a in b or b in a


def other_of_same_kind(new: str, old: str, *, said: str = "") -> str | None:
    """A kind of which each statement names something and no name is shared: the new one
    names another car, another editor, another manager. None otherwise. `said`: the words the
    new statement was written from; a name it holds only from the conversation before ("关于
    比亚迪，用户来回40公里" from "来回40公里吧") is not one the user named anew."""
    a = named_kinds(new)
    b = named_kinds(old)
    # each read the way the other one's kinds lead a listener to ("equinox it is now" after
    # "Planet Fitness"), for the kinds it does not name already
    if set(b) - set(a):
        a = {**dict(_named_kinds(new, frozenset(set(b) - set(a)))), **a}
    if set(a) - set(b):
        b = {**dict(_named_kinds(old, frozenset(set(a) - set(b)))), **b}
    if said:
        lowered = said.lower()
        a = {k: v for k, v in a.items() if any(name in lowered for name in v)}
    for kind in sorted(set(a) & set(b)):
        if not any(same_name(x, y) for x in a[kind] for y in b[kind]):
            return kind
    return None
