"""Episodic memories: things that happened to the person ("I went to Kyoto last week",
"我女儿上周开始上幼儿园了"). Called by the rule extractor for every user turn, after the
semantic rules; sentences those rules already used are passed in `covered`.

A sentence is an episode when it reports, in the past, an action or life event of the user (or
of their family, pets, team or a named person they talk about):

* zh: an event verb (去了/参加/买了/搬家/开始/拿到/住院/认识/领养/毕业/升职/跑完/…) that is
  not negated, with a past marker (了/过/刚/已经 or a past time expression);
* en: a past-tense event verb after "I / we / my X / our X / <Name>" or opening the sentence
  ("Ran my first 10k…"), or a present perfect ("I've started…"), or "was promoted/born/…".

Skipped: questions, hypotheticals ("要是/如果/if/I'd"), plans and anything in the future
("打算/下周/going to/next month"), reported speech, sentences about the assistant, small talk
without a life event ("今天早上喝了杯豆浆", "I had coffee this morning"), and in general
anything without a time expression unless the verb is a life event (升职, adopted, …) or the
sentence says "刚/终于/第一次/just/finally/first".

A sentence the semantic rules already used is skipped too, except when it carries a time
expression: then the episode adds the one thing the semantic memory lacks, the date.

Relative dates are resolved against the turn's `occurred_at` and written into the content next
to the user's words: "前天（2026-02-18）", "last week (week of 2026-05-04)", "上个月（2026年4月）",
"last year (2025)". Weeks start on Monday; "上周三" / "last Tuesday" is that day of the previous
week, a bare weekday ("on Saturday", "周六") the most recent one before the turn.

Adjacent episode sentences of one turn are merged when the later one leans on the earlier
("We flew there on May 9…", "她去年做过…"), so the pronoun keeps its referent.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

from memory.aliases import find_entities
from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.rewrite import rewrite
from memory.extraction.slots.events import dated_event
from memory.language.dates import EN_MONTH, EN_WEEKDAY, ZH_WEEKDAY
from memory.language.numerals import en_count, zh_int
from memory.language.redaction import contains_pii
from memory.language.text import looks_like_question, split_sentences

CJK = re.compile(r"[\u4e00-\u9fff]")


ZH_N = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"
EN_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
EN_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
EN_COUNT = r"(?:\d{1,2}|a|an|one|two|three|four|five|six|a couple of|a few)"

# Ordered: longer, more specific expressions first. Each has a kind resolved by `_resolve`.
_TIME_PATTERNS: list[tuple[str, str]] = [
    ("iso", r"(?P<y>(?:19|20)\d\d)-(?P<m>\d{2})-(?P<d>\d{2})"),
    ("zh_ymd", rf"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>{ZH_N})\s*月\s*(?P<d>{ZH_N})\s*[日号]"),
    ("zh_rel_year_md", rf"(?P<ry>去年|前年|今年)\s*(?P<m>{ZH_N})\s*月\s*(?P<d>{ZH_N})\s*[日号]"),
    ("zh_rel_year_m", rf"(?P<ry>去年|前年|今年)\s*(?P<m>{ZH_N})\s*月(?:份)?"),
    ("zh_ym", rf"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>{ZH_N})\s*月(?:份)?"),
    ("zh_md", rf"(?<![\d年])(?P<m>{ZH_N})\s*月\s*(?P<d>{ZH_N})\s*[日号]"),
    ("zh_holiday", r"(?P<h>圣诞节|平安夜|元旦|五一|国庆节?|情人节|儿童节|跨年夜?)"),
    ("zh_m", rf"(?<![\d年上下这本])(?P<m>{ZH_N})\s*月份?(?![底初中\d])"),
    ("zh_y", r"(?P<y>(?:19|20)\d\d)\s*年(?!\s*\d|[一二三四五六七八九十])"),
    (
        "zh_weekday",
        r"(?<!每)(?<!每个)(?P<w>上上|上|这|本)?(?:个)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])",
    ),
    ("zh_weekend", r"(?P<w>上|这|本)?(?:个)?(?:周末)"),
    ("zh_ago", rf"(?P<n>{ZH_N}|几|两)\s*(?P<u>天|周|个?星期|个月|年)(?:以)?前"),
    (
        "zh_word",
        r"(?P<word>大前天|前天|昨天|昨晚|昨儿|今天|今早|今晚|今儿|刚才|刚刚|前两天|前几天|"
        r"上上周|上周|上个?星期|上个?礼拜|这周|本周|上个?月|这个?月|本月|去年|前年|今年|"
        r"年初|月初)",
    ),
    (
        "en_mdy",
        rf"\b(?P<mon>{EN_MONTHS})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d\d)\b",
    ),
    ("en_md", rf"\b(?P<mon>{EN_MONTHS})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"),
    ("en_dm", rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{EN_MONTHS})\b"),
    (
        "en_holiday",
        r"\b(?P<h>christmas(?: eve| day)?|new year'?s(?: eve| day)?|thanksgiving|"
        r"(?:the )?fourth of july|july 4th|valentine'?s day|halloween)\b",
    ),
    ("en_my", rf"\b(?:in\s+)?(?P<mon>{EN_MONTHS})\s+(?P<y>(?:19|20)\d\d)\b"),
    (
        "en_m",
        r"\b(?:in|since|during|back in|early|late|mid)[\s-]+(?P<mon>january|february|march|april|"
        r"may|june|july|august|september|october|november|december)\b",
    ),
    ("en_the_nth", r"\bon the (?P<d>\d{1,2})(?:st|nd|rd|th)\b"),
    ("en_y", r"\b(?:in|back in|since)\s+(?P<y>(?:19|20)\d\d)\b"),
    (
        "en_weekday",
        rf"(?<!every )(?<!every other )\b(?P<w>last|this|on|past)?\s*"
        rf"(?<!every )(?<!every other )(?P<wd>{EN_DAYS})s?\b",
    ),
    ("en_season", r"\b(?P<w>last|this)\s+(?P<s>summer|winter|spring|fall|autumn)\b"),
    ("en_ago", rf"\b(?P<n>{EN_COUNT})\s+(?P<u>days?|weeks?|months?|years?)\s+ago\b"),
    (
        "en_word",
        r"\b(?P<word>the day before yesterday|yesterday|last night|this morning|"
        r"this afternoon|earlier today|today|tonight|last weekend|this weekend|"
        r"over the weekend|on the weekend|at the weekend|last week|earlier this week|"
        r"this week|last month|earlier this month|this month|last year|"
        r"earlier this year|this year|the other day|a couple of days ago|recently)\b",
    ),
]
_TIME_RES = [(kind, re.compile(rx, re.IGNORECASE)) for kind, rx in _TIME_PATTERNS]
_HOLIDAYS = {
    "圣诞节": (12, 25), "平安夜": (12, 24), "元旦": (1, 1), "五一": (5, 1), "国庆": (10, 1),
    "国庆节": (10, 1), "情人节": (2, 14), "儿童节": (6, 1), "跨年": (12, 31), "跨年夜": (12, 31),
    "christmas": (12, 25), "christmas eve": (12, 24), "christmas day": (12, 25),
    "new years": (1, 1), "new year's": (1, 1), "new years day": (1, 1), "new year's day": (1, 1),
    "new years eve": (12, 31), "new year's eve": (12, 31), "fourth of july": (7, 4),
    "the fourth of july": (7, 4), "july 4th": (7, 4), "valentines day": (2, 14),
    "valentine's day": (2, 14), "halloween": (10, 31),
}  # fmt: skip

# ---- event detection -----------------------------------------------------------------------
ZH_EVENT = re.compile(
    r"去了|去过|来了|回了|回来了|到了|飞了|参加了?|参观了?|参与了?|出席了?|买了|买到了?|入手了?|"
    r"订了|搬家|搬到|搬进|搬了|开始(?:上|学|练|做|用|跑|写|工作|实习|减肥|健身|学习)|"
    r"完成了?|做完了?|考完了?|考了|考过|考上了?|通过了?|拿到了?|拿了|获得了?|得了|赢了|输了|中了|"
    r"抽中了?|生病|感冒了?|发烧了?|住院|出院|做了.{0,8}手术|做过.{0,8}手术|动了.{0,4}手术|拔了|"
    r"摔了|骨折|扭伤|受伤|确诊|查出|检查出|认识了?|见到了?|见了|遇到了?|领养了?|收养了?|养了|"
    r"毕业了?|升职了?|加薪了?|晋升|跳槽|入职了?|辞职了?|离职了?|退休了?|跑完了?|跑了|骑了|爬了|"
    r"学会了?|结婚了?|订婚了?|离婚了?|怀孕了?|生了|出生了?|表演了?|演出了?|看了|听了|玩了|待了|"
    r"住了|旅游|旅行|度假|报了|报名了?|上了第一|签下了?|签了|融资|上线了?|发布了?|换了|卖了|丢了|"
    r"装修|打了.{0,6}(?:疫苗|针)|过了.{0,6}(?:生日|大寿)|办了|举办了?|庆祝了?|请了|带.{0,6}去|"
    r"种了|修好了?|吃坏|挂了.{0,3}水|剪了|去世|走了一趟|去了一趟|当了|做了.{0,6}(?:体检|检查)|"
    r"体检|面试了?|录取|拿了|收到了?|领了|跑了|捡了|买下了?|复查|看病|看了?医生|看了?牙|去了?医院|挂了?号|"
    r"去[^，,。；;！!]{1,10}了|露营|野餐|徒步|自驾|滑雪|潜水|钓鱼|爬山|拍了|分手|"
    r"上(?:小学|幼儿园|初中|高中|大学)|(?:工作|生活|住|待|留学)过"
)
ZH_STRONG = re.compile(
    r"搬家|搬到|搬进|住院|出院|手术|确诊|查出|骨折|领养|收养|毕业|升职|加薪|晋升|跳槽|入职|辞职|"
    r"离职|退休|结婚|订婚|离婚|怀孕|生了|出生|去世|考上|录取|拿到.{0,6}(?:驾照|证|offer|学位)|"
    r"融资|签下|跑完|获得|赢了|抽中|体检|分手|上(?:小学|幼儿园|初中|高中|大学)|开始(?:上|学)|学会|成绩出来|考了.{0,4}\d+(?:\.\d)?分"
)
ZH_FRESH = re.compile(r"刚|终于|第一次|头一次|首次|已经")
ZH_PAST = re.compile(r"了|过|刚|已经")
ZH_NEG_BEFORE = re.compile(r"(?:没|没有|未|不|别|还没|没能)$")
ZH_FUTURE = re.compile(
    r"打算|准备|计划|想要|想去|想买|希望|要是|如果|假如|万一|的话|将要|将会|会去|要去|得去|"
    r"明天|后天|下周|下个?星期|下个?月|明年|以后|之后再|下次|到时候|等.{0,8}(?:了|以后|之后)再|"
    r"能不能|可不可以|要不要|该不该|(?<!我)帮(?:我|忙)|替我|麻烦(?:你|您)?|请(?:你|您)"
)
ZH_REPORTED = re.compile(r"(?:听说|据说|听人说|(?:同事|朋友|别人|有人|他们)说)")
ZH_ASSISTANT = re.compile(r"你|您")
ZH_TRIVIAL = re.compile(
    r"(?:喝了|吃了|买了点?|点了|叫了)(?:一|两)?(?:杯|碗|份|点|个|些|顿)?"
    r"(?:咖啡|奶茶|豆浆|早餐|早饭|午饭|晚饭|零食|水果|外卖|面包|饭|东西|饮料)"
    r"|下雨|天气|好热|好冷"
)

_EN_STRONG_VERBS = (
    "adopted|graduated|married|divorced|moved|relocated|retired|quit|resigned|promoted|"
    "hired|fired|launched|shipped|released|published|founded|raised|won|passed|completed|"
    "finished|started|began|joined|bought|purchased|sold|sprained|broke|injured|hurt|"
    "gave birth|delivered|welcomed|proposed|got engaged|got married|got promoted|got hired|"
    "got accepted|got into|got back|got a new|got my|got our|signed|enrolled|volunteered|"
    "attended|visited|flew|travel+ed|ran|hiked|climbed|competed|performed|painted|wrote|"
    "planted|harvested|renovated|built|met|lost|flooded|crashed|died|passed away|"
    "was born|were born|diagnosed|hospitali[sz]ed|had surgery|had (?:a|an|my|our) (?:surgery|"
    "operation|baby|checkup|check-up|physical|interview|accident|wedding|miscarriage)"
)
EN_EVENT_VERBS = (
    r"(?:went|visited|attended|bought|purchased|got|moved|relocated|started|began|finished|"
    r"completed|passed|graduated|won|lost|adopted|met|ran|hiked|climbed|flew|travel+ed|drove|"
    r"took|joined|quit|left|hired|launched|shipped|released|signed|raised|painted|wrote|"
    r"published|cooked|baked|planted|harvested|built|fixed|sold|gave|celebrated|hosted|threw|"
    r"married|broke|sprained|injured|hurt|tried|learned|learnt|received|earned|found|"
    r"had (?:(?:a|an|my|our|the|his|her|their|\w+'s)\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:surgery|operation|baby|"
    r"checkup|check-up|physical|interview|accident|incident|wedding|party|birthday|funeral|"
    r"appointment|exam|scan|biopsy|recital|concert|game|match|race|trip|vacation|holiday|"
    r"ceremony|reunion|miscarriage|procedure|session|lesson|class)|"
    r"saw|watched|played|performed|volunteered|enrolled|registered|applied|interviewed|"
    r"rolled|walked|spoke|flooded|crashed|died|caught|recovered|tested|toured|camped|swam|"
    r"biked|cycled|cleaned|organi[sz]ed|opened|closed|delivered|welcomed|proposed|renovated|"
    r"redecorated|repainted|installed|upgraded|competed|scored|placed|finished|read|visited|"
    r"returned|arrived|landed|came back|picked up|signed up|went back|baked|donated|made|"
    r"presented|pitched|submitted|defended|retired|resigned|founded|launched|bought|"
    r"reconnected|visited|stayed|spent|saved|lost|got back|came home|headed|drove)"
)
_EN_BE_EVENT = (
    r"(?:promoted|born|diagnosed|hospitali[sz]ed|admitted|discharged|hired|fired|laid off|"
    r"accepted|admitted|married|engaged|robbed|injured|elected|awarded|selected|invited|"
    r"vaccinated|rejected|transferred|released)"
)
EN_ADVS = r"(?:(?:just|finally|also|recently|actually|already|officially|both|all|even|"
EN_ADVS += r"totally|really|first|then|once|initially|eventually|somehow)\s+)*"
EN_NAME = r"(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
EN_FAMILY = (
    r"(?:wife|husband|partner|son|daughter|kids?|children|mom|mother|dad|father|parents|"
    r"brother|sister|grandma|grandmother|grandpa|grandfather|family|dog|cat|puppy|kitten|"
    r"team|boss|manager|baby|girlfriend|boyfriend|fianc[eé]e?|friend|best friend|aunt|uncle|"
    r"cousin|niece|nephew|in-laws|startup|company|basement|house|car|roof|garden|band|club)"
)
EN_SUBJECT = (
    rf"(?:I|we|We|(?:[Mm]y|[Oo]ur)\s+(?:\w+\s+)?{EN_FAMILY}s?(?:,?\s+{EN_NAME},?)?|"
    rf"(?:[Mm]y|[Oo]ur)\s+{EN_FAMILY}\s+and\s+I|{EN_NAME}(?:\s+and\s+(?:I|{EN_NAME}))?)"
)
EN_EVENT_RE = re.compile(
    rf"(?:^|[\s,;:(])(?P<subj>{EN_SUBJECT})\s+{EN_ADVS}"
    rf"(?P<verb>{EN_EVENT_VERBS}|(?:was|were|got)\s+{_EN_BE_EVENT}|"
    rf"(?:'ve|'s|\s+have|\s+has)\s+{EN_ADVS}(?:started|finished|completed|been to|moved|joined|"
    rf"adopted|bought|got|passed|graduated|quit|launched|shipped|won|lost|met|visited|"
    rf"signed up|taken up|picked up|learned|learnt|begun))\b"
)
# Subjectless: "Ran my first 10k yesterday", "Just got back from Lisbon!".
EN_LEAD_VERB_RE = re.compile(
    rf"^(?:(?:just|finally|also|recently|so|and|well|oh|ok|okay)[\s,]+)*(?P<verb>{EN_EVENT_VERBS})\b",
    re.IGNORECASE,
)
EN_STRONG_RE = re.compile(rf"\b(?:{_EN_STRONG_VERBS})\b|\bwas {_EN_BE_EVENT}\b", re.IGNORECASE)
EN_FRESH_RE = re.compile(r"\b(?:just|finally|first|for the first time)\b", re.IGNORECASE)
EN_HYPO = re.compile(
    r"\bif\b|\bwould\b|\bI'd\b|\bwe'd\b|\bwish\b|\bimagine\b|\bsuppose\b|\bunless\b|"
    r"\bmight\b|\bcould have\b|\bshould have\b|\bin case\b|\bwhether\b|\bhope(?:fully)?\b",
    re.IGNORECASE,
)
EN_FUTURE = re.compile(
    r"\bwill\b|'ll\b|\bgoing to\b|\bgonna\b|\bplan(?:ning)? to\b|\bnext (?:week|month|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|time)\b|\btomorrow\b|"
    r"\bupcoming\b|\bsoon\b|\bI'm (?:flying|going|moving|traveling|travelling|heading|visiting)\b|"
    r"\bwe're (?:flying|going|moving|traveling|travelling|heading|visiting)\b|\bwant to\b|"
    r"\bwanna\b|\bneed to\b|\bhave to\b",
    re.IGNORECASE,
)
EN_NEG = re.compile(
    r"\b(?:didn't|did not|never|haven't|have not|hasn't|wasn't|weren't|couldn't|not yet|"
    r"no longer)\b",
    re.IGNORECASE,
)
EN_REPORTED = re.compile(
    r"\b(?:said|says|told me|heard|apparently|according to|rumou?r)\b", re.IGNORECASE
)
EN_ASSISTANT = re.compile(r"\byou(?:r|'re|'ve)?\b", re.IGNORECASE)
EN_TRIVIAL = re.compile(
    r"\b(?:had|got|grabbed|drank|ate|made)\s+(?:a |an |some |my )?(?:coffee|tea|lunch|"
    r"breakfast|dinner|snack|sandwich|latte|beer|water|nap|shower)\b|"
    r"\bwoke up\b|\bwent to (?:bed|sleep|work)\b|\bgot up\b|\bwent home\b",
    re.IGNORECASE,
)
# Daily routine, never an episode even with "just"/"got back".
EN_ROUTINE = re.compile(
    r"\b(?:got|came|just) back from (?:lunch|work|dinner|breakfast|a walk|a meeting|the "
    r"(?:gym|store|office|shop|supermarket))\b",
    re.IGNORECASE,
)
EN_NAME_STOP = {
    "The", "This", "That", "These", "Those", "It", "He", "She", "They", "There", "People",
    "Everyone", "Everybody", "Someone", "Somebody", "Nobody", "Nothing", "Something", "Honestly",
    "Yesterday", "Today", "Tonight", "Last", "Then", "So", "And", "But", "Also", "Just", "Oh",
    "Well", "Yeah", "Yes", "No", "Ok", "Okay", "Ugh", "Wow", "Hey", "Hi", "Hello", "Thanks",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "What",
    "When", "Where", "Who", "Why", "How", "Which", "Finally", "Actually", "Anyway", "Big",
    "Great", "Good", "Quick", "Fun", "Sadly", "Luckily", "Unfortunately", "Apparently", "A",
    "An", "My", "Our", "We", "I", "Your", "You", "His", "Her", "Their", "Its", "Mom", "Dad",
    "I'm", "I've", "I'd", "I'll", "Most", "Some", "All", "Both", "Many", "Few", "Earlier",
    "Recently", "Since", "After",
    "Before", "During", "Once", "While", "In", "On", "At", "For", "From", "With",
}  # fmt: skip
EN_WORK = re.compile(
    r"\b(?:team|ship|shipped|launch|launched|release|released|customer|client|investor|seed|"
    r"series|funding|raised|hackathon|sprint|product|demo|office|hired|startup|company|"
    r"deploy|deployed|beta|upvotes?|revenue|offsite|billing|service|feature|pitch|pitched)\b",
    re.IGNORECASE,
)
ZH_WORK = re.compile(
    r"客户|融资|产品|上线|发布|项目|团队|team|demo|版本|pitch|签下|签了|办公室|招聘"
)
PRONOUN_LEAN = re.compile(
    r"^(?:(?:and|so|then|also)\s+)?(?:we|they|he|she|it)\b|\bthere\b|\bthen\b|^(?:她|他|它|他们|她们|"
    r"那里|那边|当时|然后|后来)",
    re.IGNORECASE,
)
IMPORTANT = re.compile(
    r"住院|出院|手术|确诊|查出|骨折|去世|怀孕|出生|生了|结婚|订婚|离婚|毕业|升职|领养|收养|搬家|"
    r"体检|脂肪肝|癌|\b(?:hospital\w*|surgery|diagnos\w*|born|birth|died|passed away|pregnan\w*|"
    r"married|engaged|divorced|graduat\w*|promoted|adopted|moved|checkup|check-up|cancer|"
    r"broke (?:my|his|her) \w+|sprain\w*|fractur\w*|funeral)\b",
    re.IGNORECASE,
)
MINOR = re.compile(r"看了|听了|玩了|\b(?:watched|tried|played|cooked|baked|saw)\b", re.IGNORECASE)
HEDGE = re.compile(
    r"好像|可能|也许|大概是|应该是|\b(?:maybe|probably|i think|i guess|not sure)\b", re.I
)
LEAD_FILLER = re.compile(
    r"^(?:哈+|嗯+|哦+|对了|另外|还有|跟你说|告诉你|说个|好消息|坏消息|最近|话说|其实|"
    r"hey|hi|hello|so|well|oh|ok(?:ay)?|guess what|big news|good news|bad news|fun fact|"
    r"update|btw|by the way|anyway|ugh|wow|yay|omg)",
    re.IGNORECASE,
)
TRAIL_FLUFF = re.compile(
    r"[\s,，]*(?:lol|haha+|hehe|哈+|嘿嘿|呜呜|[~～]+|:\)|😂|😭)+[\s!！。.]*$", re.I
)


def _safe_date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _past_md(base: dt.date, m: int, d: int) -> dt.date | None:
    """Month/day without a year: the latest such date not after `base`."""
    day = _safe_date(base.year, m, d)
    if day and day > base:
        day = _safe_date(base.year - 1, m, d)
    return day


def _past_month(base: dt.date, m: int) -> tuple[int, int]:
    return (base.year, m) if m <= base.month else (base.year - 1, m)


def _minus_months(base: dt.date, n: int) -> tuple[int, int]:
    total = base.year * 12 + (base.month - 1) - n
    return total // 12, total % 12 + 1


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _recent_weekday(base: dt.date, wd: int) -> dt.date:
    """The most recent `wd` strictly before `base`."""
    back = (base.weekday() - wd) % 7 or 7
    return base - dt.timedelta(days=back)


def _resolve(kind: str, m: re.Match, base: dt.date) -> tuple[str, object] | None:
    """(granularity, value): ("day", date) / ("week", monday) / ("weekend", saturday) /
    ("month", (y, m)) / ("year", y) / ("around", date)."""
    g = m.groupdict()
    if kind == "iso":
        day = _safe_date(int(g["y"]), int(g["m"]), int(g["d"]))
        return ("day", day) if day else None
    if kind == "zh_ymd":
        day = _safe_date(int(g["y"]), zh_int(g["m"]) or 0, zh_int(g["d"]) or 0)
        return ("day", day) if day else None
    if kind in ("zh_rel_year_md", "zh_rel_year_m"):
        year = base.year - {"去年": 1, "前年": 2, "今年": 0}[g["ry"]]
        month = zh_int(g["m"]) or 0
        if not 1 <= month <= 12:
            return None
        if kind == "zh_rel_year_m":
            return ("month", (year, month))
        day = _safe_date(year, month, zh_int(g["d"]) or 0)
        return ("day", day) if day else None
    if kind == "zh_ym":
        month = zh_int(g["m"]) or 0
        return ("month", (int(g["y"]), month)) if 1 <= month <= 12 else None
    if kind == "zh_md":
        month, d = zh_int(g["m"]) or 0, zh_int(g["d"]) or 0
        day = _past_md(base, month, d) if 1 <= month <= 12 else None
        return ("day", day) if day else None
    if kind in ("zh_holiday", "en_holiday"):
        md = _HOLIDAYS.get(g["h"].lower().replace("’", "'"))
        if not md and g["h"].lower().startswith("thanksgiving"):
            return None
        day = _past_md(base, *md) if md else None
        return ("day", day) if day else None
    if kind == "zh_m":
        month = zh_int(g["m"]) or 0
        return ("month", _past_month(base, month)) if 1 <= month <= 12 else None
    if kind in ("zh_y", "en_y"):
        return ("year", int(g["y"]))
    if kind == "zh_weekday":
        wd = ZH_WEEKDAY[g["wd"]]
        if g["w"] in ("上", "上上"):
            weeks = 2 if g["w"] == "上上" else 1
            return ("day", _monday(base) - dt.timedelta(weeks=weeks) + dt.timedelta(days=wd))
        if g["w"] in ("这", "本"):
            return ("day", _monday(base) + dt.timedelta(days=wd))
        return ("day", _recent_weekday(base, wd))
    if kind == "zh_weekend":
        if g["w"] == "上":
            return ("weekend", _monday(base) - dt.timedelta(days=2))
        if g["w"] in ("这", "本") or base.weekday() >= 5:
            return ("weekend", _monday(base) + dt.timedelta(days=5))
        return ("weekend", _monday(base) - dt.timedelta(days=2))
    if kind == "zh_ago":
        n = 2 if g["n"] == "两" else (3 if g["n"] == "几" else (zh_int(g["n"]) or 1))
        unit = g["u"]
        if unit == "天":
            return ("around" if g["n"] == "几" else "day", base - dt.timedelta(days=n))
        if unit in ("周", "星期", "个星期"):
            return ("week", _monday(base - dt.timedelta(weeks=n)))
        if unit == "个月":
            return ("month", _minus_months(base, n))
        return ("year", base.year - n)
    if kind == "zh_word":
        return _zh_word(g["word"], base)
    if kind in ("en_mdy", "en_md", "en_dm"):
        month = EN_MONTH.get(g["mon"].lower().rstrip("."))
        d = int(g["d"])
        if not month:
            return None
        day = _safe_date(int(g["y"]), month, d) if g.get("y") else _past_md(base, month, d)
        return ("day", day) if day else None
    if kind == "en_my":
        return ("month", (int(g["y"]), EN_MONTH[g["mon"].lower()]))
    if kind == "en_m":
        return ("month", _past_month(base, EN_MONTH[g["mon"].lower()]))
    if kind == "en_the_nth":
        d = int(g["d"])
        day = _safe_date(base.year, base.month, d)
        if day is None or day > base:
            y, mo = _minus_months(base, 1)
            day = _safe_date(y, mo, d)
        return ("day", day) if day else None
    if kind == "en_weekday":
        wd = EN_WEEKDAY[g["wd"].lower()]
        w = (g["w"] or "").lower()
        if w == "last":
            return ("day", _monday(base) - dt.timedelta(weeks=1) + dt.timedelta(days=wd))
        if w == "this":
            return ("day", _monday(base) + dt.timedelta(days=wd))
        return ("day", _recent_weekday(base, wd))
    if kind == "en_season":
        season = g["s"].lower().replace("autumn", "fall")
        start = {"spring": 3, "summer": 6, "fall": 9, "winter": 12}[season]
        year = base.year if (g["w"].lower() == "this" or base.month >= start + 3) else base.year - 1
        if season == "winter" and base.month <= 3 and g["w"].lower() == "this":
            year -= 1
        return ("season", (year, season))
    if kind == "en_ago":
        n, unit = en_count(g["n"]), g["u"].lower().rstrip("s")
        if unit == "day":
            return ("day", base - dt.timedelta(days=n))
        if unit == "week":
            return ("week", _monday(base - dt.timedelta(weeks=n)))
        if unit == "month":
            return ("month", _minus_months(base, n))
        return ("year", base.year - n)
    if kind == "en_word":
        return _en_word(g["word"].lower(), base)
    return None


def _zh_word(word: str, base: dt.date) -> tuple[str, object] | None:
    one = dt.timedelta(days=1)
    table: dict[str, tuple[str, object]] = {
        "大前天": ("day", base - 3 * one),
        "前天": ("day", base - 2 * one),
        "昨天": ("day", base - one),
        "昨晚": ("day", base - one),
        "昨儿": ("day", base - one),
        "今天": ("day", base),
        "今早": ("day", base),
        "今晚": ("day", base),
        "今儿": ("day", base),
        "刚才": ("day", base),
        "刚刚": ("day", base),
        "前两天": ("around", base - 2 * one),
        "前几天": ("around", base - 3 * one),
        "上上周": ("week", _monday(base) - dt.timedelta(weeks=2)),
        "这周": ("week", _monday(base)),
        "本周": ("week", _monday(base)),
        "这个月": ("month", (base.year, base.month)),
        "这月": ("month", (base.year, base.month)),
        "本月": ("month", (base.year, base.month)),
        "去年": ("year", base.year - 1),
        "前年": ("year", base.year - 2),
        "今年": ("year", base.year),
        "年初": ("month", (base.year, 1)),
        "月初": ("month", (base.year, base.month)),
    }
    if word in table:
        return table[word]
    if word.startswith("上") and word.endswith(("周", "星期", "礼拜")):
        return ("week", _monday(base) - dt.timedelta(weeks=1))
    if word.startswith("上") and word.endswith("月"):
        return ("month", _minus_months(base, 1))
    return None


def _en_word(word: str, base: dt.date) -> tuple[str, object] | None:
    one = dt.timedelta(days=1)
    if word in ("yesterday", "last night"):
        return ("day", base - one)
    if word == "the day before yesterday":
        return ("day", base - 2 * one)
    if word in ("today", "this morning", "this afternoon", "earlier today", "tonight"):
        return ("day", base)
    if word in ("the other day", "a couple of days ago"):
        return ("around", base - 2 * one)
    if word == "last weekend":
        return ("weekend", _monday(base) - dt.timedelta(days=2))
    if word in ("this weekend", "over the weekend", "on the weekend", "at the weekend"):
        if word == "this weekend" or base.weekday() >= 5:
            return ("weekend", _monday(base) + dt.timedelta(days=5))
        return ("weekend", _monday(base) - dt.timedelta(days=2))
    if word == "last week":
        return ("week", _monday(base) - dt.timedelta(weeks=1))
    if word in ("this week", "earlier this week"):
        return ("week", _monday(base))
    if word == "last month":
        return ("month", _minus_months(base, 1))
    if word in ("this month", "earlier this month"):
        return ("month", (base.year, base.month))
    if word == "last year":
        return ("year", base.year - 1)
    if word in ("this year", "earlier this year"):
        return ("year", base.year)
    return None  # "recently": no date


def format_when(res: tuple[str, object], lang: str) -> str:
    gran, value = res
    if gran == "day":
        return value.isoformat()  # type: ignore[union-attr]
    if gran == "around":
        iso = value.isoformat()  # type: ignore[union-attr]
        return f"{iso}前后" if lang == "zh" else f"around {iso}"
    if gran == "week":
        iso = value.isoformat()  # type: ignore[union-attr]
        return f"{iso}那一周" if lang == "zh" else f"week of {iso}"
    if gran == "weekend":
        iso = value.isoformat()  # type: ignore[union-attr]
        return f"{iso}那个周末" if lang == "zh" else f"weekend of {iso}"
    if gran == "month":
        y, mo = value  # type: ignore[misc]
        return f"{y}年{mo}月" if lang == "zh" else f"{calendar.month_name[mo]} {y}"
    if gran == "season":
        y, season = value  # type: ignore[misc]
        zh = {"spring": "春天", "summer": "夏天", "fall": "秋天", "winter": "冬天"}[season]
        return f"{y}年{zh}" if lang == "zh" else f"{season} {y}"
    return f"{value}年" if lang == "zh" else str(value)


def find_times(text: str) -> list[tuple[int, int, str, re.Match]]:
    """Non-overlapping time expressions: (start, end, kind, match), in text order."""
    spans: list[tuple[int, int, str, re.Match]] = []
    for kind, rx in _TIME_RES:
        for m in rx.finditer(text):
            s, e = m.span()
            if kind == "en_weekday":
                s = m.start("w") if m.group("w") else m.start("wd")
            if e <= s or any(s < e2 and s2 < e for s2, e2, _, _ in spans):
                continue
            spans.append((s, e, kind, m))
    return sorted(spans, key=lambda x: x[0])


def resolve_dates(text: str, when: dt.date | None, lang: str) -> tuple[str, bool]:
    """Insert the absolute date after every resolvable time expression. Returns the new text
    and whether any time expression was found."""
    spans = find_times(text)
    if not spans:
        return text, False
    if when is None:
        return text, True
    out, last = [], 0
    for s, e, kind, m in spans:
        res = _resolve(kind, m, when)
        out.append(text[last:e])
        last = e
        if res is None:
            continue
        label = format_when(res, lang)
        if label in text[s:e] or label in text:  # already absolute ("2026-05-01")
            continue
        out.append(f"（{label}）" if lang == "zh" else f" ({label})")
    out.append(text[last:])
    return "".join(out), True


# ---- detection -----------------------------------------------------------------------------
def _zh_event(sentence: str) -> bool:
    for m in ZH_EVENT.finditer(sentence):
        if ZH_NEG_BEFORE.search(sentence[max(0, m.start() - 2) : m.start()]):
            continue
        return True
    return False


def _clauses(sentence: str) -> list[str]:
    return [c for c in re.split(r"(?<=[，,；;：:])", sentence) if c.strip()]


ZH_TO_ASSISTANT = re.compile(
    r"^(?:跟|和|给)?(?:你|您)(?:说|讲|汇报|分享)|^告诉(?:你|您)|^(?:你|您)(?:知道|猜)"
)
# A switch of a standing choice ("moved my passwords to Bitwarden, LastPass is gone") belongs to
# the semantic rules (slot conflicts), not to episodes — unless it is dated.
STATE_CHANGE = re.compile(
    r"\b(?:now|anymore|any more|instead|switched|is gone|no longer)\b|现在都|改用|换成|改成|不再",
    re.IGNORECASE,
)
# Time expressions that place an event in the past by themselves (a bare "周末", "周六", "5月"
# or "今天" can as well be about what is coming).
_PAST_KINDS = {"iso", "zh_ymd", "zh_rel_year_md", "zh_rel_year_m", "zh_ym", "zh_y", "zh_ago"}
_PAST_ZH_WORDS = re.compile(r"^(?:大前天|前天|昨|前两天|前几天|上|去年|前年|刚)")


def _past_time(text: str) -> bool:
    for _, _, kind, m in find_times(text):
        if kind in _PAST_KINDS or _PAST_ZH_WORDS.match(m.group(0)):
            return True
    return False


# A dateless but anchored past ("那天", "that day") with a concrete place and a notable action
# ("那天我们在外滩拍了好多照片") is an episode without a date.
VAGUE_PAST = re.compile(
    r"那天|那次|那晚|那个周末|那会儿|当时|当天|\bthat (?:day|night|time|weekend|evening)\b|"
    r"\bback then\b",
    re.IGNORECASE,
)
ZH_PLACE_ACT = re.compile(
    r"在[\u4e00-\u9fffA-Za-z]{2,8}?(?:拍了|玩了|看了|逛了|爬了|住了|待了|吃了|骑了|跑了|办了|举办了|"
    r"参加了|见了|遇到了?|认识了?|放了|野餐|露营|徒步)|去了[\u4e00-\u9fffA-Za-z]{2,8}"
)
EN_PLACE_ACT = re.compile(
    r"\b(?:at|in|to)\s+(?:the\s+)?[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*", re.UNICODE
)


def _vague_anchor(sentence: str) -> bool:
    if not VAGUE_PAST.search(sentence):
        return False
    if CJK.search(sentence):
        return bool(ZH_PLACE_ACT.search(sentence))
    return bool(EN_PLACE_ACT.search(sentence))


def is_episode(sentence: str) -> bool:
    """The sentence reports a past event of the user or their people (the rules extractor
    leaves such sentences to the episodes unless they also state a standing preference)."""
    s = (sentence or "").strip()
    if len(s) < 4:
        return False
    has_time = bool(find_times(s)) or _vague_anchor(s)
    return _is_event(s, has_time)[0]


def _is_event(sentence: str, has_time: bool) -> tuple[bool, str]:
    """(is an episode, language of the event) for one sentence."""
    if looks_like_question(sentence) or re.search(r"[？?]", sentence):
        return False, ""
    if dated_event(sentence)[2]:
        return False, ""  # an event dated ahead ("年会改到一月二十五号"): a plan, not an episode
    if CJK.search(sentence):
        kept = [
            c
            for c in _clauses(sentence)
            if not ZH_FUTURE.search(c)
            and not EN_FUTURE.search(c)
            and not ZH_TO_ASSISTANT.match(c.strip())
        ]
        body = "".join(kept)
        if (
            len(kept) < len(_clauses(sentence))
            and not re.search(r"我|咱", body)
            and not ZH_KIN.match(body.strip())
        ):
            body = ""  # the event of someone else (not family), told as context for a request
        if not has_time and STATE_CHANGE.search(sentence):
            body = ""
        if (
            body
            and not ZH_REPORTED.search(body)
            and not ZH_ASSISTANT.search(body)
            and _zh_event(body)
            and (ZH_PAST.search(body) or _past_time(body))
            and not (ZH_TRIVIAL.search(body) and not ZH_STRONG.search(body))
            and (has_time or ZH_STRONG.search(body) or ZH_FRESH.search(body))
        ):
            return True, "zh"
    # English (also inside mixed sentences: "My son Tom lost his first tooth last night 哈哈")
    if not re.search(r"[A-Za-z]{2,}", sentence):
        return False, ""
    m = EN_EVENT_RE.search(sentence)
    if m:
        first = m.group("subj").split()[0]
        named = first[:1].isupper() and first not in ("I", "We", "My", "Our")
        named = named and not re.search(r"\band I$", m.group("subj"))
        if named and (first in EN_NAME_STOP or not has_time):
            m = None
    m = m or EN_LEAD_VERB_RE.match(sentence.strip())
    if not m:
        return False, ""
    clause = re.split(r"[,;.!]\s|\bbut\b|\bso\b", sentence[m.start() :].strip())[0]
    head = sentence[: m.start()]
    scope = head + " " + clause
    if EN_HYPO.search(scope) or EN_FUTURE.search(scope):
        return False, ""
    if EN_NEG.search(scope) or EN_REPORTED.search(scope):
        return False, ""
    if not has_time and STATE_CHANGE.search(sentence):
        return False, ""
    if EN_ASSISTANT.search(clause):
        return False, ""
    if EN_ROUTINE.search(clause) or (EN_TRIVIAL.search(clause) and not EN_STRONG_RE.search(clause)):
        return False, ""
    if not (has_time or EN_STRONG_RE.search(clause) or EN_FRESH_RE.search(sentence)):
        return False, ""
    return True, "en"


EN_REQUEST_TAIL = re.compile(
    r"^(?:(?:so|and|now)\s+)?(?:help me|can you|could you|would you|please|any (?:ideas|tips)|"
    r"what should|let's|I want to|I'd like to|I need to)\b",
    re.IGNORECASE,
)


def _drop_request_tail(sentence: str) -> str:
    """The event without the request or intention it motivates ("女儿拿了二等奖，帮我想想怎么奖励她"
    -> "女儿拿了二等奖"; "…last month, help me pick a gift" -> "…last month")."""
    if CJK.search(sentence):
        parts = _clauses(sentence)
        while len(parts) > 1 and (
            ZH_FUTURE.search(parts[-1]) or ZH_TO_ASSISTANT.match(parts[-1].strip())
        ):
            parts.pop()
        return "".join(parts).rstrip("，,；;：: ")
    parts = re.split(r"(?<=[,;])\s+", sentence)
    while len(parts) > 1 and EN_REQUEST_TAIL.match(parts[-1]):
        parts.pop()
    return " ".join(parts).rstrip(",; ")


def _strip_lead(sentence: str, zh: bool) -> str:
    """Drop leading clauses carrying neither the event nor a time ("最近忙死了，…")."""
    parts = _clauses(sentence)
    while len(parts) > 1:
        core = parts[0].strip().rstrip("，,；;：:")
        has_evt = (zh and _zh_event(core)) or bool(
            EN_EVENT_RE.search(core) or EN_LEAD_VERB_RE.match(core)
        )
        if has_evt or (find_times(core) and not LEAD_FILLER.match(core)):
            break
        parts = parts[1:]
    return "".join(parts).strip()


ZH_WE = [
    (re.compile(r"我们俩|咱们俩|咱俩|我俩"), "用户与同伴"),
    (re.compile(r"(?:我们|咱们)(?=全家|一家|家)"), "用户"),
    (re.compile(r"(?:我们|咱们)(?=\s*team)", re.I), "用户的"),
]


ZH_KIN = re.compile(
    r"^(?:女儿|儿子|老公|老婆|爸爸?|妈妈?|孩子|宝宝|父亲|母亲|爷爷|奶奶|外公|外婆|姥姥|姥爷|"
    r"哥哥?|姐姐?|弟弟|妹妹|闺女|媳妇|对象)"
)


def _rewrite_zh(text: str, lean: bool = False) -> str:
    work = bool(ZH_WORK.search(text))
    for rx, rep in ZH_WE:
        text = rx.sub(rep, text)
    if not work:
        text = re.sub(r"(?:我们|咱们)(?!的|公司|团队|部门|组|项目)", "用户一家", text)
    text = rewrite(text, "zh")
    text = text.replace("用户的团队team", "用户的team")
    if lean:
        return text
    stripped = text
    while True:
        m = next((t for t in find_times(stripped) if t[0] == 0), None)
        if not m:
            break
        stripped = re.sub(r"^[（(][^）)]*[）)]", "", stripped[m[1] :].lstrip())
        stripped = re.sub(r"^(?:那天|当天|那时候?|那会儿?)", "", stripped).lstrip("，, ")
    stripped = re.sub(r"^(?:那天|那次|那晚|当天|当时|那时候?|那会儿?)[，,\s]*", "", stripped)
    if stripped.startswith("用户"):
        return text
    if ZH_KIN.match(stripped):
        return "用户的" + text
    if ZH_EVENT.match(stripped) or re.match(r"[刚终才又也还都一带跟和在去把给从先]", stripped):
        return "用户" + text
    return "用户提到：" + text


_EN_PRON = [
    (re.compile(r"\bI've\b"), "the user has"),
    (re.compile(r"\bI'm\b|\bI am\b"), "the user is"),
    (re.compile(r"\bI was\b"), "the user was"),
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b|\bmine\b", re.I), "the user's"),
    (re.compile(r"\bme\b"), "the user"),
    (re.compile(r"\bI\b"), "the user"),
    (re.compile(r"\bour\b|\bours\b", re.I), "the user's"),
]


def _rewrite_en(text: str, lean: bool = False) -> str:
    group = "the user's team" if EN_WORK.search(text) else "the user's family"
    lead = EN_LEAD_VERB_RE.match(text)
    text = re.sub(r"^(?:so|and|well|oh|ok|okay)[\s,]+", "", text, flags=re.I)
    text = re.sub(r"\bwe've\b", f"{group} has", text, flags=re.I)
    text = re.sub(r"\bwe're\b|\bwe are\b", f"{group} is", text, flags=re.I)
    text = re.sub(r"\bwe were\b", f"{group} was", text, flags=re.I)
    text = re.sub(r"\bwe\b", group, text, flags=re.I)
    text = re.sub(r"\bus\b", group, text)
    for rx, rep in _EN_PRON:
        text = rx.sub(rep, text)
    if lead:
        text = "the user " + text[:1].lower() + text[1:]
    low = text.lower()
    if not low.startswith(("the user", "the user's")):
        subject_is_user = re.search(r"\bthe user(?:'s)?\b", low[:60])
        if not subject_is_user and not find_times(text[:20]) and not lean:
            text = "The user mentioned that " + text[:1] + text[1:]
    text = text[:1].upper() + text[1:]
    return text


def _entities(text: str) -> list[str]:
    ents = list(find_entities(text))
    for m in re.finditer(r"《([^》]{1,30})》", text):
        ents.append(m.group(1))
    for m in re.finditer(r"(?<![A-Za-z'])([A-Z][A-Za-z0-9&'-]+(?:\s+[A-Z][A-Za-z0-9&'-]+)*)", text):
        name = m.group(1)
        first = name.split()[0]
        if first in EN_NAME_STOP or name in ("The user", "User") or len(name) < 2:
            continue
        if (
            m.start() == 0
            and " " not in name
            and (EN_LEAD_VERB_RE.match(name) or name.lower().endswith("ed"))
        ):
            continue  # "Ran my first 10k…": a verb, not a name
        if name.lower() in EN_MONTH or name.lower() in EN_WEEKDAY:
            continue
        ents.append(name)
    seen: set[str] = set()
    out = []
    for e in ents:
        if e.lower() not in seen:
            seen.add(e.lower())
            out.append(e)
    return out[:12]


def episodes_for_turn(turn: Turn, index: int, covered: set[str]) -> list[Candidate]:
    if turn.role != "user" or not (turn.content or "").strip():
        return []
    when = turn.occurred_at.date() if turn.occurred_at else None
    covered_norm = {c.strip() for c in covered}
    found: list[tuple[str, str, str, bool]] = []  # (quote, lang, text, hedged)
    prev_event = False
    for raw in split_sentences(turn.content):
        sentence = raw.strip()
        if len(sentence) < 4 or contains_pii(sentence):
            prev_event = False
            continue
        has_time = bool(find_times(sentence)) or _vague_anchor(sentence)
        ok, lang = _is_event(sentence, has_time)
        leaning = prev_event and bool(PRONOUN_LEAN.search(sentence))
        if not ok:
            prev_event = False
            continue
        if sentence in covered_norm and not has_time:
            prev_event = False
            continue
        zh = lang == "zh"
        text = TRAIL_FLUFF.sub("", _strip_lead(_drop_request_tail(sentence), zh)).strip()
        text = re.sub(r"[。.!！…~～]+$", "", text).strip()
        lean = leaning and bool(found)
        text = _rewrite_zh(text, lean) if zh else _rewrite_en(text, lean)
        text, _ = resolve_dates(text, when, "zh" if zh else "en")
        hedged = bool(HEDGE.search(sentence))
        if lean:
            q, plang, ptext, phedged = found[-1]
            sep = "；" if plang == "zh" else "; "
            if plang == "en" and text.startswith("The user"):
                text = "t" + text[1:]
            found[-1] = (f"{q} {sentence}", plang, f"{ptext}{sep}{text}", phedged or hedged)
        else:
            found.append((sentence, "zh" if zh else "en", text, hedged))
        prev_event = True
    out: list[Candidate] = []
    for quote, lang, text, hedged in found:
        content = text if lang == "zh" else text.rstrip(".") + "."
        importance = 0.5
        if IMPORTANT.search(quote):
            importance = 0.6
        elif MINOR.search(quote) and not EN_STRONG_RE.search(quote) and not ZH_STRONG.search(quote):
            importance = 0.4
        out.append(
            Candidate(
                content=content,
                category="fact",
                kind="episodic",
                entities=_entities(quote),
                importance=importance,
                confidence=0.6 if hedged else 0.8,
                source_index=index,
                source_quote=quote,
            )
        )
    return out
