"""Clause filters: what carries no fact about the person is dropped before any detector looks
at a sentence — bare acknowledgements ("对", "好", "ok"), discourse fillers ("跟你说一下",
"quick intro"), one-off task requests ("帮我写…", "Book the 9:40") and revision requests ("再正式
一点") unless the sentence is a standing instruction."""

from __future__ import annotations

import re

from memory.extraction.rules.markers import (
    FIRST_PERSON,
    FOR_LATER_RE,
    PREF_NEG,
    PREF_POS,
    STANDING_RE,
    only_takes_back,
)
from memory.language.redaction import beyond_pii, contains_pii
from memory.language.text import CJK, join_clauses, split_clauses

ACK_RE = re.compile(
    r"^(?:好的?|好吧|好啊|对的?|对啊|嗯+|行|可以|是的?|没错|没问题|收到|明白了?|了解|谢谢(?:你)?|"
    r"多谢|哈哈+|哦+|噢|啊|ok(?:ay)?|yes(?: please)?|yeah|yep|right|sure|thanks?(?: you)?|"
    r"cool|great|got it|no|nope|hmm+|lol|ha+|fair enough|perfect|done|noted|please|"
    r"(?:that's|that is|sounds) (?:great|good|fine|perfect|right)|awesome|nice)"
    r"[啊呀吧的了哈!！。.,，~\s]*$",
    re.IGNORECASE,
)


FILLER_RE = re.compile(
    r"^(?:跟你说(?:一下|一声)?(?:背景)?|跟你同步(?:一下)?|同步一下|通知你一下|告诉你(?:一下|一声)?|"
    r"提醒(?:你)?一下|帮我记(?:一下|住)?|记一下|你记一下|对了|另外|还有|好消息|坏消息|"
    r"再说一遍啊?|说过了|还是那句话|跟上次一样|老样子|别别|通知一下|提醒下哈?|"
    r"(?:跟你)?说个(?:重要的)?事(?:儿)?|重要的事(?:情)?|划重点|"
    r"千万记住|一定要记住|记住(?:了)?|千万别忘了|别忘了|请记住|你好|您好|不对|"
    r"你听错了|你搞错了|你弄错了|错了|有道理|说真的|顺便说一下|补充一下|重申一下|这个很重要|"
    r"quick (?:intro|background|update|note)[^:：]*|for context|honestly|update|ugh|"
    r"(?:good|big|quick) news|super important|(?:once )?again|"
    r"final (?:call|decision|answer|word)(?: from [\w ]{1,20})?|"
    r"fyi|just so you know|for the record|heads up|"
    r"(?:a bit of |some )?background|reminder(?: for [\w ]+)?|please note|note|"
    r"(?:please )?remember(?: that| this)?|"
    r"by the way|btw|one more thing|following up[\w ]*|to be clear|important|"
    r"let's lock (?:it|this|that) in|lock (?:it|this) in|decided then|final answer|"
    r"(?:ok(?:ay)?,?\s*)?(?:so|and|also|actually))"
    r"[啊呀吧的了!！。.,，:：\s]*$",
    re.IGNORECASE,
)


TASK_ZH = re.compile(
    r"^(?:你)?(?:再|先|快)?(?:帮我|给我|替我|帮忙|麻烦(?:你)?|请(?:你)?|你帮|你给|能不能|可不可以|"
    r"可以帮我|帮|给我们|帮我们)"
    r"|^(?:先|再)(?:给|帮|列|按|看|找|出|写|做|查|不用|这样)|^(?:先不用|下周再说|回头再说|到时候再说|再说吧)"
    r"|^(?:出|列|写|查|找|订|约|发|整理|总结|翻译|对比|推荐|搜)(?:一个|一下|个|几)"
)


TASK_EN = re.compile(
    r"^(?:please\s+|pls\s+|ok(?:ay)?,?\s+|so,?\s+|and\s+)?(?:book|find|get|grab|write|compare|show|"
    r"give|help|make|send|draft|check|look|search|order|call|schedule|create|set up|scaffold|"
    r"explain|tell|translate|summari[sz]e|list|start|can you|could you|would you|will you|"
    r"let me know|i need you to|pick|reserve|fix|review|plan|convert|calculate|rewrite|rephrase|"
    r"proofread|debug|estimate|recommend|suggest)\b",
    re.IGNORECASE,
)


ONE_OFF_RE = re.compile(
    r"这次|这一次|这回|本次|今天|今晚|this time|for this one|this one\b|today|"
    r"tonight|for now|right now",
    re.IGNORECASE,
)


# A relative tweak of the reply being written ("再正式一点", "make it shorter") is a one-off
# revision, not a lasting taste, unless the sentence is a standing instruction.
REVISION_RE = re.compile(
    # "再短一点", "再formal一点", "语气再 confident 一点": what to change, in either language
    r"^(?:[\u4e00-\u9fff]{1,3}\s?)?(?:再|更|稍微|稍稍|可以再|能不能再)\s?"
    r"(?:[\u4e00-\u9fff]{1,4}|[A-Za-z][A-Za-z-]{1,15})\s?(?:一点|一些|点|些)(?:吧|啊|呀)?$|"
    r"^[\u4e00-\u9fff]{1,2}一点(?:儿)?(?:吧|啊|呀)?$|"  # "顺一点", "短一点"
    r"^(?:改得?)?像[\u4e00-\u9fffA-Za-z ]{1,10}(?:那样|那种|一样)(?:的)?(?:吧)?$|"  # "像新闻稿那样"
    r"^(?:(?:can you |please )?make (?:it|this|that) |a (?:bit|little) |slightly |even )"
    r"(?:more |less |a bit |a little )?[a-z-]+(?:er)?(?: please)?$",
    re.IGNORECASE,
)


# Leading conjunctions/discourse words dropped from the rewritten content.
LEAD_CONJ = re.compile(
    r"^(?:(?:and|but|so|also|honestly|actually|anyway)\b[\s，,]*|"
    r"(?:然后|而且|但是|不过|可是|所以|另外|其实|反正|总之)[\s，,]*)",
    re.IGNORECASE,
)


LEAD_NOTE_EN = re.compile(
    r"^(?:please\s+)?(?:note|remember|keep in mind|be aware)(?: that)?\s+", re.IGNORECASE
)


# A label's colon ("帮我记一下：…", "Note: …"), not one inside a token ("Sheet2!A:B", "12:30").
COLON_RE = re.compile(r"：|(?<![A-Za-z0-9]):|:(?![A-Za-z0-9/])")


BACK_TO_REAL = re.compile(
    r"^(?:不过|但是|但|说真的|说正经的|言归正传|回到正题|"
    r"anyway|but|seriously|back to|ok so|okay so)",
    re.IGNORECASE,
)


def clause_core(c: str) -> str:
    return re.sub(r"[，,：:、。.!！?？；;…\s]+$", "", c.strip())


def standing_instruction(full: str) -> bool:
    """Whether a sentence states something for good (an instruction, a habit): a standing word
    ("以后", "每次", "always") — but not one in the arguments of a request, where "一直" /
    "always" describe the thing worked on ("帮我看看这个报错，服务器一直 502") unless the clause
    speaks of the user or of later ("帮我订酒店，以后都订亚朵")."""
    after_task = False
    for clause in split_clauses(full):
        core = clause_core(clause)
        task = bool(TASK_ZH.match(core) or TASK_EN.match(core))
        if STANDING_RE.search(core) and (
            not after_task or task or FIRST_PERSON.search(core) or FOR_LATER_RE.search(core)
        ):
            return True
        after_task = after_task or task
    return False


# What a person carries from one request to the next (a budget, a size): given as an argument of a
# request ("再帮我筛一遍 listings，budget 8000 以内"), it still says something of them.
_CARRIED_CONCEPTS = ("budget", "size")
_FIGURE = re.compile(r"\d|[一二三四五六七八九十两][十百千万块元]")


def carried_constraint(clause: str) -> bool:
    from memory.extraction import topics  # the topic layer imports the rules' markers

    found = topics.concepts(clause)
    return bool(_FIGURE.search(clause)) and any(c in found for c in _CARRIED_CONCEPTS)


def kept_clauses(full: str, lang: str, *, standing: bool, hedged: bool) -> tuple[str, str] | None:
    """(body, signal) of a sentence: the clauses that say something about the person, joined,
    and the same plus the fillers (where decision and firm markers live too: "定了"). None when
    nothing is left."""
    kept: list[str] = []
    signal: list[str] = []  # kept clauses + fillers: decision/firm markers live there too
    after_task = False
    for clause in split_clauses(full):
        core = clause_core(clause)
        if not core or ACK_RE.match(core):
            continue
        if FILLER_RE.match(core) or only_takes_back(core):
            signal.append(core)  # "我说错了" marks the rest as a change and says nothing
            continue
        if not standing and (TASK_ZH.match(core) or TASK_EN.match(core)):
            after_task = True
            continue
        if after_task and not (
            FIRST_PERSON.search(core)
            or PREF_POS.search(core)
            or PREF_NEG.search(core)
            or carried_constraint(core)
        ):
            continue  # arguments of the preceding one-off request
        after_task = False
        if re.search(r"[？?]\s*$", clause) and not hedged:
            continue
        if contains_pii(core) and not beyond_pii(core):
            continue  # nothing but the number ("手机号 139…"): redaction would leave nothing
        kept.append(clause.strip())
        signal.append(core)
    if not kept:
        return None
    body = join_clauses(kept, lang == "zh")
    body = clause_core(LEAD_NOTE_EN.sub("", LEAD_CONJ.sub("", body.strip())))
    if len(body) < (3 if CJK.search(body) else 8):
        return None
    return body, " ".join(signal)


# "把这句话翻成英文：…", "summarize this for me: …": what follows the colon is material to work
# on — somebody's text, an article — not something the user says about themselves.
_TEXT_WORK_VERBS = (
    r"翻译|翻成|译成|总结|概括|润色|改写|校对|缩写|扩写|精简|"
    r"\b(?:summari[sz]e|translate|paraphrase|polish|rewrite|proofread|shorten|tl;?dr)\b"
)
_WORK_ON_TEXT = re.compile(
    rf"^[^:：\n]{{0,30}}?(?:{_TEXT_WORK_VERBS})[^:：\n]{{0,20}}[:：]", re.IGNORECASE
)
# a passage in quotes is handed over to be worked on after these too ("write a reply to this
# email: "…"", "把这段改得 polite 一点："…"")
_TEXT_WORK = re.compile(
    _TEXT_WORK_VERBS + r"|改|回复|回信|写|\b(?:write|draft|reply|respond|decline|answer)\b",
    re.IGNORECASE,
)


_ABOUT_ME = re.compile(r"我的|关于我|\b(?:my|about me)\b", re.IGNORECASE)

# Code handed over in a fence is never something the user says about themselves.
_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.DOTALL)
# A quoted passage of some length ("Can you summarize this: “The James Webb…”"): text from
# elsewhere, material to work on.
_QUOTED = re.compile(r"[\"“「『][^\"”」』]{12,}(?:[\"”」』]|$)")


def without_material(text: str) -> str:
    """`text` without the material a request hands over: a fenced code block, a quoted passage
    when the turn asks for work on a text, everything after a text-work request and its colon
    ("帮我润色一下：…" → "") unless the material is the user's own ("总结一下我的情况：…")."""
    text = _CODE_BLOCK.sub(" ", text)
    m = _WORK_ON_TEXT.match(text.strip())
    if m and not _ABOUT_ME.search(m.group(0)):
        return ""
    if _TEXT_WORK.search(text):
        text = _QUOTED.sub(" ", text)
    return text
