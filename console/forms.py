"""Console forms (subjects and memories part): filters, staff actions, reveal.

Every action form carries a required reason; it ends up in the audit entry.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from console.subject_selectors import SEARCH_KEYWORD, SEARCH_SEMANTIC
from console.templatetags.choice_labels import translated_choices
from memory.models import Memory
from memory.pii import redact

REASON_MAX = 200  # Memory.change_reason


def _blank(choices: Any, label: str) -> list[tuple[str, str]]:
    return [("", label), *choices]


class SubjectFilterForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=200,
        label=_("Search"),
        widget=forms.TextInput(attrs={"type": "search", "placeholder": _("External id or name")}),
    )
    tenant = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label=_("Tenant"))

    def __init__(self, *args: Any, tenants: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tenant"].choices = _blank(
            [(t.pk, t.name or t.slug) for t in tenants], _("All tenants")
        )


class MemoryFilterForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=500,
        label=_("Search"),
        widget=forms.TextInput(attrs={"type": "search", "placeholder": _("Search memories")}),
    )
    mode = forms.ChoiceField(
        required=False,
        label=_("Match"),
        choices=[(SEARCH_KEYWORD, _("Keywords")), (SEARCH_SEMANTIC, _("Meaning"))],
    )
    status = forms.ChoiceField(
        required=False, choices=_blank(translated_choices("memory.status"), _("Any status"))
    )
    category = forms.ChoiceField(
        required=False, choices=_blank(translated_choices("memory.category"), _("Any category"))
    )
    kind = forms.ChoiceField(
        required=False, choices=_blank(translated_choices("memory.kind"), _("Any kind"))
    )
    min_confidence = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=_("Confidence ≥"),
        widget=forms.NumberInput(attrs={"step": "0.05", "placeholder": "0"}),
    )
    max_confidence = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=_("Confidence ≤"),
        widget=forms.NumberInput(attrs={"step": "0.05", "placeholder": "1"}),
    )

    def filters(self) -> dict[str, Any]:
        """The valid filters (invalid fields are left out and shown as errors)."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {
            "status": data.get("status") or "",
            "category": data.get("category") or "",
            "kind": data.get("kind") or "",
            "min_confidence": data.get("min_confidence"),
            "max_confidence": data.get("max_confidence"),
            "q": (data.get("q") or "").strip(),
            "mode": data.get("mode") or SEARCH_KEYWORD,
        }


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=REASON_MAX,
        label=_("Reason"),
        widget=forms.TextInput(attrs={"placeholder": _("Why? (kept in the audit log)")}),
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("A reason is required."))
        return reason


class RevealForm(ReasonForm):
    pass


class MemoryCorrectForm(ReasonForm):
    """A correction: a new version with these values; the current one becomes superseded."""

    content = forms.CharField(
        label=_("Content"), max_length=4000, widget=forms.Textarea(attrs={"rows": 3})
    )
    category = forms.ChoiceField(label=_("Category"), choices=translated_choices("memory.category"))
    kind = forms.ChoiceField(label=_("Kind"), choices=translated_choices("memory.kind"))
    importance = forms.FloatField(
        label=_("Importance"),
        min_value=0,
        max_value=1,
        widget=forms.NumberInput(attrs={"step": "0.05"}),
    )
    confidence = forms.FloatField(
        label=_("Confidence"),
        min_value=0,
        max_value=1,
        widget=forms.NumberInput(attrs={"step": "0.05"}),
    )
    entities = forms.CharField(
        label=_("Entities"),
        required=False,
        max_length=2000,
        help_text=_("Comma-separated"),
    )
    field_order = ["content", "category", "kind", "importance", "confidence", "entities", "reason"]

    @classmethod
    def for_memory(cls, memory: Memory) -> MemoryCorrectForm:
        """Prefilled with the memory as the pipeline would store it: personal identifiers as
        placeholders ([PHONE] …), never in clear (`memory_correct` redacts again anyway)."""
        return cls(
            prefix="correct",
            initial={
                "content": redact(memory.content).text,
                "category": memory.category,
                "kind": memory.kind,
                "importance": memory.importance,
                "confidence": memory.confidence,
                "entities": ", ".join(redact(entity).text for entity in memory.entities),
            },
        )

    def clean_content(self) -> str:
        content = self.cleaned_data["content"].strip()
        if not content:
            raise forms.ValidationError(_("This field may not be blank."))
        return content

    def clean_entities(self) -> list[str]:
        raw = self.cleaned_data.get("entities") or ""
        parts = [part.strip() for part in raw.replace("，", ",").split(",")]
        return list(dict.fromkeys(part[:100] for part in parts if part))

    def changes(self) -> dict[str, Any]:
        """Keyword arguments for `memory.services.memory_correct`."""
        data = self.cleaned_data
        return {
            "content": data["content"],
            "category": data["category"],
            "kind": data["kind"],
            "importance": data["importance"],
            "confidence": data["confidence"],
            "entities": data["entities"],
        }
