"""Dated events of the user's world: "公司的年会定在一月十八号", "体检改到六月三号", "Our team
offsite is on March 3", "The launch got pushed to Sept 9". The event is the thing, its calendar
date ("MM-DD") the value, so a moved date contradicts the old one."""

from __future__ import annotations

import re

from memory.extraction.rules.markers import FIRST_PERSON
from memory.extraction.slots.generic import (
    EN_NP,
    EN_POSS,
    EN_POSS_CANON,
    ZH_OWNER,
    ZH_POSSESSED,
    ZH_THING_LEAD,
    singular,
)
from memory.language.dates import ZH_DATE, date_values
from memory.language.text import CJK

ZH_SCHED_VERB = (
    r"(?:定在|定于|定到|安排在|排在|约在|放在|改在|改到|改成|挪到|推到|推迟到|延到|延期到|"
    r"提前到|调到|换到)"
)


ZH_DATED = re.compile(
    rf"^(?P<x>[^，,。；;！!？?]{{2,16}}?)(?:的时间|时间|的日子|日子)?"
    rf"(?:已经|已|也|都|正式|最终|现在)?(?P<v>{ZH_SCHED_VERB}|(?<![定排约放改挪推延调换到])[是在])了?\s*"
    rf"(?:今年|明年|下个?月)?的?\s*(?P<date>{ZH_DATE.pattern})"
)


ZH_DATED_BARE = re.compile(
    rf"^(?:现在|已经|已|又)?(?P<v>{ZH_SCHED_VERB})了?\s*(?P<date>{ZH_DATE.pattern})"
)


ZH_RESCHEDULED = re.compile(r"(?:改期|延期|推迟|提前|改时间|换时间|改日子|改了|变了|推了|挪了)了?$")


EN_SCHED_VERB = (
    r"(?:set|scheduled|planned|booked|fixed|penciled in|pencilled in|moved|pushed(?: back| out)?|"
    r"rescheduled|postponed|delayed|bumped|brought forward|changed)"
)


EN_DATED = re.compile(
    rf"^(?:(?P<det>(?i:the|my|our|the user's))\s+(?:(?P<owner>(?i:{EN_POSS}))\s+)?)?"
    rf"(?P<x>(?i:{EN_NP}))\s+"
    r"(?:(?i:is|are|was|'s|has been|have been|got|will be|is being)\s+)?"
    r"(?:(?i:now|still|officially)\s+)?"
    rf"(?:(?P<v>(?i:{EN_SCHED_VERB}))\s*)?"
    r"(?:[,;]\s*(?i:it's|it is|now it's)\s+(?:(?i:now)\s+)?)?"
    r"(?:(?i:for|on|to|until|till)\s+)?(?:(?i:the)\s+)?"
    r"(?P<date>[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|"
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]{3,9}\b)"
)


# Dates of a person, not of an event: a fact, not a plan ("我生日是十月十二号").
PERSONAL_DATE = re.compile(r"生日|纪念日|生辰|忌日|birthday|anniversary|\bborn\b", re.IGNORECASE)


ZH_EVENT_OWNER = re.compile(
    r"^(?:单位|学校|孩子学校|班上|班里|小区|公司|部门|团队|组里|小组|家里|教会|社团)(?:的|里的?)?"
)


def _zh_event_thing(x: str) -> str:
    """The event named before its date: owner and lead words dropped, nothing cut from the end
    ("公司的年会" -> "年会", where `zh_thing` would cut the "会")."""
    x = re.sub(r"\s+", " ", ZH_RESCHEDULED.sub("", x)).strip(" ，,：:")
    for _ in range(3):
        x = ZH_OWNER.sub("", x).strip()
        x = ZH_THING_LEAD.sub("", x).strip(" 的")
        x = ZH_EVENT_OWNER.sub("", x).strip(" 的")
    x = re.sub(r"(?:的时间|时间|的日子|日子|的安排|安排)$", "", x)
    if re.search(r"[，,。是在每要]|用户|助手|换|改|迁|挪|你", x) or len(CJK.findall(x)) < 2:
        return ""
    return x.lower() if len(x) <= 10 else ""


EN_NOT_EVENT = {
    "i", "we", "you", "he", "she", "they", "it", "this", "that", "which", "what", "who", "there",
    "here", "am", "me", "us", "them", "everything", "something", "nothing",
}  # fmt: skip


def dated_event(text: str) -> tuple[str, list[str], bool]:
    """(thing, ["MM-DD"], scheduled) for a statement dating an event of the user's world;
    scheduled is False for a plain "X是<date>" / "X is on <date>" of a personal date."""
    if CJK.search(text):
        clauses = [c.strip() for c in re.split(r"[，,；;。！!]", text) if c.strip()]
        for i, clause in enumerate(clauses):
            m = ZH_DATED.match(clause)
            thing = ""
            if m:
                x = re.sub(r"^(?:说|跟你说|对了|另外|还有|那个)+", "", m.group("x"))
                thing = _zh_event_thing(x)
            else:
                m = ZH_DATED_BARE.match(clause)
                if m and i > 0 and ZH_RESCHEDULED.search(clauses[i - 1]):
                    thing = _zh_event_thing(clauses[i - 1])
            if not m or not thing:
                continue
            values = date_values(m.group("date"))
            verb = m.groupdict().get("v") or ""
            owned = bool(
                FIRST_PERSON.search(clause) or ZH_OWNER.match(clause) or ZH_POSSESSED.match(clause)
            )
            if values and (owned or verb not in ("是", "在")):
                return thing, values, verb != "是" and not PERSONAL_DATE.search(clause)
        return "", [], False
    m = EN_DATED.search(text)
    if not m:
        return "", [], False
    values = date_values(m.group("date"))
    x = re.sub(r"(?:\s+(?:got|is|are|was|were|has|have|been|will|be|gets))+$", "", m.group("x"))
    words = [w for w in x.lower().split() if w not in ("the", "a", "an", "our", "my")]
    thing = " ".join([*words[-3:-1], singular(words[-1])]) if words else ""
    if not values or not thing or set(words) & EN_NOT_EVENT:
        return "", [], False
    det = (m.group("det") or "").lower()
    if not m.group("v") and det in ("", "the") and not m.group("owner"):
        return "", [], False  # "Easter is on April 5": not about the user's world
    owner = m.group("owner")
    if owner:
        o = re.sub(r"'s?$", "", owner.lower())
        thing = f"{EN_POSS_CANON.get(o, o)}'s {thing}"
    return thing, values, not PERSONAL_DATE.search(text)
