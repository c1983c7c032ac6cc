"""derive_slot: the slot, values and entities of one statement — lexicon topic cues and entity
types first, then reply language and answer styles, then the general families (generic things,
dated events, products, usage). `slot_for` is the entry point of direct writes."""

from __future__ import annotations

import re

from memory.aliases import entity_type, find_entity_spans, normalize_entities
from memory.extraction.lexicon import TYPE_SLOT
from memory.extraction.rules.markers import (
    GENRE_RES,
    NEG_BEFORE,
    STANDING_RE,
    STRONG_CUES,
    STYLE_RES,
    TOPIC_RES,
    negated_at,
)
from memory.extraction.slots.events import dated_event
from memory.extraction.slots.generic import (
    DAYLIKE,
    generic_slot,
    normalize_thing,
    well_formed_thing,
)
from memory.extraction.slots.usage import product_slot, usage_slot
from memory.language.dates import schedule_values
from memory.language.numerals import amount_values

TEAM_RE = re.compile(
    r"([\u4e00-\u9fffA-Za-z]{0,6}?(?:部门|部|组|团队|中心|科|处|室|team|squad))"
    r"\s*(?:的)?\s*(?:周会|例会|组会|晨会|站会|部门例会|weekly|standup|meeting)",
    re.IGNORECASE,
)


def thing_words(slot: str) -> str:
    return slot.split(":", 1)[1] if slot.startswith("thing:") else ""


def _team(text: str) -> str:
    m = TEAM_RE.search(text)
    if not m:
        return ""
    team = re.split(
        r"我们的|咱们的|我们|咱们|我的|用户团队的|用户的|用户|的|是|在|\bour\b|\bmy\b",
        m.group(1),
        flags=re.IGNORECASE,
    )[-1].strip()
    return team.lower()


FAMILY_RE = re.compile(
    r"老婆|老公|妻子|丈夫|太太|先生|孩子|女儿|儿子|爸|妈|父亲|母亲|"
    r"\b(?:wife|husband|son|daughter|kids?|partner|mother|father|mom|dad)\b",
    re.IGNORECASE,
)


GENERIC_TYPES = {"transport", "tool", "drink", "taste"}


PLAN_KEY_TYPES = (
    "infra",
    "tech",
    "database",
    "language",
    "frontend",
    "framework",
    "cloud",
    "device",
    "activity",
)


ROLE_TYPES = ("role",)


def _style_values(text: str, styles: list[str]) -> list[str]:
    out = []
    for atom, _, rx in STYLE_RES:
        if atom not in styles:
            continue
        m = rx.search(text)
        neg = (
            not atom.startswith("no_")
            and m is not None
            and bool(NEG_BEFORE.search(text[max(0, m.start() - 6) : m.start()]))
        )
        out.append(("!" if neg else "") + atom)
    return out


def usage_claims(text: str, styles: list[str]) -> bool:
    """The statement's slot is a habitual-use slot (no lexicon topic claims it first)."""
    u_slot = usage_slot(text)[0]
    return bool(u_slot) and derive_slot(text, "preference", styles)[0] == u_slot


# Lexicon slots too broad to tell two things apart ("brand" of an unknown device) give way to
# a generic thing slot when the statement names the thing.
GENERIC_OVERRIDES = {"brand", "device", "drink", "reminder", "transport", "tool"}


def derive_slot(text: str, category: str, styles: list[str]) -> tuple[str, list[str], list[str]]:
    """(slot, values, entities) for a statement: lexicon topic cues first, then the generic
    "thing + value" slot for things outside the lexicon."""
    slot, values, entities = _lexicon_slot(text, category, styles)
    if styles:
        return slot, values, entities
    if (not slot or not values) and topic_base(slot) not in ("trip", "meeting", "focus_time"):
        thing, dates, _ = dated_event(text)
        if thing:
            return f"thing:{normalize_thing(thing)}", dates, entities
    if not slot or slot in GENERIC_OVERRIDES or not values:
        u_slot, u_values = usage_slot(text)
        if u_slot:
            return u_slot, u_values, entities
    if not slot or (
        slot in GENERIC_OVERRIDES and (not values or slot in ("brand", "device", "tool"))
    ):
        g_slot, g_values = generic_slot(text)
        # a lexicon slot with a value gives way only to a well-formed noun phrase ("网盘"), not
        # to a fragment of a colloquial phrase ("组开", "开会统一")
        if g_slot and (not slot or not values or well_formed_thing(thing_words(g_slot))):
            return g_slot, g_values, entities
    if not slot or not values:
        p_slot, p_values = product_slot(text)
        if p_slot:
            return p_slot, p_values, entities
    return slot, values, entities


def _lexicon_slot(text: str, category: str, styles: list[str]) -> tuple[str, list[str], list[str]]:
    """(slot, values, entities) for a statement. Slots come from general topic cues."""
    spans = find_entity_spans(text)
    entities = normalize_entities(c for _, c, _ in spans)
    types = [(entity_type(c), c, start, surf) for start, c, surf in spans]
    lang_slot = None if styles else _language_slot(text, category)
    if lang_slot:
        return (*lang_slot, entities)
    if styles:
        genre = next((g for rx, g in GENRE_RES if rx.search(text)), "answer")
        return f"style:{genre}", _style_values(text, styles), entities
    if category == "plan":
        city = next((c for t, c, _, _ in types if t == "city"), None)
        if city:
            return f"trip:{city}", [], entities
        for wanted_type in PLAN_KEY_TYPES:
            key = next((c for t, c, _, _ in types if t == wanted_type), None)
            if key:
                return f"plan:{key}", [], entities
        return "", [], entities
    if category == "profile":
        roles = [c for t, c, _, _ in types if t in ROLE_TYPES]
        if roles:
            return "role", roles, entities
        if re.search(r"过敏|allerg", text, re.IGNORECASE):
            who = FAMILY_RE.search(text)
            return (
                f"allergy:{who.group(0).lower()}" if who else "allergy",
                [c for t, c, _, _ in types if t == "allergen"],
                entities,
            )
        city = next((c for t, c, _, _ in types if t == "city"), None)
        if (
            city
            and re.search(
                r"住在|住|来自|老家|based in|live in|living in|from|在.{0,4}工作",
                text,
                re.IGNORECASE,
            )
            and not FAMILY_RE.search(text)
        ):
            return "city", [city], entities
    # strong topic cues (allergy, meeting, budget, stack layer) beat entity types, which beat
    # the generic cues ("地铁" in "住如家，离地铁近" is not about transport)
    slot = next((s for rx, s in TOPIC_RES[:STRONG_CUES] if rx.search(text)), "")
    typed = sorted(
        ((start, c, surf) for start, c, surf in spans if entity_type(c) in TYPE_SLOT),
        key=lambda x: (entity_type(x[1]) in GENERIC_TYPES, x[0]),
    )
    if not slot:
        # a recurring activity at stated days/times ("每周二、周四晚上健身"): its schedule is
        # the value, so a moved schedule contradicts the old one
        activity = next((c for t, c, _, _ in types if t == "activity"), "")
        schedule = schedule_values(text) if activity else []
        if any(DAYLIKE.match(v) for v in schedule):
            return f"routine:{activity}", schedule, entities
    if not slot and typed:
        slot = TYPE_SLOT[entity_type(typed[0][1])]
    if not slot:
        slot = next((s for rx, s in TOPIC_RES[STRONG_CUES:] if rx.search(text)), "")
    if not slot:
        return "", [], entities
    base = slot.split(":")[0]
    values: list[str] = []
    if base in ("meeting", "focus_time"):
        team = _team(text) if base == "meeting" else ""
        slot = f"meeting:{team}" if team else slot
        values = schedule_values(text)
    elif base == "budget":
        low = text.lower()
        if re.search(r"酒店|住宿|每晚|一晚|hotel|per night", low):
            slot = "budget:hotel"
        elif re.search(r"人均|聚餐|吃饭|餐|meal|dinner|lunch|per person", low):
            slot = "budget:meal"
        elif re.search(
            r"设备|采购|交换机|\bap\b|网络|硬件|电脑|笔记本|laptop|computer|"
            r"equipment|hardware|procure",
            low,
        ):
            slot = "budget:equipment"
        elif re.search(r"出差|差旅|行程|旅行|trip|travel", low):
            slot = "budget:trip"
        pos = max(low.find("预算"), low.find("budget"))
        values = amount_values(text[pos:] if pos >= 0 else text)[:1]
    elif base == "rent":
        m = re.search(r"房租|租金|rent", text, re.IGNORECASE)
        values = amount_values(text[m.start() :] if m else text)[:1]
    else:
        wanted = {t for t, s in TYPE_SLOT.items() if s == slot}
        if slot in ("stack:backend", "stack:language"):
            wanted = {"language", "framework"}
        elif slot == "stack:frontend":
            wanted = {"frontend", "language"}
        elif base == "brand":
            wanted = {"device_brand"}
            dev = next((c for t, c, _, _ in types if t == "device"), "")
            slot = f"brand:{dev}" if dev else "brand"
        elif slot in ("food", "diet"):
            wanted = {"taste", "ingredient", "cuisine", "allergen", "diet"}
        elif slot == "hotel.room":
            values = [
                a
                for a, rx in (
                    ("高楼层", r"高楼层|high floor"),
                    ("安静", r"安静|quiet"),
                    ("无烟", r"无烟|non-?smoking"),
                    ("大床", r"大床|king"),
                )
                if re.search(rx, text, re.IGNORECASE)
            ]
        for _, canon, start, surf in [(t, c, st, sf) for t, c, st, sf in types]:
            if entity_type(canon) not in wanted:
                continue
            neg = slot != "allergy" and negated_at(text, start, start + len(surf))
            v = ("!" if neg else "") + canon
            if v not in values:
                values.append(v)
    who = FAMILY_RE.search(text) if slot == "allergy" else None
    if who:
        slot = f"allergy:{who.group(0).lower()}"
    return slot, values, entities


LANGUAGES = (
    ("中文", re.compile(r"中文|汉语|汉字|\bchinese\b", re.IGNORECASE)),
    ("英文", re.compile(r"英文|英语|\benglish\b", re.IGNORECASE)),
    ("日文", re.compile(r"日文|日语|\bjapanese\b", re.IGNORECASE)),
)


LANGUAGE_USE = re.compile(
    r"用|一律|统一|都|只|写|回复|回答|说|\bin\b|\brepl|\brespond|\bwrite|\buse\b",
    re.IGNORECASE,
)


def _language_slot(text: str, category: str) -> tuple[str, list[str]] | None:
    """The language the user wants a kind of output in, however it is worded: "以后写邮件都用
    中文，别中英混着写" and "邮件一律中文" both answer `language:email` with "中文"."""
    if category not in ("preference", "decision", "fact") or not LANGUAGE_USE.search(text):
        return None
    pos: list[str] = []
    neg: list[str] = []
    for name, rx in LANGUAGES:
        for m in rx.finditer(text):
            (neg if negated_at(text, m.start(), m.end()) else pos).append(name)
    values = list(dict.fromkeys(pos)) or [f"!{n}" for n in dict.fromkeys(neg)]
    if not values:
        return None
    if category == "fact" and not STANDING_RE.search(text):
        return None
    genre = next((g for rx, g in GENRE_RES if rx.search(text)), "answer")
    return f"language:{genre}", values


def topic_base(slot: str) -> str:
    return slot.split(":")[0].split(".")[0]


def slot_for(content: str, category: str) -> tuple[str, list[str], list[str]]:
    """(slot, values, entities) of a statement, so direct writes (API / console) dedupe and
    conflict exactly like extracted ones."""
    styles = [atom for atom, _, regex in STYLE_RES if regex.search(content)]
    return derive_slot(content, category, styles)
