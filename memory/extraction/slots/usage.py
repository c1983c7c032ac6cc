"""Habitual use of a named service, tool or brand: "买菜一般用盒马", "I bank with Chase", "moved
everything over to Bitwarden" — the thing the service is for names the slot, the service is the
value."""

from __future__ import annotations

import re

from memory.aliases import entity_type
from memory.extraction.lexicon import PRODUCT_KIND
from memory.extraction.slots.generic import (
    ZH_LATIN_NAME,
    ZH_NAME_CUT,
    en_thing,
    normalize_thing,
    zh_thing,
)
from memory.language.text import CJK

# A move to a known app / service.
# "Moved everything over to Bitwarden", "全部迁到 Obsidian 了": the app says what the thing is.
EN_MOVE_TO = re.compile(
    r"\b(?i:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|transferr(?:ed|ing)|swapp(?:ed|ing)|"
    r"chang(?:ed|ing)|went|gone|go)\s+(?i:(?:it\s+all|everything|all(?:\s+of\s+(?:it|them))?|"
    r"them|it)\s+)?(?i:over\s+)?(?i:to|onto)\s+(?P<name>[A-Z0-9][\w'&+.-]*(?:\s+[A-Z0-9][\w'&+.-]*){0,2})"
)


ZH_MOVE_TO = re.compile(
    r"(?:换成|换到|换为|换用|改成|改用|改为|迁到|迁移到|转到|切到|切换到|搬到|挪到|导到|导入到?|用上了?)"
    rf"\s*(?P<name>{ZH_LATIN_NAME}|[\u4e00-\u9fff]{{2,6}})"
)


def product_slot(text: str) -> tuple[str, list[str]]:
    """("thing:<kind>", [name]) for a move to a well-known app (PRODUCT_KIND)."""
    rx = ZH_MOVE_TO if CJK.search(text) else EN_MOVE_TO
    for m in rx.finditer(text):
        name = m.group("name").strip().rstrip(".'-")
        words = name.split()
        for k in range(len(words), 0, -1):  # "Obsidian last weekend" -> "Obsidian"
            cand = " ".join(words[:k])
            kind = PRODUCT_KIND.get(cand.lower())
            if kind:
                return f"thing:{kind}", [cand]
        if CJK.search(name):
            for k in range(len(name), 1, -1):
                kind = PRODUCT_KIND.get(name[:k].lower())
                if kind:
                    return f"thing:{kind}", [name[:k]]
    return "", []


# Habitual use of a named service / tool / brand.
# "I stream music on Spotify", "We get our groceries delivered by FreshCart", "我用 Notion 记笔记",
# "我听歌都用网易云音乐", "我一般在瑞幸买咖啡": the slot is the kind of thing (what it is used
# for), the value the name. English names are capitalised (or carry digits); Chinese names are
# bounded by the verb of the purpose that follows or by the end of the clause.
EN_SVC_NAME = r"(?P<name>[A-Z0-9][\w'&+.-]*(?:\s+(?:&\s+)?[A-Z0-9][\w'&+.-]*){0,3})"


EN_HABIT_ADV = (
    r"(?:(?:always|usually|mostly|normally|generally|typically|now|still|just|only|also|all|"
    r"mainly)\s+)*"
)


EN_USE_NEG = r"(?P<neg>(?:no longer|don't|do not|never)\s+)?"


EN_USE_VERBS = (
    "use|stream|listen|watch|read|buy|order|get|keep|store|save|back|do|book|take|track|manage|"
    "write|bank|shop|pay|host|rent|play|learn|study|edit|sync|share|log|file|run|"
    "send|print|grab"
)


EN_USE_AT = re.compile(
    rf"\b(?:I|[Ww]e)\s+{EN_HABIT_ADV}{EN_USE_NEG}(?P<verb>{EN_USE_VERBS}|gets?|orders?)\b(?:\s+(?:up|to))?"
    r"(?P<mid>(?:\s+[a-z][a-z'-]*){0,4}?)\s+(?:on|in|with|from|at|by|through|via|using)\s+"
    rf"(?:the\s+)?{EN_SVC_NAME}"
)


EN_USE_FOR = re.compile(
    rf"\b(?:I|[Ww]e)\s+{EN_HABIT_ADV}use\s+(?:the\s+)?{EN_SVC_NAME}(?:\s+(?:app|service))?\s+"
    r"(?:for|to)\s+(?P<mid>[a-z][a-z' -]{1,40})"
)


EN_WHAT_USE = re.compile(
    rf"{EN_SVC_NAME}\s+is\s+(?:what|the (?:app|service|tool|one))\s+(?:I|we)\s+use\s+for\s+"
    r"(?P<mid>[a-z][a-z' -]{1,40})"
)


EN_COME_FROM = re.compile(
    r"\b(?i:my|our)\s+(?P<mid>[a-z][a-z -]{1,30}?)\s+(?:now\s+)?(?:come|comes|are delivered|"
    r"is delivered|get delivered|gets delivered|arrive|arrives)\s+(?:now\s+)?"
    rf"(?:from|by|via|through)\s+(?:the\s+)?{EN_SVC_NAME}"
)


EN_VERB_THING = {"bank": "banking", "shop": "shopping", "fly": "flight", "see": ""}


EN_MID_DROP = {
    "my",
    "our",
    "the",
    "a",
    "an",
    "all",
    "most",
    "some",
    "their",
    "his",
    "her",
    "of",
    "delivered",
    "shipped",
    "sent",
    "done",
    "made",
    "cut",
    "cleaned",
    "fixed",
    "washed",
    "brought",
    "printed",
    "stored",
    "kept",
    "online",
    "usually",
    "now",
    "mostly",
    "there",
    "track",
    "manage",
    "keep",
    "store",
    "write",
    "take",
    "do",
    "get",
    "make",
    "organize",
    "organise",
    "plan",
    "log",
    "sync",
    "back",
    "up",
    "stream",
    "listen",
    "watch",
    "read",
    "for",
    "to",
    "it",
    "them",
    "stuff",
    "things",
}


EN_NOT_NAME = re.compile(
    r"^(?:I|The|A|An|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|"
    r"March|April|May|June|July|August|September|October|November|December|Christmas|Easter)$"
)


def _place(name: str) -> bool:
    return entity_type(name) in ("city", "country")


def _en_usage(text: str) -> tuple[str, list[str]]:
    for rx in (EN_USE_FOR, EN_WHAT_USE, EN_COME_FROM, EN_USE_AT):
        for m in rx.finditer(text):
            name = re.sub(r"[.'-]+$", "", m.group("name")).strip()
            if not name or EN_NOT_NAME.match(name) or len(name) < 2 or _place(name):
                continue
            words = [w for w in re.findall(r"[a-z][a-z'-]*", m.group("mid").lower())]
            words = [w for w in words if w not in EN_MID_DROP]
            thing = " ".join(words[-2:])
            if not thing and "verb" in m.groupdict():
                verb = m.group("verb").lower()
                thing = EN_VERB_THING.get(verb, "" if verb in ("use", "get", "gets") else verb)
            thing = en_thing(thing) if thing else ""
            if thing:
                neg = "neg" in m.groupdict() and m.group("neg")
                return thing, [("!" if neg else "") + name]
    return "", []


ZH_USE_VERB = (
    r"(?:同步|备份|管理|记录|存储|剪辑|处理|整理|预约|缴费|充值|打车|叫车|记账|听|看|存|记|写|管|"
    r"做|买|点|订|叫|剪|修|洗|学|练|查|追|拍|发|收|付|交|寄|开|聊|传|背|读|玩|刷|找|约|租|充|缴|放|跑|打)"
)


ZH_HABIT = r"(?:一般|平时|都|主要|一直|通常|基本|经常|现在|目前|已经|也|还是|习惯|常|会)*"


ZH_SVC_NAME = rf"(?P<name>{ZH_LATIN_NAME}|[\u4e00-\u9fff]{{2,8}}?)"


ZH_USE_OWNER = r"^(?:(?:我们|咱们|我|用户)(?:的)?(?:家里|家|公司|团队)?(?:的)?|家里|我家)?"


# "我用 Notion 记笔记", "我们家一般用朴朴买菜"
ZH_USE_THEN = re.compile(
    rf"{ZH_USE_OWNER}{ZH_HABIT}(?:是)?(?:改)?用(?:的是)?\s*{ZH_SVC_NAME}\s*(?:来)?"
    rf"(?P<verb>{ZH_USE_VERB})(?P<obj>[\u4e00-\u9fffA-Za-z]{{0,8}})(?:的)?$"
)


# "我听歌都用网易云音乐", "点外卖一般用饿了么", "周报我都是用飞书写的"
ZH_PURPOSE_USE = re.compile(
    rf"{ZH_USE_OWNER}(?P<verb>{ZH_USE_VERB})?(?P<obj>[\u4e00-\u9fff]{{1,6}}?)(?:我们|我|用户)?"
    rf"{ZH_HABIT}(?:是)?(?:用|在)(?:的是)?\s*"
    rf"(?P<name>{ZH_LATIN_NAME}|[\u4e00-\u9fff]{{2,8}}?)"
    rf"\s*(?P<verb2>{ZH_USE_VERB})?(?:的|了|啦|吧|上|里)*$"
)


# "我一般在瑞幸买咖啡", "我在乐刻健身", "照片都存在百度网盘里"
ZH_AT_DO = re.compile(
    rf"{ZH_USE_OWNER}{ZH_HABIT}在\s*{ZH_SVC_NAME}\s*"
    r"(?P<act>(?:买|点|订|办|充|存|看|学|练)[\u4e00-\u9fff]{1,4}|健身|锻炼|理发|剪头发?|上课|游泳|"
    r"看病|体检|洗牙|打球|做头发|美甲|做饭)(?:的)?$"
)


ZH_KEEP_IN = re.compile(
    rf"{ZH_USE_OWNER}(?P<obj>[\u4e00-\u9fff]{{1,6}}?){ZH_HABIT}(?:是)?(?:存|放|保存|备份|同步)(?:在|到)\s*"
    rf"(?P<name>{ZH_LATIN_NAME}|[\u4e00-\u9fff]{{2,8}}?)"
    r"\s*(?:里面|里|上面|上)?(?:了|的)?$"
)


# names that are instruments, not services ("用手机拍照", "用电脑写")
ZH_NOT_SERVICE = re.compile(
    r"^(?:手机|电脑|笔记本|相机|平板|笔|纸|本子|微信|现金|钱|手|嘴|脑子|时间|这个|那个|它|他|她|用户|自己|"
    r"英文|中文|英语|普通话|公司|家里|家)$"
)


def _zh_usage_thing(verb: str, obj: str) -> str:
    obj = ZH_NAME_CUT.split(obj or "", maxsplit=1)[0]
    obj = re.sub(r"^(?:来|去|的)", "", obj)
    if len(obj) >= 2:
        return obj
    return (verb or "") + obj if obj else ""


ZH_VERB_OBJ = re.compile(
    rf"\s*(?:来)?(?P<verb>{ZH_USE_VERB})(?P<obj>[\u4e00-\u9fffA-Za-z]{{0,8}}?)(?:的)?$"
)


def _zh_split_name(rest: str) -> tuple[str, str, str]:
    """("有道云笔记", "管", "待办") from "有道云笔记管待办": the shortest name (>= 2 characters)
    after which a verb starts an object that does not itself start with a verb."""
    latin = re.match(ZH_LATIN_NAME, rest)
    if latin:
        m = ZH_VERB_OBJ.match(rest, latin.end())
        return (latin.group(0), m.group("verb"), m.group("obj")) if m else ("", "", "")
    for k in range(2, min(9, len(rest))):
        m = ZH_VERB_OBJ.match(rest, k)
        if m and not re.match(ZH_USE_VERB, m.group("obj")):
            return rest[:k], m.group("verb"), m.group("obj")
    return "", "", ""


def _zh_usage(text: str) -> tuple[str, list[str]]:
    for clause in re.split(r"[，,；;。！!]", text):
        clause = clause.strip()
        if not clause:
            continue
        found = []
        m = ZH_USE_THEN.match(clause)
        if m:
            name, verb, obj = _zh_split_name(m.group("name") + clause[m.end("name") :])
            if name:
                found.append((name, _zh_usage_thing(verb, obj)))
        m = ZH_AT_DO.match(clause)
        if m:
            act = m.group("act")
            obj = act[1:] if act[0] in "买点订办充存看学练" and len(act) > 2 else act
            found.append((m.group("name"), obj))
        m = ZH_KEEP_IN.match(clause)
        if m:
            found.append((m.group("name"), m.group("obj")))
        m = ZH_PURPOSE_USE.match(clause)
        if m and (m.group("verb") or m.group("verb2")):
            verb = m.group("verb") or ""
            found.append((m.group("name"), _zh_usage_thing(verb, m.group("obj"))))
        for name, thing in found:
            name = name.strip()
            thing = zh_thing(thing) if thing else ""
            if not name or not thing or ZH_NOT_SERVICE.match(name) or "用户" in thing:
                continue
            if re.search(r"[是在用的]", name) and not name.isascii():
                continue
            return thing, [name]
    return "", []


def usage_slot(text: str) -> tuple[str, list[str]]:
    """("thing:<what it is used for>", [name]) for a statement of habitual use of a named
    service, tool or brand; ("", []) otherwise."""
    thing, values = _zh_usage(text) if CJK.search(text) else _en_usage(text)
    if not thing or not values:
        return "", []
    return f"thing:{normalize_thing(thing)}", values
