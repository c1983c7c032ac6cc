"""The final sentence of a memory: a self-contained "用户…" / "The user…" statement, with a
category prefix only where the statement cannot open naturally ("用户的长期指示：…")."""

from __future__ import annotations

import re

from memory.extraction import general
from memory.extraction.rules.markers import PREF_NEG, TIME_RE
from memory.extraction.rules.rewrite import capitalize_first
from memory.extraction.slots.derive import thing_words
from memory.extraction.slots.generic import EN_POSS, zh_thing
from memory.language.text import CJK

PREFIX = {
    "zh": {
        "preference": "用户偏好：",
        "procedural": "用户要求：",
        "decision": "用户决定：",
        "plan": "用户计划：",
        "correction": "用户更正：",
        "profile": "用户的情况：",
        "fact": "用户的情况：",
        "answer": "用户回答",
    },
    "en": {
        "preference": "The user's preference: ",
        "procedural": "The user's standing instruction: ",
        "decision": "The user decided: ",
        "plan": "The user's plan: ",
        "correction": "Correction from the user: ",
        "profile": "About the user: ",
        "fact": "About the user: ",
        "answer": "The user's answer to ",
    },
}


ZH_NEG_LEAD = re.compile(
    r"^(?:不|没|讨厌|受不了|反感|很讨厌|特别讨厌|最讨厌|一点都不|从来不|再也不)"
)


def _zh_preference(body: str) -> str:
    """A preference without "用户" at the front, as a sentence keeping the user's words:
    "不吃香菜" -> "用户不吃香菜"; a dislike stated about the thing ("香菜千万别放") ->
    "用户表示：香菜千万别放" (never "用户偏好：" on a dislike); an answer fragment followed by
    its reason ("靠窗，用户喜欢看风景") -> "用户偏好靠窗，用户喜欢看风景"."""
    if ZH_NEG_LEAD.match(body):
        return "用户" + body
    if PREF_NEG.search(body):
        return "用户表示：" + body
    m = re.match(r"^([^，,；;]+)(?:([，,；;])(.*))?$", body)
    first, sep, rest = (m.group(1), m.group(2) or "", m.group(3) or "") if m else (body, "", "")
    if (
        len(CJK.findall(first)) <= 6
        and not re.search(r"用户|是|在|有|要|会|喜欢|爱", first)
        and (not sep or rest.startswith("用户") or len(CJK.findall(first)) <= 4)
    ):
        return f"用户偏好{first}{sep}{rest}"
    return PREFIX["zh"]["preference"] + body


def finish_sentence(body: str, lang: str, category: str, kind: str) -> str:
    body = body.strip().strip("，,;；:：").strip()
    body = re.sub(r"[。.!！]+$", "", body)
    if category in ("fact", "profile") and kind != "procedural":
        # a fact needs no label ("用户的情况：", "About the user:"): one sentence about the user
        return general.sentence(body, lang)
    if lang == "zh":
        if category == "preference" and kind != "procedural" and not body.startswith("用户"):
            return _zh_preference(body)
        if category == "correction" or not body.startswith("用户"):
            key = "procedural" if kind == "procedural" and category == "preference" else category
            body = PREFIX["zh"][key] + body
        return body
    self_contained = body.lower().startswith(("the user", "user")) or bool(
        re.match(
            r"^(?:from now on|going forward|starting [\w ]{1,20}|as of [\w ]{1,20}), the user\b",
            body,
            re.I,
        )
    )
    if category == "correction" or not self_contained:
        key = "procedural" if kind == "procedural" and category == "preference" else category
        if re.match(r"(?:The|From|Every|Each|A|An|On)\b", body):
            body = body[:1].lower() + body[1:]  # not a proper noun: it continues the prefix
        body = PREFIX["en"][key] + body
    return capitalize_first(body) + "."


# Natural self-contained sentences instead of "用户的情况：…" / "The user's standing instruction: …"
# when the statement is about one of the user's things or starts with what the user did.
ZH_TOPIC_USER = re.compile(
    r"^(?P<topic>[\u4e00-\u9fffA-Za-z0-9 ]{1,8}?)用户(?:一家|的团队|团队)?(?P<rest>.+)$"
)


ZH_USER_LEAD = re.compile(
    r"^(?:搬家|搬到|搬去|换了|换成|改用|改成|刚|已经|不再|再也不|一般|平时|每天|每周|每个?月|都|"
    r"一直|还是|在用|新换|最近|开始)"
)


ZH_TIME_LEAD = re.compile(
    r"^(?:以后|今后|往后|从今往后|从现在起|从现在开始|从下周起|从下周开始|从下个月起|从下个月开始|下次起|"
    r"现在|目前)"
)


EN_STANDING_LEAD = re.compile(
    r"^(?P<lead>from now on|going forward|starting (?:today|tomorrow|next \w+|this \w+)|"
    r"as of (?:today|now|this \w+|next \w+))[,\s]+(?P<rest>.+)$",
    re.IGNORECASE,
)


EN_WHAT_USE_BODY = re.compile(
    r"^(?P<name>.+?) is (?:what|the (?:app|service|tool|one)) "
    r"(?P<who>the user(?:'s (?:team|family))?) uses? for (?P<rest>.+)$",
    re.IGNORECASE,
)


ZH_OWNED_LEAD = re.compile(
    r"^(孩子|小孩|宝宝|女儿|闺女|儿子|老婆|媳妇|妻子|太太|老公|丈夫|爸妈|父母|爸爸|妈妈|"
    r"家里|家|公司|单位)的"
)


def naturalize(body: str, lang: str, slot: str) -> str:
    body = body.strip()
    thing = thing_words(slot)
    if lang == "zh":
        if body.startswith("用户"):
            return body
        m = ZH_TOPIC_USER.match(body)
        if m and not TIME_RE.search(m.group("topic")) and zh_thing(m.group("topic")):
            # topic first: "网盘用户已经改用…" -> "用户的网盘已经改用…"
            return "用户的" + m.group("topic").strip() + m.group("rest")
        owned = ZH_OWNED_LEAD.match(body)
        if owned:  # "孩子的英语家教是…" -> "用户的孩子的英语家教是…", "家里的…" -> "用户家的…"
            who = owned.group(1)
            if who in ("家里", "家"):
                return "用户家的" + body[owned.end() :]
            if who in ("公司", "单位"):
                return f"用户{who}的" + body[owned.end() :]
            return "用户的" + body
        lead = ZH_TIME_LEAD.match(body)
        rest = body[lead.end() :] if lead else body
        if thing and (rest.startswith(thing) or (len(thing) >= 2 and rest[:6].find(thing) == 0)):
            # "以后保洁改成周五来" -> "用户的保洁以后改成周五来"
            head = rest[: len(thing)]
            return "用户的" + head + (lead.group(0) if lead else "") + rest[len(thing) :]
        if ZH_USER_LEAD.match(body):
            return "用户" + body
        return body
    if body.lower().startswith(("the user", "user")):
        return body
    m = EN_WHAT_USE_BODY.match(body)
    if m:
        return f"{m.group('who')} uses {m.group('name')} for {m.group('rest')}"
    owned = re.match(rf"^(?:the|our|my)\s+({EN_POSS})\s+", body, re.IGNORECASE)
    if owned:  # "The kids' pediatrician is…" -> "the user's kids' pediatrician is…"
        return "the user's " + body[owned.start(1) :]
    lead = EN_STANDING_LEAD.match(body)
    rest = lead.group("rest") if lead else body
    if thing:
        last = thing.split()[-1]
        rest2 = re.sub(
            rf"^(?:the|our|my)\s+((?:[a-z-]+\s+){{0,2}}{re.escape(last)}s?)\b",
            r"the user's \1",
            rest,
            count=1,
            flags=re.IGNORECASE,
        )
        if rest2 != rest:
            if lead:
                return f"{capitalize_first(lead.group('lead'))}, {rest2}"
            return rest2
    return body
