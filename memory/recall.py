"""Recall: hybrid, explainable, token-budgeted.

`recall_compute` is a pure read (a selector): it never changes anything, so staff can replay a
trace with other weights. `memory.services.recall_record` stores the trace, bumps hit counts and
audits the read — off the request path.

Pipeline:
1. Route the query (episodic / continuation / preference / factual / mixed) → signal weights.
   Episodic questions ("When did I…", "上次体检查出了什么") favour episodic memories, those
   carrying a date when the question asks "when", and those dated inside the period the
   question names ("五月份", "last year") — from the content, no extra query.
2. Candidates from three constant-count queries inside the subject's live memories:
   exact vector search (top 50), keyword search (tsvector over jieba words + CJK bigrams +
   English words), entity match (alias-expanded).
3. Score = Σ weight × signal; keep `top_k`, then cut by `token_budget` (never mid-sentence).
4. Context block labelled as recollection, in the query's language, ordered by importance.

Two things here outlive the request and hold the person's words, so both are built to be erased:
the query-rewrite cache is kept per subject (`rewrite_cache_clear` deletes it by key), and the
trace payload carries the query PII-redacted (`recall_trace_payload`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.core.cache import cache
from django.db.models import F, Q
from django.utils import timezone
from pgvector.django import CosineDistance

from core.tokens import count_tokens
from memory import aliases, pii, textsearch
from memory.embeddings import get_embedder
from memory.extraction import topics
from memory.extraction.lexicon import ENTITIES, TASK_TOPICS
from memory.language.dates import (
    event_date,
    memory_dates,
    plan_dates,
    plan_window,
    query_date_window,
)
from memory.llm import llm_configured, rewrite_query
from memory.models import Memory, Subject

logger = logging.getLogger(__name__)
RECALLABLE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.NEEDS_REVIEW)
CANDIDATES_PER_SIGNAL = 50
SIGNALS = ("semantic", "keyword", "entity", "recency", "importance")

ROUTE_CONTINUATION = "continuation"
ROUTE_PREFERENCE = "preference"
ROUTE_FACTUAL = "factual"
ROUTE_MIXED = "mixed"
ROUTE_EPISODIC = "episodic"

DEFAULT_WEIGHTS: dict[str, dict[str, float]] = {
    ROUTE_PREFERENCE: {
        "semantic": 0.45,
        "keyword": 0.15,
        "entity": 0.15,
        "recency": 0.05,
        "importance": 0.20,
    },
    ROUTE_FACTUAL: {
        "semantic": 0.45,
        "keyword": 0.25,
        "entity": 0.15,
        "recency": 0.05,
        "importance": 0.10,
    },
    ROUTE_CONTINUATION: {
        "semantic": 0.40,
        "keyword": 0.15,
        "entity": 0.10,
        "recency": 0.25,
        "importance": 0.10,
    },
    ROUTE_MIXED: {
        "semantic": 0.45,
        "keyword": 0.20,
        "entity": 0.15,
        "recency": 0.05,
        "importance": 0.15,
    },
    # Questions about what happened ("When did I…", "上次体检查出了什么"): the words of the event
    # matter most; recency and importance say little about which event is asked for.
    ROUTE_EPISODIC: {
        "semantic": 0.45,
        "keyword": 0.30,
        "entity": 0.10,
        "recency": 0.0,
        "importance": 0.05,
    },
}
# Categories a route favours (a small additive boost, explained in the trace).
ROUTE_CATEGORY_BOOST = {
    ROUTE_PREFERENCE: {"preference": 0.05, "decision": 0.03, "profile": 0.02},
    ROUTE_FACTUAL: {"fact": 0.04, "profile": 0.04, "decision": 0.03, "correction": 0.03},
    ROUTE_CONTINUATION: {"plan": 0.05, "decision": 0.03},
    ROUTE_MIXED: {},
    ROUTE_EPISODIC: {"fact": 0.02},
}
# The noise gate (see `_relevant`).
MIN_SCORE = 0.12
# Cosine (USE) between a query and a memory it needs is often low across tasks ("租车" vs a
# trip to Lisbon), so the floor only admits clear matches; other evidence is keywords,
# entities and shared topic concepts. Measured on the scenario sets: at 0.2, 50 % of needed
# memories pass on similarity alone and 10 % of unrelated ones.
SEMANTIC_FLOOR = 0.2
# Standing guidance (preferences, profile, decisions, procedures) applies to whole classes of
# tasks that share few words with it ("book a hotel" vs "always books 亚朵"): a lower floor,
# still above what unrelated pairs reach (80 % of needed memories pass, 33 % of unrelated).
STANDING_FLOOR = 0.1
STANDING_CATEGORIES = ("preference", "profile", "decision", "fact", "correction")
# Entity signal of a memory that only matches the query's task topic ("订住的地方" -> hotels),
# not one of its named entities.
TOPIC_ENTITY_SIGNAL = 0.5
# Instructions about every answer (format, length, reply language) apply to any request.
GLOBAL_SLOTS = ("style:answer", "style:writing", "reply_language")
GLOBAL_BOOST = 0.04
# Plans answer queries about what is coming up ("下季度重点工作", "my to-do list for the autumn").
PLAN_BOOST = 0.05
_PLAN_QUERY = re.compile(
    r"安排|计划|行程|日程|打算|重点|要做(?:什么|啥|哪些)|接下来|下(?:个)?(?:周|月|季度)|今年|明年|"
    r"这周|这个月|最近|夏天|暑假|寒假|年底|\b(?:upcoming|plans?|planning|schedule|to-?do|"
    r"agenda|next (?:week|month|quarter|year)|this (?:summer|autumn|fall|winter|spring|year)|"
    r"coming (?:weeks|months)|autumn|summer)\b|"
    r"季度|里程碑|节点|活动|\b(?:milestones?|coming up|this quarter|deadlines?|events?|"
    r"what's (?:coming|next|ahead)|lined up)\b",
    re.I,
)
# Plans dated inside the period a plan question looks ahead to ("这个季度", "next month",
# "coming up" = the next 90 days) rank above undated or out-of-window plans.
PLAN_WINDOW_BOOST = 0.08
_TOPIC_RES = [(re.compile(rx, re.I), set(targets)) for rx, targets in TASK_TOPICS]

_CONTINUATION = re.compile(
    r"继续|接着|刚才|上次|之前那个|还是那个|\b(continue|go on|as before|where were we|"
    r"pick up|last time|that one again)\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"推荐|建议|帮我(订|选|安排|找|买|写|做|排|规划|准备|整理|总结|概括)|安排|计划|打算|喜欢|适合|"
    r"怎么(选|安排)|订|点(一|个|杯|份)|解释|讲讲|介绍|\b(recommend|suggest|book|order|plan|choose|"
    r"pick|prefer|schedule|arrange|write|draft|summari[sz]e|should i|explain|describe)\b",
    re.I,
)
_FACTUAL = re.compile(
    r"什么|哪(个|家|里|天|些|位|种|类)?|多少|几(点|号|个|天)?|是不是|有没有|谁|何时|[?？]|"
    r"\b(what|which|when|where|who|how (much|many|long)|is it|do i|am i|did i)\b",
    re.I,
)
_CJK = re.compile(r"[\u3400-\u9fff]")
# Questions about past events. Checked before the continuation cue, so "上次体检…" is about an
# event while "上次说的行程" / "上次那套方案" stay continuations.
_EPISODIC = re.compile(
    r"什么时候.{0,12}(?:的|了)|哪(?:一)?天.{0,12}(?:的|了)|几号.{0,8}的|何时.{0,12}(?:的|了)|"
    r"(?:去|做|买|参加|认识|看|吃|玩|学|考|拿|抽|领养|搬|跑|打)(?:过|了)(?:什么|哪|谁|几|多少)|"
    r"过(?:什么|哪)|上次(?!(?:那|说|定|聊|提|讲|的|跟|我们|你))|那次|去年|前年|上个?月|上个?星期|"
    r"上周|前几天|前两天|昨天|前天|怎么回事|发生了什么|查出|"
    r"\b(?:when|where|who|what|how|which)\s+(?:\w+\s+){0,2}(?:did|was|were)\s+"
    r"(?!(?:we|i|you)\s+(?:pick|choose|chose|decide|settle|agree|go with|use|want)\b)|"
    r"\bdid (?:i|we|my|our)\b(?!\s+(?:pick|choose|decide|settle|agree|go with|use|want)\b)|"
    r"\bhave (?:i|we) (?:ever|been|visited|met|tried|done)\b|"
    r"\bwhat happened\b|\blast (?:year|month|week|weekend|summer|winter|spring|fall|autumn)\b|"
    r"\byesterday\b|\b\w+ ago\b|\brecently\b",
    re.I,
)
_WHEN_QUERY = re.compile(
    r"什么时候|哪(?:一)?天|几号|何时|几月|\bwhen\b|\bwhat (?:day|date)\b", re.I
)
# Date-aware matching for episodic memories (their content carries absolute dates, see
# memory/extraction/rules/episodes.py): a date the question names boosts memories of that period.
EPISODIC_BOOST = 0.06
WHEN_DATED_BOOST = 0.03
DATE_MATCH_BOOST = 0.12
DATE_MISMATCH_PENALTY = 0.05

CONTEXT_HEADER = {
    "zh": "以下是回忆到的与该用户相关的背景信息，仅供参考；如与当前对话冲突，以当前对话为准。",
    "en": (
        "Recalled background about this user, for reference only; if it conflicts with "
        "the current conversation, the current conversation wins."
    ),
}
NEEDS_REVIEW_NOTE = {
    "zh": "（待复核：请以最新文档为准）",
    "en": " (needs review: re-check the current document)",
}
CONFIDENCE_LABEL = {"zh": "置信度", "en": "confidence"}


@dataclass
class RecallParams:
    query: str
    entities: list[str] = field(default_factory=list)
    top_k: int = 5
    token_budget: int = 800
    weights: dict[str, float] | None = None  # staff replay only
    as_of: dt.datetime | None = None


@dataclass
class ScoredMemory:
    memory: Memory
    signals: dict[str, float]
    score: float
    selected: bool = False
    cut: str = ""  # "", "top_k", "budget", "min_score", "answered_anew"
    # the memory holds a word of the query that says something (`textsearch.telling_terms`)
    shares_word: bool = False


@dataclass
class RecallResult:
    route: str
    language: str
    weights: dict[str, float]
    candidates: list[ScoredMemory]
    selected: list[ScoredMemory]
    context: str
    token_count: int
    timings_ms: dict[str, float]
    query_entities: list[str]
    rewritten_query: str = ""

    @property
    def total_ms(self) -> float:
        return round(sum(self.timings_ms.values()), 3)


def route_query(query: str) -> str:
    """Rule-based intent router."""
    if _EPISODIC.search(query):
        return ROUTE_EPISODIC
    if _CONTINUATION.search(query):
        return ROUTE_CONTINUATION
    preference = bool(_PREFERENCE.search(query))
    factual = bool(_FACTUAL.search(query))
    if preference and factual:
        return ROUTE_MIXED
    if preference:
        return ROUTE_PREFERENCE
    if factual:
        return ROUTE_FACTUAL
    return ROUTE_MIXED


def query_topics(query: str) -> set[str]:
    """Entity types and canonical entities a task request is about, via TASK_TOPICS
    ("帮我订住的地方" -> {"hotel_brand", "酒店"}, "which datastore" -> {"database"})."""
    out: set[str] = set()
    for rx, targets in _TOPIC_RES:
        if rx.search(query):
            out |= targets
    return out


def _topic_entities(topics: set[str]) -> set[str]:
    """Canonical entities named by a topic set (types expanded through the lexicon)."""
    return {canon for canon, (etype, _) in ENTITIES.items() if canon in topics or etype in topics}


def query_language(query: str) -> str:
    return "zh" if _CJK.search(query) else "en"


def recency_signal(memory: Memory, now: dt.datetime) -> float:
    """0.9 ** (days since last access or creation / 7)."""
    reference = memory.last_accessed_at or memory.created_at
    days = max(0.0, (now - reference).total_seconds() / 86400)
    return round(0.9 ** (days / 7), 4)


def _weights_for(route: str, override: dict[str, float] | None) -> dict[str, float]:
    weights = dict(
        getattr(settings, "ENGRAM_RECALL_WEIGHTS", {}).get(route) or DEFAULT_WEIGHTS[route]
    )
    if override:
        weights.update({k: float(v) for k, v in override.items() if k in SIGNALS})
    return weights


def _live(subject: Subject, as_of: dt.datetime | None) -> Any:
    queryset = Memory.objects.filter(subject=subject).defer("embedding", "search_vector")
    if as_of is None:
        return queryset.filter(status__in=RECALLABLE_STATUSES)
    # As of a past moment: what was valid then (superseded later still counts then).
    return queryset.filter(
        status__in=[*RECALLABLE_STATUSES, Memory.Status.SUPERSEDED],
        valid_from__lte=as_of,
    ).filter(Q(valid_to__isnull=True) | Q(valid_to__gt=as_of))


# Query rewrites hold the person's words, so they are cached per subject and in a fixed set of
# buckets: erasing the subject deletes every bucket by key (no index to keep in step, no scan).
REWRITE_CACHE_SECONDS = 24 * 3600
REWRITE_CACHE_BUCKETS = 16
REWRITE_CACHE_PER_BUCKET = 8


def rewrite_cache_keys(*, tenant_id: int, subject_pk: int) -> list[str]:
    """Every cache key that may hold a rewrite of this subject's queries."""
    return [
        f"recall-rewrite:{tenant_id}:{subject_pk}:{bucket}"
        for bucket in range(REWRITE_CACHE_BUCKETS)
    ]


def cached_rewrite(*, subject: Subject, query: str) -> tuple[str, list[str]] | None:
    """The model's rewrite of `query`, from the subject's cache or (on a miss) the model.

    A bucket holds the last REWRITE_CACHE_PER_BUCKET rewrites; two recalls that fill the same
    bucket at once may lose one entry, which only costs a model call later."""
    digest = hashlib.sha256(f"{settings.ENGRAM_LLM_MODEL}\n{query}".encode()).hexdigest()
    key = rewrite_cache_keys(tenant_id=subject.tenant_id, subject_pk=subject.pk)[
        int(digest[:8], 16) % REWRITE_CACHE_BUCKETS
    ]
    try:
        bucket: dict[str, Any] | None = cache.get(key) or {}
    except Exception:  # noqa: BLE001 - a cache outage only costs a model call
        bucket = None
    if bucket and digest in bucket:
        rewritten, entities = bucket[digest]
        return rewritten, list(entities)
    rewrite = rewrite_query(query)
    if rewrite is None or bucket is None:
        return rewrite
    kept = list(bucket.items())[-(REWRITE_CACHE_PER_BUCKET - 1) :]
    try:
        cache.set(key, {**dict(kept), digest: list(rewrite)}, REWRITE_CACHE_SECONDS)
        # An erasure that ran while the model was answering has already cleared this
        # subject's buckets: do not leave the person's words behind it.
        if not Subject.objects.filter(pk=subject.pk).exists():
            cache.delete(key)
    except Exception:  # noqa: BLE001
        logger.debug("cache unavailable for query rewrites")
    return rewrite


def rewrite_cache_clear(*, tenant_id: int, subject_pk: int) -> None:
    """Forget every cached rewrite of the subject's queries (part of erasure)."""
    cache.delete_many(rewrite_cache_keys(tenant_id=tenant_id, subject_pk=subject_pk))


def rewrite_cache_count(*, tenant_id: int, subject_pk: int) -> int:
    """How many of the subject's rewrite buckets are still cached (the erasure residue scan)."""
    return len(cache.get_many(rewrite_cache_keys(tenant_id=tenant_id, subject_pk=subject_pk)))


def recall_compute(*, subject: Subject | None, params: RecallParams) -> RecallResult:
    """Compute a recall without side effects (used by the API and by staff replay)."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    route = route_query(params.query)
    language = query_language(params.query)
    weights = _weights_for(route, params.weights)
    query_entities = aliases.normalize_entities(
        [*aliases.find_entities(params.query), *params.entities]
    )
    timings["route"] = _ms(started)

    if subject is None:
        return RecallResult(route, language, weights, [], [], "", 0, timings, query_entities)

    # Optional LLM rewrite: widens the search (embedding, keywords, entities); routing, the
    # date logic and the context language still follow the query as the agent sent it.
    search_text, rewritten = params.query, ""
    if settings.ENGRAM_RECALL_QUERY_REWRITE and llm_configured():
        mark = time.perf_counter()
        rewrite = cached_rewrite(subject=subject, query=params.query)
        timings["rewrite"] = _ms(mark)
        if rewrite is not None:
            rewritten = rewrite[0]
            search_text = f"{params.query}\n{rewritten}"
            query_entities = aliases.normalize_entities(
                [*query_entities, *aliases.find_entities(rewritten), *rewrite[1]]
            )

    mark = time.perf_counter()
    query_vector = get_embedder().embed([search_text])[0].tolist()
    timings["embed"] = _ms(mark)

    mark = time.perf_counter()
    rows: dict[int, Memory] = {}
    semantic: dict[int, float] = {}
    for memory in (
        _live(subject, params.as_of)
        .annotate(distance=CosineDistance("embedding", query_vector))
        .order_by("distance")[:CANDIDATES_PER_SIGNAL]
    ):
        rows[memory.pk] = memory
        if memory.distance is not None:
            semantic[memory.pk] = max(0.0, 1.0 - float(memory.distance))
    timings["vector"] = _ms(mark)

    mark = time.perf_counter()
    keyword: dict[int, float] = {}
    terms = textsearch.search_query_terms(search_text)
    if terms:
        tsquery = SearchQuery(textsearch.build_tsquery(terms), search_type="raw", config="simple")
        for memory in (
            _live(subject, params.as_of)
            .filter(search_vector=tsquery)
            .annotate(rank=SearchRank(F("search_vector"), tsquery))
            .order_by("-rank")[:CANDIDATES_PER_SIGNAL]
        ):
            rows.setdefault(memory.pk, memory)
            keyword[memory.pk] = float(memory.rank)
    telling = set(textsearch.telling_terms(terms))
    shares_word = {pk for pk in keyword if telling & set((rows[pk].search_text or "").split())}
    top_rank = max(keyword.values(), default=0.0)
    if top_rank > 0:
        keyword = {pk: rank / top_rank for pk, rank in keyword.items()}
    timings["keyword"] = _ms(mark)

    mark = time.perf_counter()
    topic_entities = _topic_entities(query_topics(params.query)) - set(query_entities)
    entity_forms = sorted(
        {form for e in [*query_entities, *topic_entities] for form in aliases.expand_entity(e)}
        | set(query_entities)
    )
    entity: dict[int, float] = {}
    if entity_forms:
        for memory in _live(subject, params.as_of).filter(entities__overlap=entity_forms)[
            :CANDIDATES_PER_SIGNAL
        ]:
            rows.setdefault(memory.pk, memory)
    for pk, memory in rows.items():
        own = {aliases.normalize_entity(e) for e in memory.entities}
        value = 0.0
        if query_entities:
            matched = len(own & set(query_entities))
            value = min(1.0, matched / min(len(query_entities), 2))
        if own & topic_entities:
            value = max(value, TOPIC_ENTITY_SIGNAL)
        if query_entities or topic_entities:
            entity[pk] = round(value, 4)
    timings["entity"] = _ms(mark)

    mark = time.perf_counter()
    now = params.as_of or timezone.now()
    boosts = ROUTE_CATEGORY_BOOST[route]
    plan_query = bool(_PLAN_QUERY.search(params.query))
    episodic_query = route == ROUTE_EPISODIC
    when_query = bool(_WHEN_QUERY.search(params.query))
    date_window = query_date_window(params.query, now.date())
    ahead = plan_window(params.query, now.date()) if plan_query else None
    scored: list[ScoredMemory] = []
    for pk, memory in rows.items():
        signals = {
            "semantic": round(semantic.get(pk, 0.0), 4),
            "keyword": round(keyword.get(pk, 0.0), 4),
            "entity": entity.get(pk, 0.0),
            "recency": recency_signal(memory, now),
            "importance": round(float(memory.importance), 4),
        }
        score = sum(weights[name] * signals[name] for name in SIGNALS)
        score += boosts.get(memory.category, 0.0)
        if _global_instruction(memory):
            score += GLOBAL_BOOST
        if plan_query and memory.category == "plan":
            score += PLAN_BOOST
            if any(
                a < ahead[1] and ahead[0] < b
                for a, b in plan_dates(memory.content, memory.slot_values, now.date())
            ):
                score += PLAN_WINDOW_BOOST
        if memory.kind == Memory.Kind.EPISODIC:
            score += _episodic_adjustment(memory, episodic_query, when_query, date_window)
        scored.append(
            ScoredMemory(
                memory=memory,
                signals=signals,
                score=round(score, 4),
                shares_word=pk in shares_word,
            )
        )
    scored.sort(key=lambda item: (-item.score, -item.memory.pk))
    selected, context, tokens = _select_within_budget(
        scored, params, language, plan_query, asks_about_the_person(params.query, route)
    )
    timings["score"] = _ms(mark)
    return RecallResult(
        route,
        language,
        weights,
        scored,
        selected,
        context,
        tokens,
        timings,
        query_entities,
        rewritten,
    )


def _episodic_adjustment(
    memory: Memory,
    episodic_query: bool,
    when_query: bool,
    window: tuple[dt.date, dt.date] | None,
) -> float:
    """Boost for episodic memories under an event question, for those carrying a date when
    the question asks "when", and for those inside the period the question names (a small
    penalty when they are dated outside it)."""
    bonus = EPISODIC_BOOST if episodic_query else 0.0
    dates = memory_dates(memory.content) if (when_query or window) else []
    if when_query and dates:
        bonus += WHEN_DATED_BOOST
    if window and dates:
        start, end = window
        if any(a < end and start < b for a, b in dates):
            bonus += DATE_MATCH_BOOST
        else:
            bonus -= DATE_MISMATCH_PENALTY
    return bonus


_EVERY_TURN_CONCEPTS = frozenset({"reply_language", "reply_format"})


def _global_instruction(memory: Memory) -> bool:
    """A standing instruction for every answer (language, format), whatever the query."""
    if memory.kind != Memory.Kind.PROCEDURAL:
        return False
    if (memory.slot or "").startswith(GLOBAL_SLOTS):
        return True
    found = topics.concepts(memory.content, words_of_one_char=False)
    return bool(_EVERY_TURN_CONCEPTS & set(found))


# A question about how the world works ("Excel怎么冻结首行？", "why is the sky blue?") asks
# nothing of the person: standing guidance comes in on its lower floor only when the query is a
# request, a continuation, a question about the past, or points at the person at all.
_HOW_THE_WORLD_WORKS = re.compile(
    r"怎么|怎样|如何|为什么|为啥|是什么|什么是|什么意思|"
    r"\b(?:how (?:do|does|did|to|can|is|are)|why (?:do|does|is|are)|what (?:is|are|does)|"
    r"what's the difference)\b",
    re.I,
)
_ABOUT_THE_PERSON = re.compile(
    r"我|咱|自己|\b(?:i|i'm|i've|i'd|me|my|mine|we|we're|our|ours|us|home)\b", re.I
)


def asks_about_the_person(query: str, route: str) -> bool:
    if route in (ROUTE_PREFERENCE, ROUTE_CONTINUATION, ROUTE_EPISODIC):
        return True
    return not _HOW_THE_WORLD_WORKS.search(query) or bool(_ABOUT_THE_PERSON.search(query))


def _relevant(
    item: ScoredMemory,
    plan_query: bool = False,
    query_topics: frozenset = frozenset(),
    personal: bool = True,
) -> bool:
    """Noise gate: `top_k` is a maximum, not a quota. A memory enters the context only on
    evidence that it bears on the query — semantic similarity above a calibrated floor, a
    telling word of the query in its text (`textsearch.telling_terms`: not "用" or "帮"), an
    entity match (task topics included: "订酒店" ~ a hotel preference), a topic concept shared
    with the query (memory/extraction/topics.py), a plan when the query asks what is coming up,
    or a standing instruction that applies to every turn (reply language / format). Recency and
    importance alone never bring a memory in: "帮我订个酒店" does not get a green-tea
    preference. Standing guidance enters on its lower similarity floor unless the query asks
    how the world works (`asks_about_the_person`): "Excel怎么冻结首行？" gets no milk preference."""
    memory, signals = item.memory, item.signals
    if item.score < MIN_SCORE:
        return False
    if _global_instruction(memory):
        return True
    standing = memory.kind == Memory.Kind.PROCEDURAL or memory.category in STANDING_CATEGORIES
    if plan_query and memory.category == "plan":
        return True
    floor = STANDING_FLOOR if standing and personal else SEMANTIC_FLOOR
    if signals["semantic"] >= floor or item.shares_word or signals["entity"] > 0:
        return True
    if not query_topics:
        return False
    if query_topics & set(topics.concepts(memory.content, words_of_one_char=False, recall=True)):
        return True
    return bool(
        query_topics & topics.concepts_named_by_kinds()
        and query_topics & topics.concepts_of_names(memory.content)
    )


# How far down the relevant candidates (in multiples of top_k) a newer answer is looked for.
CONTRADICTION_WINDOW = 3


def _answered_anew(relevant: list[ScoredMemory], wanted: frozenset[str]) -> set[int]:
    """Memories a newer relevant one, said in a later conversation, answers anew
    (`topics.answers_anew`): the context gets the current answer, not both. Write-time
    linking misses changes worded apart ("the credit union is the only account I have left"
    after "pays through Wells Fargo"); the request says which question both answer."""
    from memory.extraction.replacement import later_conversation

    stale: set[int] = set()
    for newer in relevant:
        if newer.memory.kind == Memory.Kind.EPISODIC:
            continue
        for older in relevant:
            if (
                older.memory.kind != Memory.Kind.EPISODIC
                and older.memory.id not in stale
                and later_conversation(newer.memory.valid_from, older.memory.valid_from)
                and topics.answers_anew(newer.memory.content, older.memory.content, wanted)
            ):
                stale.add(older.memory.id)
    return stale


def _select_within_budget(
    scored: list[ScoredMemory],
    params: RecallParams,
    language: str,
    plan_query: bool = False,
    personal: bool = True,
) -> tuple[list[ScoredMemory], str, int]:
    """Keep at most top_k memories and at most token_budget tokens, cutting by score."""
    header = CONTEXT_HEADER[language]
    used = count_tokens(header) + 1
    selected: list[ScoredMemory] = []
    wanted = topics.query_concepts(params.query)
    # the gate reads each candidate once, and only as far down as the context can reach
    verdicts: dict[int, bool] = {}
    relevant: list[ScoredMemory] = []
    for item in scored:
        if len(relevant) >= CONTRADICTION_WINDOW * params.top_k:
            break
        verdicts[id(item)] = _relevant(item, plan_query, wanted, personal)
        if verdicts[id(item)]:
            relevant.append(item)
    answered_anew = _answered_anew(relevant, wanted)
    for item in scored:
        if len(selected) >= params.top_k:
            item.cut = "top_k"
            continue
        if id(item) not in verdicts:
            verdicts[id(item)] = _relevant(item, plan_query, wanted, personal)
        if not verdicts[id(item)]:
            item.cut = "min_score"
            continue
        if item.memory.id in answered_anew:
            item.cut = "answered_anew"
            continue
        line_tokens = count_tokens(context_line(item.memory, language)) + 1
        if used + line_tokens > params.token_budget:
            item.cut = "budget"
            continue
        used += line_tokens
        item.selected = True
        selected.append(item)
    if not selected:
        return [], "", 0
    ordered = sorted(selected, key=lambda item: (-item.memory.importance, -item.score))
    context = "\n".join([header, *(context_line(item.memory, language) for item in ordered)])
    return selected, context, count_tokens(context)


def context_line(memory: Memory, language: str) -> str:
    """One line of the context block, dated by when it was said — or, for an episode, by
    when it happened when the content knows."""
    date = (memory.kind == Memory.Kind.EPISODIC and event_date(memory.content)) or (
        (memory.valid_from or memory.created_at).date().isoformat()
    )
    note = NEEDS_REVIEW_NOTE[language] if memory.status == Memory.Status.NEEDS_REVIEW else ""
    if language == "zh":
        return (
            f"- [{date}] {memory.content}{note}"
            f"（{CONFIDENCE_LABEL[language]} {memory.confidence:.2f}）"
        )
    return (
        f"- [{date}] {memory.content}{note} ({CONFIDENCE_LABEL[language]} {memory.confidence:.2f})"
    )


# What a stored trace keeps of each candidate: ids and signals, never the memory's text, so
# deleting a memory (or erasing its subject) leaves no copy of it here. The console joins the
# current text by id when it shows a trace.
TRACE_CANDIDATE_FIELDS = ("id", "category", "kind", "status", "signals", "score", "selected", "cut")


def trace_candidate_stripped(candidate: dict[str, Any]) -> dict[str, Any]:
    """A candidate cut down to TRACE_CANDIDATE_FIELDS (payloads queued before the change
    still carry `content`)."""
    return {key: candidate[key] for key in TRACE_CANDIDATE_FIELDS if key in candidate}


def trace_candidates(result: RecallResult) -> list[dict[str, Any]]:
    return [
        {
            "id": item.memory.pk,
            "category": item.memory.category,
            "kind": item.memory.kind,
            "status": item.memory.status,
            "signals": item.signals,
            "score": item.score,
            "selected": item.selected,
            "cut": item.cut,
        }
        for item in result.candidates
    ]


def _redacted(text: str) -> str:
    return pii.redact(text).text if text else text


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


def recall_trace_payload(
    result: RecallResult, *, subject: Subject, agent: Any, params: RecallParams, trace_id: str
) -> dict[str, Any]:
    """Everything `services.recall_record` stores, as JSON (it travels through the broker).

    The agent's words (query, its rewrite, the entities it named) are PII-redacted here, before
    they reach the broker or the table, as memories are before they are written: staff read
    traces in the console, and a replay runs the redacted query. Memory text (the candidates'
    content, the context block) is left out: the trace names memories by id."""
    return {
        "trace_id": trace_id,
        "subject_id": subject.pk,
        "agent_id": getattr(agent, "pk", None),
        "query": _redacted(params.query),
        "route": result.route,
        "parameters": {
            "top_k": params.top_k,
            "token_budget": params.token_budget,
            "entities": [_redacted(entity) for entity in params.entities],
            "weights": result.weights,
            "as_of": params.as_of.isoformat() if params.as_of else None,
            "query_entities": [_redacted(entity) for entity in result.query_entities],
            "rewritten_query": _redacted(result.rewritten_query),
            "language": result.language,
        },
        "candidates": trace_candidates(result),
        "selected_ids": [item.memory.pk for item in result.selected],
        "token_count": result.token_count,
        "timings_ms": result.timings_ms,
        "total_ms": result.total_ms,
    }
