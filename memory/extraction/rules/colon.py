""" "<task/decision> <topic>：<body>" statements ("行程定一下：周五出发…", "Let's lock in the
stack: Postgres + Django"): the body is the content, the head says whether it is a plan, a
decision or a fact."""

from __future__ import annotations

import re

from memory.extraction.rules.decisions import DECISION_RE
from memory.extraction.rules.hits import Hit
from memory.extraction.rules.markers import FIRM_RE, TOPIC_RES
from memory.extraction.rules.rewrite import rewrite
from memory.extraction.slots.derive import derive_slot
from memory.language.text import looks_like_question

COLON_TOPIC = re.compile(
    r"方案|行程|计划|安排|流程|规范|架构|配置|清单|规划|标准|"
    r"itinerary|\bplan\b|architecture|\bsetup\b|process|\bstack\b|\btrip\b",
    re.IGNORECASE,
)


COLON_LEAD = re.compile(
    r"帮我|给我|整理|规划|记|定|安排|梳理|settle|lock|note|decide|let's|"
    r"here's|here is",
    re.IGNORECASE,
)


def colon_body(head: str, body: str, lang: str, hedged: bool) -> Hit | None:
    topic = re.sub(
        r"^(?:你)?(?:再|先)?(?:帮我|给我|帮忙|麻烦你?|请你?)?"
        r"(?:整理|规划|记录|记|梳理|安排|看)?(?:一下)?(?:吧)?",
        "",
        head.strip(),
    )
    topic = re.sub(r"(?:定|确定|敲定)(?:一下|了)?$", "", topic).strip()
    topic = re.sub(
        r"^(?:let's|let us)\s+(?:settle|lock in|decide on|decide|finali[sz]e)\s*",
        "",
        topic,
        flags=re.IGNORECASE,
    )
    topic = re.sub(r"^(?:please\s+)?(?:note|remember)\s+", "", topic, flags=re.IGNORECASE)
    if re.search(r"行程|计划|规划|trip|itinerary|plan", head, re.IGNORECASE):
        category = "plan"
    elif DECISION_RE.search(head) or re.search(r"定|settle|lock|decide", head, re.IGNORECASE):
        category = "decision"
    else:
        category = "fact"
    joined = f"{topic}：{body}" if lang == "zh" else f"{topic}: {body}"
    text = rewrite(joined, lang)
    if lang == "zh" and not text.startswith("用户"):
        text = "用户的" + text
    slot, values, ents = derive_slot(joined, category, [])
    topics = {s for rx, s in TOPIC_RES if rx.search(body)}
    if len(topics) > 1:
        slot, values = "", []
    conf = 0.45 if hedged else (0.9 if FIRM_RE.search(joined) else 0.75)
    return Hit(
        category=category,
        kind="semantic",
        content_body=text,
        quote=f"{head}：{body}" if lang == "zh" else f"{head}: {body}",
        confidence=conf,
        importance=0.6,
        slot=slot,
        values=values,
        entities=ents,
        hedged=hedged,
    )


COLON_SPLIT = re.compile(r"^([^:：]{2,60})[:：]\s*(.{4,})$")


def colon_parts(full: str) -> tuple[str, str] | None:
    """(head, body) of a "<task/decision> <topic>：<body>" statement, or None."""
    colon = COLON_SPLIT.match(full)
    if (
        colon
        and COLON_TOPIC.search(colon.group(1))
        and COLON_LEAD.search(colon.group(1))
        and not looks_like_question(colon.group(2))
    ):
        return colon.group(1), colon.group(2)
    return None
