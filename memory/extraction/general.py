"""The general detector: salient statements that no specific detector recognised.

Runs after the specific detectors (corrections, decisions, plans, preferences, … in rules/)
on every sentence of a user turn they left alone:

1. split into clauses; drop noise clauses (salience.noise_reason);
2. keep the sentence when its remaining clauses are salient (salience.Signals.salient), or
   when it answers the agent's question;
3. complete an elliptical statement from the dialogue state ("海尔的" → "用户的冰箱是海尔的",
   "那就不报了" → "关于摄影课，用户不报了", "United, always" → "The user's airline: United,
   always.");
4. normalise to one declarative sentence about the user (pronouns rewritten, fillers,
   laughter and emoji dropped, concrete values kept).

Category from the signals: stance → preference, time with a future / trip cue → plan, kin /
age / job → profile, otherwise fact. Hedged statements get a low confidence (observed, not
active), changes a firm one.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory.extraction import kinds, salience
from memory.extraction.dialogue import DialogueState
from memory.extraction.rules.hits import SAFETY_HEDGED_CONFIDENCE, Hit
from memory.extraction.rules.markers import FOR_LATER_RE, HEDGE_RE, only_takes_back
from memory.extraction.rules.rewrite import rewrite, third_person
from memory.extraction.slots.derive import derive_slot
from memory.language.text import CJK, join_clauses, split_clauses
from memory.language.tokens import pos_cut

_PLAN = re.compile(
    r"打算|计划|准备|想去|要去|下周|下个月|明年|今年|月底|月初|下旬|上旬|中旬|"
    r"\b(?:plan|planning|thinking|going to|gonna|heading|will|next|trip|visit|"
    r"in (?:early|mid|late)?\s*(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b",
    re.I,
)
_PROFILE = re.compile(
    r"岁|儿子|女儿|孩子|老婆|老公|妻子|丈夫|父母|爸|妈|宠物|猫|狗|工作|职业|住在|老家|"
    r"\b(?:years? old|son|daughter|kid|kids|wife|husband|partner|cat|dog|job|work as|live in|"
    r"allergic|allergy)\b",
    re.I,
)
_NEGATED = re.compile(r"不|别|没|算了|\b(?:no|not|don't|won't|skip|pass|nah)\b", re.I)
_SPEAKER_FIRST = re.compile(r"(?:我|咱|\b(?:I|I'm|I've|my|we|our)\b)", re.I)
_ZH_LEAD = re.compile(r"^(?:那就|那么|那|就要|就|要不|还是)")
_EN_LEAD = re.compile(r"^(?:then|ok(?:ay)?|so|well|yeah|yes|no|nah)\b[,\s]*", re.I)
_EN_VERB_ING = re.compile(r"^[a-z]+ing\b", re.I)
_EN_BARE_VERB = re.compile(
    r"^(?:shoot|drive|use|work|live|take|go|prefer|like|love|hate|need|want|have|own|run|"
    r"ride|play|eat|drink|wear|bike|walk|fly|stay|keep|get|book|pay)s?\b",
    re.I,
)


def clean(text: str) -> str:
    """Drop emoji, laughter and leading discourse fillers; keep every concrete word."""
    text = salience.strip_emoji_and_laughter(text)
    text = salience.leading_fillers().sub("", text.strip())
    text = re.sub(r"\s{2,}", " ", text)
    text = re.sub(r"(?<=[\u4e00-\u9fff])[吧啦呢哈呀哦嘛]+(?=[，,。.!！]|$)", "", text)
    return text.strip(" ，,。.!！~～…")


def _zh_sentence(body: str) -> str:
    """A Chinese statement as a sentence about the user."""

    body = rewrite(body, "zh")
    if body.startswith("用户"):
        return body
    pos = pos_cut(body)
    first = next((f for w, f in pos if w.strip()), "")
    if first.startswith("n") and not first.startswith("nr"):
        return "用户的" + body  # "门宽只有65公分" -> "用户的门宽只有65公分"
    return "用户" + body


def as_statement_of_the_user(body: str, *, zh: bool) -> str:
    """What a person said of themselves, as a sentence about the user ("我那台卡罗拉…" →
    "用户那台卡罗拉…")."""
    return _zh_sentence(body) if zh else _en_sentence(body)


def _en_sentence(body: str) -> str:

    body = rewrite(body, "en")
    if re.match(r"(?:the user|user)\b", body, re.I) or re.search(r"\bthe user\b", body, re.I):
        out = body  # "after the knee thing the user gave that up": the user is in it already
    elif re.match(r"been\s", body, re.I):
        out = "the user has " + body  # "been learning guitar lately"
    elif _EN_VERB_ING.match(body):
        out = "the user is " + body  # "thinking Iceland in late March"
    elif _EN_BARE_VERB.match(body):
        out = "the user " + third_person(body.split()[0]) + body[len(body.split()[0]) :]
    elif re.match(r"(?:the|our|my)\s", body, re.I):
        out = re.sub(r"^(?:the|our|my)\s", "the user's ", body, count=1, flags=re.I)
    else:
        first = body.split()[0] if body.split() else ""
        # "Lisbon the last week of May…" keeps its capital; "It's…" does not
        keep = first in salience.named_things(body) or first.isupper()
        out = "the user mentioned " + (body if keep else body[:1].lower() + body[1:])
    out = out[:1].upper() + out[1:]
    return out if out.endswith((".", "!", "?")) else out + "."


def complete(body: str, state: DialogueState, zh: bool) -> str | None:
    """An elliptical answer / continuation as a self-contained sentence, or None when the
    state names no topic."""
    topic = state.topic_for(body)
    choice = "" if _NEGATED.search(body) else state.referent(body)
    if choice:
        # "就要那款白色的吧" after the assistant listed two purifiers → the one it points at
        if zh:
            rest = _ZH_LEAD.sub("", body).strip("，, ")
            who = f"用户的{topic}" if topic and topic not in choice else "用户"
            return f"{who}选了{choice}（{rest}）"
        about = f" for the {topic}" if topic and topic.lower() not in choice.lower() else ""
        return f"The user chose {choice}{about} ({_EN_LEAD.sub('', body).strip(', ')})."
    if not topic:
        return None
    if zh:
        rest = _ZH_LEAD.sub("", body).strip("，, ")
        rest = re.sub(r"^我(?:们)?", "", rest)
        if not rest:
            return None
        pos = [(w, f) for w, f in pos_cut(rest) if w.strip()]
        verbal = any(f.startswith(("v", "d", "a")) for _, f in pos[:3])
        if verbal:
            return f"关于{topic}，用户{rest}"
        return f"用户的{topic}是{rest}" if rest.endswith("的") else f"用户的{topic}：{rest}"
    rest = _EN_LEAD.sub("", body).strip(", ")
    if not rest:
        return None
    if re.match(r"(?:i|we)\b", rest, re.I):
        sentence = rewrite(rest, "en")
        return f"About the {topic}: {sentence}".rstrip(".") + "."
    return f"The user's {topic}: {rest}".rstrip(".") + "."


def _category(sig: salience.Signals, text: str) -> str:
    if sig.stance:
        return "preference"
    if sig.directive and sig.first_person is False:
        return "preference"
    if _PROFILE.search(text):
        return "profile"
    if sig.time and _PLAN.search(text):
        return "plan"
    return "fact"


_WONDERING = re.compile(
    r"好奇|(?:没|不)(?:搞|弄|想)?(?:明白|懂|通)|纳闷|想知道|"
    r"\b(?:wondered|wondering|curious|never understood|no idea why)\b",
    re.I,
)


def detect(sentence: str, state: DialogueState, *, answer: bool, asked: bool = False):
    """A Hit (rules/hits.py) for a salient sentence, or None. `asked`: the agent asked for this
    information (its question was about the person's wishes), so any non-noise answer counts."""

    clauses = [c for c in split_clauses(sentence) if c.strip()]
    if clauses and all(HEDGE_RE.search(c) and salience.bare_hedge(c) for c in clauses):
        return None  # "Nothing's decided.", "再看吧": a doubt about what was said, no statement
    question = salience.is_question(sentence) and not HEDGE_RE.search(sentence)
    doubted = salience.doubts(sentence)
    # a request that recurs ("帮我设个每天早上8点的提醒，点一杯美式") is a standing arrangement
    recurring = salience.recurring_request(sentence)
    if salience.momentary(sentence) and not salience.named_things(sentence):
        # "今天好热啊，才三月份": about this moment, not about the person. With a name in it
        # ("今天 onboard Shopee, 新 team 做 ads ranking") each clause is judged on its own.
        return None
    kept: list[str] = []
    signals: list[salience.Signals] = []
    after_request = False
    previous_kept = False  # the clause before this one was kept
    corrected = False  # "我说错了，…": what follows replaces what was said
    for clause in clauses:
        kept_before, previous_kept = previous_kept, False
        if only_takes_back(clause):
            corrected = True
            continue
        sig = salience.analyse(clause, answer=answer)
        if sig.noise == "one-off request" and recurring:
            sig = replace(
                salience.analyse(clause, answer=answer, as_statement=True), directive=True
            )
        elif sig.noise == "one-off request":
            after_request = True  # its arguments follow ("订酒店，入住人写我，手机号…")
            continue
        if sig.noise or salience.judgement(clause):
            continue
        if after_request and not (
            sig.stance
            # "每天早上都喝美式" is the user's, "以后都订亚朵" an instruction; "component 一直
            # infinite re-render" describes the thing worked on
            or ((sig.directive or sig.habit) and (sig.first_person or FOR_LATER_RE.search(clause)))
            or sig.safety
            or _SPEAKER_FIRST.match(clause.strip())
            # a thing one has one of at a time, named as the request's context, is the
            # speaker's ("帮我算下油费 开的卡罗拉双擎"); a hotel or a dish is a choice for it
            or _names_own_thing(clause)
        ):
            continue  # "座位写我" is an argument of the request; "我吃素的" is about the user
        after_request = False
        stated = sig.content >= 2 and not salience.is_question(clause)
        # a name right after a clause about the user says what it was ("我家就一辆车，比亚迪海豹")
        apposition = sig.named and kept_before and signals[-1].personal
        if question and not (
            (
                (salience.says_i(clause) if doubted else sig.first_person or stated)
                # "为什么猫喜欢纸箱 一直挺好奇的": wondering about the question is no fact
                and not _WONDERING.search(clause)
            )
            or sig.possession
            or apposition
        ):
            # "Tabs or spaces, what do most people use?"; a sentence the user doubts ("听同事讲
            # 都用 Arc 了，真的假的") holds no fact about them unless they name themselves. A
            # clause stating names and dates stays ("Lisbon the last week of May, any tips?")
            continue
        kept.append(clause.strip())
        signals.append(sig)
        previous_kept = True
    read = list(signals)
    if any(s.content for s in signals):
        # "量了一下，门宽只有65公分": clauses without content around one with content are filler;
        # a clause that is nothing but a hedge still doubts the sentence ("…吧，maybe，…")
        read = [
            s
            for c, s in zip(kept, signals, strict=True)
            if s.content or s.personal or (s.hedged and salience.bare_hedge(c))
        ]
        pairs = [(c, s) for c, s in zip(kept, signals, strict=True) if s.content or s.personal]
        kept, signals = [c for c, _ in pairs], [s for _, s in pairs]
    if not kept:
        return None
    zh = bool(CJK.search(sentence))
    body = clean(join_clauses(kept, zh))
    if len(body) < (2 if zh else 3):
        return None
    merged = salience.Signals.merge(read, answer=answer)
    if corrected:
        merged = replace(merged, change=True)
    ellipsis = salience.elliptical(body)
    if ellipsis and state.reply_is_a_draft and salience.deictic(body):
        return None  # "就这个 👍" after a translation it asked for: the text is done, no fact
    if ellipsis and not _NEGATED.search(body) and state.referent(body):
        # a choice among the options the assistant just offered ("the black one")
        merged = replace(merged, verdict=True)
    # an elliptical reply is worth completing when the agent asked about the person or the
    # reply carries something concrete ("海尔的", "那就不报了"); "ok another" after a joke is not
    if not merged.salient and not (answer and asked and len(body) >= 2):
        return None
    if merged.salient and answer and not asked and not merged.content and ellipsis:
        return None
    content = None
    completed = False
    if ellipsis and (answer or not merged.first_person or zh):
        content = complete(body, state, zh)
        completed = content is not None
        if content is None and not merged.salient:
            return None
    if content is None:
        content = _zh_sentence(body) if zh else _en_sentence(body)
    content = content.rstrip("。") if zh else content
    category = _category(merged, body)
    slot, values, entities = derive_slot(body, category, [])
    if not entities:
        entities = [n for n in salience.named_things(body) if len(n) >= 2][:5]
    confidence = 0.75
    if merged.change:
        confidence = 0.9
    if completed:
        # the topic came from the context, not from the words: never firm enough to replace
        confidence = 0.7 if merged.named or merged.quantity else 0.65
        if state.weighing:
            merged = replace(merged, hedged=True)
    if merged.hedged:
        confidence = SAFETY_HEDGED_CONFIDENCE if merged.safety else 0.45
    return Hit(
        category=category,
        kind="procedural" if merged.directive and category == "preference" else "semantic",
        content_body=content,
        quote=sentence.strip(),
        confidence=confidence,
        importance=0.55,
        slot=slot,
        values=values,
        entities=entities,
        hedged=merged.hedged,
        firm=merged.change,
        general=True,
    )


def completed(hit, sentence: str, state: DialogueState):
    """A specific detector's hit on an elliptical sentence ("Delta, always" after "Which
    airline?"), with the topic the conversation supplies; the hit unchanged otherwise."""
    body = clean(sentence)
    if not salience.elliptical(body):
        return hit
    content = complete(body, state, bool(CJK.search(body)))
    if content is None:
        return hit
    return replace(hit, content_body=content, general=True)


def sentence(body: str, lang: str) -> str:
    """A statement (pronouns already rewritten) as one declarative sentence about the user."""
    body = clean(body)
    if lang == "zh" or CJK.search(body[:4]):
        return _zh_sentence(body).rstrip("。")
    return _en_sentence(body)


def _names_own_thing(clause: str) -> bool:
    return bool(kinds.ONE_AT_A_TIME_KINDS & kinds.kinds_named_as_names(clause))
