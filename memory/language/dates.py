"""Calendar words and the periods a text names.

One table per thing: English month names and abbreviations, weekday names (Chinese and
English), Chinese month and day numerals (memory.language.numerals.zh_int). On top of them:
weekday + clock-time atoms ("每周三下午三点" → ["周三", "15:00"]), calendar dates ("一月十八号"
→ "01-18"), and the date windows recall reads from a query ("五月份", "next quarter") and from
a memory ("2026-05-12", "九月十四号").
"""

from __future__ import annotations

import datetime as dt
import re

from memory.language.numerals import zh_int, zh_number

EN_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
# Month number by English name or abbreviation ("march", "mar", "sept").
EN_MONTH = {name: i for i, name in enumerate(EN_MONTH_NAMES, start=1)}
EN_MONTH.update({name[:3]: i for i, name in enumerate(EN_MONTH_NAMES, start=1)})
EN_MONTH["sept"] = 9
EN_WEEKDAY = {
    d: i
    for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                           "sunday"))
}  # fmt: skip
ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
# The weekday atom of a schedule value ("周三"), whatever language named the day.
WEEKDAY_LABELS = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
DAY_ZH = {ch: WEEKDAY_LABELS[i] for ch, i in ZH_WEEKDAY.items()}
DAY_EN = {name: WEEKDAY_LABELS[i] for name, i in EN_WEEKDAY.items()}
# A weekday value as `schedule_values` writes it ("周二", "周末"), whatever the language.
WEEKDAY_VALUE = re.compile(r"^(?:周[一二三四五六日]|周末)$")


def zh_month_day(token: str) -> int:
    """A month or day number as the date patterns capture it ("9", "十一", "二十三"); 0 if none."""
    return zh_int(token) or 0


# "mon and wed", "tues/thurs", "on weds", "sat mornings": abbreviated days, read as days only in
# a list of days, after a word that takes a day or before a time ("I sat down", "the sun" are not)
_EN_DAY_ABBR = r"(?:mon|tues?|weds?|thu(?:rs?)?|fri|sat|sun)"
_EN_DAY_FULL = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_EN_DAY_ANY = rf"(?:{_EN_DAY_FULL}s?|{_EN_DAY_ABBR}s?\.?)"
_DAY_JOINER = r"\s*(?:,|/|&|-|–|\band\b|\bor\b|\bto\b|\bthru\b|\bthrough\b)\s*"
DAY_RE = re.compile(
    rf"\b(?P<list>{_EN_DAY_ANY}(?:{_DAY_JOINER}{_EN_DAY_ANY})+)(?![a-z])|"
    r"(?:周|星期|礼拜)(?P<zh>[一二三四五六日天])|\b(?P<en>monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)s?\b|"
    rf"\b(?:on|every|next|this|last|till|until|by)\s+(?P<abbr>{_EN_DAY_ABBR})s?\b\.?|"
    rf"\b(?P<abbr_at>{_EN_DAY_ABBR})s?\.?(?=\s+(?:mornings?|afternoons?|evenings?|nights?|\d))|"
    r"(?P<weekend>周末|weekends?)",
    re.IGNORECASE,
)
_EN_DAY_WORD = re.compile(rf"\b{_EN_DAY_ANY}(?![a-z])", re.IGNORECASE)


def _en_day(word: str) -> str:
    """The weekday label of an English day name, whole or abbreviated ("Weds." → 周三)."""
    word = word.lower().rstrip(".")
    for name, label in DAY_EN.items():
        if word.rstrip("s") and name.startswith(word[:3]):
            return label
    return ""


TIME_OF_DAY_RE = re.compile(
    r"(上午|早上|早晨|中午|下午|晚上|傍晚)?\s*([零一二两三四五六七八九十\d]{1,3})\s*(?:点|:|：|时)\s*"
    r"(半|一刻|三刻|[零一二三四五]?十(?:[一二三四五六七八九])?分?|\d{2})?(?:分)?"
    # "7:30pm": the clock time with its half of the day after it
    r"(?:\s*(am|pm|a\.m\.|p\.m\.)(?![a-z]))?"
    r"|\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)",
    re.IGNORECASE,
)
# "6:30-7:30pm", "6 to 7pm": the half of the day said once, after the range
_RANGE_TO = re.compile(
    r"\s*(?:-|–|~|～|to|till|until)\s*(\d{1,2})(?::\d{2})?\s*(?:pm|p\.m\.)", re.I
)

PERIOD_RE = re.compile(
    r"上午|下午|晚上|中午|早上|\bmornings?\b|\bafternoons?\b|\bevenings?\b", re.IGNORECASE
)


def _clock(period: str | None, hour_s: str, minute_s: str | None) -> str | None:
    hour = zh_number(hour_s)
    if hour is None or hour > 24:
        return None
    minute = 0
    if minute_s:
        if minute_s == "半":
            minute = 30
        elif minute_s == "一刻":
            minute = 15
        elif minute_s == "三刻":
            minute = 45
        else:
            m = zh_number(minute_s.rstrip("分"))
            minute = int(m) if m is not None and m < 60 else 0
    hour = int(hour)
    if period and period.lower().startswith(("下午", "晚上", "傍晚", "p")) and hour < 12:
        hour += 12
    if period == "中午" and hour < 6:
        hour += 12
    return f"{hour:02d}:{minute:02d}"


def schedule_values(text: str) -> list[str]:
    """Weekday and clock-time atoms: ["周三", "15:00"]."""
    out: list[str] = []
    for m in DAY_RE.finditer(text):
        if m.group("list"):
            out.extend(filter(None, map(_en_day, _EN_DAY_WORD.findall(m.group("list")))))
        elif m.group("zh"):
            out.append(DAY_ZH[m.group("zh")])
        elif m.group("en") or m.group("abbr") or m.group("abbr_at"):
            out.append(_en_day(m.group("en") or m.group("abbr") or m.group("abbr_at")))
        else:
            out.append("周末")
    times = []
    for m in TIME_OF_DAY_RE.finditer(text):
        if m.group(2):
            period = m.group(1) or m.group(4)
            hour = zh_number(m.group(2))
            end = _RANGE_TO.match(text, m.end())
            if not period and end and hour is not None and hour <= int(end.group(1)):
                period = "pm"
            t = _clock(period, m.group(2), m.group(3))
        else:
            t = _clock(m.group(7), m.group(5), m.group(6))
        if t:
            times.append(t)
    if not times:
        times = [_period(p) for p in PERIOD_RE.findall(text)]
    return list(dict.fromkeys(out + times))


def _period(p: str) -> str:
    p = p.lower()
    if p.startswith(("上午", "早", "morning")):
        return "上午"
    if p.startswith(("下午", "afternoon")):
        return "下午"
    if p.startswith("中午"):
        return "中午"
    return "晚上"


# Calendar dates written as month + day ("一月十八号", "March 3rd", "3 Sept"): the values of
# dated events (memory/extraction/slots/events.py).
_ZH_N = r"[零〇一二两三四五六七八九十\d]{1,3}"

ZH_DATE = re.compile(rf"(?P<m>{_ZH_N})\s*月份?\s*(?P<d>{_ZH_N})\s*[号日]")

_EN_MON = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

EN_DATE = re.compile(
    rf"\b(?P<mon>{_EN_MON})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b|"
    rf"\b(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_EN_MON})\b",
    re.IGNORECASE,
)


def _md(m: int | float | None, d: int | float | None) -> str:
    if not m or not d or not (1 <= m <= 12 and 1 <= d <= 31):
        return ""
    return f"{int(m):02d}-{int(d):02d}"


def date_values(text: str) -> list[str]:
    """Calendar dates (month + day) in the text as "MM-DD": "一月十八号" "01-18", "March 3rd"
    "03-03", "3 Sept" "09-03". Lower-case "may"/"mar" are words, not months."""
    out = [_md(zh_number(m.group("m")), zh_number(m.group("d"))) for m in ZH_DATE.finditer(text)]
    for m in EN_DATE.finditer(text):
        mon = m.group("mon") or m.group("mon2")
        if mon.lower() in ("may", "mar") and mon[0].islower():
            continue
        out.append(_md(EN_MONTH[mon[:3].lower()], int(m.group("d") or m.group("d2"))))
    return list(dict.fromkeys(v for v in out if v))


PLAN_AHEAD_DAYS = 90

_PLAN_WINDOW_RES = [
    ("this_q", re.compile(r"这个?季度|本季度?|\bthis quarter\b", re.I)),
    ("next_q", re.compile(r"下个?季度|\bnext quarter\b", re.I)),
    ("this_m", re.compile(r"这个月|本月|\bthis month\b", re.I)),
    ("next_m", re.compile(r"下个?月|\bnext month\b", re.I)),
    ("this_w", re.compile(r"这周|本周|这个?星期|\bthis week\b", re.I)),
    ("next_w", re.compile(r"下周|下个?星期|\bnext week\b", re.I)),
    ("this_y", re.compile(r"今年|\bthis year\b", re.I)),
    ("next_y", re.compile(r"明年|\bnext year\b", re.I)),
]

_P_ZH_MD = re.compile(
    r"(?<![\d年])(\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月份?\s*(?:(\d{1,2}|[一二三]?十[一二三四五六七八九]?|"
    r"[一二三四五六七八九])\s*[日号])?"
)

_P_EN_MD = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?",
    re.I,
)

_P_ISO = re.compile(r"\b(20\d\d)-(\d{2})-(\d{2})\b")

_P_MD_VALUE = re.compile(r"^(\d{2})-(\d{2})$")

_EN_MONTHS_BUT_MAY = "|".join(n for n in EN_MONTH_NAMES if n != "may")  # "may" is a word
_Q_DATE_RES = [
    ("ym", re.compile(r"((?:19|20)\d\d)\s*年\s*(\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月")),
    ("rel_ym", re.compile(r"(去年|前年|今年)\s*(\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月")),
    ("y", re.compile(r"((?:19|20)\d\d)\s*年")),
    ("m", re.compile(r"(?<![\d年上下这本每])(\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月"
                     r"(?!\s*(?:\d|[一二三四五六七八九十]+)\s*[日号])")),
    ("en_my", re.compile(r"\b(" + "|".join(EN_MONTH_NAMES) + r")\s+((?:19|20)\d\d)\b", re.I)),
    ("en_m", re.compile(r"\b(" + _EN_MONTHS_BUT_MAY + r"|(?<=in )may|"
                        r"(?<=of )may|may(?= \d{4}))\b", re.I)),
    ("en_y", re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d\d)\b", re.I)),
    ("rel", re.compile(r"去年|前年|今年|上个?月|这个月|本月|"
                       r"last year|this year|last month|this month", re.I)),
]  # fmt: skip

_M_ISO = re.compile(r"((?:19|20)\d\d)-(\d\d)(?:-(\d\d))?")

_M_ZH = re.compile(r"((?:19|20)\d\d)年(?:(\d{1,2})月)?")

_M_EN = re.compile(r"\b(" + "|".join(EN_MONTH_NAMES) + r")\s+((?:19|20)\d\d)\b", re.I)

_M_YEAR = re.compile(r"[（(]((?:19|20)\d\d)[)）]")


def plan_window(query: str, today: dt.date) -> tuple[dt.date, dt.date]:
    """The period a plan question looks ahead to, as [start, end); by default the next
    PLAN_AHEAD_DAYS days."""
    for kind, rx in _PLAN_WINDOW_RES:
        if not rx.search(query):
            continue
        q_start = dt.date(today.year, (today.month - 1) // 3 * 3 + 1, 1)
        if kind in ("this_q", "next_q"):
            start = q_start if kind == "this_q" else _add_months(q_start, 3)
            return max(start, today), _add_months(start, 3)
        if kind in ("this_m", "next_m"):
            start = _add_months(today.replace(day=1), 0 if kind == "this_m" else 1)
            return max(start, today), _add_months(start, 1)
        if kind in ("this_w", "next_w"):
            monday = today - dt.timedelta(days=today.weekday())
            start = monday if kind == "this_w" else monday + dt.timedelta(days=7)
            return max(start, today), start + dt.timedelta(days=7)
        if kind == "this_y":
            return today, dt.date(today.year + 1, 1, 1)
        return dt.date(today.year + 1, 1, 1), dt.date(today.year + 2, 1, 1)
    return today, today + dt.timedelta(days=PLAN_AHEAD_DAYS)


def _add_months(day: dt.date, n: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + n
    return dt.date(index // 12, index % 12 + 1, 1)


def plan_dates(
    content: str, slot_values: list[str] | None, today: dt.date
) -> list[tuple[dt.date, dt.date]]:
    """Periods a plan memory is dated to: exact dates ("2026-09-14", slot value "09-14"), month
    days ("九月十四号", "September 14") or months ("十月份", "in October"). A month (day) without
    a year is its next occurrence, counting from a fortnight ago."""
    out: list[tuple[dt.date, dt.date]] = []

    def add(month: int, day: int | None, year: int | None = None) -> None:
        if not 1 <= month <= 12:
            return
        if year is None:
            year = today.year
            if dt.date(year, month, min(day or 28, 28)) < today - dt.timedelta(days=14):
                year += 1
        if day:
            try:
                d = dt.date(year, month, day)
            except ValueError:
                return
            out.append((d, d + dt.timedelta(days=1)))
        else:
            first = dt.date(year, month, 1)
            out.append((first, _add_months(first, 1)))

    content = content or ""
    for m in _P_ISO.finditer(content):
        add(int(m.group(2)), int(m.group(3)), int(m.group(1)))
    for value in slot_values or []:
        if m := _P_MD_VALUE.match(value):
            add(int(m.group(1)), int(m.group(2)))
    for m in _P_ZH_MD.finditer(content):
        add(zh_month_day(m.group(1)), zh_month_day(m.group(2)) if m.group(2) else None)
    for m in _P_EN_MD.finditer(content):
        word = m.group(1).lower()
        if word == "may" and not m.group(2) and not m.group(1)[0].isupper():
            continue
        month = EN_MONTH[word[:3]]
        add(month, int(m.group(2)) if m.group(2) else None)
    return out


def query_date_window(query: str, today: dt.date) -> tuple[dt.date, dt.date] | None:
    """The period a question names ("五月份", "去年", "in May", "last month", "2025年3月"),
    as [start, end); a bare month is its latest occurrence not after `today`."""
    for kind, rx in _Q_DATE_RES:
        m = rx.search(query)
        if not m:
            continue
        if kind in ("ym", "en_my"):
            if kind == "ym":
                year, month = int(m.group(1)), zh_month_day(m.group(2))
            else:
                year, month = int(m.group(2)), EN_MONTH[m.group(1).lower()]
            return _month_window(year, month)
        if kind == "rel_ym":
            year = today.year - {"去年": 1, "前年": 2, "今年": 0}[m.group(1)]
            return _month_window(year, zh_month_day(m.group(2)))
        if kind in ("y", "en_y"):
            year = int(m.group(1))
            return dt.date(year, 1, 1), dt.date(year + 1, 1, 1)
        if kind in ("m", "en_m"):
            month = zh_month_day(m.group(1)) if kind == "m" else EN_MONTH[m.group(1).lower()]
            if not 1 <= month <= 12:
                continue
            year = today.year if month <= today.month else today.year - 1
            return _month_window(year, month)
        word = m.group(0).lower()
        if word in ("去年", "last year"):
            return dt.date(today.year - 1, 1, 1), dt.date(today.year, 1, 1)
        if word == "前年":
            return dt.date(today.year - 2, 1, 1), dt.date(today.year - 1, 1, 1)
        if word in ("今年", "this year"):
            return dt.date(today.year, 1, 1), dt.date(today.year + 1, 1, 1)
        if word in ("这个月", "本月", "this month"):
            return _month_window(today.year, today.month)
        prev = today.replace(day=1) - dt.timedelta(days=1)
        return _month_window(prev.year, prev.month)
    return None


def _month_window(year: int, month: int) -> tuple[dt.date, dt.date] | None:
    if not 1 <= month <= 12:
        return None
    end = dt.date(year + (month == 12), month % 12 + 1, 1)
    return dt.date(year, month, 1), end


def memory_dates(content: str) -> list[tuple[dt.date, dt.date]]:
    """Periods written in a memory ("2026-05-12", "2026年5月", "May 2026", "(2025)")."""
    out: list[tuple[dt.date, dt.date]] = []
    for m in _M_ISO.finditer(content):
        year, month = int(m.group(1)), int(m.group(2))
        if not 1 <= month <= 12:
            continue
        if m.group(3):
            try:
                day = dt.date(year, month, int(m.group(3)))
            except ValueError:
                continue
            out.append((day, day + dt.timedelta(days=1)))
        elif window := _month_window(year, month):
            out.append(window)
    for m in _M_ZH.finditer(content):
        year = int(m.group(1))
        if m.group(2):
            if window := _month_window(year, int(m.group(2))):
                out.append(window)
        else:
            out.append((dt.date(year, 1, 1), dt.date(year + 1, 1, 1)))
    for m in _M_EN.finditer(content):
        if window := _month_window(int(m.group(2)), EN_MONTH[m.group(1).lower()]):
            out.append(window)
    for m in _M_YEAR.finditer(content):
        year = int(m.group(1))
        out.append((dt.date(year, 1, 1), dt.date(year + 1, 1, 1)))
    return out


def event_date(content: str) -> str:
    """The first exact date in an episodic memory's content ("" when none)."""
    m = _M_ISO.search(content or "")
    return m.group(0) if m and m.group(3) else ""
