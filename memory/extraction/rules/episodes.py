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

Relative dates are resolved against the turn's `occurred_at` (memory/language/relative_dates.py)
and written into the content next to the user's words: "前天（2026-02-18）", "last week (week
of 2026-05-04)", "上个月（2026年4月）", "last year (2025)". Weeks start on Monday; "上周三" /
"last Tuesday" is that day of the previous week, a bare weekday ("on Saturday", "周六") the most
recent one before the turn.

Adjacent episode sentences of one turn are merged when the later one leans on the earlier
("We flew there on May 9…", "她去年做过…"), so the pronoun keeps its referent.
"""

from __future__ import annotations

import re

from memory.aliases import find_entities
from memory.extraction.base import Candidate, Turn
from memory.extraction.rules.rewrite import rewrite
from memory.extraction.slots.events import dated_event
from memory.language.dates import EN_MONTH, EN_WEEKDAY
from memory.language.redaction import contains_pii
from memory.language.relative_dates import find_times, resolve_dates
from memory.language.text import CJK, join_clauses, looks_like_question, split_sentences

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
    return _is_event(s, _dated(s))[0]


def _dated(sentence: str) -> bool:
    """The sentence says when something happened (not what year a thing is from)."""
    times = find_times(sentence)
    return any(not _names_a_vintage(sentence, t[1]) for t in times) or _vague_anchor(sentence)


# "一台2015年的卡罗拉", "2008年的老房子": a year describing a thing (its model year, when it was
# built) dates no event; "2015年的时候" / "去年的夏天" does
_WHEN_AFTER = re.compile(r"的(?:时候|那|时|日子|事|春|夏|秋|冬|年底|年初|假期)")


def _names_a_vintage(sentence: str, end: int) -> bool:
    return sentence[end : end + 1] == "的" and not _WHEN_AFTER.match(sentence, end)


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
        body = join_clauses(kept, True)
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
        has_time = _dated(sentence)
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
