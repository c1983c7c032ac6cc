"""Translated labels of the models' choice fields (status, category, kind, …).

The TextChoices in the models carry no translatable labels (adding them would need
migrations), so the pages translate them here instead. Each English msgid is exactly the label
Django derives for the choice (`Memory.Status.NEEDS_REVIEW.label == "Needs Review"`), so an
English page shows the same text as before; the context tells translators what it labels.

Templates::

    {% load choice_labels %}
    {{ memory.status|choice_label:"memory.status" }}   → "Needs Review" / "待审核"
    {{ memory.status|choice_code:"memory.status" }}    → "needs_review" / "待审核"

`choice_label` replaces `get_X_display`; `choice_code` is for places that showed the raw code
and keeps showing it when the page's language has no translation for it (English).
Forms use `translated_choices("memory.status")` for their select options.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

register = template.Library()

CHOICE_LABELS: dict[str, dict[str, Promise]] = {
    "memory.status": {
        "active": pgettext_lazy("memory status", "Active"),
        "observed": pgettext_lazy("memory status", "Observed"),
        "superseded": pgettext_lazy("memory status", "Superseded"),
        "expired": pgettext_lazy("memory status", "Expired"),
        "needs_review": pgettext_lazy("memory status", "Needs Review"),
        "archived": pgettext_lazy("memory status", "Archived"),
        "purge_pending": pgettext_lazy("memory status", "Purge Pending"),
    },
    "memory.category": {
        "preference": pgettext_lazy("memory category", "Preference"),
        "plan": pgettext_lazy("memory category", "Plan"),
        "correction": pgettext_lazy("memory category", "Correction"),
        "decision": pgettext_lazy("memory category", "Decision"),
        "fact": pgettext_lazy("memory category", "Fact"),
        "profile": pgettext_lazy("memory category", "Profile"),
    },
    "memory.kind": {
        "semantic": pgettext_lazy("memory kind", "Semantic"),
        "episodic": pgettext_lazy("memory kind", "Episodic"),
        "procedural": pgettext_lazy("memory kind", "Procedural"),
    },
    "event.role": {
        "user": pgettext_lazy("event role", "User"),
        "assistant": pgettext_lazy("event role", "Assistant"),
        "tool": pgettext_lazy("event role", "Tool"),
        "system": pgettext_lazy("event role", "System"),
    },
    "event.type": {
        "message": pgettext_lazy("event type", "Message"),
        "tool_call": pgettext_lazy("event type", "Tool Call"),
        "tool_result": pgettext_lazy("event type", "Tool Result"),
        "note": pgettext_lazy("event type", "Note"),
    },
    "observation.kind": {
        "low_confidence": pgettext_lazy("review item kind", "Low Confidence"),
        "conflict": pgettext_lazy("review item kind", "Conflict"),
        "needs_review": pgettext_lazy("review item kind", "Needs Review"),
    },
    "observation.status": {
        "pending": pgettext_lazy("review item status", "Pending"),
        "accepted": pgettext_lazy("review item status", "Accepted"),
        "rejected": pgettext_lazy("review item status", "Rejected"),
        "merged": pgettext_lazy("review item status", "Merged"),
    },
    "case.kind": {
        "access": pgettext_lazy("privacy case kind", "Access"),
        "rectification": pgettext_lazy("privacy case kind", "Rectification"),
        "erasure": pgettext_lazy("privacy case kind", "Erasure"),
        "restriction": pgettext_lazy("privacy case kind", "Restriction"),
    },
    "case.status": {
        "open": pgettext_lazy("privacy case status", "Open"),
        "awaiting_approval": pgettext_lazy("privacy case status", "Awaiting Approval"),
        "running": pgettext_lazy("privacy case status", "Running"),
        "completed": pgettext_lazy("privacy case status", "Completed"),
        "failed": pgettext_lazy("privacy case status", "Failed"),
        "rejected": pgettext_lazy("privacy case status", "Rejected"),
    },
    "case.requester": {
        "end_user": pgettext_lazy("privacy case requester", "End User"),
        "staff": pgettext_lazy("privacy case requester", "Staff"),
        "agent": pgettext_lazy("privacy case requester", "Agent"),
    },
    "audit.actor": {
        "agent": pgettext_lazy("audit actor type", "Agent"),
        "user": pgettext_lazy("audit actor type", "User"),
        "system": pgettext_lazy("audit actor type", "System"),
    },
}


def _label(value: Any, kind: str) -> Promise | None:
    return CHOICE_LABELS.get(kind, {}).get(str(value))


@register.filter
def choice_label(value: Any, kind: str) -> Any:
    """The choice's label in the page's language (the value itself when unknown)."""
    label = _label(value, kind)
    return value if label is None else str(label)


@register.filter
def choice_code(value: Any, kind: str) -> Any:
    """The translated label where the page's language has one, else the raw code."""
    label = _label(value, kind)
    if label is None:
        return value
    translated = str(label)
    with translation.override(None):  # no catalog: the English msgid
        untranslated = str(label)
    return value if translated == untranslated else translated


def translated_choices(kind: str) -> list[tuple[str, Promise]]:
    """(value, lazy translated label) pairs for a form's select."""
    return list(CHOICE_LABELS[kind].items())


def code_label(value: Any, kind: str) -> str:
    """`choice_code` for Python callers (e.g. chart labels)."""
    return str(choice_code(value, kind))
