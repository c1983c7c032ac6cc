"""Signals more than one mechanism reads (the detectors, salience.py, general.py, the write
decision): hedges, firm update and change words, emphasis, safety, reported speech, answer-style
atoms and topic cues (compiled once from the lexicon), standing instructions, first person,
stance, plan and time words, deictic remarks and negation."""

from __future__ import annotations

import re

from memory.extraction.lexicon import (
    CHANGE_EN,
    CHANGE_ZH,
    EMPHASIS_EN,
    EMPHASIS_ZH,
    FIRM_EN,
    FIRM_ZH,
    HEDGES_EN,
    HEDGES_ZH,
    SAFETY,
    STYLE_ATOMS,
    STYLE_GENRES,
    TOPIC_CUES,
)
from memory.extraction.words import word_class
from memory.language.text import CJK, split_clauses


def _alt(items) -> re.Pattern:
    return re.compile("|".join(f"(?:{i})" for i in items), re.IGNORECASE)


HEDGE_RE = _alt(HEDGES_ZH + HEDGES_EN)

# Torn between choices ("纠结要不要换") hedges; torn as a feeling ("每次出去吃饭都很纠结") does not.
_DELIBERATION = re.compile(r"纠结|犹豫")
_CHOICE_AFTER = re.compile(r"^.{0,8}?(?:要不要|还是|该不该|是否|选|换|买|报|去不去|要|搬)")
# A clause about what somebody else may do ("they'll probably ask for my SSN") hedges them,
# not the speaker's facts.
_OTHERS_FIRST = re.compile(
    r"^\s*(?:they|he|she|it|they'll|he'll|she'll|they'd|他们|她们|他|她|对方|人家)\b|^\s*(?:他们|她们|他|她|对方)",
    re.IGNORECASE,
)


# Weighing up whether to do something: "要不要", "该不该", A-not-A ("接不接", "买不买"), "whether".
WEIGHING_UP = re.compile(r"要不要|该不该|是否|([\u4e00-\u9fff])不\1|\bwhether\b", re.IGNORECASE)


def weighs_up_what_came_before(clause: str, names) -> bool:
    """The clause ends weighing up whether to do something it does not name ("…但要去新加坡 我还
    在想要不要接"): what would be done is what was named before it, and the doubt is about that.
    `names` tells whether a text names anything. A doubt of another kind stays with its own
    clause ("邮件不一定看")."""
    weighing = WEIGHING_UP.search(clause)
    return weighing is not None and not names(clause[weighing.end() :])


def hedges_the_speaker(text: str) -> bool:
    """A hedge about the speaker's own statement: not a feeling of being torn, not another
    person's maybe."""
    for clause in split_clauses(text) or [text]:
        if _OTHERS_FIRST.match(clause):
            continue
        for m in HEDGE_RE.finditer(clause):
            if _DELIBERATION.fullmatch(m.group(0)) and not _CHOICE_AFTER.match(clause[m.end() :]):
                continue
            return True
    return False


FIRM_RE = _alt(FIRM_ZH + FIRM_EN)


# A statement of a change ("新房东是…", "教练换了", "搬家了", "no longer…", "it's now…") is
# itself evidence that it is the current state: as firm as an explicit update marker.
# Taking back a value one gave ("我说错了，过敏的是菠萝", "my mistake, the rate is 3.55%"): what
# follows is the right one, a change of what was said.
# Besides the word class, the ways a slip is named, whatever verb or noun comes with it: a
# verb of saying, remembering, writing, reading or typing with 错/岔/混/反/串 ("老记错她的年级",
# "填错了", "算岔了"), a "不对" standing as a clause of its own ("哎不对，…"), a muddled head
# ("脑子糊涂了"); "wrong <what was given>" ("sorry, wrong date"), a typo, "mis-" verbs, and
# mixing one up with someone ("I'm mixing it up with my brother").
_SLIP = (
    # the speaker's own: at the head of a clause or after 我, not after someone else
    # ("平方分米平方厘米他老搞混", "女儿老把6和9写反")
    r"(?:^|(?<=[，,。.！!；;\s我]))(?:[又老总]\s*)?"
    r"(?:说|记|写|看|听|打|搞|弄|想|报|填|输|算|念|读|标|选)得?(?:错|岔|混|反|串)了?"
    r"|(?:^|(?<=[，,。.！!；;\s]))(?:(?:[哦噢啊哎唉呃额嗯呀]+|等等)[，,\s]*)?不对(?:不对)?"
    r"(?=[，,。.！!；;\s]|$)"
    r"|(?:脑子)?(?:糊涂|迷糊|短路)了"
    r"|\bwrong (?:date|day|time|number|year|month|week|one|city|place|size|name|address|floor"
    r"|amount|price|figure|store|shop|person|kid|dog|car)\b"
    r"|\btypo\b|\bmis(?:spoke|typed|read|remembered|heard)\b"
    r"|\b(?:I'm |I am |I was |I )?mix(?:ed|ing)? (?:it |them |that |those |things |him |her )?up"
    r"(?: with (?:my|the|his|her|our) \w+(?: \w+)?)?"
)
SELF_CORRECTION_RE = re.compile(f"{word_class('self_corrections').pattern}|{_SLIP}", re.IGNORECASE)
CHANGE_RE = _alt([*CHANGE_ZH, *CHANGE_EN, SELF_CORRECTION_RE.pattern])
_TAKING_BACK_ONLY = re.compile(
    r"我|咱|等等|等一?下|不好意思|抱歉|[啊呀哦吧了的哈嗯噢]|"
    r"\b(?:I|sorry|oh|ok|okay|ah|um|hmm|lol|haha|oops|wait|hold on|no|about (?:that|it|this))\b|"
    r"[\W_]",
    re.IGNORECASE,
)


def only_takes_back(clause: str) -> bool:
    """A clause that does nothing but take back what was said ("等下 我说错了", "sorry, my
    mistake"): the statement after it is the correction, the clause itself says nothing."""
    if not SELF_CORRECTION_RE.search(clause):
        return False
    return not _TAKING_BACK_ONLY.sub("", SELF_CORRECTION_RE.sub(" ", clause))


def changes_a_state(text: str) -> bool:
    """An event after which something about the person is different: bought, sold, moved,
    joined, quit, adopted, diagnosed, installed ("旧车卖了，提了辆海豹", "transferred to the
    Berlin office"; the `state_changes` word class). A trip, a meal, a visit or a test drive
    changes nothing a later statement would answer."""
    return bool(word_class("state_changes").search(text))


def made_change(text: str) -> bool:
    """A change made or a decision taken ("换了新工作", "定了", "is on Kaiser now"), not one only
    wished for ("想把健身房换成乐刻", "want to switch to Vim": the `wishes` word class) nor one
    not yet made ("还没正式通知", "hasn't been approved")."""
    if word_class("wishes").search(text) or _AHEAD.search(text) or PLAN_RE.search(text):
        return False  # wished for or still ahead: "下个月搬去杭州" has not moved anyone yet
    for rx in (FIRM_RE, CHANGE_RE, word_class("state_changes")):
        for m in rx.finditer(text):
            if not _NOT_YET.search(text[max(0, m.start() - 8) : m.start()]):
                return True
    return False


_AHEAD = re.compile(
    r"下个?(?:月|周|星期|季度|学期)|下半年|年底|年后|回头|改天|过(?:段|阵|几天)|明年|明天|后天|将要|即将|"
    r"\bwill\b|'ll\b|\bgoing to\b|\blater this year\b|\bsomeday\b|\beventually\b|"
    r"\bnext (?:week|month|year|term|semester|spring|summer|fall|autumn|winter)\b|\bsoon\b",
    re.IGNORECASE,
)
_NOT_YET = re.compile(r"(?:没|未|不|\bnot\b|\bnever\b|n't\b)[^，,。.;；]{0,6}$", re.IGNORECASE)


EMPHASIS_RE = _alt(EMPHASIS_ZH + EMPHASIS_EN)


SAFETY_RE = _alt(SAFETY)


REPORTED_RE = re.compile(
    r"(?:同事|朋友|别人|有人|老板|领导|他们|她|他)说|据说|听人说|"
    r"\b(?:a (?:colleague|friend)|someone|people|they) (?:said|says|told)\b|"
    # someone else's advice is theirs until the user takes it up ("医生建议", "hinted I should")
    r"(?:医生|大夫|老婆|老公|爸|妈|朋友|同事|领导|教练|老师)(?:建议|劝|说用户?应该|觉得用户?应该)|"
    r"\b(?:suggested|recommended|hinted|advised|thinks i should|says i should|wants me to)\b",
    re.IGNORECASE,
)


STYLE_RES = [(atom, grp, re.compile(rx, re.IGNORECASE)) for atom, (grp, rx) in STYLE_ATOMS.items()]


GENRE_RES = [(re.compile(rx, re.IGNORECASE), g) for rx, g in STYLE_GENRES]


def _top_level(rx: str) -> list[str]:
    """A regex's alternatives at depth 0 ("a|(b|c)|d" → a, (b|c), d)."""
    parts, depth, start, escaped = [], 0, 0, False
    for i, ch in enumerate(rx):
        if escaped:
            escaped = False  # "\|", "\(" are literal characters
        elif ch == "\\":
            escaped = True
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(rx[start:i])
            start = i + 1
    parts.append(rx[start:])
    return parts


def _whole_words(rx: str) -> str:
    """An English cue matches a word, not the front of another ("seat" is no part of
    "Seattle"); inflections still count ("flights", "allergic", "reminders")."""
    return "|".join(
        rf"(?<![A-Za-z])(?:{alt})(?:s|es|ing|ed|er|ers|y|ic|ies)?(?![A-Za-z])"
        if re.fullmatch(r"[A-Za-z][A-Za-z ]*", alt)
        else alt
        for alt in _top_level(rx)
    )


TOPIC_RES = [(re.compile(_whole_words(rx), re.IGNORECASE), slot) for rx, slot in TOPIC_CUES]


STRONG_CUES = next(i for i, (_, slot) in enumerate(TOPIC_CUES) if slot == "coffee")


STANDING_RE = re.compile(
    # "七点以后", "三天以后" are a time, not "from now on"
    r"(?<![点号天月年周])以后|今后|往后|下次|每次|每当|的时候|默认|总是|一直|一律|都(?:用|要|按|订|给|别|不)|任何时候|"
    r"无论|不管|永远|\bever\b|\balways\b|\bnever\b|from now on|whenever|every time|each time|"
    r"for (?:all )?future|in (?:the )?future|by default|going forward|\bwhen you\b|for any\b|"
    r"for all\b|any time|anytime|standing (?:order|instruction|rule)",
    re.IGNORECASE,
)


# What makes a clause after a request an instruction for later ("帮我订酒店，以后都订亚朵"), where
# "一直" / "always" alone may only describe the thing worked on ("component 一直 re-render").
FOR_LATER_RE = re.compile(
    r"以后|今后|往后|下次|每次|默认|一律|都(?:用|要|按|订|给|别|不)|你|"
    r"\b(?:from now on|going forward|by default|in (?:the )?future|whenever|every time|you)\b",
    re.IGNORECASE,
)


PLAN_RE = re.compile(
    r"目标|计划|打算|准备(?:用|去|在|要|把|换|上|做|采购|搞)|要去|将要|规划|截止|deadline|行程|出差|"
    r"出发|要交|要提交|(?<!已经)(?<!不)要(?:搬家|搬到|结婚|出国|装修|考)|要(?:在|把).{0,20}(?:前|之前)|(?:前|之前|以前|底前)(?:要|得|必须)?(?:搞定|完成|上线|交|"
    r"提交|升级|迁移|落地)|要坚持|\bgoal\b|\bgoing to\b|"
    # "plan to <verb>", not a noun "plan" moved somewhere ("my phone plan to Mint Mobile")
    r"\bplan(?:ning)? to (?!(?:the|a|an|my|our|their|his|her|another)\b)(?-i:[a-z])|"
    r"\bwill (?:be )?(?:fly|flying|move|moving|visit|travel|go|start|launch|finish|migrate)|"
    r"\bI'm (?:flying|going|moving|traveling|travelling|visiting|heading|relocating)\b|"
    r"\brelocat(?:e|ing)\b|"
    r"\bwe're (?:moving|migrating|planning|launching|rolling)\b|\bby the end of\b|"
    r"\bhas to be (?:finished|done|completed)\b|\bmy trip\b|\btarget\b|\bdeadline\b",
    re.IGNORECASE,
)


TIME_RE = re.compile(
    r"今年|明年|下周|下个?月|月底|年底|年初|季度|[一二三四五六七八九十\d]+\s*月|\d+\s*[号日]|周[一二三四五六日天]|"
    r"星期|明天|后天|中旬|上旬|下旬|月初|每个?月|每周|每年|\bQ[1-4]\b|\byear\b|\bmonth\b|\bweek\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\s+\d|"
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\btomorrow\b|\bnext\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)\b|\bend of\b|\bquarter\b|"
    r"\b(?:january|february|april|june|july|august|september|october|november|december)\b|"
    r"\b(?:in|by|until|from) (?:march|may)\b|\b(?:spring|summer|autumn|fall|winter)\b|"
    r"暑假|寒假|春节|国庆",
    re.IGNORECASE,
)


PREF_POS = re.compile(
    r"喜欢|最爱|爱吃|爱喝|偏好|偏爱|倾向|偏向|宁可|宁愿|习惯(?:用|了|住|坐|喝|吃)|优先(?:考虑|选|用|订|找)?|首选|"
    r"一般(?:住|用|坐|点|喝|吃|订|选)|一直(?:住|用|坐|喝|吃|订|选)|总是|每次都|默认|最好|钟爱|能吃辣|"
    r"爱用|只(?:住|坐|用|喝|吃|订|要|选)|\bprefer|\blike\b|\blove\b|\benjoy|\bfavou?rite\b|"
    r"\busually\b|\btend to\b|\brather\b|\bonly\b|\bby default\b|\bstick (?:to|with)\b|"
    r"\balways\b|\bI'm a fan\b",
    re.IGNORECASE,
)


PREF_NEG = re.compile(
    r"不喜欢|讨厌|烦|受不了|不吃|不能吃|吃不了|不喝|不碰|别用|别给我|不要给我|避开|避免|不想要|反感|"
    r"拒绝|千万别|别(?:约|订|安排|排|推荐|发|写|用|加|选|找|去|点)|不要(?:安排|约|订|推荐|用|加|写|大段)|忌口|"
    r"不用(?!了)|就算了|算了吧|不想再|再也不|不会再|不能(?:乱|随便)?(?:吃|喝|用|碰)|"
    r"\b(?:don't|do not|never|no longer) (?:eat|drink)\b|\bstopped (?:eating|drinking|using)\b|"
    r"\bhate\b|\bdislike\b|can't stand|\bdon't (?:like|want|enjoy)\b|\bnever\b|"
    r"\bavoid\b|\bdon't (?:suggest|book|use|send|schedule|recommend|put|give|add|order)\b|"
    r"\bno more\b|\bnot a fan\b|\bnot going back\b|\bwithout\b",
    re.IGNORECASE,
)


FIRST_PERSON = re.compile(r"我|咱|\bI\b|\bI'm\b|\bmy\b|\bme\b|\bwe\b|\bour\b|\bus\b", re.IGNORECASE)


AGENT_IMPERATIVE = re.compile(
    r"(?:别|不要|千万别|请|记得)(?:再)?(?:给我|帮我|在|约|订|推荐|安排|发|用|加|写)|"
    r"^(?:please\s+)?(?:don't|never|always|avoid|use|book|put|keep|make sure)\b",
    re.IGNORECASE,
)


DEICTIC = re.compile(
    r"\b(?:this|that|it|these|those)\b|这个|这种|这篇|这样|那个|那种", re.IGNORECASE
)


REASON_SPLIT = re.compile(r"\b(?:because|since|cause|'cause|as it|as they)\b|因为|由于", re.I)


def main_clause(body: str) -> str:
    """The statement without its reason ("I prefer acrylic because it dries fast" -> "I prefer
    acrylic"): a pronoun inside the reason does not make it a remark about the reply."""
    return REASON_SPLIT.split(body, maxsplit=1)[0]


def short_remark(body: str) -> bool:
    """A short remark ("这个挺好", "I love this answer") - a longer statement with a deictic
    ("偏向分级读物，牛津树那种") still names what it is about."""
    if CJK.search(body):
        return len(CJK.findall(body)) <= 12
    return len(body.split()) <= 8


NEG_BEFORE = re.compile(
    r"(?:不|别|没|避开|避免|讨厌|烦|不要|拒绝|不想|\bno\b|\bnot\b|\bnever\b|"
    r"\bdon't\b|\bavoid\b|\bhate\b|\bwithout\b|\bno more\b)[^，,。.;；]{0,14}$",
    re.IGNORECASE,
)


NEG_AFTER = re.compile(
    r"^[^，,。.;；]{0,5}(?:都不|不能|不吃|不要|不行|不喝|受不了|千万别|别放|别加|不放|不加|"
    r"\bis a no\b)",
    re.IGNORECASE,
)


def negated_at(text: str, start: int, end: int) -> bool:
    return bool(NEG_BEFORE.search(text[max(0, start - 20) : start]) or NEG_AFTER.search(text[end:]))
