"""Pure core of the write decision service: what to do with one extracted candidate.

The DB layer loads the subject's existing semantic/procedural memories whose status is
active / observed / needs_review (and the nearest active episodes), computes cosine similarities
between the candidate and them, and calls `decide`. Nothing here touches the database.

Algorithm of `decide(candidate, occurred_at, existing, similarity)`:

1. Episodic candidates are never merged: confidence < LOW_CONFIDENCE ->
   "observe_low_confidence"; an event that leaves the person in a new state (bought, moved,
   joined, quit: `markers.changes_a_state`) supersedes the memory the replacement model finds it
   answers anew; else "create". Episodic memories are weighed only by that model, and only
   those that say how things stand (`holds_a_state`).
2. Relate the candidate to every existing memory:
   a. Slot relation (when both have a slot and the slots are compatible — equal, or one is the
      unqualified form of the other, "meeting" ~ "meeting:产品部"): compare `values`:
      - values are grouped by type (weekday, clock time, calendar date "MM-DD", amount, style
        group, negated "!x", name). Some shared type with disjoint values -> CONFLICT; an item
        stated positively in one and negated ("!x") in the other -> CONFLICT. In list-like
        slots (allergy, food, tools... MULTI_VALUE_SLOTS) disjoint names are unrelated, not a
        conflict.
      - otherwise overlapping values, or both without values -> SAME.
   b. Otherwise (no usable slot relation) by similarity: compatible categories, overlapping
      entities (or none on either side) and cosine >= DEDUPE_SIMILARITY -> SAME; same category,
      overlapping entities, cosine >= CONFLICT_SIMILARITY and contradicting value atoms
      (numbers, weekdays, times found in the contents) -> CONFLICT.
3. SAME with an active memory -> "merge" into the most similar one. `update_content` is set
   when the candidate is newer, at least as confident and brings values/entities the memory
   lacks (the service then refreshes content/category/values from the candidate).
4. CONFLICT with an active memory: the candidate is newer (occurred_at later) and firmer
   (confidence >= old + SUPERSEDE_MARGIN), or it is itself a firm statement (confidence >=
   FIRM_CONFIDENCE: an explicit update / change / correction) at least as confident as the old
   one -> "supersede" the old one (other conflicting active memories that it also beats are
   listed in `also_supersede`). A later conversation that gives the slot another value, unhedged
   and at least as confident as the old one, supersedes it too: the question was answered anew
   ("yoga's mon and wed evenings this term" after "yoga tues and thurs"). Otherwise ->
   "observe_conflict". So a hedged statement never replaces anything, a plain remark replaces a
   firm one only in a later conversation, and of two explicit statements of a change the newer
   wins.
5. SAME with a non-active (observed / needs_review) memory and a low-confidence candidate ->
   "merge" (repeating a tentative remark does not create another one).
6. Confidence < LOW_CONFIDENCE -> "observe_low_confidence".
7. Otherwise -> "create".
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from memory.extraction import kinds, replacement, topics
from memory.extraction.base import Candidate
from memory.extraction.lexicon import MULTI_VALUE_SLOTS, STYLE_ATOMS
from memory.extraction.rules.corrections import (
    corrected_statement,
    gives_another_value,
    wrong_values,
)
from memory.extraction.rules.markers import (
    CHANGE_RE,
    FIRM_RE,
    HEDGE_RE,
    SELF_CORRECTION_RE,
    changes_a_state,
)
from memory.extraction.words import word_class
from memory.language.dates import WEEKDAY_VALUE
from memory.language.text import CJK, split_clauses

DEDUPE_SIMILARITY = 0.85
CONFLICT_SIMILARITY = 0.75
SUPERSEDE_MARGIN = 0.15
FIRM_CONFIDENCE = 0.9
LOW_CONFIDENCE = 0.6
REPLACEMENT_CANDIDATES = 5  # earlier memories the replacement model scores per candidate
EPS = 1e-6

ACTIVE = "active"
CREATE = "create"
MERGE = "merge"
SUPERSEDE = "supersede"
OBSERVE_CONFLICT = "observe_conflict"
OBSERVE_LOW_CONFIDENCE = "observe_low_confidence"
ACTIONS = (CREATE, MERGE, SUPERSEDE, OBSERVE_CONFLICT, OBSERVE_LOW_CONFIDENCE)

# Categories that may describe the same piece of knowledge (similarity-based dedupe only;
# slot-based relations ignore categories because the slot defines the question).
COMPATIBLE = {
    "preference": {"preference", "decision", "correction", "fact"},
    "plan": {"plan", "decision", "correction"},
    "decision": {"decision", "preference", "plan", "fact", "correction"},
    "fact": {"fact", "profile", "decision", "correction", "preference"},
    "profile": {"profile", "fact", "correction"},
    "correction": {"preference", "plan", "decision", "fact", "profile", "correction"},
}


@dataclass
class ExistingMemory:
    id: int
    category: str
    kind: str
    content: str
    entities: list[str] = field(default_factory=list)
    slot: str = ""
    values: list[str] = field(default_factory=list)
    confidence: float = 0.8
    occurred_at: dt.datetime | None = None
    status: str = ACTIVE


@dataclass
class Decision:
    action: str
    target_id: int | None = None
    reason: str = ""
    update_content: bool = False
    also_supersede: list[int] = field(default_factory=list)
    # the content the new version is written with, when not the candidate's own: the
    # statement the user took back, with the value put right (`corrected_statement`)
    content: str = ""
    # what the superseded memory says besides the answer the change replaces, kept as a
    # memory of its own (`kept_apart`): "住广州天河" outlives "WiFi 是电信 300M 的"
    keeps: str = ""


_TIME = re.compile(r"^\d{1,2}:\d{2}$")
_DATE = re.compile(r"^\d{2}-\d{2}$")  # a calendar date "MM-DD" (memory.language.dates.date_values)
_PERIOD = {"上午", "下午", "中午", "晚上"}
_NUM = re.compile(r"^\d+(?:\.\d+)?$")


def value_type(v: str) -> str:
    if v.startswith("!"):
        return "neg"
    if WEEKDAY_VALUE.match(v):
        return "day"
    if _TIME.match(v) or v in _PERIOD:
        return "time"
    if _DATE.match(v):
        return "date"
    if _NUM.match(v):
        return "amount"
    if v in STYLE_ATOMS:
        return "style:" + STYLE_ATOMS[v][0]
    return "name"


def _norm(v: str) -> str:
    return v.strip().lower()


def slots_compatible(a: str, b: str) -> bool:
    if not a or not b:
        return False
    if a == b:
        return True
    ab, _, aq = a.partition(":")
    bb, _, bq = b.partition(":")
    if ab == bb == "thing" and aq and bq:
        return _same_thing(aq, bq)
    return ab == bb and (not aq or not bq)


def _same_thing(a: str, b: str) -> bool:
    """Generic thing slots name one thing when one noun phrase contains the other: "保洁" ~
    "保洁阿姨", "phone plan" ~ "plan" (whole words in Latin text); never one character."""
    short, long_ = sorted((a, b), key=len)
    if short.isascii():
        sw, lw = short.split(), long_.split()
        return bool(sw) and any(lw[i : i + len(sw)] == sw for i in range(len(lw)))
    return len(short) >= 2 and short in long_


def _multi(slot: str) -> bool:
    base = slot.split(":")[0]
    return slot in MULTI_VALUE_SLOTS or base in MULTI_VALUE_SLOTS


def compare_values(slot: str, new: list[str], old: list[str]) -> str | None:
    """ "same", "conflict" or None (unrelated) for two value lists of one slot."""
    a = {_norm(v) for v in new}
    b = {_norm(v) for v in old}
    if not a and not b:
        return "same"
    pos_a = {v for v in a if not v.startswith("!")}
    pos_b = {v for v in b if not v.startswith("!")}
    neg_a = {v[1:] for v in a if v.startswith("!")}
    neg_b = {v[1:] for v in b if v.startswith("!")}
    if pos_a & neg_b or pos_b & neg_a:
        return "conflict"
    if a & b:
        # overlap, but a differing weekday/time/amount still contradicts ("周二 10:00" vs "周二
        # 15:00"); names may legitimately be listed alongside each other.
        for t in ("day", "time", "date", "amount"):
            ta = {v for v in pos_a if value_type(v) == t}
            tb = {v for v in pos_b if value_type(v) == t}
            if ta and tb and not ta & tb:
                return "conflict"
        return "same"
    if not a or not b:
        return None
    types_a: dict[str, set[str]] = {}
    types_b: dict[str, set[str]] = {}
    for v in pos_a:
        types_a.setdefault(value_type(v), set()).add(v)
    for v in pos_b:
        types_b.setdefault(value_type(v), set()).add(v)
    shared = set(types_a) & set(types_b)
    if not shared:
        return None
    if _multi(slot):
        shared.discard("name")
    for t in shared:
        if not types_a[t] & types_b[t]:
            return "conflict"
    return None


_ATOM = re.compile(r"周[一二三四五六日]|\d{1,2}:\d{2}|\d+(?:\.\d+)?|[A-Za-z][A-Za-z0-9+#.-]+")


def _atoms(text: str) -> set[str]:
    return {a.lower() for a in _ATOM.findall(text or "")}


_VALUE_ATOM = re.compile(
    r"(?P<day>周[一二三四五六日])|(?P<time>\d{1,2}:\d{2})|(?P<num>\d+(?:\.\d+)?)|"
    r"(?P<name>[A-Za-z][A-Za-z0-9+#&.'-]*[A-Za-z0-9+#])"
)
_PREFIX_WORDS = {
    "the",
    "about",
    "correction",
    "user",
    "user's",
    "i",
    "a",
    "an",
    "from",
    "decided",
    "plan",
    "preference",
    "standing",
    "instruction",
    "answer",
    "to",
    "on",
    "it",
    "it's",
}
RESIDUAL_SIMILARITY = 0.75


def _value_atoms(text: str) -> tuple[dict[str, set[str]], str]:
    """Typed value atoms of a statement (weekday, clock time, number, brand-like name) and the
    statement with them removed. Names are Latin tokens that look like names: capitalised or
    mixed with digits in English text, any Latin token in Chinese text."""
    zh = bool(re.search(r"[\u4e00-\u9fff]", text))
    atoms: dict[str, set[str]] = {}
    residual = text
    for m in _VALUE_ATOM.finditer(text or ""):
        kind = m.lastgroup or ""
        tok = m.group(0)
        if kind == "name":
            if tok.lower() in _PREFIX_WORDS:
                continue
            if not zh and not (tok[0].isupper() or re.search(r"\d", tok)):
                continue
        atoms.setdefault(kind, set()).add(tok.lower())
        residual = residual.replace(tok, " ")
    return atoms, residual


def _residual_tokens(text: str) -> set[str]:
    text = text.lower()
    if re.search(r"[\u4e00-\u9fff]", text):
        chars = re.sub(r"[^\u4e00-\u9fff]", "", text)
        return {chars[i : i + 2] for i in range(len(chars) - 1)}
    return set(re.findall(r"[a-z']+", text))


def _contradicting_atoms(new: str, old: str) -> bool:
    """Same statement with a different value: a shared atom type with disjoint values, nothing
    else changed beyond the values (residual token Jaccard >= RESIDUAL_SIMILARITY)."""
    a_atoms, a_rest = _value_atoms(new)
    b_atoms, b_rest = _value_atoms(old)
    shared = set(a_atoms) & set(b_atoms)
    if not shared or any(a_atoms[t] & b_atoms[t] for t in shared):
        return False
    ra, rb = _residual_tokens(a_rest), _residual_tokens(b_rest)
    if not ra or not rb:
        return False
    return len(ra & rb) / len(ra | rb) >= RESIDUAL_SIMILARITY


def _overlap(a: list[str], b: list[str]) -> bool:
    if not a or not b:
        return True
    return bool({x.lower() for x in a} & {x.lower() for x in b})


def relate(candidate: Candidate, mem: ExistingMemory, sim: float) -> str | None:
    """ "same", "conflict" or None between a candidate and an existing memory."""
    if candidate.slot and mem.slot and slots_compatible(candidate.slot, mem.slot):
        rel = compare_values(candidate.slot, candidate.values, mem.values)
        if rel is not None:
            return rel
    if not _overlap(candidate.entities, mem.entities):
        return None
    if sim >= DEDUPE_SIMILARITY and mem.category in COMPATIBLE.get(candidate.category, ()):
        if candidate.slot and mem.slot and not slots_compatible(candidate.slot, mem.slot):
            return None
        new_atoms, old_atoms = _atoms(candidate.content), _atoms(mem.content)
        if (
            new_atoms
            and old_atoms
            and not (new_atoms & old_atoms)
            and candidate.category == mem.category
            and candidate.entities
            and mem.entities
        ):
            return "conflict"
        return "same"
    if (
        sim >= CONFLICT_SIMILARITY
        and candidate.category == mem.category
        and candidate.entities
        and mem.entities
        and not (candidate.slot and mem.slot)
    ):
        new_atoms = {a for a in _atoms(candidate.content) if re.match(r"[\d周]", a)}
        old_atoms = {a for a in _atoms(mem.content) if re.match(r"[\d周]", a)}
        if new_atoms and old_atoms and not new_atoms & old_atoms:
            return "conflict"
    if (
        sim >= CONFLICT_SIMILARITY
        and not (candidate.slot and mem.slot)
        and mem.category in COMPATIBLE.get(candidate.category, ())
        and _contradicting_atoms(candidate.content, mem.content)
    ):
        # no slot on one side: the same sentence about the same thing with another name /
        # number / day / time ("…停在 B2 层" vs "…停在 B3 层")
        return "conflict"
    return None


def _only_the_slot_in_common(candidate: Candidate, mem: ExistingMemory, sim: float) -> bool:
    return (
        bool(candidate.slot and mem.slot)
        and not (candidate.values or mem.values)
        and sim < CONFLICT_SIMILARITY
    )


def _states_a_change_firmly(text: str) -> bool:
    """A clause without a hedge of its own says something changed: "医生说脚踝肿可能是药的副作用，
    把药改成缬沙坦了" is hedged about the cause, not about the change."""
    return any(
        CHANGE_RE.search(clause) and not HEDGE_RE.search(clause)
        for clause in split_clauses(text) or [text]
    )


def _newer(a: dt.datetime | None, b: dt.datetime | None) -> bool:
    if a is None or b is None:
        return a is not None or b is None
    if (a.tzinfo is None) != (b.tzinfo is None):
        a, b = a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a > b


def _firmer(new: float, old: float) -> bool:
    if new + EPS >= old + SUPERSEDE_MARGIN:
        return True
    return new + EPS >= FIRM_CONFIDENCE and new + EPS >= old


def _answers_anew(
    candidate: Candidate, mem: ExistingMemory, occurred_at: dt.datetime | None, hedged: bool
) -> bool:
    """A later conversation gives another value to the question the memory answers, as firmly
    as it was answered ("yoga's mon and wed evenings this term" after "yoga tues and thurs"):
    the answer changed. Within one conversation two values are a slip or a list, and the rules
    for corrections read them."""
    return (
        not hedged
        and candidate.confidence + EPS >= mem.confidence
        and replacement.later_conversation(occurred_at, mem.occurred_at)
        and bool(candidate.slot and mem.slot and slots_compatible(candidate.slot, mem.slot))
        and compare_values(candidate.slot, candidate.values, mem.values) == "conflict"
    )


def _adds_information(candidate: Candidate, mem: ExistingMemory) -> bool:
    new_vals = {_norm(v) for v in candidate.values} - {_norm(v) for v in mem.values}
    new_ents = {e.lower() for e in candidate.entities} - {e.lower() for e in mem.entities}
    new_atoms = {a for a in _atoms(candidate.content) if a[0].isdigit()} - _atoms(mem.content)
    return bool(new_vals or new_ents or new_atoms)


def _values_lost(candidate: Candidate, mem: ExistingMemory) -> list[str]:
    """Concrete values (names, models, weekdays, times) of the old memory the candidate's
    wording drops."""
    said = topics.concrete_values(f"{candidate.content} {candidate.source_quote}")
    return sorted(topics.concrete_values(mem.content) - said)


def _hinted(
    candidate: Candidate,
    existing: list[ExistingMemory],
    occurred_at: dt.datetime | None,
    low: bool,
) -> Decision | None:
    """The extractor saw the subject's memories and named the one this candidate updates or
    repeats (the LLM's update phase). Its word stands where the memory is still active; the
    rules below still apply: a hedged update is observed, an older statement replaces nothing.
    """
    if candidate.hint not in ("update", "duplicate") or candidate.target_id is None:
        return None
    target = next((m for m in existing if m.id == candidate.target_id and m.status == ACTIVE), None)
    if target is None or target.kind == "episodic":
        return None  # gone or changed meanwhile: decide as for any candidate
    if candidate.hint == "duplicate":
        return Decision(MERGE, target.id, f"the extractor found #{target.id} says this already")
    if low or not _newer(occurred_at, target.occurred_at):
        return Decision(
            OBSERVE_CONFLICT,
            target.id,
            f"the extractor says this updates #{target.id}, but it is "
            f"{'hedged' if low else 'not newer'}",
        )
    return Decision(SUPERSEDE, target.id, f"the extractor says this updates #{target.id}")


# Something that has gone on for a while and still does: Chinese "V了 + a duration + 了"
# ("在杭州住了快五年了", "用了三年了"), English "for N years" / "N years now".
_ONGOING = re.compile(
    r"了(?:快|差不多|将近|有|都)?[一二两三四五六七八九十几半\d]+多?(?:年|个月|月|周|星期|天)多?了|"
    r"\bfor (?:\d+|a few|a couple of|several|many|two|three|four|five|six|ten) (?:years|months)\b|"
    r"\b(?:\d+|two|three|four|five|six|ten) (?:years|months) now\b",
    re.I,
)


def holds_a_state(mem: ExistingMemory) -> bool:
    """A memory a later statement may answer anew: any but an episode, and an episode that
    changed a state, says how things stand now ("确诊三年了，现在每天吃二甲双胍500mg") or has
    gone on until now ("在杭州住了快五年了")."""
    if mem.kind != "episodic":
        return True
    return (
        changes_a_state(mem.content)
        or bool(word_class("current_state").search(mem.content))
        or bool(_ONGOING.search(mem.content))
    )


def is_change(candidate: Candidate) -> bool:
    """A statement that something is different now: an explicit change word, or a firm
    statement (an update written through the API at >= FIRM_CONFIDENCE)."""
    return candidate.confidence + EPS >= FIRM_CONFIDENCE or bool(
        CHANGE_RE.search(candidate.content)
    )


def _topic_conflict(
    candidate: Candidate, existing: list[ExistingMemory], similarity: dict[int, float]
) -> tuple[float, ExistingMemory] | None:
    """The active memory a change statement replaces although no slot or wording links them:
    the one most on the same topic (embedding similarity plus shared topic concept / noun,
    memory/extraction/topics.py). A change on one topic replaces one memory, never several."""
    if candidate.kind == "episodic" or not is_change(candidate):
        return None
    # Without a change or update word a firm statement replaces only a value a person has one
    # of at a time (employer, home city, phone…): "works at Stripe" after "works at Shopify",
    # but not "a new sushi place" after "likes quiet restaurants". The user's own words count
    # too: the rewritten content no longer says "my".
    said = f"{candidate.content}\n{candidate.source_quote}"
    changed = bool(CHANGE_RE.search(said))  # a firm decision ("就按这个来") is no change of topic
    worded_as_change = changed or bool(FIRM_RE.search(said))
    text = candidate.content
    if not topics.concepts(text) and not topics.common_nouns(text):
        # worded without its topic ("换途虎了"): what the conversation was about stands in
        text = " ".join([text, *candidate.context_topics])
    best = _most_on_topic(text, existing, similarity, worded_as_change)
    if best is None and changed and candidate.context_topics and text == candidate.content:
        # a change worded with other nouns than its topic ("换途虎了，小区门口就有个工场店"
        # after talk of 保养): the conversation's topic says what is replaced
        context = " ".join(candidate.context_topics)
        best = _most_on_topic(text, existing, similarity, worded_as_change, context)
    if best is None and changed:
        best = _value_swapped(candidate, existing, similarity)
    return best


def _corrects_itself(candidate: Candidate) -> bool:
    """The user said what they said before was wrong ("我记错了", "my mistake")."""
    return candidate.takes_back or bool(
        SELF_CORRECTION_RE.search(f"{candidate.source_quote}\n{candidate.content}")
    )


# "Actually it's 12 miles each way": said of an amount given earlier in the conversation, the
# new figure is the more exact one, with no slip named
_MORE_EXACTLY = re.compile(
    r"\bactually\b|\bto be (?:exact|precise)\b|\bmore like\b|"
    r"其实|确切(?:地)?说|准确(?:地)?说|严格说",
    re.IGNORECASE,
)


def _taken_back(
    candidate: Candidate,
    occurred_at: dt.datetime | None,
    existing: list[ExistingMemory],
    similarity: dict[int, float],
) -> ExistingMemory | None:
    """The statement of this conversation the user takes back: the one holding the value they
    say was wrong ("it's 8:40 not 6:40", "是周四，不是周三"); after a slip named without the
    value ("我记岔了", "sorry, wrong date", in any clause of the turn), the closest one giving
    another value of the same shape (a weekday, a time, a date, an amount) or answering the
    same slot; after "actually", the closest one giving another amount in the same unit."""
    said = f"{candidate.source_quote}\n{candidate.content}"
    wrong = wrong_values(said)
    slip = _corrects_itself(candidate)
    more_exact = bool(_MORE_EXACTLY.search(said))
    if not wrong and not slip and not more_exact:
        return None
    recent = [
        m
        for m in existing
        if m.status == ACTIVE
        and m.kind != "episodic"
        and not replacement.later_conversation(occurred_at, m.occurred_at)
        and not _newer(m.occurred_at, occurred_at)
    ]
    if wrong:
        pool = [m for m in recent if any(v.lower() in m.content.lower() for v in wrong)]
    elif slip:
        pool = [
            m
            for m in recent
            if gives_another_value(candidate.content, m.content)
            or (candidate.slot and m.slot == candidate.slot and candidate.values != m.values)
        ]
    else:
        pool = [m for m in recent if topics.amounts_differ(candidate.content, m.content)]
    # a figure in the same unit ("21楼" for "12楼") before a figure of any kind
    return max(
        pool,
        key=lambda m: (
            topics.amounts_differ(candidate.content, m.content),
            similarity.get(m.id, 0.0),
        ),
        default=None,
    )


def _correction(
    candidate: Candidate,
    occurred_at: dt.datetime | None,
    existing: list[ExistingMemory],
    similarity: dict[int, float],
) -> Decision | None:
    """Supersede the statement the user takes back (`_taken_back`) with what they meant to
    say: the statement taken back with its value corrected, when the correction gives one value
    of a shape it held ("是21楼", "the 18th") — the rest of what was said stays said; otherwise
    the correcting statement itself."""
    taken_back = _taken_back(candidate, occurred_at, existing, similarity)
    if taken_back is None:
        return None
    return Decision(
        SUPERSEDE,
        taken_back.id,
        f"corrects #{taken_back.id}: the user took it back",
        content=corrected_statement(candidate.content, taken_back.content) or "",
    )


# what one says next to what one said ("还有我俩都不吃香菜", "oh and also…"); not what is left
# ("还有两天就放假")
_ADDS_ON = re.compile(
    r"^\W*(?:(?:对了|哦|噢)[，,\s]*)?(?:还有(?![\d一二两三四五六七八九十几半多点些]|没有)|另外|而且|再就是|再有就是)"
    r"|^\W*(?:(?:oh|and|ah)[ ,]+)*(?:also|plus|on top of that|besides)\b",
    re.IGNORECASE,
)


def _adds_to_something(text: str, quote: str = "") -> bool:
    """ "also likes Apple Music", "另外还有一台": the statement adds to what was said. Only its
    first clause tells: "医生把二甲双胍加到了850，另外让我每天走路" changes the dose and then
    adds another instruction; so do the words the person opened with ("还有我俩都不吃香菜"),
    unless they go on to say what changed."""
    first = next(iter(split_clauses(text)), text)
    opens_with_more = bool(_ADDS_ON.search(quote)) and not CHANGE_RE.search(quote)
    return bool(word_class("additive").search(first)) or opens_with_more


# a memory that tells the agent what to do or not to do, as rewritten for storage ("以后推荐餐厅
# 别给用户推川湘菜", "never book the user red-eye flights")
_INSTRUCTS_THE_AGENT = re.compile(
    r"(?:别|不要|千万别|请|记得)(?:再)?(?:给用户|帮用户|给我|帮我|推荐|推|约|订|安排|发|用|加|写)|"
    r"\b(?:don't|do not|never|always|please)\s+(?:suggest|book|recommend|use|send|schedule|reply"
    r"|write|give|put|add|order|remind)\b",
    re.IGNORECASE,
)


# one of the things on offer picked ("开水白菜好 就它了", "let's go with the blue one")
_ONE_CHOSEN = re.compile(
    r"就(?:它|这个|那个|这家|这款|这道)|(?:选|挑|点)了(?:这|那)|"
    r"\b(?:go with|pick|take|choose|get) (?:the|that|this)\b|\bthe one (?:on|with|at|in)\b",
    re.IGNORECASE,
)


# "用 Bear 记笔记", "uses Todoist for tasks": a tool named for the job it does
_TOOL_FOR_A_JOB = re.compile(
    r"用\s*[A-Za-z0-9\u4e00-\u9fff][^，,。；;]{0,20}?(?:来|去)?(?:记|管|做|写|存|听|看|跑|剪|画|练|学|背|查)|"
    r"\b(?:use[sd]?|using)\s+\S+(?:\s+\S+)?\s+(?:for|to)\b",
    re.IGNORECASE,
)


def _tools_for_other_jobs(candidate: Candidate, mem: ExistingMemory) -> bool:
    """Both say what the user uses for a job, and the jobs differ ("我用 Todoist 管待办" beside
    "我用 Bear 记笔记"): one does not answer the other anew, however alike the wording."""
    a, b = candidate.slot, mem.slot
    return bool(
        a
        and b
        and a.startswith("thing:")
        and b.startswith("thing:")
        and not slots_compatible(a, b)
        and _TOOL_FOR_A_JOB.search(candidate.content)
        and _TOOL_FOR_A_JOB.search(mem.content)
    )


def _replaced_memory(
    candidate: Candidate,
    occurred_at: dt.datetime | None,
    existing: list[ExistingMemory],
    similarity: dict[int, float],
    *,
    targets: list[ExistingMemory] | None = None,
) -> tuple[float, ExistingMemory] | None:
    """Of `targets` (default: every live memory of `existing`), the one the candidate most
    likely answers anew by the replacement model (memory/extraction/replacement.py), when its
    probability reaches the model's threshold. The other live memories of `existing` are what
    "closest" is measured against."""
    said = f"{candidate.content}\n{candidate.source_quote}"
    if (
        (candidate.kind == "episodic" and not changes_a_state(said))
        or word_class("refers_back").search(said)
        or _adds_to_something(candidate.content, candidate.source_quote)
    ):
        # "上次说的那个周会流程…", "the trip I mentioned": it goes on about the earlier
        # statement; "also likes Apple Music", "另外还有一台": it adds to it. Neither answers
        # its question anew
        return None
    sims = {
        m.id: float(similarity.get(m.id, 0.0))
        for m in existing
        if m.status == ACTIVE and holds_a_state(m)
    }
    # the few closest earlier memories: the model's margin favours the closest, and scoring a
    # pair costs a segmentation of both texts (≈ 3 ms uncached); and any that names another
    # thing of a kind the candidate names (another car, another editor) or another answer to
    # a question of one answer at a time (another place to live), however far apart the
    # wording puts them
    # a standing instruction ("以后别给我推川湘菜") is not answered anew by one of the things
    # on offer picked once ("开水白菜好 就它了"), unless that is said as a change
    once = not (candidate.kind == "procedural" or CHANGE_RE.search(said)) and bool(
        _ONE_CHOSEN.search(said)
    )
    earlier_ones = [
        m
        for m in (existing if targets is None else targets)
        if m.id in sims
        and replacement.later_conversation(occurred_at, m.occurred_at)
        and not (once and _INSTRUCTS_THE_AGENT.search(m.content))
        and not _tools_for_other_jobs(candidate, m)
    ]
    closest = sorted(
        (m for m in earlier_ones if sims[m.id] >= topics.MIN_SIMILARITY),
        key=lambda m: -sims[m.id],
    )[:REPLACEMENT_CANDIDATES]
    earlier = closest + [
        m
        for m in earlier_ones
        if m not in closest
        and (
            kinds.other_of_same_kind(candidate.content, m.content, said=candidate.source_quote)
            or topics.another_name_for_one_answer(candidate.content, m.content)
        )
    ]
    if not earlier:
        return None
    new = replacement.Statement(
        content=candidate.content,
        category=candidate.category,
        quote=candidate.source_quote,
        confidence=candidate.confidence,
        context=tuple(candidate.context_topics),
        at=occurred_at,
    )
    best: tuple[float, ExistingMemory] | None = None
    for mem in earlier:
        others = [v for k, v in sims.items() if k != mem.id]
        old = replacement.Statement(content=mem.content, category=mem.category, at=mem.occurred_at)
        p = replacement.linked(new, old, sims[mem.id], others)
        if p is not None and p >= replacement.threshold() and (best is None or p > best[0]):
            best = (p, mem)
    return best


def _value_swapped(
    candidate: Candidate, existing: list[ExistingMemory], similarity: dict[int, float]
) -> tuple[float, ExistingMemory] | None:
    """No topic word links them, but the change names one thing where the closest older
    statement names another ("daily spending 全部走 Amex Gold 了" after "日常消费都刷招行经典白",
    "went with Apple Music" after "paying for Spotify premium"): a value swapped for another."""
    best: tuple[float, ExistingMemory] | None = None
    for mem in existing:
        sim = float(similarity.get(mem.id, 0.0))
        if mem.kind == "episodic" or mem.status != ACTIVE or sim < topics.SWAP_SIMILARITY:
            continue
        if topics.names_differ(candidate.content, mem.content) and (best is None or sim > best[0]):
            best = (sim, mem)
    return best


def _most_on_topic(
    text: str,
    existing: list[ExistingMemory],
    similarity: dict[int, float],
    worded_as_change: bool,
    context: str = "",
) -> tuple[float, ExistingMemory] | None:
    best: tuple[float, ExistingMemory] | None = None
    for mem in existing:
        if mem.kind == "episodic" or mem.status != ACTIVE:
            continue
        ok, score, _ = topics.same_topic(
            text,
            mem.content,
            float(similarity.get(mem.id, 0.0)),
            single_only=not worded_as_change,
            change=worded_as_change,
            context=context,
        )
        if ok and (best is None or score > best[0]):
            best = (score, mem)
    return best


def _stale_with(
    candidate: Candidate, target: ExistingMemory | None, existing: list[ExistingMemory]
) -> list[int]:
    """Other live statements that name the thing a change replaced (of a one-at-a-time kind
    the change names another of) and nothing the change names."""
    if target is None:
        return []
    new = kinds.named_kinds(candidate.content)
    old = kinds.named_kinds(target.content)
    gone = {
        name
        for kind in kinds.ONE_AT_A_TIME_KINDS & set(new) & set(old)
        for name in old[kind]
        # two Chinese characters are a name ("卡罗" of 卡罗拉); two Latin letters seldom are
        if (len(name) >= 3 or CJK.search(name))
        and not any(kinds.same_name(name, n) for n in new[kind])
    }
    if not gone:
        return []
    named_now = {n for names in new.values() for n in names}
    return [
        m.id
        for m in existing
        if m.id != target.id
        and m.status == ACTIVE
        and m.kind != "episodic"
        and any(name in m.content.lower() for name in gone)
        and not any(n in m.content.lower() for n in named_now)
    ]


def decide(
    candidate: Candidate,
    occurred_at: dt.datetime | None,
    existing: list[ExistingMemory],
    similarity: dict[int, float],
) -> Decision:
    """Decide create / merge / supersede / observe_* for one candidate (see module doc)."""
    decision = _decide(candidate, occurred_at, existing, similarity)
    if decision.action == SUPERSEDE and decision.target_id is not None:
        target = next((m for m in existing if m.id == decision.target_id), None)
        stale = [
            pk
            for pk in _stale_with(candidate, target, existing)
            if pk not in decision.also_supersede
        ]
        decision.also_supersede = [*decision.also_supersede, *stale]
        if target is not None and target.kind != "episodic":
            decision.keeps = kept_apart(decision.content or candidate.content, target.content)
            if any(_same_words(decision.keeps, m.content) for m in existing if m.status == ACTIVE):
                decision.keeps = ""
    return decision


def kept_apart(new: str, old: str) -> str:
    """The clauses of an old statement that tell of something the new one does not answer,
    as a statement of their own; "" when the change answers all of it. A clause is kept when
    it is about a topic concept (or a name of a kind) the new statement says nothing of, and
    names nothing of a kind the new one names another of ("用户家里 WiFi 是电信 300M 的,住广州
    天河" → "用户住广州天河" when the broadband changes; "在 Singapore 工作" goes with a move to
    Sydney). Clauses of no topic ("晚上打游戏老是 lag") go with the answer they explained."""
    clauses = split_clauses(old)
    if len(clauses) < 2:
        return ""
    answered = set(topics.concepts(new)) | topics.concepts_of_names(new)
    kept, replaced = [], False
    for clause in clauses:
        found = topics.concepts(clause)
        about = set(found) | topics.concepts_of_names(clause)
        if about & answered or kinds.other_of_same_kind(new, clause):
            replaced = True
        elif _a_fact_of_its_own(clause, found):
            kept.append(clause.strip(" ，,；;。."))
    if not replaced or not kept:
        return ""
    if CJK.search(old):
        text = "，".join(kept)
        return text if text.startswith("用户") else "用户" + text
    text = ", ".join(kept)
    if not re.match(r"the user\b", text, re.I):
        text = "The user " + text
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


_ASKS = re.compile(
    r"[?？]|吗|怎么|如何|有没有|能不能|帮我|\b(?:how|what|which|can you|could you|pls|please)\b",
    re.IGNORECASE,
)


def _a_fact_of_its_own(clause: str, found: dict[str, bool]) -> bool:
    """A clause that stands alone as a fact: an answer to a question of one answer at a time,
    with a name in it ("住广州天河"), not a request or a question ("推荐餐厅的时候注意菜单",
    "how do I sleep during the day") leaning on the clause before."""
    return (
        any(found.values())
        and bool(topics.literal_names(clause) or kinds.named_kinds(clause))
        and not _ASKS.search(clause)
    )


def _same_words(a: str, b: str) -> bool:
    """One text holds the other, spaces and punctuation aside."""
    if not a:
        return False
    a, b = _squeezed(a), _squeezed(b)
    return a in b or b in a


def _squeezed(text: str) -> str:
    return re.sub(r"[\s，,。.；;！!]", "", text).lower()


def _decide(
    candidate: Candidate,
    occurred_at: dt.datetime | None,
    existing: list[ExistingMemory],
    similarity: dict[int, float],
) -> Decision:
    low = candidate.confidence < LOW_CONFIDENCE - EPS
    # worded as a hedge, whatever confidence it was written with: never applied as a change
    hedged = low or bool(HEDGE_RE.search(candidate.content))
    if candidate.kind == "episodic":
        if low:
            return Decision("observe_low_confidence", None, "episodic, low confidence")
        # "等等，我记岔了，去年试了一圈最后合脚的是43": told as what happened, still the
        # correction of what was said before
        corrected = None if hedged else _correction(candidate, occurred_at, existing, similarity)
        if corrected is not None:
            return corrected
        replaced = (
            None if hedged else _replaced_memory(candidate, occurred_at, existing, similarity)
        )
        if replaced is not None:
            p, mem = replaced
            return Decision(
                SUPERSEDE,
                mem.id,
                f"an event changes what #{mem.id} said (replacement model {p:.2f})",
            )
        return Decision("create", None, "an episode: never merged")

    hinted = _hinted(candidate, existing, occurred_at, low)
    if hinted is not None:
        return hinted
    corrected = None if hedged else _correction(candidate, occurred_at, existing, similarity)
    if corrected is not None:
        return corrected

    same_active: list[tuple[float, ExistingMemory]] = []
    same_other: list[tuple[float, ExistingMemory]] = []
    conflicts: list[tuple[float, ExistingMemory]] = []
    for mem in existing:
        if mem.kind == "episodic":
            continue
        sim = float(similarity.get(mem.id, 0.0))
        rel = relate(candidate, mem, sim)
        if rel == "same":
            (same_active if mem.status == ACTIVE else same_other).append((sim, mem))
        elif rel == "conflict" and mem.status == ACTIVE:
            conflicts.append((sim, mem))

    replaces_firmly = False
    if not same_active and not conflicts:
        topical = _topic_conflict(candidate, existing, similarity)
        replaced = _replaced_memory(candidate, occurred_at, existing, similarity)
        if topical is not None and replaced is not None:
            if replaced[1].id != topical[1].id:
                # the topic rule and the model point at different memories ("换成联通 1000M"
                # → "网速好慢" by topic, "用户的电信，300M 的" by the model): the one the model
                # links more strongly is the one answered anew
                on_topic = _replaced_memory(
                    candidate, occurred_at, existing, similarity, targets=[topical[1]]
                )
                if on_topic is None or replaced[0] > on_topic[0]:
                    topical = None
            # a topical target kept here is one the model links too: no need to ask it again
            replaces_firmly = topical is not None and not hedged
        if topical is not None:
            conflicts.append(topical)
        elif replaced is not None:
            conflicts.append(replaced)
            # the model links a later statement to the one it answers anew: unless hedged,
            # saying it again differently is the change (a hedge stays an observation)
            replaces_firmly = not hedged

    if same_active:
        sim, mem = max(same_active, key=lambda x: (x[0], x[1].confidence))
        if not hedged and _newer(occurred_at, mem.occurred_at) and _corrects_itself(candidate):
            # "我说错了，过敏的是菠萝" after "对芒果过敏": the same question, answered again
            # because the first answer was wrong — never a duplicate to merge into it
            return Decision(SUPERSEDE, mem.id, f"corrects #{mem.id}: the user took it back")
        update = (
            not low
            and _newer(occurred_at, mem.occurred_at)
            and candidate.confidence >= mem.confidence - 0.05
            and _adds_information(candidate, mem)
        )
        if not update and sim < DEDUPE_SIMILARITY and not hedged:
            # a slot match is not a repetition when a later conversation answers the question
            # anew ("医生给我换成缬沙坦了" after "每天吃氨氯地平", both slot medication with no
            # values read): merging would drop the new value
            replaced = _replaced_memory(candidate, occurred_at, existing, similarity, targets=[mem])
            if replaced is not None:
                return Decision(
                    SUPERSEDE,
                    mem.id,
                    f"a later statement answers #{mem.id} anew "
                    f"(replacement model {replaced[0]:.2f})",
                )
        how = f"slot {candidate.slot}" if candidate.slot and mem.slot else f"cosine {sim:.2f}"
        if not update and _only_the_slot_in_common(candidate, mem, sim):
            # "reminders go to my telegram" beside "email me the reminders at 7": one slot, no
            # value read on either side and little else alike — merging would lose the new words
            return Decision("create", None, f"same {how} as #{mem.id}, but nothing else alike")
        lost = _values_lost(candidate, mem)
        if update and lost and not is_change(candidate):
            # one slot, two facts ("flies United" / "gets up 4 times a flight"): rewriting the
            # old memory with the new words would forget what only the old one says
            return Decision("create", None, f"same {how} as #{mem.id}, but it keeps {lost[0]}")
        return Decision("merge", mem.id, f"duplicate of #{mem.id} ({how})", update_content=update)

    if conflicts:
        conflicts.sort(key=lambda x: (-x[0], -x[1].confidence))
        if not replaces_firmly and not hedged:
            # the rules found the contradiction; the model, that a later conversation answers
            # the question anew: a change, not a remark beside the old value
            top = conflicts[0][1]
            replaced = _replaced_memory(candidate, occurred_at, existing, similarity, targets=[top])
            replaces_firmly = replaced is not None
        beaten = [
            m
            for _, m in conflicts
            if (
                replaces_firmly
                or _firmer(candidate.confidence, m.confidence)
                or _answers_anew(candidate, m, occurred_at, hedged)
            )
            and _newer(occurred_at, m.occurred_at)
        ]
        if beaten and not low and not (hedged and not _states_a_change_firmly(candidate.content)):
            # a hedge is never applied as a change, however firmly the extractor scored it
            target = beaten[0]
            return Decision(
                "supersede",
                target.id,
                f"firmer ({candidate.confidence:.2f} vs {target.confidence:.2f}) "
                f"and newer statement contradicts #{target.id}",
                also_supersede=[m.id for m in beaten[1:]],
            )
        target = conflicts[0][1]
        return Decision(
            "observe_conflict",
            target.id,
            f"contradicts #{target.id} but is not firmer by {SUPERSEDE_MARGIN} nor an equally "
            f"firm update ({candidate.confidence:.2f} vs {target.confidence:.2f}) or not newer",
        )

    if same_other and low:
        sim, mem = max(same_other, key=lambda x: x[0])
        return Decision("merge", mem.id, f"repeats tentative #{mem.id} ({mem.status})")

    if low:
        return Decision(
            "observe_low_confidence",
            None,
            f"confidence {candidate.confidence:.2f} < {LOW_CONFIDENCE}",
        )
    return Decision("create", None, "new information")
