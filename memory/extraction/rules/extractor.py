"""Offline rule-based extractor (`rules-v1`): Chinese, English and mixed conversations.

Pipeline for every user turn in `turns[new_from:]` (assistant/tool/system turns are context):

1. Split the turn into sentences (。！？；!?; newlines, ". " in English) and each sentence into
   clauses (，,：:). Drop clauses that carry no fact about the person: bare acknowledgements
   ("对", "好", "ok"), discourse fillers ("跟你说一下", "quick intro"), one-off task requests
   ("帮我写…", "先给我列三家", "Book the 9:40") unless the sentence is a standing instruction
   ("以后…", "whenever…", "for future flights…"), and clauses holding PII.
2. The detectors judge what is left in the order of the priority table (priorities.py):
   correction, decision, recent habit, plan/goal, dated event, preference/taboo/standing
   instruction (incl. answer-style atoms), profile, habitual use, team/setup fact, routine, a
   statement recognised by its topic. Questions, small talk and one-off preferences ("这次",
   "for this one") produce nothing. What no detector claims goes to the general detector
   (general.py: salience from general signals), a reply right after the assistant's question
   to answers.py.
3. Score (classify.py): plain statement 0.75; firm update/decision markers ("定了", "统一为",
   "新规定", "from now on", "new standing order") 0.9-0.95; explicit correction 0.9; hedges ("可能",
   "也许", "听说", "maybe", "not sure", "I wonder") 0.35-0.45. Emphasis ("千万", "一定", "记住",
   "always", "never", "remember") raises importance; health/safety facts get 0.95.
4. Rewrite into a declarative sentence about "用户"/"the user" (pronouns replaced, fillers dropped,
   concrete words kept verbatim) and derive entities (alias map), slot and normalised values.
5. Adjacent hits of one turn about the same topic are merged into one candidate (merge.py).
Past events go to the episodes extractor (episodes.py) with their dates.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory.extraction import general, kinds, salience, topics
from memory.extraction.base import Candidate, ExtractionResult, KnownMemory, Turn
from memory.extraction.dialogue import DialogueState, dialogue_state, head_nouns
from memory.extraction.rules.answers import answer
from memory.extraction.rules.classify import classify
from memory.extraction.rules.colon import colon_body, colon_parts
from memory.extraction.rules.corrections import (
    correction_of,
    taken_back_in_passing,
    without_the_wrong_value,
)
from memory.extraction.rules.episodes import episodes_for_turn, is_episode
from memory.extraction.rules.filters import (
    BACK_TO_REAL,
    COLON_RE,
    kept_clauses,
    standing_instruction,
    without_material,
)
from memory.extraction.rules.hits import Hit
from memory.extraction.rules.markers import (
    CHANGE_RE,
    HEDGE_RE,
    REPORTED_RE,
    SAFETY_RE,
    SELF_CORRECTION_RE,
    STANDING_RE,
    TIME_RE,
    changes_a_state,
    hedges_the_speaker,
    made_change,
    only_takes_back,
    weighs_up_what_came_before,
)
from memory.extraction.rules.merge import deferred, merge_hits
from memory.extraction.rules.phrasing import finish_sentence, naturalize
from memory.extraction.rules.preferences import SELF_PREF
from memory.extraction.salience import (
    about_outsider,
    hypothetical,
    noise_only,
    one_off_request,
    owner,
)
from memory.extraction.words import word_class
from memory.language.redaction import redact_pii
from memory.language.text import (
    CJK,
    join_clauses,
    lang_of,
    looks_like_question,
    split_clauses,
    split_sentences,
)


def changes_one_at_a_time_fact(sentence: str) -> bool:
    """A change word or a state change (bought, moved, joined: markers.changes_a_state) about
    a one-at-a-time concept: where one lives or works, one's phone…"""
    changed = CHANGE_RE.search(sentence) or changes_a_state(sentence)
    return bool(changed) and any(topics.concepts(sentence).values())


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
    return is_episode(sentence) and not SAFETY_RE.search(sentence)


# Where one works or lives, said in passing inside a question or a request ("…the charge nurse
# who trained me during my first week at Mercy General?", "我住仙林这边，周末去哪玩？"): the
# person's own phrase (my / our / 我) naming a one-at-a-time topic and a name of its own.
_MY_PHRASE_EN = re.compile(
    r"\b(?:my|our)\s+((?:[a-z-]+\s+){0,4}?(?:at|in|with|for|from)\s+"
    r"[A-Z][\w'.&-]*(?:\s+[A-Z][\w'.&-]*){0,3})"
)
_MY_PHRASE_ZH = re.compile(
    r"我(?:们|家)?(?:现在|目前)?((?:住|在)[\u4e00-\u9fffA-Za-z]{2,10}?(?:这边|那边|附近|上班|工作|读书))"
)


def _said_in_passing(sentence: str, lang: str) -> Hit | None:
    m = (_MY_PHRASE_ZH if lang == "zh" else _MY_PHRASE_EN).search(sentence)
    if m is None:
        return None
    phrase = m.group(1).strip()
    # "住仙林这边": a place is what stands before 这边 / 附近, whatever the segmenter knows of it
    named = salience.named_things(phrase) or re.search(r"(?:这边|那边|附近)$", phrase)
    if not any(topics.concepts(m.group(0)).values()) or not named:
        return None
    body = f"用户{phrase}" if lang == "zh" else f"The user mentioned their {phrase}"
    return Hit("fact", "semantic", body, m.group(0), 0.7, 0.55, general=True)


# The speaker's own thing in a question about it ("我这台Pixel 8拍视频老是发烫 有啥办法", "how do
# i turn off autocorrect on my pixel"): the question presupposes it is theirs. Not a question
# weighing things up or about getting one ("哪个好", "值得买吗", "should i get").
_OWN_ZH = re.compile(r"我(?:的|家|们|这|那)|(?:这|那)(?:台|部|辆|块|副|张)|老是|总是|动不动")
_OWN_EN = re.compile(
    r"\b(?:my|our)\b|\bi(?:'m| am)? (?:use|have|got|drive|bank|run)\b", re.IGNORECASE
)
_WEIGHING_THINGS = re.compile(
    r"哪个|哪款|哪家|还是|对比|比较|推荐|值得|买|换|想|打算|要不要|"
    r"\b(?:or|which|vs|compare|recommend|worth|buy|buying|get a|should i|thinking|switch)\b",
    re.IGNORECASE,
)


def _owned_in_passing(sentence: str, lang: str) -> Hit | None:
    own = _OWN_ZH if lang == "zh" else _OWN_EN
    if _WEIGHING_THINGS.search(sentence) or not own.search(sentence):
        return None
    named = kinds.named_kinds(sentence)
    owned = [(kind, names) for kind, names in named.items() if kind in kinds.ONE_AT_A_TIME_KINDS]
    if len(owned) > 1:
        # lowercase chat words that only sit near a kind ("its driving") yield to a name
        shaped = kinds.kinds_named_as_names(sentence, lowercase=False)
        owned = [(kind, names) for kind, names in owned if kind in shaped] or owned
    if len(owned) != 1:
        return None
    kind, names = owned[0]
    longest = max(names, key=len)
    if not all(n in longest for n in names):
        return None  # two things of one kind: no telling which is theirs
    written = re.search(re.escape(longest), sentence, re.IGNORECASE)
    name = written.group(0) if written else longest
    if not re.search(r"[A-Z0-9\u4e00-\u9fff]", name) or name[0].isdigit():
        return None  # written as a name ("Pixel 8", "卡罗拉"), not "chat", "13th"
    if lang == "zh":
        # the kind's word (what a request asks about: "车子保养…") and the person's own clause
        # ("我那台卡罗拉快四万公里了"): the segmenter may have cut the name short ("卡罗"), the
        # clause has it whole
        clause = next((c for c in split_clauses(sentence) if name in c), "")
        if clause and not (looks_like_question(clause) or salience.is_question(clause)):
            said = general.as_statement_of_the_user(clause.strip(" ，,"), zh=True)
            body = f"用户的{kinds.label(kind, zh=True)}：{said}"
        else:
            body = f"用户的{kinds.label(kind, zh=True)}是{name}"
    else:
        body = f"The user's {kinds.label(kind, zh=False)} is {name}"
    return Hit("fact", "semantic", body, sentence.strip(), 0.7, 0.55, general=True)


def _in_passing(hit: Hit, sentence: str) -> bool:
    """The speaker's own thing a question names (`_owned_in_passing`, whose hit quotes the whole
    question) outlives the question being one of the moment ("how do i … on my Pixel 8?")."""
    return hit.general and hit.quote == sentence.strip() and looks_like_question(sentence)


def _without_slips(sentence: str) -> str:
    """The sentence without its clauses that only name a slip ("Sorry 打错了，我是 B 型血"):
    having mistyped is no event the rest of the sentence reports."""
    clauses = split_clauses(sentence)
    kept = [c for c in clauses if not only_takes_back(c)]
    return (
        join_clauses(kept, bool(CJK.search(sentence)))
        if kept and len(kept) < len(clauses)
        else sentence
    )


def _takes_back(text: str) -> bool:
    """The turn opens by taking back what was just said ("算了算了，…先不折腾", "never mind,
    I'll keep the Mac", "还是算了，先观望吧")."""
    head = salience.leading_fillers().sub("", text.strip())
    first = (split_clauses(head) or [head])[0]
    return bool(re.match(rf"\W*(?:{word_class('retractions').pattern})", first, re.IGNORECASE))


def _doubts_what_was_just_said(turns: list[Turn], idx: int, text: str) -> bool:
    """A turn right after the user's own, opening with a doubt that names nothing ("有个猎头找我
    聊 Amazon 的岗位。" / "不过 I'm not sure，还没想好"): an afterthought to it, as within a turn.
    After the assistant's reply the doubt may answer the reply instead."""
    first = next(iter(split_sentences(text)), text)
    return idx > 0 and turns[idx - 1].role == "user" and _opens_with_doubt(first)


def _previous_user_turn(turns: list[Turn], idx: int, new_from: int) -> int | None:
    for j in range(idx - 1, max(0, new_from) - 1, -1):
        if turns[j].role == "user":
            return j
    return None


def _doubt_turn(candidates: list[Candidate], turn_index: int | None) -> list[Candidate]:
    """What that turn only wanted or meant to do is doubted; a change made stays."""
    if turn_index is None:
        return candidates
    return [
        replace(c, confidence=min(c.confidence, HEDGED_AFTERWARDS))
        if c.source_index == turn_index and not made_change(c.source_quote)
        else c
        for c in candidates
    ]


_IT_EN = re.compile(r"^(?:it's|it is|it was)\b", re.IGNORECASE)
_IT_ZH = re.compile(r"^(?:它|这车|这台|这部|这款)(?=是|的|已经|还|就|也|都)")


def _thing_for_it(sentence: str, previous: str) -> str:
    """ "it" at the head of a sentence is the one thing the sentence before it named, question
    or not: "how often should I rotate the tires on a Model 3? it's our only car" → "the
    Model 3 is our only car"; "我那台 Mate 60 怎么迁移微信？它是公司配的" likewise. Unchanged
    when the previous sentence names no thing or several."""
    it = _IT_EN.match(sentence) or _IT_ZH.match(sentence)
    if it is None:
        return sentence
    # a figure with its unit ("a 120V outlet") is a measure, not a thing
    names = [
        n
        for n in dict.fromkeys(n.removesuffix("'s") for n in topics.literal_names(previous))
        if not n[:1].isdigit()
    ]
    # "Model 3" and its part "Model" are one thing, and so are "Kia" "EV6" written side by side
    names = [n for n in names if not any(n != m and n in m for m in names)]
    spans = sorted((previous.find(n), previous.find(n) + len(n)) for n in names)
    if len(names) > 1 and all(a >= 0 for a, _ in spans):
        whole = previous[spans[0][0] : max(b for _, b in spans)]
        if not re.sub("|".join(re.escape(n) for n in names), "", whole).strip():
            names = [whole]
    if len(names) != 1 or kinds.kind_of(names[0]) in ("city", "person"):
        return sentence  # "…in Boston? it's cold here": the weather's "it", not the city
    name, rest = names[0], sentence[it.end() :]
    if it.re is _IT_ZH:
        return f"{name}{rest}"
    verb = "was" if it.group(0).lower().endswith("was") else "is"
    return f"the {name} {verb}{rest}"


def _hedged_afterwards(hits: list[Hit], hit_sentence: list[int], sentences: list[str]) -> None:
    """A hedge that names nothing of its own ("maybe next year? who knows.", "还没决定") doubts
    what the speaker said just before it in the turn (past other hedges: "有点心动，maybe 下个月
    试试？还没决定"): that statement is no firmer than the hedge. Not a completed change:
    "换了新工作，在字节。不过还不确定能待多久" still changed jobs."""
    for n, sentence in enumerate(sentences):
        if not _opens_with_doubt(sentence):
            continue
        for k in range(n - 1, -1, -1):
            own = [i for i, at in enumerate(hit_sentence) if at == k]
            if all(hits[i].hedged for i in own) and (own or hedges_the_speaker(sentences[k])):
                continue  # another hedge: the doubt reaches further back
            for i in own:
                hit = hits[i]
                if hit.hedged or made_change(hit.quote):
                    continue
                hits[i] = replace(
                    hit, hedged=True, confidence=min(hit.confidence, HEDGED_AFTERWARDS)
                )
            break


def _sentence_hedged(sentence: str) -> bool:
    """Whether a hedge or a report doubts what the sentence states. A hedge reaches the whole
    sentence from its first statement on ("可能下个月搬去杭州"), as an afterthought that names
    nothing ("…, not sure yet"), or where it hedges a change ("…，可能提前到四点"); somebody's
    words after the statement are theirs ("乐乐初一的数学老师布置了作业，他说完全看不懂": the grade
    is no report). A change made in a clause of its own stands. Weighing up whether to do
    something the clause does not name doubts what came before ("收到个offer 但要去新加坡 我还在
    想要不要接": what would be taken was named before the weighing-up)."""
    clauses = split_clauses(sentence) or [sentence]
    hedges = [hedges_the_speaker(c) for c in clauses]
    reports = [bool(REPORTED_RE.search(c)) for c in clauses]
    if not any(hedges + reports) or _made_in_a_clause_of_its_own(sentence):
        return False
    named = [_names_something(c) for c in clauses]
    first = named.index(True) if any(named) else 0
    return any(reports[: first + 1]) or any(
        i <= first
        or not named[i]
        or _changes(clause)
        or weighs_up_what_came_before(clause, _names_something)
        for i, (clause, hedge) in enumerate(zip(clauses, hedges, strict=True))
        if hedge
    )


def _changes(clause: str) -> bool:
    return bool(
        CHANGE_RE.search(clause) or changes_a_state(clause) or word_class("wishes").search(clause)
    )


def _opens_with_doubt(sentence: str) -> bool:
    """A hedge before the sentence names anything of its own: the whole sentence as an
    afterthought ("maybe next year?"), or its leading clauses ("不过也就是想想啊，啥都没定，说不定
    卡罗拉再开两年")."""
    if not HEDGE_RE.search(sentence):
        return False
    leading = []
    for clause in split_clauses(sentence) or [sentence]:
        if _names_something(clause):
            break
        leading.append(clause)
    return any(hedges_the_speaker(c) for c in leading)


def _made_in_a_clause_of_its_own(sentence: str) -> bool:
    """A clause that states a change made, with no hedge or report of its own and after no
    bare hedge: "医生说我脚踝肿可能是药的副作用，把药改成缬沙坦了" changed the drug; the doubt is
    about the cause."""
    for clause in split_clauses(sentence):
        if hedges_the_speaker(clause) and not _names_something(clause):
            # "I might, depending on how the next weeks go, end up taking the offer": a hedge
            # that names nothing of its own governs what follows it
            return False
        if made_change(clause) and not HEDGE_RE.search(clause) and not REPORTED_RE.search(clause):
            return True
    return False


# "in a few years", "过两年": when, not what
_SPAN_OF_TIME = re.compile(
    r"\b(?:a few|a couple(?: of)?|several|some|\d+)\s+(?:years?|months?|weeks?|days?)\b|"
    r"[过再][一两二三几\d]+[年月天]|"
    # "maybe after the holidays", "可能过完年吧": a time of the year, no thing of its own
    r"\b(?:after|before|over|during|around|by) (?:the )?(?:holidays?|christmas|new year|"
    r"break|vacation|summer|winter)\b|过完?年|年后|节后|放假",
    re.IGNORECASE,
)


def _names_something(sentence: str) -> bool:
    """Whether a sentence names a thing of its own, past its hedge and time words."""
    rest = _SPAN_OF_TIME.sub(" ", TIME_RE.sub(" ", HEDGE_RE.sub(" ", sentence)))
    rest = general.clean(rest)  # "Well, …", "lol": fillers and laughter name nothing
    return bool(topics.literal_names(rest) or head_nouns(rest) or topics.common_nouns(rest))


HEDGED_AFTERWARDS = 0.45  # as a statement with one hedge of its own (classify.py)


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
            turn = replace(turn, content=taken_back_in_passing(without_material(turn.content)))
            said = turn.content
            previous = _previous_user_turn(turns, idx, 0)
            fixed = correction_of(turns[previous].content, said) if previous is not None else None
            if fixed is not None:
                # "i meant june 13th": the turn before, said again with the right value
                turn = replace(turn, content=fixed)
            found = self._turn(turn, idx, prev_asst if prev_is_last else "", prev_asst, state)
            # "it's 8:40 not 6:40": the memory keeps the right value; the quote keeps both
            takes_back = bool(SELF_CORRECTION_RE.search(said))
            found = [
                replace(
                    c,
                    content=without_the_wrong_value(c.content, taking_back=takes_back),
                    source_quote=said if fixed is not None else c.source_quote,
                    takes_back=takes_back,
                )
                for c in found
            ]
            if _takes_back(turn.content) or _doubts_what_was_just_said(turns, idx, turn.content):
                candidates = _doubt_turn(candidates, _previous_user_turn(turns, idx, new_from))
            candidates.extend(found)
            covered = {c.source_quote for c in found if c.source_quote}
            candidates.extend(
                replace(e, takes_back=takes_back) for e in episodes_for_turn(turn, idx, covered)
            )
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
            if only_takes_back(sentence):
                # "Hold on, I'm mixing it up with my brother.": the slip is named, the next
                # sentence says what is right; this one answers no question of the assistant's
                continue
            sentence = state.resolve_pronoun(sentence)
            if n:
                sentence = _thing_for_it(sentence, sentences[n - 1])
            hit = self._sentence(sentence, lang, prev_asst)
            changed_state = changes_one_at_a_time_fact(sentence)
            # of a question, only what the hit says in passing can be a past event
            told = hit.quote if hit and looks_like_question(sentence) else sentence
            if hit and _episode_only(hit, _without_slips(told)) and not changed_state:
                continue  # a past event: the episodes extractor records it (with its date)
            if hit is None and n == 0 and prev_reply:
                # the first words after the assistant's question answer it
                hit = answer(sentence, lang, prev_reply, state)
            elif hit is None and (
                changed_state or not is_episode(sentence) or SAFETY_RE.search(sentence)
            ):
                # no specific detector knew the wording: the general one judges salience. A past
                # event that changed a one-at-a-time fact ("上个月底搬到成都了") is also the new
                # state, which replaces the old one; an allergy told with a plan ("周六去野餐，他
                # 对猕猴桃过敏") outlives the plan.
                hit = general.detect(sentence, state, answer=False)
            elif hit is not None and noise_only(told) and not _in_passing(hit, sentence):
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
        _hedged_afterwards(hits, hit_sentence, sentences)
        hits = deferred(hits, hit_sentence, sentences)
        # what the conversation was about first (its nouns, and words naming the topic concepts
        # of the earlier turns: "以后保养别提醒我去之前那家了" → 保养); the turn's own nouns last
        zh = lang == "zh"
        named = [topics.concept_word(c, zh) for c in state.concepts[:2]]
        context = list(
            dict.fromkeys(
                [*state.topics[:2], *filter(None, named), *head_nouns(text, common_only=True)]
            )
        )[:5]
        # someone else's doing is dropped before merging: merged into the user's statement on
        # its topic ("同事约周末去喝酒" + "我…酒是一滴都不碰的") it would take that along
        hits = [h for h in hits if not about_outsider(h.content_body)]
        found = [self._candidate(h, idx, lang) for h in merge_hits(hits)]
        return [replace(c, context_topics=context) for c in found if not about_outsider(c.content)]

    def _sentence(self, sentence: str, lang: str, prev_asst: str) -> Hit | None:
        full = sentence.strip()
        hedged = _sentence_hedged(full)
        standing = standing_instruction(full)
        if parts := colon_parts(full):  # "<task/decision> <topic>：<body>": the body is the content
            return colon_body(*parts, lang, hedged)
        if (looks_like_question(full) or salience.is_question(full)) and not hedged:
            return _said_in_passing(full, lang) or _owned_in_passing(full, lang)
        kept = kept_clauses(full, lang, standing=standing, hedged=hedged)
        if kept is None:
            return None
        body, signal = kept
        return classify(body, signal, full, lang, hedged, standing, prev_asst)

    def _candidate(self, hit: Hit, idx: int, lang: str) -> Candidate:
        hlang = "zh" if CJK.search(hit.content_body) else "en"
        content = hit.content_body
        if hit.general:
            content = content.rstrip("。.") + ("" if hlang == "zh" else ".")
        elif not content.startswith(("用户回答", "The user's answer")):
            if hit.category != "correction":
                content = naturalize(content, hlang, hit.slot)
            content = finish_sentence(content, hlang, hit.category, hit.kind)
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
