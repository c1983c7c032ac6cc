import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from memory.pii import redact

register = template.Library()

_PLACEHOLDER = re.compile(
    r"\[(PHONE|EMAIL|ID_CARD|BANK_CARD|PASSPORT|ACCOUNT|SSN|ADDRESS|SECRET|HANDLE|PII)\]"
)
MASK = "▇▇▇"


@register.filter
def masked(text: str, reveal: bool = False) -> str:
    """Phone/e-mail/ID-like spans and redaction placeholders, masked. Pages pass `reveal`
    only for the audited reveal (console/subject_pii.html), never for a role."""
    if reveal or not text:
        return text
    return _PLACEHOLDER.sub(MASK, redact(text).text)


@register.simple_tag
def highlight(text: str, quote: str, reveal: bool = False) -> SafeString:
    """The source message with the memory's quote highlighted (<mark>)."""
    text = masked(text, reveal)
    quote = masked(quote or "", reveal)
    if quote and quote in text:
        before, _, after = text.partition(quote)
        return mark_safe(f"{escape(before)}<mark>{escape(quote)}</mark>{escape(after)}")  # noqa: S308
    return mark_safe(escape(text))  # noqa: S308
