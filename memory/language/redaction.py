"""Personal data as extraction sees it: found and redacted also where it is glued to Chinese
text ("邮箱是a@b.com"), and whether a clause says anything beyond it."""

from __future__ import annotations

import re

from memory.pii import contains_pii as _contains_pii


def contains_pii(text: str) -> bool:
    """PII also when glued to Chinese text ("邮箱是a@b.com": "是" is a word character, so the
    redaction patterns' boundaries would not match there)."""
    return _contains_pii(text) or _contains_pii(re.sub(r"[\u4e00-\u9fff]", " ", text))


def redact_pii(text: str) -> str:
    """Redacted also where personal data is glued to Chinese ("邮箱是a@b.com")."""
    from memory.pii import redact

    if not contains_pii(text):
        return text
    spaced = re.sub(
        r"(?<=[\u4e00-\u9fff])(?=[\w.+-]+@)|(?<=[\u4e00-\u9fff])(?=\+?\d{7,})", " ", text
    )
    return redact(spaced).text.replace(" [", "[")


def beyond_pii(clause: str) -> bool:
    """Does a clause holding personal data say something else too ("有急事直接打我手机 …")?
    Personal data is redacted at write time; it is not a reason to forget the rest."""
    rest = re.sub(r"\[[A-Z_]+\]", "", redact_pii(clause))
    rest = re.sub(
        r"(?:我|用户|my|me|is|是|的|号码?|电话|手机|邮箱|e-?mail|phone|number)",
        "",
        rest,
        flags=re.I,
    )
    return len(re.sub(r"[\W_\d]+", "", rest)) >= 4
