"""Generic "thing" slots: "<my thing> is / changed to <value>" in Chinese and English ("我的网盘
换成坚果云了", "My dentist is now Dr. Gomez"), with the thing normalised (synonyms, plurals) so
both statements of one question share a slot."""

from __future__ import annotations

import re

from memory.extraction.lexicon import THING_SYNONYMS
from memory.language.dates import schedule_values
from memory.language.text import CJK
from memory.language.tokens import pos_cut

# Statements about something the lexicon does not know ("我的牙医是…", "保洁每周六来",
# "switched accountants, it's now …") still answer one question about the person: the slot is
# the normalised noun phrase of the thing (its head), the values are the name / schedule atoms.
ZH_CHANGE_VERB = (
    r"(?:换成|换到|换为|换用|改成|改用|改为|改到|改在|迁到|迁移到|转到|切到|切换到|挪到|调到|"
    r"调整为|调整到|变成)"
)


ZH_OWNER = re.compile(
    r"^(?:(?:我们|咱们|我|咱|用户)(?:的)?(?:家里|家|小区|公司|单位|团队|小组|组里|组|部门)?(?:的)?)|"
    r"^(?:家里|家|小区|公司)(?:的)?|^用户的团队"
)


ZH_THING_LEAD = re.compile(
    r"^(?:跟你说一下|对了|另外|还有|现在|目前|以后|今后|之后|从[^，,]{0,6}(?:开始|起)|已经|已|也|都|"
    r"正式|固定|全部(?:的)?|所有(?:的)?|这些|那些|把|统一|一直|平时|主要|可能|也许|或许|说不定|大概|"
    r"新的?|在用的|常用的|用的|"
    r"(?:我们|咱们|我|用户)(?:的)?(?:家里|家|小区|公司|小组|组里|组|部门)?(?:的)?)+"
)


ZH_THING_TAIL = re.compile(
    r"(?:我们|我|用户|已经|已|现在|目前|以后|今后|统一|一律|正式|固定|全部|都|也|说不定|可能|也许|或许|"
    r"要|会|得|打算|准备|想|定了|换了|改了|变了|调整了|的时间|时间|的日子|日子|的安排|安排)+$"
)


ZH_NAME_CUT = re.compile(r"[了的吧啦呢来去买带用做那这和跟给，,。；;！!？?（(]|不错|挺好|比较|更")


ZH_SCHED = re.compile(
    r"(?:每(?:个)?(?:周|星期|礼拜)[一二三四五六日天]?|每天|每晚|每早|每(?:个)?月|"
    r"(?:周|星期|礼拜)[一二三四五六日天])"
    r"(?:[、和及与跟或]?(?:周|星期|礼拜)?[一二三四五六日天])*"
    r"(?:上午|下午|中午|晚上|早上|早晨|傍晚)?(?:[零一二两三四五六七八九十\d]{1,3}(?:点|:|：)(?:半|\d{2})?)?"
)


# A family member / household / workplace the user talks about owns the thing: "孩子的英语家教是…",
# "家里的宽带是…" are facts about the user's world even without "我".
ZH_KIN = (
    r"(?:孩子|小孩|宝宝|女儿|闺女|儿子|老婆|媳妇|妻子|太太|老公|丈夫|爸妈|父母|爸爸|妈妈|爸|妈|"
    r"爷爷|奶奶|外公|外婆|姥姥|姥爷|公公|婆婆)"
)


ZH_POSSESSED = re.compile(rf"^(?:我(?:们)?(?:家)?(?:的)?)?{ZH_KIN}的|^(?:家里|公司|单位|小区)的")


ZH_ACT_LEAD = re.compile(r"^(?:我|用户)?(?:都|会|要|得)?(?:有|去|来|上|学|练|打|做|参加|报)*")


EN_TITLE = r"(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+"


EN_NAME = re.compile(rf"(?:{EN_TITLE})?[A-Z][\w'&+-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'&+-]*)*")


EN_STOP = {
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "i",
    "we",
    "me",
    "us",
    "to",
    "from",
    "now",
    "on",
    "that",
    "this",
    "it",
    "is",
    "are",
    "and",
    "or",
    "of",
    "for",
    "user",
    "user's",
    "team",
    "with",
    "at",
    "in",
    "also",
    "then",
    "so",
    "just",
    "reminder",
    "note",
    "instead",
    "still",
    "usually",
    "always",
    "officially",
    "finally",
    "all",
    "over",
}


EN_VERBS = {
    "comes",
    "come",
    "visits",
    "visit",
    "is",
    "are",
    "happens",
    "happen",
    "runs",
    "run",
    "take",
    "takes",
    "have",
    "has",
    "go",
    "goes",
    "do",
    "does",
    "attend",
    "attends",
    "meet",
    "meets",
    "starts",
    "start",
    "get",
    "gets",
    "walk",
    "walks",
    "play",
    "plays",
    "doing",
    "going",
}


EN_SCHED = re.compile(
    r"\b(?:every|each)\s+(?:other\s+)?(?:day|morning|evening|night|afternoon|week|weekday|"
    r"weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
    r"\bon\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)\b|"
    r"\b(?:daily|weekly)\b",
    re.IGNORECASE,
)


EN_NP = r"[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}"


# A family member / the household owns the thing ("the kids' pediatrician", "my wife's dentist").
EN_POSS = (
    r"(?:kids'|kid's|children's|child's|son's|daughter's|wife's|husband's|partner's|family's|"
    r"mom's|dad's|mother's|father's|parents'|baby's|girlfriend's|boyfriend's|household's|"
    # any other possessor of the user's ("my dog's vet", "our car's mechanic")
    r"(?!(?:it|that|what|who|there|here|he|she|let|one)'s\b)[a-z]{2,}(?:'s|s'))"
)


EN_POSS_CANON = {"kids": "kid", "children": "kid", "child": "kid", "mother": "mom",
                 "father": "dad", "parents": "parent"}  # fmt: skip


EN_IS = re.compile(
    rf"\b(?:(?i:my|our|the user's(?: team's)?|the user's team)\s+|"
    rf"(?i:the|my|our|the user's)\s+(?P<owner>(?i:{EN_POSS}))\s+)(?P<x>{EN_NP})\s+(?:is|are)\s+"
    r"(?:now\s+|still\s+|officially\s+)?(?:with\s+|at\s+|called\s+|named\s+|on\s+)?(?P<y>.+)$"
)


EN_IS_REV = re.compile(
    rf"(?P<y>(?:{EN_TITLE})?[A-Z][\w'&+-]*(?:\s+(?:at\s+)?[A-Z][\w'&+-]*)*)\s+(?:is|are)\s+"
    rf"(?:now\s+|still\s+)?(?i:my|our|the user's)\s+(?P<x>{EN_NP})\b"
)


EN_CHANGE = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:ed|ing)|mov(?:ed|ing)|migrat(?:ed|ing)|transferr(?:ed|ing)|"
    r"swapp(?:ed|ing))\s+(?:over\s+|everything\s+)?"
    r"(?:(?:all|both|most|some)(?:\s+of)?\s+(?:(?:my|our|the user's|the)\s+)?|"
    r"(?:my|our|the user's|the)\s+)"
    rf"(?P<x>{EN_NP})\s+(?:over\s+)?(?:to|for)\s+(?P<y>.+)$",
    re.IGNORECASE,
)


EN_CHANGE_TO = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing)|go(?:ing)?)\s+(?:over\s+)?to\s+"
    rf"(?:a|an|the|my|our|another|new)?\s*(?:new\s+)?(?P<x>{EN_NP})\s+(?:named|called)\s+"
    r"(?P<y>.+)$",
    re.IGNORECASE,
)


EN_CHANGED_NOW = re.compile(
    rf"\b(?:(?i:my|our|the user's|the)\s+(?:(?P<owner>(?i:{EN_POSS}))\s+)?)(?P<x>{EN_NP})\s+"
    r"(?:has\s+|have\s+)?(?:changed|switched|is different|are different)(?:\s+again)?[,;.]?\s*"
    r"(?:it's|it is|now it's|the new one is|(?:she|he|they)(?:'s| is| are))\s+"
    r"(?:now\s+)?(?:with\s+|at\s+|called\s+)?(?P<y>.+)$"
)


EN_SWITCHED_PLURAL = re.compile(
    r"\b(?:switched|changed|swapped)\s+(?P<x>[a-z]+s)\b[^.]{0,40}?[.,]?\s*"
    r"(?:it's|it is|now it's|the new one is|(?:she|he|they)(?:'s| is| are))\s+"
    r"(?:now\s+)?(?P<y>.+)$",
    re.IGNORECASE,
)


EN_UNCOUNTABLE = {
    "news",
    "series",
    "species",
    "glasses",
    "clothes",
    "scissors",
    "pants",
    "jeans",
    "shorts",
    "headphones",
    "earphones",
    "sales",
    "analytics",
    "physics",
    "maths",
    "electronics",
    "always",
    "gas",
    "bus",
    "lens",
    "tennis",
    "chess",
    "fitness",
    "wellness",
    "business",
    "dress",
}


def singular(word: str) -> str:
    if word in EN_UNCOUNTABLE:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def en_thing(np: str) -> str:
    words = [w for w in np.lower().split() if w]
    while words and (words[0] in EN_STOP or words[0] in EN_VERBS):
        words.pop(0)
    while words and (words[-1] in EN_STOP or words[-1] in EN_VERBS):
        words.pop()
    if not words or len(words) > 3:
        return ""
    words[-1] = singular(words[-1])
    return " ".join(words)


def _en_values(y: str) -> list[str]:
    y = re.split(
        r"(?<!Dr)(?<!Mr)(?<!Mrs)(?<!Ms)(?<!Prof)[,;.!?](?:\s|$)|"
        r"\s+(?:and|but|because|since|who|which|so|now)\s+",
        y,
        maxsplit=1,
    )[0]
    sched = schedule_values(y)
    if any(DAYLIKE.match(v) for v in sched):
        return sched
    out = [m.group(0).strip() for m in EN_NAME.finditer(y)]
    out = [v for v in out if v.lower() not in EN_STOP and v not in ("I", "The")]
    return list(dict.fromkeys(out))[:3]


def zh_thing(x: str) -> str:
    x = re.sub(r"\s+", " ", x).strip(" ，,：:")
    for _ in range(3):
        x = ZH_OWNER.sub("", x).strip()
        x = ZH_THING_LEAD.sub("", x).strip()
        x = ZH_THING_TAIL.sub("", x).strip()
    x = x.strip(" ，,的")
    if not x or re.search(r"[，,。是在每要]|用户|助手|换|改|迁|挪", x):
        return ""
    n = len(CJK.findall(x)) + len(re.findall(r"[A-Za-z]+", x))
    if n < 1 or len(x) > 10 or (CJK.search(x) and len(CJK.findall(x)) < 2 and not x.isascii()):
        return ""
    return x.lower()


def _zh_values(y: str) -> list[str]:
    y = y.strip()
    sched = schedule_values(y.split("，")[0].split(",")[0])
    if any(DAYLIKE.match(v) for v in sched):
        return sched
    latin = re.match(r"^\s*([A-Za-z][A-Za-z0-9_.+&-]*(?:\s+[A-Z][A-Za-z0-9_.+&-]*)*)", y)
    if latin:
        return [latin.group(1).strip()]
    y = re.sub(r"^(?:现在|目前|正式|已经|全部|都|了|是|用|的)+", "", y)
    name = ZH_NAME_CUT.split(y, maxsplit=1)[0].strip()
    if not name or len(name) > 10 or not (CJK.search(name) or name.isalnum()):
        return []
    return [name]


_FUNCTION_POS = ("a", "d", "r", "u", "p", "c", "m", "q", "y", "e", "o", "z")


def _contentful(thing: str) -> bool:
    """A noun phrase, not an evaluation ("太晚", "还行"): some token jieba does not tag as a
    function word / adjective / adverb / time word."""
    if thing.isascii():
        return True
    return any(not flag.startswith(_FUNCTION_POS) for _, flag in pos_cut(thing))


_NOT_IN_NP = ("d", "f", "t", "r", "p", "zg", "c", "ul", "y", "q", "m", "e", "o")


def well_formed_thing(thing: str) -> bool:
    """A noun phrase fit to name a slot: its head (last word) is a noun and no word of it is an
    adverb, time word, pronoun, preposition or particle ("组开", "开会统一" are not)."""
    if not thing:
        return False
    if thing.isascii():
        return True
    words = [(w, f) for w, f in pos_cut(thing) if w.strip() and w != "的"]
    if not words:
        return False
    if any(f.startswith(_NOT_IN_NP) and not f.startswith("uj") for _, f in words):
        return False
    if len(words) > 1 and words[0][1] == "v" and len(words[0][0]) == 1:
        return False  # verb + object ("开视频"), not a noun phrase
    head_flag = words[-1][1]
    return head_flag.startswith("n") or head_flag == "eng"


def _zh_generic(text: str) -> tuple[str, list[str]]:
    clauses = [c for c in re.split(r"[，,；;。！!]", text) if c.strip()]
    for i, clause in enumerate(clauses):
        m = re.search(ZH_CHANGE_VERB, clause)
        if not m:
            continue
        values = _zh_values(clause[m.end() :])
        thing = zh_thing(clause[: m.start()])
        if not thing and i > 0:
            prev = clauses[i - 1]
            if re.search(r"(?:换|改|变|调整|定)了$|^新的?", prev.strip()):
                thing = zh_thing(prev)
        if thing and values:
            return thing, values
    for i, clause in enumerate(clauses):
        clause = clause.strip()
        for verb in ("用的是", "找的是", "叫", "是", "用的", "主要用", "用"):
            pos = clause.find(verb)
            if pos < 0 or pos > 16:
                continue
            x = re.sub(r"(?:现在|目前|一直|平时|主要|都)+$", "", clause[:pos])
            values = _zh_values(clause[pos + len(verb) :])
            if not x and i > 0 and re.search(r"(?:换|改|变)(?:人)?了$", clauses[i - 1].strip()):
                # "教练换了，现在是王教练": the changed thing is named in the clause before
                thing = zh_thing(re.sub(r"(?:换|改|变)(?:人)?了$", "", clauses[i - 1].strip()))
                if thing and values:
                    return thing, values
            if pos < 1 or not (
                ZH_OWNER.match(x) or ZH_POSSESSED.match(x) or re.match(r"^新的?", x)
            ):
                continue
            thing = zh_thing(x)
            if thing and values:
                return thing, values
    for clause in clauses:
        m = ZH_SCHED.search(clause)
        if not m or not m.group(0):
            continue
        values = schedule_values(clause)
        if not any(DAYLIKE.match(v) for v in values):
            continue
        thing = zh_thing(clause[: m.start()])
        if re.fullmatch(ZH_KIN, thing):
            thing = ""  # "我女儿每周日…": the family member does the activity, it is not the thing
        if not thing:
            # "每周四晚上去上画画课": the activity follows the schedule after a verb lead
            after = re.sub(
                r"^(?:上午|下午|中午|晚上|早上|早晨|傍晚|晚|早|[零一二两三四五六七八九十\d]{1,3}点半?)+",
                "",
                clause[m.end() :],
            )
            after = re.sub(rf"^(?:我|我们|我家)?(?:的)?{ZH_KIN}", "", after)  # "…女儿要去上…"
            lead = ZH_ACT_LEAD.match(after)
            if lead and lead.group(0).lstrip("我用户都会要得"):
                after = ZH_NAME_CUT.split(after[lead.end() :], maxsplit=1)[0]
                thing = zh_thing(after)
                thing = thing if _contentful(thing) else ""
        if thing:
            return thing, values
    return "", []


def _en_generic(text: str) -> tuple[str, list[str]]:
    for rx in (EN_CHANGED_NOW, EN_SWITCHED_PLURAL, EN_CHANGE, EN_CHANGE_TO, EN_IS, EN_IS_REV):
        m = rx.search(text)
        if m:
            thing, values = en_thing(m.group("x")), _en_values(m.group("y"))
            owner = m.groupdict().get("owner")
            if thing and owner:
                o = re.sub(r"'s?$", "", owner.lower())
                thing = f"{EN_POSS_CANON.get(o, o)}'s {thing}"
            if thing and values:
                return thing, values
    for clause in re.split(r"[,;:.!?]\s+|\s+-\s+", text):
        m = EN_SCHED.search(clause)
        if not m:
            continue
        values = schedule_values(clause)
        if not any(DAYLIKE.match(v) for v in values):
            continue
        words = clause[: m.start()].split()
        while words and words[-1].lower() in EN_VERBS | {"instead", "still", "usually", "now"}:
            words.pop()
        np: list[str] = []
        for w in reversed(words):
            lw = w.lower().strip("'\"")
            if lw in EN_STOP or lw in EN_VERBS or not re.fullmatch(r"[a-z][a-z-]*", lw):
                break
            np.insert(0, lw)
        thing = en_thing(" ".join(np[-3:]))
        if thing:
            return thing, values
    return "", []


def generic_slot(text: str) -> tuple[str, list[str]]:
    """("thing:<noun phrase>", values) for a statement about a thing outside the lexicon."""
    thing, values = _zh_generic(text) if CJK.search(text) else _en_generic(text)
    if not thing or not values:
        return "", []
    return f"thing:{normalize_thing(thing)}", values


# Latin app / brand names inside Chinese text: never swallow a CJK particle ("LastPass里").
ZH_LATIN_NAME = r"[A-Za-z0-9][A-Za-z0-9_.+&-]*(?:\s[A-Za-z0-9][A-Za-z0-9_.+&-]*){0,2}"


def normalize_thing(thing: str) -> str:
    """Canonical noun of a generic thing slot: synonyms and word forms ("云盘" -> "网盘",
    "groceries" -> "grocery", "notes app" -> "笔记")."""
    t = thing.strip().lower()
    if t in THING_SYNONYMS:
        return THING_SYNONYMS[t]
    if t.isascii():
        words = t.split()
        if words:
            words[-1] = singular(words[-1])
            t = " ".join(words)
    return THING_SYNONYMS.get(t, t)


DAYLIKE = re.compile(r"^(?:周[一二三四五六日]|周末|\d{2}:\d{2})$")
