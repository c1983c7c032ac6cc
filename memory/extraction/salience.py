"""Is a clause of a user turn worth remembering? General signals instead of trigger sentences.

A clause is *salient* when it is not noise and carries concrete content about the person:

content signals  named thing (product / place / person / Latin name, model numbers "X-T4"),
                 a number with a unit ("65公分", "120cm", "五岁"), a time expression, a stance
                 (like / dislike / prefer), a habit adverb (一般 / usually), a standing directive
                 (以后 / from now on), a change (改 / switched)
personal signals first person, possession ("我家", "our"), an answer to the agent's question

salient = not noise and (content ≥ 2, or content ≥ 1 and personal). A number with a unit and a
health fact count twice: people rarely state a measurement that is not theirs, and a health fact
is always kept. Subject-less statements and choices count as personal (they are the speaker's).

noise (explicit)  acknowledgements, thanks, refusals and laughter or emoji with nothing else,
                  questions without a personal statement, hypotheticals ("如果我中了彩票",
                  "if I were"), jokes ("开玩笑", "jk"), one-off requests to the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from functools import cache, lru_cache

from memory.extraction import kinds, topics
from memory.extraction.rules.filters import ACK_RE, REVISION_RE, TASK_EN, TASK_ZH
from memory.extraction.rules.markers import (
    CHANGE_RE,
    DEICTIC,
    FIRM_RE,
    HEDGE_RE,
    PLAN_RE,
    PREF_NEG,
    PREF_POS,
    REPORTED_RE,
    SAFETY_RE,
    STANDING_RE,
    TIME_RE,
    changes_a_state,
    hedges_the_speaker,
    made_change,
    main_clause,
    short_remark,
    weighs_up_what_came_before,
)
from memory.extraction.words import word_class, words
from memory.language.dates import DAY_RE, TIME_OF_DAY_RE
from memory.language.text import CJK, QUESTION_NAME_RE, looks_like_question, split_clauses
from memory.language.tokens import pos_cut
from memory.pii import redact

EMOJI = re.compile(
    "[\U0001f300-\U0001faff\U00002600-\U000027bf\U0001f000-\U0001f2ff\u2b50\u2b55\u200d\ufe0f]"
)
_NAME_FLAGS = ("nr", "ns", "nt", "nz", "nrt")
_MODEL = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Z][A-Za-z]*\s?\d+[A-Za-z0-9-]*|[A-Za-z]+-?\d+[A-Za-z0-9-]*|"
    r"\d+[A-Za-z]+\d*)(?![A-Za-z])"
)
_LATIN_NAME = re.compile(r"(?<![A-Za-z'])[A-Z][a-zA-Z'&.-]+")
_NUM = r"(?:\d+(?:\.\d+)?|[零一二两三四五六七八九十百千万半]+)"
# "im", "ive": first person as people type it in chats
_FIRST_PERSON = re.compile(r"我|咱|\b(?:I|I'm|I've|I'd|I'll|im|ive|me|my|mine|we|our|us)\b", re.I)
_POSSESSION = re.compile(r"我(?:们)?(?:家|的)|\b(?:my|our)\b", re.I)
# a thing of one's own: "my 2019 outback", "our cat", "我家的洗衣机", "我的电脑"
_OWNED = re.compile(
    r"(?:我(?:们)?(?:家的?|的)|咱家的?)[\u4e00-\u9fff]{2}|"
    r"\b(?:my|our)\s+(?:\d{4}\s+|new\s+|old\s+)?(?!own\b|bad\b|god\b|goodness\b)[a-z]{3,}",
    re.I,
)
# A verdict: the speaker chooses or drops something ("就要那款", "那就不去了", "I'll go with
# the blue one", "skip it"). Always the speaker's own.
_VERDICT = re.compile(
    r"(?:就|那就|还是|决定)(?:要|选|定|买|订|用|去|报|它|这个|那个)|"
    r"(?:不|别)(?:去|买|报|要|订|选|换|用|参加|看|办|续|考虑)了|算了|就这(?:个|款|家)|"
    r"\b(?:i'll|i will|let's|lets|we'll|gonna|i'd rather) "
    r"(?:go with|take|get|pick|choose|skip|pass|book|buy|do)\b|"
    r"\b(?:i'll pass|not going|skip it|go with)\b",
    re.I,
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_HABIT = re.compile(
    r"一般|平时|通常|每天|每周|每个?月|每晚|每早|经常|总是|一直|基本上|习惯|向来|"
    r"\b(?:usually|normally|always|never|every|often|typically|generally|mostly)\b|"
    # what one is doing these weeks ("最近在备孕", "been learning guitar lately"): a state that
    # lasts, not the moment; "最近在看什么都没心思" is a mood about anything, no pursuit
    r"(?:最近|近来|这阵子|这段时间|这几个月|这学期|今年)(?:一直)?在(?![^，,。]{0,4}(?:什么|啥|哪儿?)都)|"
    r"\b(?:lately|these days|nowadays|this (?:term|semester))\b",
    re.I,
)
_NOW = re.compile(
    r"今天|今早|今晚|今儿|刚才|刚刚|这会儿|此刻|这次|这一次|这回|本次|"
    r"\b(?:this morning|this afternoon|this evening|today|tonight|right now|at the moment|"
    r"this time|for this one|for now|rn)\b|而家|今日|"
    # the clock right now: "it's 2pm", "都十二点半了"
    r"\bit'?s (?:already )?\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|"
    r"(?:都|已经)[一二两三四五六七八九十\d]{1,3}点(?:半|多)?了",
    re.I,
)
# One occasion, not the habit: a change on it ("这次改到周五") changes nothing lasting.
_ONE_TIME = re.compile(r"这次|这一次|这回|本次|\bthis time\b|\bjust this once\b", re.I)
_EN_SENTENCE_START = {"I", "I'm", "I've", "I'd", "I'll", "The", "A", "An", "My", "Our", "We"}


@cache
def _quantity() -> re.Pattern:
    units = sorted(words("units"), key=len, reverse=True)
    alt = "|".join(re.escape(u) for u in units)
    return re.compile(rf"{_NUM}\s*(?:{alt})(?![A-Za-z])", re.I)


# An amount without a unit after it is still a value: a price ("spend up to $1,500", "¥3999"),
# or a figure too long or too precise to be a count ("月租 6800", "利率 3.55") — not a year, a
# clock time, a date, a version, nor the digits of a phone or card number.
_AMOUNT_ALONE = re.compile(
    r"[$¥￥€£]\s*\d"
    r"|(?<![\d.:/\-A-Za-z])(?!(?:19|20)\d\d(?!\d))\d{3,}(?:,\d{3})*(?:\.\d+)?(?![\d:/\-])"
    r"|(?<![\d.:/\-A-Za-z])\d{1,3}(?:,\d{3})+(?![\d:/\-])"
    r"|(?<![\d.:/\-A-Za-z])\d+\.\d+(?![\d.:/\-])"
)


def has_quantity(text: str) -> bool:
    """A measured or counted amount ("82公斤", "两个小时"), a price or a bare figure."""
    if _quantity().search(text):
        return True
    return bool(_AMOUNT_ALONE.search(text) and _AMOUNT_ALONE.search(redact(text).text))


@cache
def leading_fillers() -> re.Pattern:
    """Discourse fillers at the start of a clause ("对了", "其实", "by the way", "ok so")."""
    zh = sorted(words("fillers_zh"), key=len, reverse=True)
    en = sorted(words("fillers_en"), key=len, reverse=True)
    sep = r"[\s,，、。.!！~]"
    # one-character and acknowledging fillers ("好", "对", "行") only before a pause: "好吃",
    # "对面" are words
    loose = [re.escape(w) for w in zh if len(w) > 1 and w not in ("好的", "对了")]
    tight = [re.escape(w) + f"{sep}" for w in zh if len(w) == 1 or w in ("好的",)]
    alt = "|".join(loose + tight + [rf"{re.escape(w)}\b" for w in en] + ["对了"])
    return re.compile(rf"^(?:(?:{alt}){sep}*)+", re.I)


@cache
def _laughter() -> re.Pattern:
    # "233" and "lol" are laughter on their own, not inside a card number or a word
    bounded = [w for w in words("laughter") if re.match(r"[A-Za-z0-9]", w)]
    loose = [w for w in words("laughter") if w not in bounded]
    alt = "|".join(loose + [rf"(?<![A-Za-z0-9])(?:{w})(?![A-Za-z0-9])" for w in bounded])
    return re.compile(rf"(?:{alt})", re.I)


def strip_emoji_and_laughter(text: str) -> str:
    return _laughter().sub("", EMOJI.sub("", text))


def strip_noise_tokens(text: str) -> str:
    """The clause without emoji, laughter, leading fillers and punctuation-only runs."""
    text = strip_emoji_and_laughter(text)
    text = text.strip(" \t~～.,，。!！?？…-—:：;；")
    stripped = leading_fillers().sub("", text)
    return (stripped or text).strip(" \t~～.,，。!！?？…-—:：;；")


@dataclass(frozen=True)
class Signals:
    named: bool = False
    quantity: bool = False
    time: bool = False
    stance: bool = False
    habit: bool = False
    directive: bool = False
    change: bool = False
    first_person: bool = False
    possession: bool = False
    answer: bool = False
    hedged: bool = False
    # a change made, in a clause with no hedge of its own: the sentence's doubt is elsewhere
    made: bool = False
    reported: bool = False  # somebody else's words ("他说…", "my friend says…")
    owned: bool = False
    verdict: bool = False
    safety: bool = False  # health and safety (allergies, insulin, medication): always kept
    # names an attribute a person has one of at a time (employer, home, commute: topics.py)
    attribute: bool = False
    # nothing but a hedge ("and I might,", "…吧，maybe，…"): it governs what follows it
    bare_hedge: bool = False
    # weighing up whether to do something it does not name ("…但要去新加坡 我还在想要不要接"):
    # it doubts what was named before it
    weighs_up: bool = False
    # names a thing of substance in a statement that names the speaker ("我们组所有需求都在多维表格
    # 里过"): it says how their life is arranged
    noun: bool = False
    noise: str = ""

    @classmethod
    def merge(cls, signals: list[Signals], *, answer: bool) -> Signals:
        """The signals of several clauses read as one statement (any clause counts)."""
        flags = {
            f.name: any(getattr(s, f.name) for s in signals)
            for f in fields(cls)
            if f.type in ("bool", bool)
        }
        # as the rule extractor reads a sentence (rules/extractor.py `_sentence_hedged`): a
        # hedge from the first statement on, an afterthought or a hedged change doubts it all;
        # somebody's words after it are theirs; a change made in a clause of its own stands
        first = next((i for i, s in enumerate(signals) if s.content), 0)
        # a hedge that names nothing governs the clauses after it ("I might, depending on…,
        # end up taking the offer"): a change made after it is no change made
        flags["made"] = any(
            s.made and not any(p.bare_hedge for p in signals[:i]) for i, s in enumerate(signals)
        )
        flags["hedged"] = not flags["made"] and any(
            i <= first or (s.hedged and (not s.content or s.change or s.weighs_up))
            for i, s in enumerate(signals)
            if s.hedged or s.reported
        )
        return cls(**{**flags, "answer": answer})

    @property
    def content(self) -> int:
        return (
            self.named
            + self.owned
            + self.verdict
            + 2 * self.safety
            + 2 * self.quantity
            + self.time
            + self.stance
            + self.habit
            + self.directive
            + self.change
        )

    @property
    def personal(self) -> bool:
        return self.first_person or self.possession or self.answer or self.verdict

    @property
    def salient(self) -> bool:
        if self.noise:
            return False
        # naming an attribute (works at, lives in) says something only of the speaker's own:
        # "Pixel 9 Pro 最近降价了" is news about a phone
        return (
            self.content >= 2 or (self.content + self.attribute >= 1 and self.personal) or self.noun
        )


def named_things(text: str) -> list[str]:
    """Names in a clause (cached; see `_named_things`)."""
    return list(_named_things(text))


@lru_cache(maxsize=8192)
def _named_things(text: str) -> tuple[str, ...]:
    """Names in a clause: model numbers, capitalised Latin words (not sentence-initial function
    words), jieba proper nouns, Latin words inside Chinese text, known alias entities."""
    from memory.aliases import find_entity_spans

    found = [m.group(0).strip() for m in _MODEL.finditer(text)]
    zh = bool(CJK.search(text))
    for m in _LATIN_NAME.finditer(text):
        tok = m.group(0).rstrip(".")
        if tok in _EN_SENTENCE_START or tok.lower() in words("en_stopwords"):
            continue
        found.append(tok)
    if zh:
        for word, flag in pos_cut(text):
            if (flag.startswith(_NAME_FLAGS) and len(word) >= 2 and CJK.search(word)) or (
                flag == "eng" and len(word) >= 2
            ):
                found.append(word)
    found.extend(c for _, c, _ in find_entity_spans(text))
    return tuple(dict.fromkeys(f for f in found if f))


def _implied_own(text: str) -> bool:
    """Chinese leaves "my" out before the places and people of one's own life: "公司开通班车了",
    "小区装了充电桩", "老板让我…" are about the speaker's company, estate, boss."""
    if not CJK.search(text):
        return False
    lead = word_class("implied_own_zh").match(text.lstrip())
    return lead is not None


def _opens_with_an_attribute(text: str) -> bool:
    """A Chinese statement that opens by saying what a thing a person has one of at a time is
    ("工资卡是工行的", "车是比亚迪的") is about the speaker's own: "my" is left out. Not news
    about a thing ("手机最近降价了")."""
    cut = [w for w, _ in pos_cut(text.strip()) if w.strip()]
    if len(cut) < 3 or cut[1] != "是" or not CJK.fullmatch(cut[0][0]):
        return False
    return any(topics.concepts(cut[0]).values())


_ZH_SUBJECTLESS_START = ("v", "d", "t", "p", "c", "m", "r", "a")
_NOT_THE_SPEAKER = ("这", "那", "它", "他", "她", "他们", "她们", "它们", "人家", "别人")
# a span of time the sentence starts with (jieba tags 最近 / 之前 "f" like 里面, and cuts 这阵子
# into 这 + 阵子)
_TIME_FIRST_ZH = re.compile(
    r"^(?:最近|近来|这阵子|那阵子|这段时间|这几[天周个年]月?|这学期|以前|之前|从前|后来|之后|以后)"
)


def implicit_subject(text: str) -> bool:
    """A statement without a subject is the speaker's own ("thinking Iceland in March",
    "gave up the bike commute", "下个月去冰岛"); one that starts with a thing is about the thing
    ("Pixel 9 Pro 最近降价了")."""
    if CJK.search(text):
        # "最近在健身增肌", "这阵子在准备考研": a time said first leaves the subject out as well
        rest = _TIME_FIRST_ZH.sub("", text.strip()) or text
        first = next(((w, f) for w, f in pos_cut(rest) if w.strip()), ("", ""))
        # a pronoun of somebody else ("他昨天又说想改学架子鼓") names the subject
        return first[1].startswith(_ZH_SUBJECTLESS_START) and first[0] not in _NOT_THE_SPEAKER
    first = (text.split() or [""])[0].lower()
    return bool(
        re.fullmatch(
            r"[a-z]+(?:ing|ed)|gave|went|got|took|had|been|just|still|"
            r"finally|already|never|always|usually|gonna|wanna|need|want",
            first,
        )
    )


_A_NOT_A = re.compile(r"([\u4e00-\u9fff])[不没]\1(?!了)")
# asking the agent's opinion ("你说黄焖鸡还是麻辣烫", "你觉得值吗") or whether what was just
# said is true ("…都用飞书了，真的假的")
_DOUBT = re.compile(r"真的假的|是真的吗|靠谱吗")
_ASKS = re.compile(rf"{_DOUBT.pattern}|(?:^|[，,\s])你(?:说|觉得|看)(?![过了得的完])")


def is_question(text: str) -> bool:
    """A question, also without a question mark: "…会不会 rebel", "是不是该换了", a guess
    seeking confirmation ("Australia 的 capital 是 Sydney 吧")."""

    if looks_like_question(text):
        return True
    if _FIRST_PERSON.search(text):
        return False
    core = strip_noise_tokens(text)
    return bool(
        _A_NOT_A.search(text)
        or _ASKS.search(text)
        or _WH_FIRST_ZH.match(core)
        or _asks_in_place(core)
    ) or bool(re.search(r"是.{1,20}吧$", core))


# Chinese asks where the answer would stand ("用 XLOOKUP 怎么写", "这到底啥意思"): a question
# word anywhere in a clause on its own, unless it is used as "any" ("什么都吃", "怎么也睡不着"),
# as a degree ("不怎么喝酒", "没什么"), as "and so on" ("水果什么的") or in wonder ("怎么这么多").
_WH_ZH = frozenset(
    ("怎么", "咋", "如何", "怎样", "怎么样", "什么", "啥", "哪个", "哪些", "哪里", "哪儿")
)
# jieba keeps some question words inside one word ("啥意思", "怎么办", "为什么")
_WH_ZH_INSIDE = re.compile(r"^(?:怎么|咋|啥|什么|为什么|为啥)")
_WH_NOT_ASKING_AFTER = ("都", "也", "的", "样都", "这么", "那么")
_WH_NOT_ASKING_BEFORE = ("不", "没", "没有", "没啥", "干")


def _asks_in_place(text: str) -> bool:
    # only a clause on its own: "一年级作业怎么这么多啊 儿子每天写到九点多" tells facts around
    # its question word
    if not CJK.search(text) or len(split_clauses(text)) > 1:
        return False
    # a thing one has one of at a time, named in it, is theirs: "macbook pro m4上怎么装homebrew";
    # a language or a topic asked about is not ("python里列表去重咋写")
    if kinds.ONE_AT_A_TIME_KINDS & set(kinds.named_kinds(text)):
        return False
    tagged = [(w, f) for w, f in pos_cut(QUESTION_NAME_RE.sub("X", text)) if w.strip()]
    cut = [w for w, _ in tagged]
    for i, word in enumerate(cut):
        if word not in _WH_ZH and not (len(word) > 1 and _WH_ZH_INSIDE.match(word)):
            continue
        after = cut[i + 1] if i + 1 < len(cut) else ""
        before = cut[i - 1] if i else ""
        if after.startswith(_WH_NOT_ASKING_AFTER) or before in _WH_NOT_ASKING_BEFORE:
            continue
        # a statement typed before it in the same breath ("想在7月考 N2 有什么备考 plan") is
        # told, whatever is asked after it: a time, an amount or a place leads it
        # "现在" / "now" says when the question is asked, not when something happens
        lead = _ASKED_NOW.sub("", "".join(cut[:i]))
        # the segmentation of the whole clause already says which words before it are places
        place = any(flag == "ns" for _, flag in tagged[:i])
        return not (TIME_RE.search(lead) or has_quantity(lead) or place)
    return False


_ASKED_NOW = re.compile(r"现在|目前|如今|\b(?:now|currently|these days)\b", re.I)


# a Chinese question word first, typed without a question mark ("为啥天是蓝的 晚霞又是红的"):
# about the world when the speaker is not in it
_WH_FIRST_ZH = re.compile(r"(?:为啥|为什么|为何|咋|怎么会|怎么就|凭什么|啥时候|什么时候|谁|如何)")


# A request to the agent inside a clause ("会议纪要模板也帮我改成钉钉能用的", "讲个笑话呗").
_REQUEST = re.compile(
    r"(?:也|再|顺便|顺手|能不能|可以)?(?:帮我|帮忙|麻烦你?|给我)(?:把|改|弄|做|写|查|订|找|发|设|整理|"
    r"看看|加|列|算|翻|推荐|规划|安排|准备|搜|想|挑|选|比较|对比|出|画|解释)|"
    # "讲个笑话呗", "哈哈 冷 再来个 programming 的"
    r"(?:^|[\s，,])(?:再|也|就)?(?:讲|说|来|聊|唱|写|编|推荐|列|找|查)"
    r"(?:个|一个|段|首|点|几个|几首|几本|几家|一些|些|一下)|"
    # asking to be told something now: "量子纠缠能不能用大白话解释一下"
    r"(?:能不能|能否|可不可以|可以|麻烦)[^，,。？?]{0,12}(?:解释|讲讲|讲一下|说说|说一下|介绍|总结|翻译)|"
    r"\b(?:can|could|would) you (?:also )?(?:please )?(?:change|make|add|set|find|book|check|"
    r"write|send|update|tell|give|show|recommend|plan)\b",
    re.I,
)


def one_off_request(text: str) -> bool:
    """Asks the agent to do something now; a standing or recurring one is an arrangement."""

    rest = _from_the_request_on(text)
    return rest is not None and not STANDING_RE.search(rest) and not recurs(rest)


def recurring_request(text: str) -> bool:
    """A request for something that recurs ("帮我设个提醒，每天早上8点"): an arrangement. What
    recurs before the request is the person's ("每天挤昌平线去西二旗上班 推荐几个播客")."""
    rest = _from_the_request_on(text)
    return bool(recurs(text if rest is None else rest))


def _from_the_request_on(text: str) -> str | None:
    clauses = split_clauses(text) or [text]
    asked = next((i for i, c in enumerate(clauses) if _REQUEST.search(c)), None)
    return None if asked is None else "".join(clauses[asked:])


@cache
def _outsider_rx() -> re.Pattern:
    zh = "|".join(re.escape(w) for w in words("outsiders_zh"))
    en = "|".join(re.escape(w) for w in words("outsiders_en"))
    # "用户 colleague Kelvin 超鍾意…": code-switching names the outsider in English too
    return re.compile(rf"^用户(?:的)?\s*(?:{zh}|{en})|^the user's (?:{en})s?\b", re.I)


def about_outsider(content: str) -> bool:
    """A memory about someone outside the user's household ("用户的同事小王超爱吃榴莲", "The
    user's coworker Dave is obsessed with pickleball"): not the user's, and not worth keeping
    as theirs. Family members' tastes are kept, as theirs (`owner`)."""
    return bool(_outsider_rx().match(content.strip()))


def momentary(text: str) -> bool:
    """About this moment only ("今天好热", "I had coffee this morning", "饿死了"): a now-word
    or a passing bodily state (hunger, sleepiness, boredom) without a habit, a standing
    instruction, a change or a plan."""

    if STANDING_RE.search(text) or _HABIT.search(text) or PLAN_RE.search(text):
        return False
    if word_class("body_readings").search(text) and re.search(r"\d", text):
        return False  # "今早称了78.5kg" was measured today and is the weight until the next
    if word_class("transient_states").search(text):
        return True  # "现在好饿" is hunger, not a change of anything
    if _ONE_TIME.search(text):
        return True  # "本次会议改到下午三点": a change of this one occasion, not of a habit
    # "今天师傅把联通的千兆装好了" happened today and lasts
    lasting = CHANGE_RE.search(text) or changes_a_state(text)
    return bool(_NOW.search(text) and not lasting)


def _without_acks(text: str) -> str:
    """What is left of a clause once acknowledgements, refusals and particles are removed."""
    text = word_class("acknowledgements").sub(" ", text)
    text = word_class("refusals").sub(" ", text)
    return re.sub(r"[\s啊呀吧的了哈啦嘛呢哦!！。.,，、~～?？]+", "", text)


_WOULD = re.compile(
    # "I'd never…" is how the speaker is, not an imagined situation
    r"\b(?:i|we)(?:'d| would)\s+(?!(?:like|love|prefer|rather|want|appreciate|say|need|never)\b)",
    re.I,
)


def doubts(text: str) -> bool:
    """Asks whether what the sentence says is true ("…都用飞书了，真的假的")."""
    return bool(_DOUBT.search(text))


def says_i(text: str) -> bool:
    """The speaker names themself ("我", "I", "my"); an implied subject does not count."""
    return bool(_FIRST_PERSON.search(text))


def defers(text: str) -> bool:
    """Puts a decision off ("再说吧", "也就想想", "not sure yet")."""
    return bool(word_class("deferrals").search(text))


def hypothetical(text: str) -> bool:
    """Counterfactual, imagined or joking ("如果我中了彩票", "if I were", "I'd quit and move to
    Bali", "开个玩笑…"): nothing in it is a fact about the speaker."""
    return bool(
        word_class("hypothetical").search(text)
        or _WOULD.search(text)
        or word_class("joking").search(text)
    )


# Praise or blame of the assistant's work says nothing about the person.
_ABOUT_THE_ASSISTANT = re.compile(
    r"^(?:你|您)(?:[\u4e00-\u9fff]{1,4}得|真|太|也太|好厉害|好棒|最棒)|"
    r"^(?:you(?:'re| are)|u r|ur|you)\s+(?:a |an |the |so |such a )?(?:lifesaver|genius|"
    r"amazing|awesome|the best|great|brilliant|legend|star|rock|rule|nailed it)",
    re.IGNORECASE,
)
# A clause that only names the moment ("周五了", "终于下班了", "it's friday finally").
_A_MOMENT = re.compile(
    r"^(?:终于|总算|又)?(?:(?:周|星期|礼拜)[一二三四五六日天]|周末|下班|放假|月底|年底)了"
    r"(?:\s*(?:finally|yay|lol))?$|"
    r"^(?:it'?s|its)\s+(?:finally\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|the weekend)(?:\s+(?:finally|yay|lol))?$",
    re.IGNORECASE,
)


def noise_reason(clause: str, *, question: bool) -> str:

    core = strip_noise_tokens(clause)
    if not core:
        return "emoji or laughter only"
    if ACK_RE.match(core) or not _without_acks(core):
        return "acknowledgement"  # "got it 谢了", "lol 不用不用", "ok thanks!!"
    if not _without_acks(word_class("stance_only").sub("", core)):
        return "exclamation"  # "哈哈哈受不了", "ugh love it"
    if word_class("joking").search(core):
        return "joke"
    if hypothetical(core):
        return "hypothetical"
    if word_class("mistaken_belief").search(core):
        return "a belief about the world"  # "一直以为是悉尼", "I thought it was Everest"
    if question:
        return "question"
    if REVISION_RE.match(core):
        return "revision of the current reply"  # "再口语化一点", "make it shorter"
    if _ABOUT_THE_ASSISTANT.match(core):
        return "remark about the assistant"  # "你总结得比我们组长强多了", "you're a lifesaver"
    if _A_MOMENT.match(core):
        return "about this moment only"  # "周五了 finally", "终于下班了"
    if momentary(core):
        return "about this moment only"  # "I had coffee this morning", "今天有点累"
    if TASK_ZH.match(core) or TASK_EN.match(core) or one_off_request(core):
        return "one-off request"
    return ""


def analyse(clause: str, *, answer: bool = False, as_statement: bool = False) -> Signals:
    """Signals of a clause; `as_statement` reads a request as what it arranges."""

    core = strip_noise_tokens(clause)
    question = is_question(clause) and not HEDGE_RE.search(clause)
    noise = "" if as_statement else noise_reason(clause, question=question)
    if noise:
        return Signals(noise=noise)
    speaker = bool(_FIRST_PERSON.search(core))
    named = _names_anything(core)
    if not named and not CJK.search(core) and speaker:
        # a brand typed in lowercase is a name all the same, in a statement of the speaker's
        named = kinds.names_a_brand(core)
    attribute = any(topics.concepts(core, words_of_one_char=False).values())
    if not named and attribute and CJK.search(core):
        # a name jieba does not know as one ("工资卡是建行的": a verb to it) is a name when the
        # encoder places it among a kind's members, in a statement on a topic of one answer
        named = bool(kinds.named_kinds(core))
    hedged = hedges_the_speaker(core)
    reported = bool(REPORTED_RE.search(core))
    stance = bool(PREF_POS.search(core) or PREF_NEG.search(core))
    if stance and not named and DEICTIC.search(main_clause(core)) and short_remark(core):
        return Signals(noise="remark about the current reply")  # "I love this", "这个挺好"
    return Signals(
        named=named,
        quantity=has_quantity(core),
        time=bool(
            TIME_RE.search(core)
            or DAY_RE.search(core)
            or TIME_OF_DAY_RE.search(core)
            or _YEAR.search(core)
        ),
        owned=bool(_OWNED.search(core)),
        verdict=bool(_VERDICT.search(core)),
        safety=bool(SAFETY_RE.search(core)),
        stance=stance,
        habit=bool(_HABIT.search(core)),
        directive=bool(STANDING_RE.search(core)),
        change=bool(CHANGE_RE.search(core) or FIRM_RE.search(core) or changes_a_state(core)),
        first_person=speaker or implicit_subject(core),
        possession=bool(_POSSESSION.search(core))
        or _implied_own(core)
        or (named and _opens_with_an_attribute(core)),
        attribute=attribute,
        answer=answer,
        hedged=hedged,
        reported=reported,
        made=made_change(core) and not (hedged or reported),
        bare_hedge=hedged and bare_hedge(core),
        weighs_up=hedged and weighs_up_what_came_before(core, _names_anything),
        # not a remark on what is in front of them ("我觉得这个方案不错")
        noun=not question
        and speaker
        and not DEICTIC.search(core)
        and not _INDEFINITE.search(core)
        and has_content_noun(core),
    )


# "什么都没心思", "nothing tastes right": a clause about anything at all tells a mood, not a fact
_INDEFINITE = re.compile(r"什么|啥|任何|\b(?:anything|nothing|everything|something)\b", re.I)


def _names_anything(text: str) -> bool:
    # a hedge word is no name, however it is written ("我 maybe 会转过去")
    return bool(named_things(HEDGE_RE.sub(" ", text)))


# what a clause that is only a hedge may hold besides it ("and I might,", "我也可能")
_HEDGE_FRAME = re.compile(
    r"\b(?:and|but|so|or|i|we|it|that|just|also|though|still)\b|[我也就还但而且所以吧呢啊]", re.I
)


def bare_hedge(clause: str) -> bool:
    """A clause that is nothing but a hedge ("…吧，maybe，…", "and I might,"): it doubts the
    sentence although it names nothing."""
    rest = strip_emoji_and_laughter(HEDGE_RE.sub(" ", clause))
    rest = leading_fillers().sub("", _HEDGE_FRAME.sub(" ", rest).strip())
    return not rest.strip(" ,，、。.!！?？~～…")


def has_content_noun(clause: str) -> bool:
    """Does the clause name what it is about (a noun that is not a deictic or generic word)?"""
    from memory.extraction.dialogue import head_nouns

    return bool(head_nouns(clause, common_only=True))


def elliptical(clause: str) -> bool:
    """A clause that leans on the context: a deictic without a name of its own ("那款白色的",
    "the blue one") or too short to name its topic ("海尔的", "United, always", "那就不报了")."""
    core = strip_noise_tokens(clause)
    if CJK.search(core):
        size = len(CJK.findall(core))
        if size <= 12 and word_class("deictic_zh").search(core) and not _own_name(core):
            return True  # "就要那款白色的吧"; "公司楼下那家乐刻，办的年卡…" says what it means
        return size <= 8 and not has_content_noun(core)
    short = len(core.split()) <= 8
    if short and _EN_DEICTIC.search(core) and not _own_name(core):
        return True
    return len(core.split()) <= 5 and not re.search(r"\b(?:I|I'm|my|we|our)\b", core)


_EN_DEICTIC = re.compile(
    r"\b(?:that one|this one|the one|the \w+ one|those|these|it)\b|^(?:that|this)\b", re.I
)


def _own_name(text: str) -> bool:
    """Names a thing itself (a brand, a model, a place) rather than pointing at one."""
    return any(len(n) >= 2 for n in named_things(text))


_JUDGEMENT = re.compile(
    r"(?:太|有点|有些|不够|不太)[\u4e00-\u9fff]{1,3}了?(?:吧|啊|呀)?$|不太行$|不行$|"
    r"\b(?:too|kinda|a bit|a little) \w+$|\bnot (?:great|ideal|good)$",
    re.I,
)


def judgement(clause: str) -> bool:
    """A short verdict on what the agent just proposed ("周四下午太晚了", "too pricey"): about
    the proposal, not a standing fact about the person."""
    core = strip_noise_tokens(clause)
    size = len(CJK.findall(core)) if CJK.search(core) else len(core.split())
    return size <= (10 if CJK.search(core) else 6) and bool(_JUDGEMENT.search(core))


def noise_only(sentence: str) -> bool:
    """Every clause of the sentence is noise ("不用 😂", "lol no thanks")."""

    clauses = [c for c in split_clauses(sentence) if c.strip()]
    return bool(clauses) and all(noise_reason(c, question=looks_like_question(c)) for c in clauses)


@cache
def _owner_rx() -> re.Pattern:
    zh = "|".join(sorted(words("kin_zh") + words("outsiders_zh"), key=len, reverse=True))
    en = "|".join(sorted(words("kin_en") + words("outsiders_en"), key=len, reverse=True))
    return re.compile(rf"^用户的(?P<zh>{zh})(?!的)|^the user's (?P<en>{en})\b", re.I)


def owner(content: str) -> str:
    """Whose statement a memory is when it is not the user's own ("用户的老婆超爱吃辣" → 老婆):
    a slot qualified by it never merges with, or replaces, the user's own."""
    m = _owner_rx().match(content.strip())
    return (m.group("zh") or m.group("en") or "").lower() if m else ""


def deictic(clause: str) -> bool:
    """Points at something instead of naming it ("那款白色的", "the black one", "that one")."""
    core = strip_noise_tokens(clause)
    if CJK.search(core):
        return bool(word_class("deictic_zh").search(core))
    return bool(_EN_DEICTIC.search(core))


_RECURS = re.compile(
    r"每天|每周|每个?月|每晚|每早|每次|工作日|周一到周五|"
    r"\b(?:every (?:day|morning|evening|night|week|month|weekday|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|daily|weekly|monthly|each (?:morning|week|day))\b",
    re.I,
)


def recurs(text: str) -> bool:
    """Something that happens again and again ("每天早上8点", "every Monday")."""
    return bool(_RECURS.search(text))
