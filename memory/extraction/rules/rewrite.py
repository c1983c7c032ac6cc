"""Declarative rewriting: the user's words about themselves become words about "用户" / "the
user" (pronouns, "we" of a team or a family, English person and tense); concrete words are kept
verbatim."""

from __future__ import annotations

import re

from memory.aliases import entity_type, find_entity_spans
from memory.language.text import CJK
from memory.language.tokens import pos_cut

ZH_PRONOUNS = [
    (re.compile(r"(?:我们|咱们)(?:的)?组(?![长员织建合成])"), "用户的小组"),
    (re.compile(r"(?:我们|咱们|我)家(?!人|乡)"), "用户家"),
    (
        re.compile(
            r"(?:我们|咱们)(?:的)?(?=公司|团队|部门|组|家|项目|这边|办公室|老板|领导|小区|学校|楼)"
        ),
        "用户的",
    ),
    (
        re.compile(
            r"(?:我们|咱们)(?=[\u4e00-\u9fff]{1,5}(?:部|组|团队|中心)(?![\u4e00-\u9fff]{0,1}人))"
        ),
        "用户的",
    ),
    (re.compile(r"我们的|咱们的"), "用户团队的"),
    (
        re.compile(
            r"我(?=老婆|老公|妻子|丈夫|孩子|女儿|儿子|爸|妈|父亲|母亲|家人|朋友|同事|老板|领导|上司|太太|先生)"
        ),
        "用户的",
    ),
    (re.compile(r"我们|咱们"), "用户的团队"),
    (re.compile(r"我自己"), "用户自己"),
    (re.compile(r"我的"), "用户的"),
    (re.compile(r"我"), "用户"),
    (re.compile(r"您们|你们"), "助手"),
    (re.compile(r"您|你"), "助手"),
]


EN_MODAL = {
    "can",
    "can't",
    "cannot",
    "will",
    "won't",
    "would",
    "should",
    "must",
    "might",
    "may",
    "could",
    "shall",
    "wouldn't",
    "shouldn't",
    "couldn't",
}


EN_ADVERB = {
    "always",
    "never",
    "usually",
    "often",
    "sometimes",
    "really",
    "also",
    "just",
    "only",
    "still",
    "generally",
    "typically",
    "mostly",
    "rarely",
    "normally",
    "basically",
    "absolutely",
    "definitely",
    "actually",
    "already",
    "even",
    "almost",
    "mainly",
}


EN_PAST = {
    "was",
    "were",
    "had",
    "did",
    "went",
    "took",
    "made",
    "said",
    "got",
    "gave",
    "saw",
    "came",
    "knew",
    "thought",
    "told",
    "left",
    "felt",
    "found",
    "bought",
    "paid",
    "flew",
    "ate",
    "drank",
    "wrote",
    "met",
    "ran",
    "sent",
    "spent",
    "chose",
    "began",
    "became",
    "meant",
    "heard",
    "kept",
    "let",
    "put",
    "set",
    "read",
    "brought",
    "held",
    "built",
    "broke",
    "drove",
    "rode",
    "swam",
    "sang",
    "sat",
    "stood",
    "understood",
    "won",
    "lost",
    "wore",
    "woke",
    "forgot",
    "spoke",
    "stole",
    "threw",
    "grew",
    "drew",
    "fell",
    "fought",
    "caught",
    "taught",
    "hung",
    "hid",
    "shook",
    "slept",
    "swept",
    "bent",
    "lent",
    "dealt",
    "dug",
    "fed",
    "led",
    "shot",
    "slid",
    "spun",
    "struck",
    "stuck",
    "sold",
    "lit",
    "bit",
    "blew",
    "froze",
    "rose",
    "tore",
}


EN_IRREG = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "are": "is"}


def third_person(verb: str) -> str:
    low = verb.lower()
    if low in EN_MODAL or low in EN_PAST or low.endswith(("ed", "ing")) or not low.isalpha():
        return verb
    if low in EN_IRREG:
        return EN_IRREG[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_LY_VERBS = {"rely", "rally", "tally", "bully", "sully", "ally", "dally"}


def is_adverb(word: str) -> bool:
    """ "we finally moved", "I honestly prefer": an -ly word before the verb is no verb to
    conjugate (apply, reply, fly and rely are)."""
    low = word.lower()
    if low in EN_ADVERB:
        return True
    return (
        len(low) > 4
        and low.endswith("ly")
        and not low.endswith(("ply", "fly"))
        and (low not in _LY_VERBS)
    )


def _subject_verb(subject: str):
    def repl(m: re.Match) -> str:
        words = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
        out = [subject]
        if is_adverb(words[0]):
            out.append(words[0])
            if len(words) > 1:
                out.append(third_person(words[1]) if not is_adverb(words[1]) else words[1])
        else:
            out.append(third_person(words[0]))
            if len(words) > 1:
                out.append(words[1])
        return " ".join(out)

    return repl


# first person as people type it in chats ("im on a keto thing", "i've got two cats")
_TYPED_I_AS = {"i": "I", "im": "I'm", "i'm": "I'm", "ive": "I've", "i've": "I've", "i'd": "I'd",
               "i'll": "I'll"}  # fmt: skip
_TYPED_I = re.compile(r"\b(?:i|im|i['’]m|ive|i['’]ve|i['’]d|i['’]ll)(?![\w'’])")

EN_REWRITES = [
    (
        re.compile(
            r"\b(when|whenever|if|before|after|once|time|that) you ([a-z]+)\b", re.IGNORECASE
        ),
        "YOU_VERB",
    ),
    (re.compile(r"\bI'm\b|\bI am\b"), "the user is"),
    (re.compile(r"\bI've\b"), "the user has"),
    (re.compile(r"\bI'd\b"), "the user would"),
    (re.compile(r"\bI'll\b"), "the user will"),
    (re.compile(r"\bI don't\b|\bI do not\b"), "the user doesn't"),
    (re.compile(r"\bI can't\b|\bI cannot\b"), "the user can't"),
    (re.compile(r"\bwe're\b|\bwe are\b", re.IGNORECASE), "the user's team is"),
    (re.compile(r"\bwe've\b", re.IGNORECASE), "the user's team has"),
    (re.compile(r"\bwe'll\b", re.IGNORECASE), "the user's team will"),
    (re.compile(r"\bwe'd\b", re.IGNORECASE), "the user's team would"),
    (re.compile(r"\bwe don't\b|\bwe do not\b", re.IGNORECASE), "the user's team doesn't"),
    (re.compile(r"\bI no longer ([a-zA-Z']+)"), "I_NO_LONGER"),
    (re.compile(r"\b[Ww]e no longer ([a-zA-Z']+)"), "WE_NO_LONGER"),
    (re.compile(r"\bI ([a-zA-Z']+)(?: ([a-zA-Z']+))?"), "I_VERB"),
    (re.compile(r"\b[Ww]e ([a-zA-Z']+)(?: ([a-zA-Z']+))?"), "WE_VERB"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "the user"),
    (re.compile(r"\bmy\b|\bmine\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bme\b", re.IGNORECASE), "the user"),
    (re.compile(r"\bI\b"), "the user"),
    (re.compile(r"\bours\b|\bour\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bus\b|\bUs\b"), "the user's team"),
    (re.compile(r"\byour\b", re.IGNORECASE), "the assistant's"),
    (re.compile(r"\byou\b", re.IGNORECASE), "the assistant"),
]


WORK_CUE = re.compile(
    r"团队|公司|部门|项目|组里|同事|客户|产品|上线|部署|服务|代码|仓库|需求|版本|开会|会议|周会|例会|办公|"
    r"\bteam|\bcompany|\bstartup|\borg\b|organi[sz]ation|\bproject|\bsprint|\bdeploy|"
    r"\bservices?\b|\bcode\b|\brepos?\b|\bclients?\b|\bcustomers?\b|\bproduct|\brelease|"
    r"\bengineer|\boffice\b|\bstack\b|\bbackend\b|\bfrontend\b|\bapi\b|\bservers?\b|"
    r"\bcluster|\bpipeline|\bstandup|\bmeetings?\b|\bmigrat|\binfra|\bproduction\b|"
    r"\bstaging\b|\bcolleague|\bdepartment|\bvendors?\b|\blaunch|\bship(?:ping)? (?:the|a)\b|"
    r"\bboss\b|\bmanager\b|\bemployees?\b|\bhiring\b|\bbudget",
    re.IGNORECASE,
)


WORK_TYPES = {
    "language",
    "frontend",
    "framework",
    "database",
    "queue",
    "ci",
    "observability",
    "infra",
    "cloud",
    "tool",
    "meeting",
    "document",
    "tech",
    "role",
    "database_ext",
}


def _work_context(text: str) -> bool:
    return bool(WORK_CUE.search(text)) or any(
        entity_type(c) in WORK_TYPES for _, c, _ in find_entity_spans(text)
    )


# The words `rewrite` puts for "we"/"我们": they say who, not what a statement is about, so
# two statements that both begin "the user's family…" share no topic by it.
WE_AS_OWNER = re.compile(
    r"\bthe user's (?:family|team)\b|用户(?:的团队|团队的|一家|家的|的小组)", re.I
)


def _family_we(text: str) -> str:
    """ "we" outside work is the user's family: "The user's family gets their groceries…"."""
    text = text.replace("the user's team", "the user's family")
    head, sep, rest = text.partition("the user's family")
    if not sep:
        return text
    rest = re.sub(r"\bthe user's (?!family)", "their ", rest)
    return head + sep + rest


_ZH_PERSON_CHARS = frozenset("我你您")


def _words_holding_a_person_char(text: str) -> list[str]:
    """Words in which 我/你/您 is not the pronoun: the character inside a longer word, after
    its first character (自我介绍, 忘我, 迷你). jieba's segmentation says where words end, so
    no list of such words is needed."""
    return sorted(
        {word for word, _ in pos_cut(text) if len(word) > 1 and _ZH_PERSON_CHARS & set(word[1:])},
        key=len,
        reverse=True,
    )


def _rewrite_zh_pronouns(text: str) -> str:
    kept = _words_holding_a_person_char(text)
    # Private-use placeholders keep those words out of the pronoun rules below.
    for i, word in enumerate(kept):
        text = text.replace(word, chr(0xE000 + i))
    for rx, rep in ZH_PRONOUNS:
        text = rx.sub(rep, text)
    for i, word in enumerate(kept):
        text = text.replace(chr(0xE000 + i), word)
    return text


def rewrite(text: str, lang: str) -> str:
    """First/second person -> "用户"/"the user" ("助手"/"the assistant"); "we"/"我们" is the
    user's team at work and the user's family otherwise."""
    work = _work_context(text)
    if lang == "zh" or CJK.search(text):
        text = _rewrite_zh_pronouns(text)
        if not work:
            text = text.replace("用户团队的", "用户家的").replace("用户的团队", "用户一家")
        text = re.sub(r"\bI'm\b|\bI am\b", "the user is", text)
        text = re.sub(r"\bmy\b", "the user's", text)
        return text.strip()
    text = _TYPED_I.sub(lambda m: _TYPED_I_AS[m.group(0).lower().replace("’", "'")], text)
    for rx, rep in EN_REWRITES:
        if rep == "YOU_VERB":
            text = rx.sub(lambda m: f"{m.group(1)} the assistant {third_person(m.group(2))}", text)
        elif rep in ("I_NO_LONGER", "WE_NO_LONGER"):
            who = "the user" if rep == "I_NO_LONGER" else "the user's team"
            text = rx.sub(lambda m, w=who: f"{w} no longer {third_person(m.group(1))}", text)
        elif rep == "I_VERB":
            text = rx.sub(_subject_verb("the user"), text)
        elif rep == "WE_VERB":
            text = rx.sub(_subject_verb("the user's team"), text)
        else:
            text = rx.sub(rep, text)
    text = re.sub(r"^(?:please|pls)\s+", "", text.strip(), flags=re.IGNORECASE)
    # a subject-less report of the user's own change ("Moved everything to Bitwarden")
    text = re.sub(
        r"^(?:just\s+|finally\s+)?(?:moved|switched|migrated|swapped|transferred)\b",
        lambda m: "the user " + m.group(0).lower(),
        text,
        flags=re.IGNORECASE,
    )
    return text if work else _family_we(text)


def rewrite_assistant(text: str) -> str:
    """Assistant-voice text: "您/you" is the user, "我/I" is the assistant."""
    text = re.sub(r"您|你", "用户", text)
    text = re.sub(r"\byour\b", "the user's", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou\b", "the user", text, flags=re.IGNORECASE)
    text = re.sub(r"(?<![用])我(?:们)?", "助手", text)
    return text.strip()


def capitalize_first(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s
