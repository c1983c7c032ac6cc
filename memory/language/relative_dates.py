"""Time expressions resolved against the day they were said: "上周六", "前天", "去年五月",
"three weeks ago", "last Friday", "on 2026-05-01", holidays ("国庆", "Christmas") — found in a
sentence (`find_times`), resolved to a day / week / month / year (`_resolve`), and written back
as absolute dates (`resolve_dates`: "上周六" → "2026-06-06（周六）"), so an episode keeps its date
however much later it is read."""

from __future__ import annotations

import calendar
import datetime as dt
import re

from memory.language.dates import EN_MONTH, EN_WEEKDAY, ZH_WEEKDAY
from memory.language.numerals import en_count, zh_int

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
