"""Offline rule-based extractor (`rules-v1`): Chinese, English and mixed conversations.

Pipeline for every user turn in `turns[new_from:]` (assistant/tool/system turns are context):

1. Split the turn into sentences (。！？；!?; newlines, ". " in English) and each sentence into
   clauses (，,：:). Drop clauses that carry no fact about the person: bare acknowledgements
   ("对", "好", "ok"), discourse fillers ("跟你说一下", "quick intro"), one-off task requests
   ("帮我写…", "先给我列三家", "Book the 9:40") unless the sentence is a standing instruction
   ("以后…", "whenever…", "for future flights…"), and clauses holding PII.
2. Detect triggers on what is left: correction, decision, plan/goal, preference/taboo/standing
   instruction (incl. answer-style atoms), profile, team/setup fact. Questions, small talk and
   one-off preferences ("这次", "for this one") produce nothing.
3. Score: plain statement 0.75; firm update/decision markers ("定了", "统一为", "新规定",
   "from now on", "new standing order") 0.9-0.95; explicit correction 0.9; hedges ("可能",
   "也许", "听说", "maybe", "not sure", "I wonder") 0.35-0.45. Emphasis ("千万", "一定", "记住",
   "always", "never", "remember") raises importance; health/safety facts get 0.95.
4. Rewrite into a declarative sentence about "用户"/"the user" (pronouns replaced, fillers dropped,
   concrete words kept verbatim) and derive entities (alias map), slot and normalised values.
5. Adjacent hits of one turn about the same topic are merged into one candidate.
If a user turn has no trigger but answers the assistant's information question with a number or
a known entity ("About 30, mostly Java" after "How many services?"), it becomes a fact (0.7).
A correction whose wrong value appears in the assistant's previous paraphrase ("已记录：周二…")
is rewritten as the corrected paraphrase ("用户更正：每周四下午两点周会…").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from memory.aliases import entity_type, find_entity_spans, normalize_entities
from memory.extraction import general, salience, topics
from memory.extraction.base import Candidate, ExtractionResult, KnownMemory, Turn
from memory.extraction.dialogue import DialogueState, dialogue_state, head_nouns
from memory.extraction.episodes import episodes_for_turn, is_episode
from memory.extraction.lexicon import (
    CHANGE_EN,
    CHANGE_ZH,
    EMPHASIS_EN,
    EMPHASIS_ZH,
    FIRM_EN,
    FIRM_ZH,
    HEDGES_EN,
    HEDGES_ZH,
    PRODUCT_KIND,
    SAFETY,
    SLOT_CATEGORY,
    STYLE_ATOMS,
    STYLE_GENRES,
    THING_SYNONYMS,
    TOPIC_CUES,
    TYPE_SLOT,
)
from memory.extraction.salience import (
    about_outsider,
    hypothetical,
    noise_only,
    one_off_request,
    owner,
)
from memory.language.dates import ZH_DATE, date_values, schedule_values
from memory.language.numerals import amount_values
from memory.language.redaction import beyond_pii, contains_pii, redact_pii
from memory.language.text import CJK, lang_of, looks_like_question, split_clauses, split_sentences
from memory.textsearch import _get_jieba


def _alt(items) -> re.Pattern:
    return re.compile("|".join(f"(?:{i})" for i in items), re.IGNORECASE)


HEDGE_RE = _alt(HEDGES_ZH + HEDGES_EN)
FIRM_RE = _alt(FIRM_ZH + FIRM_EN)
# A statement of a change ("新房东是…", "教练换了", "搬家了", "no longer…", "it's now…") is
# itself evidence that it is the current state: as firm as an explicit update marker.
CHANGE_RE = _alt(CHANGE_ZH + CHANGE_EN)
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
TOPIC_RES = [(re.compile(rx, re.IGNORECASE), slot) for rx, slot in TOPIC_CUES]
STRONG_CUES = next(i for i, (_, slot) in enumerate(TOPIC_CUES) if slot == "coffee")

# ---- clause filters ----------------------------------------------------------------------
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
    r"let me know|i need you to|pick|reserve|fix|review|plan)\b",
    re.IGNORECASE,
)
STANDING_RE = re.compile(
    r"以后|今后|往后|下次|每次|每当|的时候|默认|总是|一直|一律|都(?:用|要|按|订|给|别|不)|任何时候|"
    r"无论|不管|永远|\bever\b|\balways\b|\bnever\b|from now on|whenever|every time|each time|"
    r"for (?:all )?future|in (?:the )?future|by default|going forward|\bwhen you\b|for any\b|"
    r"for all\b|any time|anytime|standing (?:order|instruction|rule)",
    re.IGNORECASE,
)
ONE_OFF_RE = re.compile(
    r"这次|这一次|这回|本次|今天|今晚|this time|for this one|this one\b|today|"
    r"tonight|for now|right now",
    re.IGNORECASE,
)

# ---- triggers ------------------------------------------------------------------------------
CORR_PAIR_ZH = [
    re.compile(
        r"(?:我)?(?:说|指|要|讲)的是\s*(.+?)\s*[，,、]\s*(?:而)?不是\s*(.+?)\s*(?:[。！!，,]|$)"
    ),
    re.compile(r"不是\s*(.+?)\s*[，,]?\s*(?:而)?是\s*(.+?)\s*(?:[。！!，,]|$)"),
    re.compile(r"^(?:应该)?是\s*(.+?)\s*[，,]\s*不是\s*(.+?)\s*(?:[。！!，,]|$)"),
]
CORR_PAIR_EN = [
    re.compile(
        r"\bI (?:said|meant|asked for|wanted)\s+(.+?),?\s+not\s+(.+?)\s*(?:[.!;,]|$)", re.IGNORECASE
    ),
    re.compile(
        r"\b(?:it's|it is|that's|that is|it was)\s+(.+?),\s*not\s+(.+?)\s*(?:[.!;,]|$)",
        re.IGNORECASE,
    ),
    re.compile(r"^(?:no,?\s+)(.+?),\s*not\s+(.+?)\s*(?:[.!;,]|$)", re.IGNORECASE),
]
CORR_MARK = re.compile(
    r"不对|错了|听错|搞错|弄错|记错|搞混|说错|更正|纠正|我说的是|不是.+而是|"
    r"(?:说|指|讲)的是[^，,。]{1,20}[，,]\s*(?:而)?不是|"
    r"\bno,|\bwrong\b|\bI said\b|\bI meant\b|\bcorrection\b|\bnot what I\b",
    re.IGNORECASE,
)
DECISION_RE = re.compile(
    r"定了(?!个)|定下来|(?<![没未])决定|(?<![不没])确定(?!.*吗)|敲定|拍板|选定|定为|定一下|就这么定|"
    r"就按.{0,12}(?:推进|来|办|执行|做|走|定)|最终(?:定|选|决定|采用|用|确定)|就用|"
    r"\block(?:ed)? (?:it|this|that) in\b|"
    r"(?<!nothing's )(?<!nothing is )(?<!not )(?<!n't )\bdecided\b|"
    r"\blet's settle\b|\bsettled on\b|"
    r"就定|(?<![没还未])(?:想好了|商量好了)|\bfinal (?:call|decision|word)\b|"
    r"\bgo(?:ing)? with\b|\bwe chose\b|\bfinal decision\b|\bagreed (?:on|to)\b|\bwe'll use\b|"
    r"\bwe will use\b",
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
FIRST_PERSON = re.compile(r"我|咱|\bI\b|\bI'm\b|\bmy\b|\bme\b|\bwe\b|\bour\b|\bus\b", re.IGNORECASE)
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
ADDRESS_Q = re.compile(
    r"请问|您|你们|\byou\b|\byour\b|\bwe\b|\bour\b|多少|几|多大|什么|哪|"
    r"\bhow many\b|\bhow much\b|\bwhich\b|\bwhat\b|偏好|要求",
    re.IGNORECASE,
)
OFFER_Q = re.compile(
    r"需要我|要我|要不要|要帮您|要帮你|帮您|可以吗|好吗|行吗|对吗|是吗|"
    r"\bshall I\b|\bshould I\b|\bdo you want\b|\bwould you like\b|\bwant me\b|"
    r"\banything (?:else|I can)\b|\bcan I\b",
    re.IGNORECASE,
)
PREF_Q = re.compile(
    r"偏好|喜欢|要求|口味|习惯|平时|一般|通常|preference|prefer|\blike\b|"
    r"\busually\b|\bnormally\b|\bany (?:seat|airline)",
    re.IGNORECASE,
)
RECORD_MARK = re.compile(
    r"已记录|已设置|已更新|已更正|已记下|记下了|已安排|已改为|已确定|整理如下|"
    r"\bnoted\b|\bgot it\b|\brecorded\b|\bset\b|\bsaved\b|\bconfirmed\b",
    re.IGNORECASE,
)
AGENT_IMPERATIVE = re.compile(
    r"(?:别|不要|千万别|请|记得)(?:再)?(?:给我|帮我|在|约|订|推荐|安排|发|用|加|写)|"
    r"^(?:please\s+)?(?:don't|never|always|avoid|use|book|put|keep|make sure)\b",
    re.IGNORECASE,
)
DEICTIC = re.compile(
    r"\b(?:this|that|it|these|those)\b|这个|这种|这篇|这样|那个|那种", re.IGNORECASE
)


DELIBERATION_RE = re.compile(
    r"纠结(?:了)?|犹豫(?:了)?|\btorn\b|\bhesitat\w*|\bwent back and forth\b", re.IGNORECASE
)
RESOLVED_RE = re.compile(
    r"(?:最后|最终|终于|后来)(?:还是)?(?:决定|定了|选了|拍板)|"
    r"\b(?:in the end|finally|eventually|ultimately)\b[^.]{0,20}"
    r"\b(?:decided|chose|went with|picked)\b",
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
# A sentence that opens with a standing marker is an instruction for the future even when it
# has no first person ("以后写周报先放结论", "From now on, reply in English").
STANDING_LEAD = re.compile(
    r"^(?:那|那就|所以)?(?:以后|今后|往后|从今往后|从现在起|从现在开始|下次起)|"
    r"^(?:from now on|going forward|in (?:the )?future|whenever|every time|each time)\b",
    re.IGNORECASE,
)
# A relative tweak of the reply being written ("再正式一点", "make it shorter") is a one-off
# revision, not a lasting taste, unless the sentence is a standing instruction.
REVISION_RE = re.compile(
    r"^(?:再|更|稍微|稍稍|可以再|能不能再)[\u4e00-\u9fff]{1,4}(?:一点|一些|点|些)(?:吧|啊|呀)?$|"
    r"^(?:(?:can you |please )?make (?:it|this|that) |a (?:bit|little) |slightly |even )"
    r"(?:more |less |a bit |a little )?[a-z-]+(?:er)?(?: please)?$",
    re.IGNORECASE,
)
# Correction without an explicit marker: "不是青霉素，是头孢" right after the assistant
# recorded the wrong value.
NOT_BUT_RE = re.compile(r"(?:^|[，,。])\s*不是[^，,。]{1,20}[，,]\s*(?:而)?是")
# Leading conjunctions/discourse words dropped from the rewritten content.
LEAD_CONJ = re.compile(
    r"^(?:(?:and|but|so|also|honestly|actually|anyway)\b[\s，,]*|"
    r"(?:然后|而且|但是|不过|可是|所以|另外|其实|反正|总之)[\s，,]*)",
    re.IGNORECASE,
)
LEAD_NOTE_EN = re.compile(
    r"^(?:please\s+)?(?:note|remember|keep in mind|be aware)(?: that)?\s+", re.IGNORECASE
)


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


def standing_obj(body: str) -> bool:
    """Instructions about future output ("以后给我写的东西…") are not deictic remarks."""
    return bool(
        re.search(
            r"以后|今后|from now on|whenever|every time|by default|going forward",
            body,
            re.IGNORECASE,
        )
    )


REASON_SPLIT = re.compile(r"\b(?:because|since|cause|'cause|as it|as they)\b|因为|由于", re.I)


def _main_clause(body: str) -> str:
    """The statement without its reason ("I prefer acrylic because it dries fast" -> "I prefer
    acrylic"): a pronoun inside the reason does not make it a remark about the reply."""
    return REASON_SPLIT.split(body, maxsplit=1)[0]


def _short_remark(body: str) -> bool:
    """A short remark ("这个挺好", "I love this answer") - a longer statement with a deictic
    ("偏向分级读物，牛津树那种") still names what it is about."""
    if CJK.search(body):
        return len(CJK.findall(body)) <= 12
    return len(body.split()) <= 8


NUMBER_RE = re.compile(r"\d|[一二两三四五六七八九十百千万]+\s*(?:个|人|台|本|万|千|次|年|名|家|层)")

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
TEAM_RE = re.compile(
    r"([\u4e00-\u9fffA-Za-z]{0,6}?(?:部门|部|组|团队|中心|科|处|室|team|squad))"
    r"\s*(?:的)?\s*(?:周会|例会|组会|晨会|站会|部门例会|weekly|standup|meeting)",
    re.IGNORECASE,
)


def _negated(text: str, start: int, end: int) -> bool:
    return bool(NEG_BEFORE.search(text[max(0, start - 20) : start]) or NEG_AFTER.search(text[end:]))


# ---- rewriting -----------------------------------------------------------------------------
ZH_PRONOUNS = [
    (re.compile(r"(?:我们|咱们)(?:的)?组(?![长员织建合成])"), "用户的小组"),
    (re.compile(r"(?:我们|咱们|我)家(?!人|乡)"), "用户家"),
    (
        re.compile(
            r"(?:我们|咱们)(?:的)?(?=公司|团队|部门|组|家|项目|这边|办公室|老板|领导|小区|学校|楼)"
        ),
        "用户的",
    ),
    (
        re.compile(
            r"(?:我们|咱们)(?=[\u4e00-\u9fff]{1,5}(?:部|组|团队|中心)(?![\u4e00-\u9fff]{0,1}人))"
        ),
        "用户的",
    ),
    (re.compile(r"我们的|咱们的"), "用户团队的"),
    (
        re.compile(
            r"我(?=老婆|老公|妻子|丈夫|孩子|女儿|儿子|爸|妈|父亲|母亲|家人|朋友|同事|老板|领导|上司|太太|先生)"
        ),
        "用户的",
    ),
    (re.compile(r"我们|咱们"), "用户的团队"),
    (re.compile(r"我自己"), "用户自己"),
    (re.compile(r"我的"), "用户的"),
    (re.compile(r"我"), "用户"),
    (re.compile(r"您们|你们"), "助手"),
    (re.compile(r"您|你"), "助手"),
]
EN_MODAL = {
    "can",
    "can't",
    "cannot",
    "will",
    "won't",
    "would",
    "should",
    "must",
    "might",
    "may",
    "could",
    "shall",
    "wouldn't",
    "shouldn't",
    "couldn't",
}
EN_ADVERB = {
    "always",
    "never",
    "usually",
    "often",
    "sometimes",
    "really",
    "also",
    "just",
    "only",
    "still",
    "generally",
    "typically",
    "mostly",
    "rarely",
    "normally",
    "basically",
    "absolutely",
    "definitely",
    "actually",
    "already",
    "even",
    "almost",
    "mainly",
}
EN_PAST = {
    "was",
    "were",
    "had",
    "did",
    "went",
    "took",
    "made",
    "said",
    "got",
    "gave",
    "saw",
    "came",
    "knew",
    "thought",
    "told",
    "left",
    "felt",
    "found",
    "bought",
    "paid",
    "flew",
    "ate",
    "drank",
    "wrote",
    "met",
    "ran",
    "sent",
    "spent",
    "chose",
    "began",
    "became",
    "meant",
    "heard",
    "kept",
    "let",
    "put",
    "set",
    "read",
    "brought",
    "held",
    "built",
}
EN_IRREG = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is", "are": "is"}


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in EN_MODAL or low in EN_PAST or low.endswith(("ed", "ing")) or not low.isalpha():
        return verb
    if low in EN_IRREG:
        return EN_IRREG[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _subject_verb(subject: str):
    def repl(m: re.Match) -> str:
        words = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
        out = [subject]
        if words[0].lower() in EN_ADVERB:
            out.append(words[0])
            if len(words) > 1:
                out.append(
                    _third_person(words[1]) if words[1].lower() not in EN_ADVERB else words[1]
                )
        else:
            out.append(_third_person(words[0]))
            if len(words) > 1:
                out.append(words[1])
        return " ".join(out)

    return repl


EN_REWRITES = [
    (
        re.compile(
            r"\b(when|whenever|if|before|after|once|time|that) you ([a-z]+)\b", re.IGNORECASE
        ),
        "YOU_VERB",
    ),
    (re.compile(r"\bI'm\b|\bI am\b"), "the user is"),
    (re.compile(r"\bI've\b"), "the user has"),
    (re.compile(r"\bI'd\b"), "the user would"),
    (re.compile(r"\bI'll\b"), "the user will"),
    (re.compile(r"\bI don't\b|\bI do not\b"), "the user doesn't"),
    (re.compile(r"\bI can't\b|\bI cannot\b"), "the user can't"),
    (re.compile(r"\bwe're\b|\bwe are\b", re.IGNORECASE), "the user's team is"),
    (re.compile(r"\bwe've\b", re.IGNORECASE), "the user's team has"),
    (re.compile(r"\bwe'll\b", re.IGNORECASE), "the user's team will"),
    (re.compile(r"\bwe'd\b", re.IGNORECASE), "the user's team would"),
    (re.compile(r"\bwe don't\b|\bwe do not\b", re.IGNORECASE), "the user's team doesn't"),
    (re.compile(r"\bI no longer ([a-zA-Z']+)"), "I_NO_LONGER"),
    (re.compile(r"\b[Ww]e no longer ([a-zA-Z']+)"), "WE_NO_LONGER"),
    (re.compile(r"\bI ([a-zA-Z']+)(?: ([a-zA-Z']+))?"), "I_VERB"),
    (re.compile(r"\b[Ww]e ([a-zA-Z']+)(?: ([a-zA-Z']+))?"), "WE_VERB"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "the user"),
    (re.compile(r"\bmy\b|\bmine\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bme\b", re.IGNORECASE), "the user"),
    (re.compile(r"\bI\b"), "the user"),
    (re.compile(r"\bours\b|\bour\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bus\b|\bUs\b"), "the user's team"),
    (re.compile(r"\byour\b", re.IGNORECASE), "the assistant's"),
    (re.compile(r"\byou\b", re.IGNORECASE), "the assistant"),
]


WORK_CUE = re.compile(
    r"团队|公司|部门|项目|组里|同事|客户|产品|上线|部署|服务|代码|仓库|需求|版本|开会|会议|周会|例会|办公|"
    r"\bteam|\bcompany|\bstartup|\borg\b|organi[sz]ation|\bproject|\bsprint|\bdeploy|"
    r"\bservices?\b|\bcode\b|\brepos?\b|\bclients?\b|\bcustomers?\b|\bproduct|\brelease|"
    r"\bengineer|\boffice\b|\bstack\b|\bbackend\b|\bfrontend\b|\bapi\b|\bservers?\b|"
    r"\bcluster|\bpipeline|\bstandup|\bmeetings?\b|\bmigrat|\binfra|\bproduction\b|"
    r"\bstaging\b|\bcolleague|\bdepartment|\bvendors?\b|\blaunch|\bship(?:ping)? (?:the|a)\b|"
    r"\bboss\b|\bmanager\b|\bemployees?\b|\bhiring\b|\bbudget",
    re.IGNORECASE,
)
WORK_TYPES = {
    "language",
    "frontend",
    "framework",
    "database",
    "queue",
    "ci",
    "observability",
    "infra",
    "cloud",
    "tool",
    "meeting",
    "document",
    "tech",
    "role",
    "database_ext",
}


def _work_context(text: str) -> bool:
    return bool(WORK_CUE.search(text)) or any(
        entity_type(c) in WORK_TYPES for _, c, _ in find_entity_spans(text)
    )


def _family_we(text: str) -> str:
    """ "we" outside work is the user's family: "The user's family gets their groceries…"."""
    text = text.replace("the user's team", "the user's family")
    head, sep, rest = text.partition("the user's family")
    if not sep:
        return text
    rest = re.sub(r"\bthe user's (?!family)", "their ", rest)
    return head + sep + rest


def rewrite(text: str, lang: str) -> str:
    """First/second person -> "用户"/"the user" ("助手"/"the assistant"); "we"/"我们" is the
    user's team at work and the user's family otherwise."""
    work = _work_context(text)
    if lang == "zh" or CJK.search(text):
        for rx, rep in ZH_PRONOUNS:
            text = rx.sub(rep, text)
        if not work:
            text = text.replace("用户团队的", "用户家的").replace("用户的团队", "用户一家")
        text = re.sub(r"\bI'm\b|\bI am\b", "the user is", text)
        text = re.sub(r"\bmy\b", "the user's", text)
        return text.strip()
    for rx, rep in EN_REWRITES:
        if rep == "YOU_VERB":
            text = rx.sub(lambda m: f"{m.group(1)} the assistant {_third_person(m.group(2))}", text)
        elif rep in ("I_NO_LONGER", "WE_NO_LONGER"):
            who = "the user" if rep == "I_NO_LONGER" else "the user's team"
            text = rx.sub(lambda m, w=who: f"{w} no longer {_third_person(m.group(1))}", text)
        elif rep == "I_VERB":
            text = rx.sub(_subject_verb("the user"), text)
        elif rep == "WE_VERB":
            text = rx.sub(_subject_verb("the user's team"), text)
        else:
            text = rx.sub(rep, text)
    text = re.sub(r"^(?:please|pls)\s+", "", text.strip(), flags=re.IGNORECASE)
    # a subject-less report of the user's own change ("Moved everything to Bitwarden")
    text = re.sub(
        r"^(?:just\s+|finally\s+)?(?:moved|switched|migrated|swapped|transferred)\b",
        lambda m: "the user " + m.group(0).lower(),
        text,
        flags=re.IGNORECASE,
    )
    return text if work else _family_we(text)


def rewrite_assistant(text: str) -> str:
    """Assistant-voice text: "您/you" is the user, "我/I" is the assistant."""
    text = re.sub(r"您|你", "用户", text)
    text = re.sub(r"\byour\b", "the user's", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou\b", "the user", text, flags=re.IGNORECASE)
    text = re.sub(r"(?<![用])我(?:们)?", "助手", text)
    return text.strip()


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


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


def _finish(body: str, lang: str, category: str, kind: str) -> str:
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
    return _cap(body) + "."


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


def _thing_words(slot: str) -> str:
    return slot.split(":", 1)[1] if slot.startswith("thing:") else ""


def _naturalize(body: str, lang: str, slot: str) -> str:
    body = body.strip()
    thing = _thing_words(slot)
    if lang == "zh":
        if body.startswith("用户"):
            return body
        m = ZH_TOPIC_USER.match(body)
        if m and not TIME_RE.search(m.group("topic")) and _zh_thing(m.group("topic")):
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
                return f"{_cap(lead.group('lead'))}, {rest2}"
            return rest2
    return body


# ---- analysis ------------------------------------------------------------------------------
@dataclass
class Hit:
    category: str
    kind: str
    content_body: str
    quote: str
    confidence: float
    importance: float
    slot: str = ""
    values: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    hedged: bool = False
    firm: bool = False
    general: bool = False  # from the general detector (general.py), not a specific rule


COLON_RE = re.compile(r"[:：]")
SAFETY_HEDGED_CONFIDENCE = 0.65
# The agent's question is about the person ("您平时喝什么咖啡？", "Which airline do you fly?").
ABOUT_YOU_Q = re.compile(r"您|你|\byou\b|\byour\b|请问", re.IGNORECASE)
BACK_TO_REAL = re.compile(
    r"^(?:不过|但是|但|说真的|说正经的|言归正传|回到正题|"
    r"anyway|but|seriously|back to|ok so|okay so)",
    re.IGNORECASE,
)


def _core(c: str) -> str:
    return re.sub(r"[，,：:、。.!！?？；;…\s]+$", "", c.strip())


# A standing taste of the user stated inside a story ("…，我一直很喜欢这家店"): kept as a
# preference even when the sentence is an episode.
SELF_PREF = re.compile(
    r"(?:^|[，,。；;\s])(?:我|咱)(?:们)?(?:家)?(?:一直|很|特别|最|也|还是|比较|真的|挺|超|更|都)*"
    r"(?:喜欢|爱吃|爱喝|偏好|讨厌|不吃|不喝|吃不了|受不了|不喜欢)|"
    r"\bI (?:(?:really|still|also|much|always|absolutely) )*(?:prefer|like|love|hate|enjoy|"
    r"don't like|can't stand)\b",
    re.IGNORECASE,
)


def changes_a_state(sentence: str) -> bool:
    """A change word about a one-at-a-time concept: where one lives or works, one's phone…"""
    from memory.extraction import topics

    return bool(CHANGE_RE.search(sentence)) and any(topics.concepts(sentence).values())


def _episode_only(hit: Hit, sentence: str) -> bool:
    """A hit that merely restates a past event (no value of a slot, no standing instruction,
    no taste of the user's own): the episode carries it, the semantic copy would duplicate it
    ("用户要求：上周六带她去了动物园")."""
    if hit.category not in ("preference", "profile", "fact") or hit.values:
        return False
    if hit.kind == "procedural" and STANDING_RE.search(sentence):
        return False
    if STANDING_RE.search(sentence) or SELF_PREF.search(sentence):
        return False
    return is_episode(sentence)


class RuleExtractor:
    """Offline extractor; see the module docstring for the rules."""

    name = "rules-v1"
    wants_known = False

    def extract(
        self, turns: list[Turn], *, new_from: int = 0, known: list[KnownMemory] | None = None
    ) -> ExtractionResult:
        candidates: list[Candidate] = []
        for idx in range(max(0, new_from), len(turns)):
            turn = turns[idx]
            if turn.role != "user" or not (turn.content or "").strip():
                continue
            prev_asst = next(
                (turns[j].content for j in range(idx - 1, -1, -1) if turns[j].role == "assistant"),
                "",
            )
            prev_is_last = idx > 0 and turns[idx - 1].role == "assistant"
            state = dialogue_state(turns, idx)
            found = self._turn(turn, idx, prev_asst if prev_is_last else "", prev_asst, state)
            candidates.extend(found)
            covered = {c.source_quote for c in found if c.source_quote}
            candidates.extend(episodes_for_turn(turn, idx, covered))
        return ExtractionResult(candidates=candidates, extractor=self.name)

    # -- one user turn ------------------------------------------------------------------------
    def _turn(
        self, turn: Turn, idx: int, prev_reply: str, prev_asst: str, state: DialogueState
    ) -> list[Candidate]:
        text = turn.content.strip()
        lang = lang_of(text)
        hits: list[Hit] = []
        sentences = split_sentences(text)
        hit_sentence: list[int] = []  # the sentence each hit came from
        imagined = False
        for n, sentence in enumerate(sentences):
            # what follows an imagined situation in the same turn is imagined too ("要是中了
            # 五百万…。第一件事就是辞职…"), until the user turns back ("不过说真的…")
            if hypothetical(sentence):
                imagined = True
                continue
            if imagined and not BACK_TO_REAL.match(sentence):
                continue
            imagined = False
            sentence = state.resolve_pronoun(sentence)
            hit = self._sentence(sentence, lang, prev_asst)
            changed_state = changes_a_state(sentence)
            if hit and _episode_only(hit, sentence) and not changed_state:
                continue  # a past event: the episodes extractor records it (with its date)
            if hit is None and n == 0 and prev_reply:
                # the first words after the assistant's question answer it
                hit = self._answer(sentence, lang, prev_reply, state)
            elif hit is None and (changed_state or not is_episode(sentence)):
                # no specific detector knew the wording: the general one judges salience. A past
                # event that changed a one-at-a-time fact ("上个月底搬到成都了") is also the new
                # state, which replaces the old one.
                hit = general.detect(sentence, state, answer=False)
            elif hit is not None and noise_only(sentence):
                hit = None
            elif (
                hit is not None
                and one_off_request(sentence)
                and not COLON_RE.search(sentence)
                and not hit.general
            ):
                # a request inside the sentence ("…模板也帮我改成钉钉能用的"): only the clauses
                # around it that say something about the user stay ("帮我记一下：…" keeps all)
                hit = general.detect(sentence, state, answer=False)
            elif hit is not None and not hit.general and not hit.slot:
                hit = general.completed(hit, sentence, state)
            if hit:
                hits.append(hit)
                hit_sentence.append(n)
        hits = _deferred(hits, hit_sentence, sentences)
        # what the conversation was about first (its nouns, and words naming the topic concepts
        # of the earlier turns: "以后保养别提醒我去之前那家了" → 保养); the turn's own nouns last
        zh = lang == "zh"
        named = [topics.concept_word(c, zh) for c in state.concepts[:2]]
        context = list(
            dict.fromkeys(
                [*state.topics[:2], *filter(None, named), *head_nouns(text, common_only=True)]
            )
        )[:5]
        found = [self._candidate(h, idx, lang) for h in _merge_hits(hits)]
        return [replace(c, context_topics=context) for c in found if not about_outsider(c.content)]

    def _sentence(self, sentence: str, lang: str, prev_asst: str) -> Hit | None:
        full = sentence.strip()
        hedged = bool(HEDGE_RE.search(full) or REPORTED_RE.search(full))
        standing = bool(STANDING_RE.search(full))
        # "<task/decision> <topic>：<body>" — the body is the content.
        colon = re.match(r"^([^:：]{2,60})[:：]\s*(.{4,})$", full)
        if (
            colon
            and COLON_TOPIC.search(colon.group(1))
            and COLON_LEAD.search(colon.group(1))
            and not looks_like_question(colon.group(2))
        ):
            return self._colon_body(colon.group(1), colon.group(2), lang, hedged)
        if (looks_like_question(full) or salience.is_question(full)) and not hedged:
            return None
        kept: list[str] = []
        signal: list[str] = []  # kept clauses + fillers: decision/firm markers live there too
        after_task = False
        for clause in split_clauses(full):
            core = _core(clause)
            if not core or ACK_RE.match(core):
                continue
            if FILLER_RE.match(core):
                signal.append(core)
                continue
            if not standing and (TASK_ZH.match(core) or TASK_EN.match(core)):
                after_task = True
                continue
            if after_task and not (
                FIRST_PERSON.search(core) or PREF_POS.search(core) or PREF_NEG.search(core)
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
        body = "".join(kept) if lang == "zh" else " ".join(kept)
        body = _core(LEAD_NOTE_EN.sub("", LEAD_CONJ.sub("", body.strip())))
        if len(body) < (3 if CJK.search(body) else 8):
            return None
        return self._classify(body, " ".join(signal), full, lang, hedged, standing, prev_asst)

    def _classify(
        self,
        body: str,
        signal: str,
        full: str,
        lang: str,
        hedged: bool,
        standing: bool,
        prev_asst: str,
    ) -> Hit | None:
        emphasis = bool(EMPHASIS_RE.search(full))
        if hedged and DECISION_RE.search(signal) and RESOLVED_RE.search(full):
            # "纠结了半天，最后决定报游泳": the deliberation is over, the decision is firm
            hedges = HEDGE_RE.findall(full)
            hedged = bool(REPORTED_RE.search(full)) or not all(
                DELIBERATION_RE.fullmatch(h) for h in hedges
            )
        firm_n = len(FIRM_RE.findall(signal)) or int(bool(CHANGE_RE.search(signal)))
        styles = [atom for atom, _, rx in STYLE_RES if rx.search(body)]
        first_person = bool(FIRST_PERSON.search(full))
        category, kind = None, "semantic"
        slot_info = None
        corr = self._correction(body, full, lang, prev_asst)
        right_text = ""
        if corr is not None:
            category, (body, right_text) = "correction", corr
        elif DECISION_RE.search(signal):
            category = "decision"
        elif (
            RECENT_HABIT.search(body)
            and not RECENT_NEG.search(body)
            and not (PREF_POS.search(body) or PREF_NEG.search(body) or styles)
        ):
            category = "fact"  # "I've been reading a lot lately", "我最近一直在练书法"
        elif PLAN_RE.search(body) and (
            TIME_RE.search(body) or re.search(r"目标|goal|target|计划|plan", body, re.IGNORECASE)
        ):
            category = "plan"
        elif dated_event(body)[2]:
            category = "plan"  # "公司的年会定在一月十八号", "Our team offsite is on March 3"
        elif (
            PREF_POS.search(body)
            or PREF_NEG.search(body)
            or styles
            or (standing and (first_person or firm_n or STANDING_LEAD.match(body)))
        ):
            if ONE_OFF_RE.search(body) and not standing:
                return None
            if not standing and REVISION_RE.match(_core(body)):
                return None
            category = "preference"
        elif standing and derive_slot(body, "preference", styles)[0]:
            category = "preference"
        elif PROFILE_RE.search(body) or (SAFETY_RE.search(body) and first_person):
            category = "profile"
        elif (first_person or re.match(r"^[A-Za-z]", body)) and _usage_claims(body, styles):
            category = "preference"  # habitual use of a named service / tool / brand
        elif FACT_RE.search(body) and (
            first_person or re.search(r"现有|现在是|目前|周会|例会", body)
        ):
            category = "fact"
        elif en_routine(body):
            category = "fact"
            # a slot the general rules derive ("thing:piano lesson") wins over the verb
            slot_info = derive_slot(body, "fact", styles)
            if not (slot_info[0] and slot_info[1]):
                slot_info = (*en_routine(body), slot_info[2])
        else:
            # A statement recognised through its topic: "我吃素的", "预算是 5 万".
            slot_info = derive_slot(body, "fact", styles)
            if not slot_info[0] or not slot_info[1] or ONE_OFF_RE.search(body):
                return None
            generic_schedule = slot_info[0].startswith("thing:") and any(
                _DAYLIKE.match(v) for v in slot_info[1]
            )
            if not (
                first_person
                or firm_n
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
        if category is None:
            return None
        if category == "preference" and (standing or styles or AGENT_IMPERATIVE.search(body)):
            kind = "procedural"
        if category in ("decision", "fact") and styles and standing:
            kind = "procedural"
        confidence = 0.75
        if firm_n or category == "correction":
            confidence = 0.95 if firm_n >= 2 else 0.9
        if hedged:
            confidence = 0.35 if len(HEDGE_RE.findall(full)) >= 2 else 0.45
            if SAFETY_RE.search(full):
                # "好像对青霉素过敏": a possible allergy is kept in force, hedge and all
                confidence = SAFETY_HEDGED_CONFIDENCE
        importance = {
            "preference": 0.6,
            "profile": 0.6,
            "fact": 0.5,
            "plan": 0.6,
            "decision": 0.7,
            "correction": 0.65,
        }[category]
        if kind == "procedural":
            importance += 0.05
        if emphasis:
            importance += 0.2
        if SAFETY_RE.search(body):
            importance = 0.95
        slot, values, ents = slot_info or derive_slot(body, category, styles)
        if (
            category == "preference"
            and not slot
            and not ents
            and not standing_obj(body)
            and DEICTIC.search(_main_clause(body))
            and _short_remark(body)
        ):
            return None  # "I love this answer", "这个挺好" — about the current reply, not a taste
        if right_text:  # a correction keeps only the corrected values
            right_ents = {
                e.lower()
                for e in normalize_entities(c for _, c, _ in find_entity_spans(right_text))
            }
            values = [
                v.lstrip("!")
                for v in values
                if v.lstrip("!").lower() in right_ents or v.lstrip("!") in right_text
            ]
        return Hit(
            category=category,
            kind=kind,
            content_body=rewrite(body, lang) if category != "correction" else body,
            quote=full,
            confidence=confidence,
            importance=min(1.0, importance),
            slot=slot,
            values=values,
            entities=ents,
            hedged=hedged,
            firm=firm_n > 0,
        )

    def _colon_body(self, head: str, body: str, lang: str, hedged: bool) -> Hit | None:
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

    def _correction(
        self, body: str, full: str, lang: str, prev_asst: str
    ) -> tuple[str, str] | None:
        explicit = bool(CORR_MARK.search(full))
        if not explicit and not (prev_asst and NOT_BUT_RE.search(full)):
            return None
        pairs = CORR_PAIR_ZH if CJK.search(body) else CORR_PAIR_EN
        right = wrong = None
        for i, rx in enumerate(pairs):
            m = rx.search(body)
            if m:
                right, wrong = (
                    (m.group(2), m.group(1))
                    if (rx is CORR_PAIR_ZH[1])
                    else (m.group(1), m.group(2))
                )
                del i
                break
        if not right:
            return None
        right, wrong = right.strip(" ，,。.\"“”'"), wrong.strip(" ，,。.\"“”'")
        if CJK.search(right):
            right = re.sub(r"(?<=[\u4e00-\u9fff])(?:的|啊|呀|哈)$", "", right)
        if not explicit and wrong.lower() not in prev_asst.lower():
            return None  # "不是A，是B" not contradicting anything the assistant said
        para = _paraphrase_fix(prev_asst, right, wrong) or _statement_fix(prev_asst, right, wrong)
        if para:
            return rewrite_assistant(para), right
        if CJK.search(body):
            sp = " " if right[:1].isascii() else ""
            return f"说的是{sp}{right}，不是{sp}{wrong}", right
        return f"{right}, not {wrong}", right

    def _answer(self, text: str, lang: str, prev_reply: str, state: DialogueState) -> Hit | None:
        """A fragment answering the assistant's question, completed from the dialogue state
        ("海尔的" after "哪个牌子的？" about a fridge → "用户的冰箱是海尔的")."""
        if is_episode(text):
            return None
        qs = [s for s in split_sentences(prev_reply) if looks_like_question(s)]
        if not qs:
            return general.detect(text, state, answer=False)
        q = qs[-1]
        q = re.sub(r"^(?:好的|明白|了解|收到|谢谢)?[！!，,。]?\s*(?:请问)?", "", q).strip()
        if OFFER_Q.search(q):
            return general.detect(text, state, answer=False)
        if not ADDRESS_Q.search(q):  # a yes/no question: the reply decides about its topic
            return general.detect(text, state, answer=True)
        kept = [
            c
            for c in split_clauses(text)
            if not ACK_RE.match(_core(c))
            and not TASK_ZH.match(_core(c))
            and not TASK_EN.match(_core(c))
            and not FILLER_RE.match(_core(c))
        ]
        ans = _core(("" if lang == "zh" else " ").join(k.strip() for k in kept))
        if len(ans) < 2 or noise_only(ans):
            return None
        is_pref = bool(PREF_Q.search(q))
        asked = bool(ABOUT_YOU_Q.search(q)) or (is_pref and len(ans) >= 4)
        hit = general.detect(ans, state, answer=True, asked=asked)
        if hit is None:
            return None
        hedged = bool(HEDGE_RE.search(ans))
        category = "preference" if is_pref else hit.category
        slot, values, ents = derive_slot(f"{q} {ans}" if is_pref else ans, category, [])
        if not slot:
            slot, values, ents = hit.slot, hit.values, hit.entities or ents
        return Hit(
            category=category,
            kind="semantic",
            general=True,
            content_body=hit.content_body,
            quote=text.strip(),
            confidence=0.45 if hedged else 0.7,
            importance=0.5,
            slot=slot,
            values=values,
            entities=ents,
            hedged=hedged,
        )

    def _candidate(self, hit: Hit, idx: int, lang: str) -> Candidate:
        hlang = "zh" if CJK.search(hit.content_body) else "en"
        content = hit.content_body
        if hit.general:
            content = content.rstrip("。.") + ("" if hlang == "zh" else ".")
        elif not content.startswith(("用户回答", "The user's answer")):
            if hit.category != "correction":
                content = _naturalize(content, hlang, hit.slot)
            content = _finish(content, hlang, hit.category, hit.kind)
        elif hlang == "en" and not content.endswith("."):
            content += "."
        content = redact_pii(content)  # kept clauses may hold a number; the fact stays
        slot = hit.slot
        whose = owner(content)
        if slot and whose and not slot.startswith("thing:") and not slot.endswith(f"@{whose}"):
            slot = f"{slot}@{whose}"  # the wife's taste is not the user's
        return Candidate(
            content=content,
            category=hit.category,
            kind=hit.kind,
            entities=hit.entities,
            importance=round(hit.importance, 2),
            confidence=round(hit.confidence, 2),
            slot=slot,
            values=list(hit.values),
            source_index=idx,
            source_quote=hit.quote,
        )


def _deferred(hits: list[Hit], hit_sentence: list[int], sentences: list[str]) -> list[Hit]:
    """A deferral ("…不过也就想想，再说吧", "not sure yet") puts off what the turn just said:
    the hits of its own sentence and of the one before it are tentative."""
    deferring = {n for n, s in enumerate(sentences) if salience.defers(s)}
    if not deferring:
        return hits
    put_off = deferring | {n - 1 for n in deferring}
    return [
        replace(h, confidence=min(h.confidence, 0.45), hedged=True)
        if n in put_off and h.kind != "episodic"
        else h
        for h, n in zip(hits, hit_sentence, strict=True)
    ]


def _paraphrase_fix(prev_asst: str, right: str, wrong: str) -> str | None:
    """Corrected version of the assistant's (wrong) paraphrase, e.g. "已记录：周二…" -> "周四…"."""
    if not prev_asst or not RECORD_MARK.search(prev_asst):
        return None
    r, w = right, wrong
    # strip the common prefix/suffix so "研发楼项目"/"总部大楼项目" -> "研发楼"/"总部大楼"
    # (never inside a number or a Latin word: "15号"/"5号" -> "15"/"5", not "1"/"")
    while r and w and r[-1] == w[-1] and not (r[-1].isascii() and r[-1].isalnum()):
        r, w = r[:-1], w[:-1]
    while r and w and r[0] == w[0] and not (r[0].isascii() and r[0].isalnum()):
        r, w = r[1:], w[1:]
    r, w = r.strip(), w.strip()
    if not w or not r:
        return None
    for sentence in split_sentences(prev_asst):
        pos = sentence.lower().find(w.lower())
        if pos < 0:
            continue
        seg = sentence
        m = re.search(r"[:：]\s*", seg)
        if m and m.end() <= pos:
            seg = seg[m.end() :]
        seg = re.sub(r"^(?:好的|抱歉|明白|收到)[，,。！!]\s*", "", seg)
        fixed = re.sub(
            r"(?<![0-9A-Za-z])" + re.escape(w) + r"(?![0-9A-Za-z])", r, seg, flags=re.IGNORECASE
        )
        return _core(fixed)
    return None


ASST_SELF = re.compile(r"我|\bI\b|\bI'(?:ll|m|ve)\b|\bwe\b|\blet me\b", re.IGNORECASE)
ZH_ATTR = re.compile(
    r"^(?:用户的?)?(?P<owner>[\u4e00-\u9fff]{0,8}?)的?"
    r"(?P<attr>生日|纪念日|忌日|婚礼|家长会|航班|预算|房租|地址|名字|时间|日期|体重|身高)"
    r"(?:是|在|为)?(?P<value>[^是在为].*)$"
)


def _replace_value(text: str, right: str, wrong: str) -> str | None:
    """`text` with the wrong value replaced by the right one (whole token first, then the part
    that differs: "十一月" -> "十月"); None when the wrong value is not in it."""
    num = "0-9A-Za-z零一二两三四五六七八九十百千"
    for r, w in ((right, wrong), _diff(right, wrong)):
        if not r or not w:
            continue
        rx = re.compile(rf"(?<![{num}]){re.escape(w)}(?![0-9A-Za-z])", re.IGNORECASE)
        if rx.search(text):
            return rx.sub(lambda _m, r=r: r, text)
    return None


def _diff(right: str, wrong: str) -> tuple[str, str]:
    """The differing middle of two values, never splitting a number or a Latin word."""
    r, w = right, wrong
    keep = "零一二两三四五六七八九十百千"
    while r and w and r[-1] == w[-1] and not (r[-1].isascii() and r[-1].isalnum()):
        if len(r) > 1 and len(w) > 1 and r[-2] in keep and w[-2] in keep and r[-1] in keep:
            break
        r, w = r[:-1], w[:-1]
    while r and w and r[0] == w[0] and not (r[0].isascii() and r[0].isalnum()) and r[0] not in keep:
        r, w = r[1:], w[1:]
    return r.strip(), w.strip()


def _statement_fix(prev_asst: str, right: str, wrong: str) -> str | None:
    """The assistant's last statement holding the wrong value, corrected, as a statement about
    the user: "好的，老婆生日十一月十二号，我会提醒你" + 十月/十一月
    -> "用户老婆的生日是十月十二号".
    Clauses about the assistant's own actions ("我会提醒你") are skipped."""
    if not prev_asst:
        return None
    clauses = [
        _core(c)
        for sentence in split_sentences(prev_asst)
        for c in re.split(r"[，,：:；;]\s*", sentence)
        if c.strip()
    ]
    for clause in reversed(clauses):
        if ACK_RE.match(clause) or ASST_SELF.search(clause) or looks_like_question(clause):
            continue
        fixed = _replace_value(clause, right, wrong)
        if not fixed:
            continue
        fixed = re.sub(
            r"^(?:好的|好嘞|抱歉|明白|收到|记住了|ok(?:ay)?|sure|noted)[，,。！!\s]*",
            "",
            fixed,
            flags=re.IGNORECASE,
        )
        if CJK.search(fixed):
            fixed = rewrite_assistant(fixed)
            m = ZH_ATTR.match(fixed)
            if m:
                fixed = f"用户{m.group('owner')}的{m.group('attr')}是{m.group('value')}"
            elif not fixed.startswith("用户"):
                fixed = "用户" + fixed if re.match(r"[\u4e00-\u9fff]", fixed) else fixed
            return fixed
        return rewrite_assistant(fixed)
    return None


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


# ---- generic "thing + value" slots ---------------------------------------------------------
# Statements about something the lexicon does not know ("我的牙医是…", "保洁每周六来",
# "switched accountants, it's now …") still answer one question about the person: the slot is
# the normalised noun phrase of the thing (its head), the values are the name / schedule atoms.
ZH_CHANGE_VERB = (
    r"(?:换成|换到|换为|换用|改成|改用|改为|改到|改在|迁到|迁移到|转到|切到|切换到|挪到|调到|"
    r"调整为|调整到|变成)"
)
ZH_OWNER = re.compile(
    r"^(?:(?:我们|咱们|我|咱|用户)(?:的)?(?:家里|家|小区|公司|单位|团队|小组|组里|组|部门)?(?:的)?)|"
    r"^(?:家里|家|小区|公司)(?:的)?|^用户的团队"
)
ZH_THING_LEAD = re.compile(
    r"^(?:跟你说一下|对了|另外|还有|现在|目前|以后|今后|之后|从[^，,]{0,6}(?:开始|起)|已经|已|也|都|"
    r"正式|固定|全部(?:的)?|所有(?:的)?|这些|那些|把|统一|一直|平时|主要|可能|也许|或许|说不定|大概|"
    r"新的?|在用的|常用的|用的|"
    r"(?:我们|咱们|我|用户)(?:的)?(?:家里|家|小区|公司|小组|组里|组|部门)?(?:的)?)+"
)
ZH_THING_TAIL = re.compile(
    r"(?:我们|我|用户|已经|已|现在|目前|以后|今后|统一|一律|正式|固定|全部|都|也|说不定|可能|也许|或许|"
    r"要|会|得|打算|准备|想|定了|换了|改了|变了|调整了|的时间|时间|的日子|日子|的安排|安排)+$"
)
ZH_NAME_CUT = re.compile(r"[了的吧啦呢来去买带用做那这和跟给，,。；;！!？?（(]|不错|挺好|比较|更")
ZH_SCHED = re.compile(
    r"(?:每(?:个)?(?:周|星期|礼拜)[一二三四五六日天]?|每天|每晚|每早|每(?:个)?月|"
    r"(?:周|星期|礼拜)[一二三四五六日天])"
    r"(?:[、和及与跟或]?(?:周|星期|礼拜)?[一二三四五六日天])*"
    r"(?:上午|下午|中午|晚上|早上|早晨|傍晚)?(?:[零一二两三四五六七八九十\d]{1,3}(?:点|:|：)(?:半|\d{2})?)?"
)
# A family member / household / workplace the user talks about owns the thing: "孩子的英语家教是…",
# "家里的宽带是…" are facts about the user's world even without "我".
ZH_KIN = (
    r"(?:孩子|小孩|宝宝|女儿|闺女|儿子|老婆|媳妇|妻子|太太|老公|丈夫|爸妈|父母|爸爸|妈妈|爸|妈|"
    r"爷爷|奶奶|外公|外婆|姥姥|姥爷|公公|婆婆)"
)
ZH_POSSESSED = re.compile(rf"^(?:我(?:们)?(?:家)?(?:的)?)?{ZH_KIN}的|^(?:家里|公司|单位|小区)的")
ZH_ACT_LEAD = re.compile(r"^(?:我|用户)?(?:都|会|要|得)?(?:有|去|来|上|学|练|打|做|参加|报)*")
EN_TITLE = r"(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+"
EN_NAME = re.compile(rf"(?:{EN_TITLE})?[A-Z][\w'&+-]*(?:\s+(?:of\s+|&\s+)?[A-Z][\w'&+-]*)*")
EN_STOP = {
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "i",
    "we",
    "me",
    "us",
    "to",
    "from",
    "now",
    "on",
    "that",
    "this",
    "it",
    "is",
    "are",
    "and",
    "or",
    "of",
    "for",
    "user",
    "user's",
    "team",
    "with",
    "at",
    "in",
    "also",
    "then",
    "so",
    "just",
    "reminder",
    "note",
    "instead",
    "still",
    "usually",
    "always",
    "officially",
    "finally",
    "all",
    "over",
}
EN_VERBS = {
    "comes",
    "come",
    "visits",
    "visit",
    "is",
    "are",
    "happens",
    "happen",
    "runs",
    "run",
    "take",
    "takes",
    "have",
    "has",
    "go",
    "goes",
    "do",
    "does",
    "attend",
    "attends",
    "meet",
    "meets",
    "starts",
    "start",
    "get",
    "gets",
    "walk",
    "walks",
    "play",
    "plays",
    "doing",
    "going",
}
EN_SCHED = re.compile(
    r"\b(?:every|each)\s+(?:other\s+)?(?:day|morning|evening|night|afternoon|week|weekday|"
    r"weekend|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
    r"\bon\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends)\b|"
    r"\b(?:daily|weekly)\b",
    re.IGNORECASE,
)
EN_NP = r"[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}"
# A family member / the household owns the thing ("the kids' pediatrician", "my wife's dentist").
EN_POSS = (
    r"(?:kids'|kid's|children's|child's|son's|daughter's|wife's|husband's|partner's|family's|"
    r"mom's|dad's|mother's|father's|parents'|baby's|girlfriend's|boyfriend's|household's|"
    # any other possessor of the user's ("my dog's vet", "our car's mechanic")
    r"(?!(?:it|that|what|who|there|here|he|she|let|one)'s\b)[a-z]{2,}(?:'s|s'))"
)
EN_POSS_CANON = {"kids": "kid", "children": "kid", "child": "kid", "mother": "mom",
                 "father": "dad", "parents": "parent"}  # fmt: skip
EN_IS = re.compile(
    rf"\b(?:(?i:my|our|the user's(?: team's)?|the user's team)\s+|"
    rf"(?i:the|my|our|the user's)\s+(?P<owner>(?i:{EN_POSS}))\s+)(?P<x>{EN_NP})\s+(?:is|are)\s+"
    r"(?:now\s+|still\s+|officially\s+)?(?:with\s+|at\s+|called\s+|named\s+|on\s+)?(?P<y>.+)$"
)
EN_IS_REV = re.compile(
    rf"(?P<y>(?:{EN_TITLE})?[A-Z][\w'&+-]*(?:\s+(?:at\s+)?[A-Z][\w'&+-]*)*)\s+(?:is|are)\s+"
    rf"(?:now\s+|still\s+)?(?i:my|our|the user's)\s+(?P<x>{EN_NP})\b"
)
EN_CHANGE = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:ed|ing)|mov(?:ed|ing)|migrat(?:ed|ing)|transferr(?:ed|ing)|"
    r"swapp(?:ed|ing))\s+(?:over\s+|everything\s+)?"
    r"(?:(?:all|both|most|some)(?:\s+of)?\s+(?:(?:my|our|the user's|the)\s+)?|"
    r"(?:my|our|the user's|the)\s+)"
    rf"(?P<x>{EN_NP})\s+(?:over\s+)?(?:to|for)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
EN_CHANGE_TO = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing)|go(?:ing)?)\s+(?:over\s+)?to\s+"
    rf"(?:a|an|the|my|our|another|new)?\s*(?:new\s+)?(?P<x>{EN_NP})\s+(?:named|called)\s+"
    r"(?P<y>.+)$",
    re.IGNORECASE,
)
EN_CHANGED_NOW = re.compile(
    rf"\b(?:(?i:my|our|the user's|the)\s+(?:(?P<owner>(?i:{EN_POSS}))\s+)?)(?P<x>{EN_NP})\s+"
    r"(?:has\s+|have\s+)?(?:changed|switched|is different|are different)(?:\s+again)?[,;.]?\s*"
    r"(?:it's|it is|now it's|the new one is|(?:she|he|they)(?:'s| is| are))\s+"
    r"(?:now\s+)?(?:with\s+|at\s+|called\s+)?(?P<y>.+)$"
)
EN_SWITCHED_PLURAL = re.compile(
    r"\b(?:switched|changed|swapped)\s+(?P<x>[a-z]+s)\b[^.]{0,40}?[.,]?\s*"
    r"(?:it's|it is|now it's|the new one is|(?:she|he|they)(?:'s| is| are))\s+"
    r"(?:now\s+)?(?P<y>.+)$",
    re.IGNORECASE,
)


EN_UNCOUNTABLE = {
    "news",
    "series",
    "species",
    "glasses",
    "clothes",
    "scissors",
    "pants",
    "jeans",
    "shorts",
    "headphones",
    "earphones",
    "sales",
    "analytics",
    "physics",
    "maths",
    "electronics",
    "always",
    "gas",
    "bus",
    "lens",
    "tennis",
    "chess",
    "fitness",
    "wellness",
    "business",
    "dress",
}


def _singular(word: str) -> str:
    if word in EN_UNCOUNTABLE:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _en_thing(np: str) -> str:
    words = [w for w in np.lower().split() if w]
    while words and (words[0] in EN_STOP or words[0] in EN_VERBS):
        words.pop(0)
    while words and (words[-1] in EN_STOP or words[-1] in EN_VERBS):
        words.pop()
    if not words or len(words) > 3:
        return ""
    words[-1] = _singular(words[-1])
    return " ".join(words)


def _en_values(y: str) -> list[str]:
    y = re.split(
        r"(?<!Dr)(?<!Mr)(?<!Mrs)(?<!Ms)(?<!Prof)[,;.!?](?:\s|$)|"
        r"\s+(?:and|but|because|since|who|which|so|now)\s+",
        y,
        maxsplit=1,
    )[0]
    sched = schedule_values(y)
    if any(_DAYLIKE.match(v) for v in sched):
        return sched
    out = [m.group(0).strip() for m in EN_NAME.finditer(y)]
    out = [v for v in out if v.lower() not in EN_STOP and v not in ("I", "The")]
    return list(dict.fromkeys(out))[:3]


def _zh_thing(x: str) -> str:
    x = re.sub(r"\s+", " ", x).strip(" ，,：:")
    for _ in range(3):
        x = ZH_OWNER.sub("", x).strip()
        x = ZH_THING_LEAD.sub("", x).strip()
        x = ZH_THING_TAIL.sub("", x).strip()
    x = x.strip(" ，,的")
    if not x or re.search(r"[，,。是在每要]|用户|助手|换|改|迁|挪", x):
        return ""
    n = len(CJK.findall(x)) + len(re.findall(r"[A-Za-z]+", x))
    if n < 1 or len(x) > 10 or (CJK.search(x) and len(CJK.findall(x)) < 2 and not x.isascii()):
        return ""
    return x.lower()


def _zh_values(y: str) -> list[str]:
    y = y.strip()
    sched = schedule_values(y.split("，")[0].split(",")[0])
    if any(_DAYLIKE.match(v) for v in sched):
        return sched
    latin = re.match(r"^\s*([A-Za-z][A-Za-z0-9_.+&-]*(?:\s+[A-Z][A-Za-z0-9_.+&-]*)*)", y)
    if latin:
        return [latin.group(1).strip()]
    y = re.sub(r"^(?:现在|目前|正式|已经|全部|都|了|是|用|的)+", "", y)
    name = ZH_NAME_CUT.split(y, maxsplit=1)[0].strip()
    if not name or len(name) > 10 or not (CJK.search(name) or name.isalnum()):
        return []
    return [name]


_FUNCTION_POS = ("a", "d", "r", "u", "p", "c", "m", "q", "y", "e", "o", "z")


def _contentful(thing: str) -> bool:
    """A noun phrase, not an evaluation ("太晚", "还行"): some token jieba does not tag as a
    function word / adjective / adverb / time word."""
    if thing.isascii():
        return True
    from jieba import posseg

    _get_jieba()
    return any(not p.flag.startswith(_FUNCTION_POS) for p in posseg.cut(thing))


_NOT_IN_NP = ("d", "f", "t", "r", "p", "zg", "c", "ul", "y", "q", "m", "e", "o")


def well_formed_thing(thing: str) -> bool:
    """A noun phrase fit to name a slot: its head (last word) is a noun and no word of it is an
    adverb, time word, pronoun, preposition or particle ("组开", "开会统一" are not)."""
    if not thing:
        return False
    if thing.isascii():
        return True
    from jieba import posseg

    _get_jieba()
    words = [p for p in posseg.cut(thing) if p.word.strip() and p.word != "的"]
    if not words:
        return False
    if any(p.flag.startswith(_NOT_IN_NP) and not p.flag.startswith("uj") for p in words):
        return False
    if len(words) > 1 and words[0].flag == "v" and len(words[0].word) == 1:
        return False  # verb + object ("开视频"), not a noun phrase
    head = words[-1]
    return head.flag.startswith("n") or head.flag == "eng"


def _zh_generic(text: str) -> tuple[str, list[str]]:
    clauses = [c for c in re.split(r"[，,；;。！!]", text) if c.strip()]
    for i, clause in enumerate(clauses):
        m = re.search(ZH_CHANGE_VERB, clause)
        if not m:
            continue
        values = _zh_values(clause[m.end() :])
        thing = _zh_thing(clause[: m.start()])
        if not thing and i > 0:
            prev = clauses[i - 1]
            if re.search(r"(?:换|改|变|调整|定)了$|^新的?", prev.strip()):
                thing = _zh_thing(prev)
        if thing and values:
            return thing, values
    for i, clause in enumerate(clauses):
        clause = clause.strip()
        for verb in ("用的是", "找的是", "叫", "是", "用的", "主要用", "用"):
            pos = clause.find(verb)
            if pos < 0 or pos > 16:
                continue
            x = re.sub(r"(?:现在|目前|一直|平时|主要|都)+$", "", clause[:pos])
            values = _zh_values(clause[pos + len(verb) :])
            if not x and i > 0 and re.search(r"(?:换|改|变)(?:人)?了$", clauses[i - 1].strip()):
                # "教练换了，现在是王教练": the changed thing is named in the clause before
                thing = _zh_thing(re.sub(r"(?:换|改|变)(?:人)?了$", "", clauses[i - 1].strip()))
                if thing and values:
                    return thing, values
            if pos < 1 or not (
                ZH_OWNER.match(x) or ZH_POSSESSED.match(x) or re.match(r"^新的?", x)
            ):
                continue
            thing = _zh_thing(x)
            if thing and values:
                return thing, values
    for clause in clauses:
        m = ZH_SCHED.search(clause)
        if not m or not m.group(0):
            continue
        values = schedule_values(clause)
        if not any(_DAYLIKE.match(v) for v in values):
            continue
        thing = _zh_thing(clause[: m.start()])
        if re.fullmatch(ZH_KIN, thing):
            thing = ""  # "我女儿每周日…": the family member does the activity, it is not the thing
        if not thing:
            # "每周四晚上去上画画课": the activity follows the schedule after a verb lead
            after = re.sub(
                r"^(?:上午|下午|中午|晚上|早上|早晨|傍晚|晚|早|[零一二两三四五六七八九十\d]{1,3}点半?)+",
                "",
                clause[m.end() :],
            )
            after = re.sub(rf"^(?:我|我们|我家)?(?:的)?{ZH_KIN}", "", after)  # "…女儿要去上…"
            lead = ZH_ACT_LEAD.match(after)
            if lead and lead.group(0).lstrip("我用户都会要得"):
                after = ZH_NAME_CUT.split(after[lead.end() :], maxsplit=1)[0]
                thing = _zh_thing(after)
                thing = thing if _contentful(thing) else ""
        if thing:
            return thing, values
    return "", []


def _en_generic(text: str) -> tuple[str, list[str]]:
    for rx in (EN_CHANGED_NOW, EN_SWITCHED_PLURAL, EN_CHANGE, EN_CHANGE_TO, EN_IS, EN_IS_REV):
        m = rx.search(text)
        if m:
            thing, values = _en_thing(m.group("x")), _en_values(m.group("y"))
            owner = m.groupdict().get("owner")
            if thing and owner:
                o = re.sub(r"'s?$", "", owner.lower())
                thing = f"{EN_POSS_CANON.get(o, o)}'s {thing}"
            if thing and values:
                return thing, values
    for clause in re.split(r"[,;:.!?]\s+|\s+-\s+", text):
        m = EN_SCHED.search(clause)
        if not m:
            continue
        values = schedule_values(clause)
        if not any(_DAYLIKE.match(v) for v in values):
            continue
        words = clause[: m.start()].split()
        while words and words[-1].lower() in EN_VERBS | {"instead", "still", "usually", "now"}:
            words.pop()
        np: list[str] = []
        for w in reversed(words):
            lw = w.lower().strip("'\"")
            if lw in EN_STOP or lw in EN_VERBS or not re.fullmatch(r"[a-z][a-z-]*", lw):
                break
            np.insert(0, lw)
        thing = _en_thing(" ".join(np[-3:]))
        if thing:
            return thing, values
    return "", []


def generic_slot(text: str) -> tuple[str, list[str]]:
    """("thing:<noun phrase>", values) for a statement about a thing outside the lexicon."""
    thing, values = _zh_generic(text) if CJK.search(text) else _en_generic(text)
    if not thing or not values:
        return "", []
    return f"thing:{normalize_thing(thing)}", values


# Latin app / brand names inside Chinese text: never swallow a CJK particle ("LastPass里").
ZH_LATIN_NAME = r"[A-Za-z0-9][A-Za-z0-9_.+&-]*(?:\s[A-Za-z0-9][A-Za-z0-9_.+&-]*){0,2}"


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
    ("公司的年会" -> "年会", where `_zh_thing` would cut the "会")."""
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
    thing = " ".join([*words[-3:-1], _singular(words[-1])]) if words else ""
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


# ---- a move to a known app / service --------------------------------------------------------
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


# ---- habitual use of a named service / tool / brand -----------------------------------------
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
            thing = _en_thing(thing) if thing else ""
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
            thing = _zh_thing(thing) if thing else ""
            if not name or not thing or ZH_NOT_SERVICE.match(name) or "用户" in thing:
                continue
            if re.search(r"[是在用的]", name) and not name.isascii():
                continue
            return thing, [name]
    return "", []


def _usage_claims(text: str, styles: list[str]) -> bool:
    """The statement's slot is a habitual-use slot (no lexicon topic claims it first)."""
    u_slot = usage_slot(text)[0]
    return bool(u_slot) and derive_slot(text, "preference", styles)[0] == u_slot


def normalize_thing(thing: str) -> str:
    """Canonical noun of a generic thing slot: synonyms and word forms ("云盘" -> "网盘",
    "groceries" -> "grocery", "notes app" -> "笔记")."""
    t = thing.strip().lower()
    if t in THING_SYNONYMS:
        return THING_SYNONYMS[t]
    if t.isascii():
        words = t.split()
        if words:
            words[-1] = _singular(words[-1])
            t = " ".join(words)
    return THING_SYNONYMS.get(t, t)


def usage_slot(text: str) -> tuple[str, list[str]]:
    """("thing:<what it is used for>", [name]) for a statement of habitual use of a named
    service, tool or brand; ("", []) otherwise."""
    thing, values = _zh_usage(text) if CJK.search(text) else _en_usage(text)
    if not thing or not values:
        return "", []
    return f"thing:{normalize_thing(thing)}", values


# Lexicon slots too broad to tell two things apart ("brand" of an unknown device) give way to
# a generic thing slot when the statement names the thing.
GENERIC_OVERRIDES = {"brand", "device", "drink", "reminder", "transport", "tool"}


def derive_slot(text: str, category: str, styles: list[str]) -> tuple[str, list[str], list[str]]:
    """(slot, values, entities) for a statement: lexicon topic cues first, then the generic
    "thing + value" slot for things outside the lexicon."""
    slot, values, entities = _lexicon_slot(text, category, styles)
    if styles:
        return slot, values, entities
    if (not slot or not values) and _topic_base(slot) not in ("trip", "meeting", "focus_time"):
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
        if g_slot and (not slot or not values or well_formed_thing(_thing_words(g_slot))):
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
        if any(_DAYLIKE.match(v) for v in schedule):
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
            neg = slot != "allergy" and _negated(text, start, start + len(surf))
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
            (neg if _negated(text, m.start(), m.end()) else pos).append(name)
    values = list(dict.fromkeys(pos)) or [f"!{n}" for n in dict.fromkeys(neg)]
    if not values:
        return None
    if category == "fact" and not STANDING_RE.search(text):
        return None
    genre = next((g for rx, g in GENRE_RES if rx.search(text)), "answer")
    return f"language:{genre}", values


_DAYLIKE = re.compile(r"^(?:周[一二三四五六日]|周末|\d{2}:\d{2})$")


def _topic_base(slot: str) -> str:
    return slot.split(":")[0].split(".")[0]


def _merge_hits(hits: list[Hit]) -> list[Hit]:
    """Merge adjacent hits of one turn that talk about the same topic."""
    out: list[Hit] = []
    for h in hits:
        if out:
            prev = out[-1]
            pv = {v.lstrip("!") for v in prev.values}
            hv = {v.lstrip("!") for v in h.values}
            same_topic = (
                (not h.slot)
                or (not prev.slot and h.category == prev.category)
                or (_topic_base(h.slot) == _topic_base(prev.slot))
                or bool(pv & hv)
            )
            if h.general or prev.general:
                # statements the general detector found stay separate memories unless they talk
                # about one thing: a knee surgery and a new commute are two facts
                same_topic = _share_topic(prev.content_body, h.content_body)
            if (
                same_topic
                and h.hedged == prev.hedged
                and prev.category != "correction"
                and h.category != "correction"
            ):
                out[-1] = _combine(prev, h)
                continue
        out.append(h)
    return out


def _share_topic(a: str, b: str) -> bool:
    from memory.extraction import topics

    return bool(set(topics.concepts(a)) & set(topics.concepts(b))) or bool(
        topics.common_nouns(a) & topics.common_nouns(b)
    )


PRIORITY = ["correction", "decision", "plan", "preference", "profile", "fact"]


def _combine(a: Hit, b: Hit) -> Hit:
    zh = bool(CJK.search(a.content_body))
    sep = "；" if zh else "; "
    bbody = b.content_body
    abody = a.content_body.rstrip("。.")
    # a bare complaint about the current reply ("太长了", "too long") followed by the standing
    # instruction it motivates: the instruction alone is the memory (values are kept)
    bare = re.sub(r"用户|the user|[\s，,。.!！]", "", abody, flags=re.IGNORECASE)
    if b.kind == "procedural" and not a.entities and len(bare) <= (6 if zh else 14):
        abody = ""
    category = min(a.category, b.category, key=PRIORITY.index)
    slot = a.slot or b.slot
    values = list(a.values)
    if not a.slot or _topic_base(a.slot) == _topic_base(b.slot):
        values += [v for v in b.values if v not in values]
    return Hit(
        category=category,
        kind="procedural" if "procedural" in (a.kind, b.kind) else a.kind,
        content_body=(abody + sep + bbody) if abody else bbody,
        quote=(a.quote + " " + b.quote).strip(),
        confidence=max(a.confidence, b.confidence),
        importance=max(a.importance, b.importance),
        slot=slot,
        values=values,
        entities=normalize_entities(a.entities + b.entities),
        hedged=a.hedged,
        firm=a.firm or b.firm,
    )
