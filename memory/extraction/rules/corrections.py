"""Corrections: "我说的是周四，不是周二", "不是青霉素，是头孢" (right after the assistant recorded
the wrong value), "I said Thursday, not Tuesday". A correction of the assistant's paraphrase
("已记录：周二…") is rewritten as the corrected paraphrase ("用户更正：每周四下午两点周会…")."""

from __future__ import annotations

import re

from memory.extraction.rules.filters import ACK_RE, clause_core
from memory.extraction.rules.hits import Statement, Verdict
from memory.extraction.rules.rewrite import rewrite_assistant
from memory.language.text import CJK, looks_like_question, split_sentences

# (pattern, wrong value first?): the right value is group 1 unless the wrong one comes first
# ("不是 A，是 B").
CORR_PAIR_ZH = [
    (
        re.compile(
            r"(?:我)?(?:说|指|要|讲)的是\s*(.+?)\s*[，,、]\s*(?:而)?不是\s*(.+?)\s*(?:[。！!，,]|$)"
        ),
        False,
    ),
    (re.compile(r"不是\s*(.+?)\s*[，,]?\s*(?:而)?是\s*(.+?)\s*(?:[。！!，,]|$)"), True),
    (re.compile(r"^(?:应该)?是\s*(.+?)\s*[，,]\s*不是\s*(.+?)\s*(?:[。！!，,]|$)"), False),
]


CORR_PAIR_EN = [
    (
        re.compile(
            r"\bI (?:said|meant|asked for|wanted)\s+(.+?),?\s+not\s+(.+?)\s*(?:[.!;,]|$)",
            re.IGNORECASE,
        ),
        False,
    ),
    (
        re.compile(
            r"\b(?:it's|it is|that's|that is|it was)\s+(.+?),\s*not\s+(.+?)\s*(?:[.!;,]|$)",
            re.IGNORECASE,
        ),
        False,
    ),
    (re.compile(r"^(?:no,?\s+)(.+?),\s*not\s+(.+?)\s*(?:[.!;,]|$)", re.IGNORECASE), False),
]


CORR_MARK = re.compile(
    r"不对|错了|听错|搞错|弄错|记错|搞混|说错|更正|纠正|我说的是|不是.+而是|"
    r"(?:说|指|讲)的是[^，,。]{1,20}[，,]\s*(?:而)?不是|"
    r"\bno,|\bwrong\b|\bI said\b|\bI meant\b|\bcorrection\b|\bnot what I\b",
    re.IGNORECASE,
)


RECORD_MARK = re.compile(
    r"已记录|已设置|已更新|已更正|已记下|记下了|已安排|已改为|已确定|整理如下|"
    r"\bnoted\b|\bgot it\b|\brecorded\b|\bset\b|\bsaved\b|\bconfirmed\b",
    re.IGNORECASE,
)


# Correction without an explicit marker: "不是青霉素，是头孢" right after the assistant
# recorded the wrong value.
NOT_BUT_RE = re.compile(r"(?:^|[，,。])\s*不是[^，,。]{1,20}[，,]\s*(?:而)?是")


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
        return clause_core(fixed)
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
        clause_core(c)
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


def correction(body: str, full: str, lang: str, prev_asst: str) -> tuple[str, str] | None:
    explicit = bool(CORR_MARK.search(full))
    if not explicit and not (prev_asst and NOT_BUT_RE.search(full)):
        return None
    pairs = CORR_PAIR_ZH if CJK.search(body) else CORR_PAIR_EN
    right = wrong = None
    for rx, wrong_first in pairs:
        if m := rx.search(body):
            right, wrong = (m.group(2), m.group(1)) if wrong_first else (m.group(1), m.group(2))
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


def states_correction(s: Statement) -> bool:
    return correction(s.body, s.full, s.lang, s.prev_asst) is not None


def corrected(s: Statement) -> Verdict:
    body, right = correction(s.body, s.full, s.lang, s.prev_asst)
    return Verdict("correction", body=body, right_text=right)


# A value taken back in the same breath ("Maya turns 7 on March 14 — wait, I meant March 18",
# "周三走，哦不对，周四"): the corrected value takes the place of the last value of its shape
# said before it, and the correction itself goes. Only a bare value after an explicit marker:
# anything longer is a statement of its own.
_EN_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ZH_NUM = r"[\d一二三四五六七八九十两]"
_VALUE_SHAPES = [
    re.compile(
        rf"{_EN_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
        rf"{_EN_MONTH}|{_ZH_NUM}{{1,3}}月{_ZH_NUM}{{1,3}}[号日]|(?<!\d)\d{{1,2}}[号日]|"
        r"\bthe \d{1,2}(?:st|nd|rd|th)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?\b|"
        r"(?:周|星期|礼拜)[一二三四五六日天]",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\b\d{{1,2}}(?::\d{{2}})?\s?(?:am|pm)\b|\b\d{{1,2}}:\d{{2}}\b|"
        rf"{_ZH_NUM}{{1,3}}点(?:半|{_ZH_NUM}{{1,2}}分?)?",
        re.IGNORECASE,
    ),
    re.compile(r"[$¥€£]?\d+(?:[.,]\d+)?\s?(?:[a-zA-Z%]{1,5}\b|[\u4e00-\u9fff]{1,2})?"),
]
_TAKE_BACK = re.compile(
    r"(?:\s*[—–-]+\s*|\s*[，,。.!！;；…]+\s*)"
    r"(?:(?:oh|oops|sorry|wait|hold on|no|ugh|omg|typo|autocorrect|哦|噢|啊)[,，\s]*)*"
    r"(?:I meant(?: to say)?|make that|correction:?|(?:哦)?不对(?:不对)?[，,\s]*(?:是)?|"
    # "May 14... ugh no, May 16", "302，哦不是，是402": a "no" after a sound of catching oneself
    r"(?:(?<=wait )|(?<=ugh )|(?<=oh ))no[,，]\s*|"
    r"(?<=[哦噢啊])不是[，,\s]*(?:是)?|"
    r"我是说|说错了[，,\s]*(?:是)?|应该是|"
    # a bare apology or typo note: only a value of the shape or form of one said before it
    r"(?:sorry|oops|autocorrect(?:ed)?|typo)[,，:：\s]+)\s*"
    r"(?P<value>(?:[^，,。.!！;；]|(?<=\d)[.,](?=\d)){1,16}?)\s*[吧了啊]?(?P<end>[。.!！;；，,](?!\d)|\s*[—–]|$)",
    re.IGNORECASE,
)


# Chinese chat breaks clauses with spaces ("下周一去育才小学报到 哦不对 是育英小学 打错了"): a
# space between two Chinese characters is read as the comma it stands for
_SPACE_AS_COMMA = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")


def taken_back_in_passing(text: str) -> str:
    """`text` with a value it takes back replaced by the corrected one (see above); unchanged
    when the correction is no bare value or nothing before it has that value's shape."""
    fixed = _taken_back(text)
    if fixed == text and _SPACE_AS_COMMA.search(text):
        spaced = _SPACE_AS_COMMA.sub("，", text)
        fixed = _taken_back(spaced)
        return text if fixed == spaced else fixed
    return fixed


def _taken_back(text: str) -> str:
    m = _TAKE_BACK.search(text)
    if not m:
        return text
    value = m.group("value").strip()
    before = text[: m.start()]
    shapes = _shapes_of_value(value)
    said = list(shapes[0].finditer(before)) if shapes else []
    span = (said[-1].start(), said[-1].end()) if said else _parallel_span(value, before)
    if span is None:
        return text
    start, end = span
    if value.isupper() and len(value) > 1 and before[start:end].istitle():
        value = value.title()  # "Ethan — autocorrect, EVAN": shouted, not spelled so
    closer = m.group("end")
    rest = f"{' ' if closer[:1] in '—–' else ''}{closer}{text[m.end() :]}"
    return f"{before[:start]}{value}{before[end:]}{rest}".rstrip(", ，")


_NUMERAL = re.compile(rf"^{_ZH_NUM}+$")
_NAME_WORD = re.compile(r"\b[A-Z][A-Za-z]+(?=(?:'s)?\b)")


def _parallel_span(value: str, before: str) -> tuple[int, int] | None:
    """Where `before` said what `value` puts right when they have no common shape but the same
    form: "三年级，不对，四年级" shares 年级 and differs in a numeral; "Ethan — autocorrect, EVAN"
    is a name spelt nearly alike. None when nothing before has the value's form."""
    if CJK.search(value):
        return _parallel_cjk(value, before)
    if not re.fullmatch(r"[A-Za-z]+", value):
        return None
    mine = set(value.lower())
    best, best_overlap = None, 0.4
    for word in _NAME_WORD.finditer(before):
        if word.start() == 0 or word.group() == "I" or word.group().lower() == value.lower():
            continue  # the first word is capitalised for the sentence, not as a name
        theirs = set(word.group().lower())
        overlap = len(mine & theirs) / len(mine | theirs)
        if overlap >= best_overlap:
            best, best_overlap = (word.start(), word.end()), overlap
    return best


def _parallel_cjk(value: str, before: str) -> tuple[int, int] | None:
    """The last span of `before` that keeps at least half of `value` as its suffix or prefix
    and differs only in the rest, of the same kind (a numeral for a numeral)."""
    n = len(value)
    # the same first and last characters around another middle, of any length: "朝阳实验中学"
    # put right as "朝阳外国语中学"
    for kept in range(n - 1, max(2, (n + 1) // 2) - 1, -1):
        for head in range(kept - 1, 0, -1):
            pre, suf = value[:head], value[n - (kept - head) :]
            middle = value[head : n - (kept - head)]
            if _NUMERAL.match(middle):
                continue  # a numeral for a numeral: the loop below reads those
            pattern = rf"{re.escape(pre)}([\u4e00-\u9fff]{{1,{len(middle) + 3}}}?){re.escape(suf)}"
            found = [f for f in re.finditer(pattern, before) if f.group(1) != middle]
            if found:
                return found[-1].start(), found[-1].end()
    for shared in range(n - 1, (n + 1) // 2 - 1, -1):
        for kept_at_end in (True, False):
            kept = value[-shared:] if kept_at_end else value[:shared]
            other = value[:-shared] if kept_at_end else value[shared:]
            pattern = (
                rf"({_ZH_NUM}{{1,3}}|[\u4e00-\u9fff]{{{len(other)}}})"
                if _NUMERAL.match(other)
                else rf"([\u4e00-\u9fff]{{{len(other)}}})"
            )
            pattern = (
                f"{pattern}{re.escape(kept)}" if kept_at_end else f"{re.escape(kept)}{pattern}"
            )
            found = [f for f in re.finditer(pattern, before) if f.group(1) != other]
            if _NUMERAL.match(other):
                found = [f for f in found if _NUMERAL.match(f.group(1))]
            if found:
                return found[-1].start(), found[-1].end()
    return None


_NOT_VALUE = re.compile(
    r"[，,\s]*(?:\bnot\s+(?:the\s+)?([^\s,.;!?，。；！？]+(?:\s?(?:am|pm))?)|"
    r"不是\s*([^\s，,。；;！!？?]{1,8}))",
    re.I,
)


def gives_another_value(new: str, old: str) -> bool:
    """The old statement gives a value of a shape the new one also gives (date, weekday, time,
    amount) that the new one does not: "是21楼" against "家在12楼", "the 18th" against "June
    14th", but not "按 Year 5 的程度找" against "她是 Year 5"."""
    for shape in _VALUE_SHAPES:
        mine, theirs = _values_of_shape(shape, new), _values_of_shape(shape, old)
        if mine and theirs - mine:
            return True
    return False


_FIGURE_RUN = re.compile(r"\d+(?:[.,]\d+)?(?:st|nd|rd|th)?", re.IGNORECASE)
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def corrected_statement(new: str, old: str) -> str | None:
    """The old statement with the value the new one corrects put right, when that is clear:
    the old gives one value of a shape and the new one other value of it ("用户家在12楼，有电
    梯" + "是21楼" → "用户家在21楼，有电梯"; "anniversary is on June 14th" + "the 18th" →
    "June 18th"). What else the old statement said stays said. None when it is not clear."""
    for shape in _VALUE_SHAPES:
        said = list(shape.finditer(old))
        if not said:
            continue
        olds = _values_of_shape(shape, old)
        fresh = [v for v in _values_of_shape(shape, new) if v not in olds]
        if shape is _VALUE_SHAPES[-1] and not any(_YEAR.match(v) for v in olds):
            fresh = [v for v in fresh if not _YEAR.match(v)]  # a year the date reader added
        if not fresh:
            continue  # not the shape corrected ("周二" stays when "四点" corrects the hour)
        if len(set(fresh)) != 1:
            return None
        right = next(m for m in shape.finditer(new) if fresh[0] in m.group(0).lower())
        if len(olds) > 1:
            # several figures: the one in the corrected figure's unit ("3栋8楼" + "18楼")
            unit = _FIGURE_RUN.sub("", right.group(0)).strip().lower()
            said = [m for m in said if _FIGURE_RUN.sub("", m.group(0)).strip().lower() == unit]
            if len(said) != 1 or not unit:
                return None
        wrong = said[0].group(0)
        figures_old, figures_new = _FIGURE_RUN.findall(wrong), _FIGURE_RUN.findall(right.group(0))
        if len(figures_old) == 1 and len(figures_new) == 1:
            # only the figure: "June 14th" + "the 18th" keeps June, "42码" + "43" keeps 码
            fixed = wrong.replace(figures_old[0], figures_new[0], 1)
        else:
            fixed = right.group(0).strip()
        start, end = said[0].span()
        return f"{old[:start]}{fixed}{old[end:]}"
    return None


def _values_of_shape(shape: re.Pattern, text: str) -> set[str]:
    found = [v.lower().strip() for v in shape.findall(text)]
    if shape is _VALUE_SHAPES[-1]:
        # an amount is its figure: what the shape takes after it may be the next word ("5 的")
        return {n for v in found for n in re.findall(r"\d+(?:[.,]\d+)?", v)}
    return set(found)


def _shapes_of_value(value: str) -> list[re.Pattern]:
    """The shapes (date, weekday, time, amount) a bare value has, most specific first ("3点" is
    a time and an amount)."""
    return [shape for shape in _VALUE_SHAPES if value and shape.fullmatch(value)]


def _said_wrong(m: re.Match) -> str:
    """The value of a "not 6:40" / "不是周三" match, without a trailing particle."""
    return re.sub(r"[的了吧啊呢]+$", "", (m.group(1) or m.group(2) or "").strip())


def wrong_values(text: str) -> list[str]:
    """The values a statement says were wrong: "it's 8:40 not 6:40" → ["6:40"], "是周四，不是
    周三" → ["周三"]. Only value-shaped words (a date, weekday, time, amount): "not sure" names
    no value."""
    return [
        value for value in map(_said_wrong, _NOT_VALUE.finditer(text)) if _shapes_of_value(value)
    ]


def without_the_wrong_value(text: str, *, taking_back: bool = False) -> str:
    """ "it's 8:40 not 6:40" → "it's 8:40": the value said to be wrong goes when the right one of
    its shape stands before it. Said in a turn that puts something right (`taking_back`: "说错了
    是菠萝过敏 不是芒果"), the thing said to be wrong goes whatever its shape."""

    def drop(m: re.Match) -> str:
        before = text[: m.start()]
        if taking_back and before.strip(" ，,"):
            return ""
        shapes = _shapes_of_value(_said_wrong(m))
        return "" if any(shape.search(before) for shape in shapes) else m.group(0)

    return _NOT_VALUE.sub(drop, text)


def correction_of(previous: str, text: str) -> str | None:
    """A turn that only takes back a value of the user's turn before ("i meant june 13th",
    "omg typo, i meant june 13th 🤦", "哦不对，周三"): that turn as it should have been said, or
    None."""
    said = re.sub(r"[^\w$¥€£%]+$", "", text.strip())  # trailing emoji and punctuation
    m = _TAKE_BACK.search(f"。{said}")
    if not m or m.start() > 16 or m.end() != len(said) + 1:
        return None  # a few words may lead in ("omg typo,"), nothing may follow
    joined = f"{previous.rstrip()}{m.group(0)}"
    corrected = taken_back_in_passing(joined)
    return None if corrected == joined else corrected
