"""Facts and profile statements about the user: profile nouns and safety facts ("我对青霉素过敏"),
team / setup facts, recent habits ("我最近一直在练书法"), English routines with any verb ("I run
every morning at 6"), and statements recognised only through their topic ("预算是 5 万")."""

from __future__ import annotations

import re

from memory.aliases import entity_type, find_entity_spans
from memory.extraction.lexicon import SLOT_CATEGORY
from memory.extraction.rules.filters import ONE_OFF_RE
from memory.extraction.rules.hits import Statement, Verdict
from memory.extraction.rules.markers import PREF_NEG, PREF_POS, SAFETY_RE
from memory.extraction.slots.derive import derive_slot
from memory.extraction.slots.generic import DAYLIKE
from memory.language.dates import schedule_values

PROFILE_RE = re.compile(
    r"我是(?!说)|我在.{1,15}(?:做|工作|上班|负责|任职|当)|我负责|我做.{0,6}(?:的|工作)|"
    r"我(?:们)?(?:公司|团队|部门|组)(?:大概|大约|有|是|共|一共)?.{0,4}\d|手下|"
    r"我(?:家|老婆|老公|妻子|丈夫|孩子|女儿|儿子|爸|妈)|我住在|我来自|我老家|过敏|"
    r"我的(?:工作|职位|岗位|角色)|我姓|我叫|我(?:们)?(?:的)?(?:公司|团队|部门)(?:在|是|有|做|主要|一共|大概|共)|"
    r"\bour (?:company|team|startup|org|organi[sz]ation) (?:is|has)\b|"
    r"\bI'm (?:a|an|the)\b|\bI am (?:a|an|the)\b|"
    r"\bI work\b|\bI live\b|\bbased in\b|\bmy (?:wife|husband|kids?|son|daughter|partner)\b|"
    r"\ballergic\b|\bI manage\b|\bI lead\b|\bmy name is\b|\bI'm from\b|\bI report to\b",
    re.IGNORECASE,
)


FACT_RE = re.compile(
    r"(?:我们|咱们|我的|团队|公司|组里|部门).{0,14}(?:用|使用|采用|是|在用|跑|部署|熟悉|写)|现有|"
    r"现在是|目前是|目前(?:用|主要)|我(?:每天|每周|每晚|每个?月|平时|经常|通常)|"
    r"\bI (?:every day|daily)\b|(?:周会|例会|组会).{0,12}(?:周[一二三四五六日天]|星期|点)|"
    r"(?:周[一二三四五六日天]|星期).{0,12}(?:周会|例会|组会)|"
    r"\bwe (?:use|run|write|have|deploy|host|rely on|are using|'re using)\b|\bwe're on\b|"
    r"\bour [\w -]{1,30} (?:is|are|runs|uses)\b|\bwe(?:'ll| will) use\b",
    re.IGNORECASE,
)


# A recent habit of the user's: a fact about them now, not an episode.
RECENT_HABIT = re.compile(
    r"\bI(?:'ve| have) been (?:\w+ly\s+)?(?!told\b|asked\b|thinking about you)[a-z]+(?:ing)\b"
    r"(?=.*\b(?:lately|recently|these days|a lot|for (?:weeks|months)|more and more)\b)|"
    r"我(?:最近|这段时间|这阵子|近来)(?:一直|经常|常常|每天|天天|老是)?在?"
    r"(?:学|练|读|看|追|玩|跑|听|写|弹|画|做)[\u4e00-\u9fffA-Za-z]",
    re.IGNORECASE,
)


RECENT_NEG = re.compile(r"什么|没心思|没空|没时间|不想|\bnot\b|n't\b", re.IGNORECASE)


# An English routine with any verb ("I run every morning at 6", "I walk the dog every evening",
# "I meditate daily"): the verb (and its short object) is the activity.
ROUTINE_EN = re.compile(
    r"^(?:I|we)\s+(?:usually\s+|always\s+|normally\s+|generally\s+|try to\s+)?"
    r"(?P<verb>(?!(?:am|was|were|have|had|need|want|will|would|can|could|should|must|think|feel|"
    r"hope|wish|don't|do|did|didn't|get|got|went|say|said|told|ask|asked|love|like|hate|"
    r"prefer|enjoy|remind|mean|meant|guess|know)\b)[a-z]{2,}(?<![^e]ed))\b"
    r"(?P<rest>[^.;!?]*?)\s*"
    r"(?P<freq>\bevery\s+(?:single\s+)?(?:other\s+)?(?:day|morning|evening|night|weekday|weekend|"
    r"week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|\bdaily\b|\bnightly\b|"
    r"\beach (?:morning|evening|day|night|week)\b|\bon weekends\b|"
    r"\b(?:once|twice|\w+ times) a (?:day|week)\b|\bmost (?:mornings|evenings|days|nights)\b)",
    re.IGNORECASE,
)


ROUTINE_PREP = re.compile(
    r"^(?:at|to|in|for|before|after|with|on|around|about|from|by|when|during|\d)", re.IGNORECASE
)


def en_routine(body: str) -> tuple[str, list[str]] | None:
    """(slot, values) of an English routine statement, or None."""
    m = ROUTINE_EN.search(body.strip())
    if not m:
        return None
    verb = m.group("verb").lower()
    words = re.sub(r"^(?:the|a|an|my|our|his|her)\s+", "", m.group("rest").strip(), flags=re.I)
    obj = ""
    if words and not ROUTINE_PREP.match(words):
        obj = " ".join(
            re.split(r"\s+(?:at|to|in|for|before|after|with|on|around|by)\b", words)[0].split()[:2]
        ).lower()
        obj = re.sub(r"^(?:the|a|an|my|our)\s+", "", obj)
    thing = f"{verb} {obj}".strip()
    forms = (body, verb + "ing", verb + verb[-1] + "ing", verb[:-1] + "ing", verb)
    canon = next(
        (
            c
            for form in forms
            for _, c, _ in find_entity_spans(form)
            if entity_type(c) == "activity"
        ),
        "",
    )
    values = schedule_values(body) or [re.sub(r"\s+", " ", m.group("freq").lower())]
    return f"routine:{canon or thing}", values


def states_recent_habit(s: Statement) -> bool:
    """ "I've been reading a lot lately", "我最近一直在练书法" — not a taste."""
    return bool(
        RECENT_HABIT.search(s.body)
        and not RECENT_NEG.search(s.body)
        and not (PREF_POS.search(s.body) or PREF_NEG.search(s.body) or s.styles)
    )


def states_profile(s: Statement) -> bool:
    return bool(PROFILE_RE.search(s.body) or (SAFETY_RE.search(s.body) and s.first_person))


def states_fact(s: Statement) -> bool:
    return bool(
        FACT_RE.search(s.body)
        and (s.first_person or re.search(r"现有|现在是|目前|周会|例会", s.body))
    )


def fact(s: Statement) -> Verdict:
    return Verdict("fact")


def profile(s: Statement) -> Verdict:
    return Verdict("profile")


def states_routine(s: Statement) -> bool:
    return en_routine(s.body) is not None


def routine(s: Statement) -> Verdict:
    # a slot the general rules derive ("thing:piano lesson") wins over the verb
    slot_info = derive_slot(s.body, "fact", list(s.styles))
    if not (slot_info[0] and slot_info[1]):
        slot_info = (*en_routine(s.body), slot_info[2])
    return Verdict("fact", slot_info=slot_info)


def always(s: Statement) -> bool:
    return True


def by_topic(s: Statement) -> Verdict | None:
    """A statement recognised through its topic: "我吃素的", "预算是 5 万"."""
    body = s.body
    slot_info = derive_slot(body, "fact", list(s.styles))
    if not slot_info[0] or not slot_info[1] or ONE_OFF_RE.search(body):
        return None
    generic_schedule = slot_info[0].startswith("thing:") and any(
        DAYLIKE.match(v) for v in slot_info[1]
    )
    if not (
        s.first_person
        or s.firm_n
        or generic_schedule
        or slot_info[0] in ("rent", "budget")
        or re.search(r"是|为|用|在|定|有|\bis\b|\bare\b|\buse", body)
    ):
        return None
    category = SLOT_CATEGORY.get(
        slot_info[0].split(":")[0].split(".")[0]
        if slot_info[0] not in SLOT_CATEGORY
        else slot_info[0],
        "fact",
    )
    return Verdict(category, slot_info=slot_info)
