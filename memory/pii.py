"""PII redaction applied before any memory is written.

`redact(text)` replaces personal identifiers with typed placeholders and counts them:

    [EMAIL]     e-mail addresses
    [ID_CARD]   18-digit Chinese resident ID (GB 11643 checksum incl. X, plausible birth date);
                a 15/18-digit number labelled "身份证"/"ID card" is redacted without the check,
                and so is an ID-shaped one with an ID word shortly before it ("挂号要填身份证，
                我的是1101…")
    [ID_CARD]   also national ID forms whose shape identifies them: Singapore NRIC/FIN
                ("S8234567D"), Hong Kong ("A123456(7)"), and any
                alphanumeric value labelled NRIC / FIN / national ID / 证件号
    [SSN]       US social security numbers ("521-44-8812", or 9 digits labelled SSN)
    [BANK_CARD] 13-19 digit card numbers (optionally grouped by spaces/dashes), Luhn-valid, or
                card-shaped with a card / bank word shortly before it ("招行那张 6225…",
                "my Visa 4000 …"): people mistype and test cards fail Luhn, the number is
                theirs all the same
    [PHONE]     CN mobile (1[3-9]x, 11 digits; "138-1234-5678", "138 1234 5678", +86/0086),
                CN landline with area code ("010-12345678", "0755-1234567", "(021)55501234"),
                international "+<country> ..." numbers (8-15 digits) and NANP "415-555-0100"
                and any 7-15 digit number right after a phone label ("電話 9123 4567", "cell:
                0412 555 019")
    [SECRET]    card security codes, PINs, one-time codes and passwords after their label
                ("CVV 381", "验证码 4821", "password is hunter2")
    [PASSPORT]  passport numbers (after "passport"/"护照", or the CN E/G + 8 digits form)
    [ACCOUNT]   membership / frequent-flyer / account / routing numbers introduced by such a
                label; an IBAN with a valid checksum, labelled or not
    [HANDLE]    messaging handles after their label ("微信 ly_shoots_2020", "QQ 12345678",
                "ig @li.wei_99") and login names after theirs ("账号 chenyu_ops", "username
                li.wei_88"): a way to reach the person, or into their accounts
    [ADDRESS]   the street-level part of a postal address: "锦绣路1888弄12号1502室", "2217 Fillmore
                St Apt 4C", "Blk 123 … #04-56", "Flat 12B"; the district and city stay ("浦东新区",
                "San Francisco"): they say where someone lives without finding their door

    [PII]       what is left of an identifier of the source statement after a rewrite cut it
                out of shape (`redact_against`, with the source's `identifier_groups`)

Numbers that fail the checks stay: years ("2026"), prices ("8万", "80000"), times ("14:30"),
dates ("2026-01-06"), order numbers that are not Luhn-valid, quantities.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

_ND = r"(?<![0-9A-Za-z])"  # not preceded by a digit/letter
_NA = r"(?![0-9A-Za-z])"  # not followed by a digit/letter

# ASCII-only boundaries: in Python regexes \w also matches CJK, and Chinese text glues
# addresses to words ("邮箱是a@b.com").
EMAIL_RE = re.compile(
    r"(?<![A-Za-z0-9_.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,24}(?![A-Za-z0-9_-])"
)
ID_CARD_RE = re.compile(_ND + r"(\d{6})[ ]?(\d{8})[ ]?(\d{3}[0-9Xx])" + r"(?![0-9A-Za-z])")
BANK_CARD_RE = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
CN_MOBILE_RE = re.compile(r"(?<![\d+])(?:(?:\+|00)86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)")
CN_LANDLINE_RE = re.compile(
    r"(?<![\d+])(?:(?:\+|00)86[ -]?)?(?:\(0\d{2,3}\)[ -]?|0\d{2,3}[ -])\d{7,8}(?:-\d{1,5})?(?!\d)"
)
INTL_RE = re.compile(r"(?<![A-Za-z0-9_+])\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?!\d)")
NANP_RE = re.compile(r"(?<![\d-])(?:\(\d{3}\)\s?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\d-])")
# Between a label and its value: "护照号是 E12345678", "SSN: 521448812", "passport G1234567".
_LABEL_SEP = r"(\s*(?:is|:|：|为|是)?\s*)"
# How far before a card-shaped number a card / bank word may stand (the word, then 16 more).
_CARD_CONTEXT_WINDOW = 32
PASSPORT_RE = re.compile(
    r"(?i)(passport(?:\s+(?:number|no\.?|#))?|护照(?:号码|号)?)"
    + _LABEL_SEP
    + r"([A-Z]{1,2}\d{6,9})(?![0-9A-Za-z])"
)
LABELLED_ID_RE = re.compile(
    r"(?i)(身份证(?:号码|号)?|居民身份证|id card(?:\s+(?:number|no\.?))?|national id)"
    + _LABEL_SEP
    + r"(\d{15}|\d{17}[\dXx])(?![0-9A-Za-z])"
)
CN_PASSPORT_RE = re.compile(r"(?<![0-9A-Za-z])[EG]\d{8}(?![0-9A-Za-z])")
# Shapes that are national IDs wherever they appear: SG NRIC/FIN, HK ID.
NATIONAL_ID_RE = re.compile(
    r"(?<![0-9A-Za-z])(?:[STFGM]\d{7}[A-Z]|[A-Z]{1,2}\d{6}\([0-9A]\))(?![0-9A-Za-z])"
)
LABELLED_NATIONAL_ID_RE = re.compile(
    r"(?i)(nric|fin(?= )|national id(?:\s+(?:number|no\.?))?|id number|证件号(?:码)?)"
    + _LABEL_SEP
    + r"([A-Z]{0,2}\d[\dA-Z-]{4,}[\dA-Z])(?![0-9A-Za-z])"
)
SSN_RE = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
LABELLED_SSN_RE = re.compile(
    r"(?i)(ssn|social security(?:\s+(?:number|no\.?|#))?)" + _LABEL_SEP + r"(\d{9})(?!\d)"
)
# A card / bank word within a short distance before a card-shaped number makes it a card.
# A label says what a number is where its shape does not: a local phone number without an area
# code, a three-digit security code.
LABELLED_PHONE_RE = re.compile(
    r"(?i)((?:电话|電話|手机|手機|联系电话|聯絡電話|座机|\b(?:phone|tel|mobile|cell|whatsapp)\b)"
    r"(?:\s*(?:number|no\.?|#|号码|號碼|号|號))?)"
    + _LABEL_SEP
    + r"(\+?\d(?:[ -]?\d){6,14})(?![0-9A-Za-z])"
)
LABELLED_SECRET_RE = re.compile(
    r"(?i)((?:安全码|安全碼|验证码|驗證碼|密\s?码|密\s?碼|口令|\b(?:cvv2?|cvc2?|csc|pin|otp|passcode|"
    r"password|pw|pwd|security code|verification code)\b)(?:\s*(?:code|码|碼))?)"
    + _LABEL_SEP
    + r"((?=[^\s，,。]*\d)[0-9A-Za-z!@#$%^&*._-]{3,32})"
)
# A login written as "name / password" ("portal login is [EMAIL] / Tulip#77", "账号 xx / yy"):
# what follows the slash is the password when it is shaped like one (a lowercase letter or a
# symbol, and a digit or a symbol, no spaces — not "SSO / SAML2"), whatever the name was.
CREDENTIAL_PAIR_RE = re.compile(
    r"((?i:\blog[- ]?in\b|\bsign[- ]in\b|\bcredentials?\b|\busername\b|账号|帐号|登录|用户名)"
    r"[^/\n。]{0,60}?\S)(\s*/\s*)"
    r"((?=[^\s/，,。]*[a-z!@#$%^&*])(?=[^\s/，,。]*[\d!@#$%^&*])[^\s/，,。]{4,32})"
)
# An ID-card-shaped number (region, birth date, sequence) with an ID word shortly before it
# ("挂号要填身份证，我的是1101…") is an ID card even when a typo breaks its checksum.
ID_CONTEXT_RE = re.compile(
    r"(?i)(?:身份证|证件|居民证|\bid\b|national id|id card)[^。.!！?？\n]{0,24}$"
)
# Messaging handles after their label ("微信 ly_shoots_2020", "QQ: 12345678", "telegram @li_wei").
LABELLED_HANDLE_RE = re.compile(
    r"(?i)((?:微信号?|微信ID|(?<![A-Za-z])(?:vx|wx)(?![A-Za-z])|QQ号?|企业微信|钉钉号?|小红书号?|抖音号?|微博|"
    r"\b(?:wechat(?:\s+id)?|weixin|telegram|tg|line\s+id|instagram|ig|discord|skype|signal|"
    r"twitter|x handle|handle|username|user name|login|user id)\b|"
    # a login name, next to its password as often as not ("账号 chenyu_ops 密码 …")
    r"账号|帐号|用户名|登录名))"
    + _LABEL_SEP
    + r"(@?(?=[A-Za-z0-9_.-]*[\d_])[A-Za-z0-9][A-Za-z0-9_.-]{4,29})(?![0-9A-Za-z_])"
)
CARD_CONTEXT_RE = re.compile(
    r"(?i)(?:卡|银行|[招工建农中交]行|浦发|邮储|支付宝|card|visa|master\s?card|amex|debit|credit|bank)"
    r"[^。.!！?？\n]{0,16}$"
)
ACCOUNT_RE = re.compile(
    r"(?i)((?:frequent[- ]flyer|membership|member|loyalty|account|customer|employee|staff|student|"
    r"patient|policy|会员|常旅客|账户|账号|工号|员工号|学号|病历号|保单号|"
    r"银行卡|卡|routing|aba|swift|bic|iban|sort code|transit|路由|联行)"
    r"(?:\s*(?:number|no\.?|#|id|code|号码|号|卡号))?)"
    + _LABEL_SEP
    + r"([A-Z]{0,3}[ -]?\d[\d -]{4,}\d)(?![0-9A-Za-z])"
)

# An international bank account number, with or without its label: country, check digits,
# then the account, in groups or not; only a valid checksum (ISO 13616 mod 97) counts.
IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")


def iban_valid(value: str) -> bool:
    compact = value.replace(" ", "").upper()
    moved = compact[4:] + compact[:4]
    digits = "".join(str(int(ch, 36)) for ch in moved)
    return len(compact) >= 15 and int(digits) % 97 == 1


# From the house number after a road name (or its section, "大道北段") down to the door (弄 /
# 号 / 栋 / 单元 / 室, or the bare door number after them): the road and the district stay
# ("浦东新区锦绣路[ADDRESS]"); "2号线" is a metro line, not a house.
_ZH_NO = r"\s?\d{1,5}\s?"
ZH_ADDRESS_RE = re.compile(
    rf"(?<=[路街道巷里同段村]){_ZH_NO}(?:弄|号(?!线)|號)"
    rf"(?:{_ZH_NO}(?:弄|号(?![线楼])|號|栋|棟|幢|座))*(?:{_ZH_NO}单元)?"
    rf"(?:{_ZH_NO}(?:室|房|号房)|\s?\d{{3,4}}(?![\d年月日号天元块]))?"
    # a building and its door ("3座1805", "12栋2单元501室"), also after a building's name
    rf"|(?<!\d)\d{{1,5}}\s?(?:栋|棟|幢|座|号楼)(?:{_ZH_NO}单元)?"
    rf"(?:{_ZH_NO}(?:室|房)|\s?\d{{3,4}}(?![\d年月日号天元块]))"
)
_EN_STREET = (
    r"(?:St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Dr|Drive|Ln|Lane|Way|Ct|Court|Pl|Place|"
    r"Ter|Terrace|Pkwy|Parkway|Hwy|Highway|Cres|Crescent|Sq|Square)"
)
# what a number before a street counts when it is no door number ("500 steps down main st")
_EN_MEASURES = (
    r"(?:steps?|miles?|mi|km|meters?|metres?|m|feet|ft|yards?|yds?|blocks?|minutes?|mins?|"
    r"hours?|hrs?|times|laps?|people|calories|kcal|cal|dollars|bucks|words|pages)"
)
EN_ADDRESS_RE = re.compile(
    rf"(?<![\w#-])\d{{1,6}}[A-Za-z]?\s+(?:[A-Z][A-Za-z'.-]*\s+){{1,3}}{_EN_STREET}\b\.?"
    r"(?:,?\s*(?:Apt|Apartment|Unit|Suite|Ste|Flat|#)\.?\s*[\w-]+)?"
    r"|\b(?:Apt|Apartment|Suite|Ste)\.?\s*#?\d+[A-Za-z]?\b"
    r"|\b(?:Blk|Block)\s*\d{1,4}[A-Za-z]?\b|(?<![\w-])#\d{1,3}-\d{1,5}\b"
    r"|\bFlat\s+\d{1,4}[A-Za-z]?\b|\b\d{1,3}/F\b"
    # typed in lowercase, as in chat ("4471 larkspur ct apt 3b"): a door number of three
    # digits or more, no amount ("$2,150 for the new place"), before a word only streets end
    # with, so "2 blocks off market st" and "the new place" stay
    rf"|(?<![\w#$,.-])\d{{3,6}}[a-z]?\s+(?!{_EN_MEASURES}\b)(?:[a-z0-9][a-z0-9'.-]*\s+){{1,3}}"
    r"(?i:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|ct|pkwy|hwy)\b\.?"
    r"(?:,?\s*(?:apt|apartment|unit|suite|ste|#)\.?\s*[\w-]+)?"
    # a US state and ZIP code ("Portland, OR 97211")
    r"|\b(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|"
    r"S[CD]|T[NX]|UT|V[AT]|W[AIVY])\s+\d{5}(?:-\d{4})?\b"
)

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


@dataclass
class RedactionResult:
    text: str
    found: dict[str, int] = field(default_factory=dict)

    @property
    def redacted(self) -> bool:
        return bool(self.found)


def valid_id_card(number: str) -> bool:
    """18-digit PRC resident ID: checksum and a plausible birth date."""
    digits = re.sub(r"\s", "", number).upper()
    if not id_shaped(digits):
        return False
    total = sum(int(d) * w for d, w in zip(digits[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == digits[17]


def id_shaped(number: str) -> bool:
    """The shape of an 18-digit PRC resident ID: a region code and a plausible birth date."""
    digits = re.sub(r"\s", "", number).upper()
    if not re.fullmatch(r"\d{17}[\dX]", digits):
        return False
    if digits[0] not in "123456789":
        return False
    try:
        born = dt.date(int(digits[6:10]), int(digits[10:12]), int(digits[12:14]))
    except ValueError:
        return False
    return dt.date(1900, 1, 1) <= born <= dt.datetime.now(dt.UTC).date()


def luhn_valid(number: str) -> bool:
    digits = [int(c) for c in number if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_shaped(raw: str) -> bool:
    """Plain digits, or consistent groups (4-4-4-4, 4-6-5, 6-13...) - not a random run."""
    digits = re.sub(r"\D", "", raw)
    if digits[0] == "0" or len(set(digits)) == 1:
        return False
    groups = re.split(r"[ -]", raw)
    return len(groups) == 1 or all(len(g) >= 3 for g in groups)


def _digit_count(s: str) -> int:
    return sum(c.isdigit() for c in s)


def redact(text: str) -> RedactionResult:
    """Replace PII with typed placeholders; `found` counts replacements per type."""
    if not text:
        return RedactionResult(text or "", {})
    found: dict[str, int] = {}

    def bump(kind: str) -> str:
        found[kind] = found.get(kind, 0) + 1
        return f"[{kind}]"

    def keep_label(kind: str):
        # "身份证号 [ID_CARD]": the label and its separator stay, the value goes
        return lambda m: m.group(1) + m.group(2) + bump(kind)

    out = EMAIL_RE.sub(lambda m: bump("EMAIL"), text)

    def id_sub(m: re.Match) -> str:
        if valid_id_card(m.group(0)):
            return bump("ID_CARD")
        before = m.string[max(0, m.start() - _CARD_CONTEXT_WINDOW) : m.start()]
        if id_shaped(m.group(0)) and ID_CONTEXT_RE.search(before):
            return bump("ID_CARD")
        return m.group(0)

    out = ID_CARD_RE.sub(id_sub, out)
    # A number explicitly labelled as an ID card is redacted even when its checksum is off.
    out = LABELLED_ID_RE.sub(keep_label("ID_CARD"), out)
    out = PASSPORT_RE.sub(keep_label("PASSPORT"), out)
    out = CN_PASSPORT_RE.sub(lambda m: bump("PASSPORT"), out)
    out = LABELLED_NATIONAL_ID_RE.sub(keep_label("ID_CARD"), out)
    out = NATIONAL_ID_RE.sub(lambda m: bump("ID_CARD"), out)
    out = LABELLED_SSN_RE.sub(keep_label("SSN"), out)
    out = SSN_RE.sub(lambda m: bump("SSN"), out)

    def card_sub(m: re.Match) -> str:
        raw = m.group(0)
        if not _card_shaped(raw):
            return raw
        before = m.string[max(0, m.start() - _CARD_CONTEXT_WINDOW) : m.start()]
        if luhn_valid(raw) or CARD_CONTEXT_RE.search(before):
            return bump("BANK_CARD")
        return raw

    out = BANK_CARD_RE.sub(card_sub, out)
    out = LABELLED_SECRET_RE.sub(keep_label("SECRET"), out)
    out = CREDENTIAL_PAIR_RE.sub(keep_label("SECRET"), out)
    out = CN_MOBILE_RE.sub(lambda m: bump("PHONE"), out)
    out = CN_LANDLINE_RE.sub(lambda m: bump("PHONE"), out)

    def intl_sub(m: re.Match) -> str:
        return bump("PHONE") if 8 <= _digit_count(m.group(0)) <= 15 else m.group(0)

    out = INTL_RE.sub(intl_sub, out)
    out = NANP_RE.sub(lambda m: bump("PHONE"), out)
    out = LABELLED_PHONE_RE.sub(keep_label("PHONE"), out)

    def account_sub(m: re.Match) -> str:
        value = m.group(3)
        if _digit_count(value) < 6:
            return m.group(0)
        return keep_label("ACCOUNT")(m)

    out = ACCOUNT_RE.sub(account_sub, out)
    out = IBAN_RE.sub(lambda m: bump("ACCOUNT") if iban_valid(m.group(0)) else m.group(0), out)
    out = LABELLED_HANDLE_RE.sub(keep_label("HANDLE"), out)
    out = ZH_ADDRESS_RE.sub(lambda m: bump("ADDRESS"), out)
    out = EN_ADDRESS_RE.sub(lambda m: bump("ADDRESS"), out)
    return RedactionResult(out, found)


def contains_pii(text: str) -> bool:
    return redact(text).redacted


_DIGIT_GROUP = re.compile(r"\d{3,}")
_DIGIT_RUN = re.compile(r"(?<![0-9A-Za-z])\d[\d \-]*\d(?![0-9A-Za-z])")


def identifier_groups(source: str) -> frozenset[str]:
    """The digit groups (three or more digits) of the identifiers `redact` takes out of
    `source`: what `redact_against` looks for in a rewrite of it."""
    if not source:
        return frozenset()
    kept = set(_DIGIT_GROUP.findall(redact(source).text))
    return frozenset(set(_DIGIT_GROUP.findall(source)) - kept)


def redact_against(text: str, secret: frozenset[str]) -> RedactionResult:
    """`redact(text)`, and also what is left of an identifier of the source statement that a
    rewrite cut out of shape: "6214 8301 2 4455" (a card number missing a group) no longer
    looks like a card, but its groups are the card's. A run of digits whose groups of three or
    more are all groups of the source's identifiers (`identifier_groups`) goes as [PII]."""
    result = redact(text)
    if not secret:
        return result
    found = dict(result.found)

    def residue(m: re.Match) -> str:
        groups = _DIGIT_GROUP.findall(m.group(0))
        if groups and all(any(g in s for s in secret) for g in groups):
            found["PII"] = found.get("PII", 0) + 1
            return "[PII]"
        return m.group(0)

    out = _DIGIT_RUN.sub(residue, result.text)
    return RedactionResult(out, found)
