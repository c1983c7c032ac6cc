"""Numbers as people write them: Chinese numerals ("一千五", "十二", "二〇二四"), Arabic ones,
English count words, and amounts of money ("8万", "1,500元", "$300")."""

from __future__ import annotations

import re

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}

_CN_UNITS = {"十": 10, "百": 100, "千": 1000}


def cn_numeral_value(s: str) -> int | None:
    """Chinese numerals to int: 八万, 两千五百, 十五, 一千五 (= 1500), 一万五 (= 15000),
    三亿五千万, and digit by digit: 二〇二四. None when it is not a numeral."""
    if not s:
        return None
    if all(ch in _CN_DIGITS for ch in s):  # 二〇二四 → 2024
        return int("".join(str(_CN_DIGITS[ch]) for ch in s))
    total, section, digit, last_unit = 0, 0, None, 1
    for ch in s:
        if ch in _CN_DIGITS:
            if digit is not None:  # two digits in a row outside a digit-wise number
                return None
            digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[ch]
            digit, last_unit = None, _CN_UNITS[ch]
        elif ch == "万":
            total += (section + (digit or 0)) * 10_000
            section, digit, last_unit = 0, None, 10_000
        elif ch == "亿":
            total = (total + section + (digit or 0)) * 100_000_000
            section, digit, last_unit = 0, None, 100_000_000
        else:
            return None
    if digit is not None:  # a trailing digit counts in the next lower unit: 一千五 → 1500
        section += digit * (last_unit // 10 if last_unit >= 100 else 1)
    return total + section


AMOUNT_RE = re.compile(
    r"[$¥€£]?\s*(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|[零一二两三四五六七八九十百千]+)\s*(万|千|k\b|w\b|百)?\s*"
    r"(?:元|块|rmb|yuan|dollars|usd|美元)?",
    re.IGNORECASE,
)


def zh_number(s: str) -> float | None:
    """Chinese or Arabic numeral to float: "八" 8, "一千五" 1500, "十二" 12, "3.5" 3.5."""
    s = s.strip()
    if not s:
        return None
    try:
        return float(s)
    except ValueError:
        pass
    value = cn_numeral_value(s)
    return None if value is None else float(value)


def normalize_amount(num: str, unit: str | None) -> str | None:
    value = zh_number(num.replace(",", ""))
    if value is None:
        return None
    mult = {"万": 10000, "w": 10000, "千": 1000, "k": 1000, "百": 100}.get((unit or "").lower(), 1)
    value *= mult
    return str(int(value)) if value == int(value) else str(value)


def amount_values(text: str) -> list[str]:
    out = []
    for m in AMOUNT_RE.finditer(text):
        num, unit = m.group(1), m.group(2)
        if not unit and not re.search(r"\d", num) and len(num) < 2:
            continue
        after = text[m.end() : m.end() + 2]
        if re.match(r"\s*(?:个|人|台|本|次|年|月|号|日|点|层|晚|天|周|楼|sections?|people)", after):
            continue
        v = normalize_amount(num, unit)
        if v and float(v) >= 10:
            out.append(v)
    return out


# The digits of the small numbers dates and counts use (no zero: "零" is not a day).
_ZH_NUM = {ch: n for ch, n in _CN_DIGITS.items() if n}

_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "a couple of": 2, "a few": 3, "couple of": 2, "few": 3}  # fmt: skip


def zh_int(s: str) -> int | None:
    """A small Chinese or Arabic number (days, months, counts): "十五" 15, "二十三" 23, "7"."""
    s = s.strip()
    if s.isdigit():
        return int(s)
    if not s:
        return None
    if s in ("十",):
        return 10
    if s.startswith("十"):
        return 10 + _ZH_NUM.get(s[1:], 0)
    if "十" in s:
        a, _, b = s.partition("十")
        return _ZH_NUM.get(a, 0) * 10 + (_ZH_NUM.get(b, 0) if b else 0)
    return _ZH_NUM.get(s)


def en_count(s: str) -> int:
    s = s.lower()
    return int(s) if s.isdigit() else _EN_NUM.get(s, 1)
