"""Forms of the privacy front ends: the person's own page (/me/) and the console's privacy
cases and audit viewer. Forms only parse and validate; the views call the services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from console.templatetags.choice_labels import translated_choices
from privacy.models import DataSubjectRequest

CONTENT_MAX = 2000
NOTES_MAX = 2000
REASON_MAX = 300
# The word a person types to confirm "forget everything": the English word always works, and
# so does its translation in the page's language.
FORGET_WORD = "FORGET"
KIND_RESTRICTION_LIFT = "restriction_lift"


def forget_words() -> set[str]:
    # Translators: the word a person must type to confirm deleting everything (keep it short).
    return {FORGET_WORD, gettext("FORGET").strip().upper()}


def _blank(choices: Any, label: str) -> list[tuple[str, str]]:
    return [("", label), *choices]


# --------------------------------------------------------------------------- /me/


class MemoryCorrectForm(forms.Form):
    content = forms.CharField(
        max_length=CONTENT_MAX,
        label=_("What should it say instead?"),
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean_content(self) -> str:
        content = " ".join(self.cleaned_data["content"].split())
        if not content:
            raise forms.ValidationError(_("Please write what we should remember instead."))
        return content


class ForgetForm(forms.Form):
    confirm = forms.CharField(
        max_length=40,
        label=_("Type the word to confirm"),
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )

    def clean_confirm(self) -> str:
        value = self.cleaned_data["confirm"].strip().upper()
        if value not in forget_words():
            raise forms.ValidationError(_("That is not the confirmation word."))
        return value


class PauseForm(forms.Form):
    paused = forms.TypedChoiceField(
        choices=[("1", "pause"), ("0", "resume")], coerce=lambda value: value == "1"
    )


# --------------------------------------------------------------------------- console: cases


def _tenant_choices(tenants: Any) -> list[tuple[int, str]]:
    return [(t.pk, t.name or t.slug) for t in tenants]


class CaseFilterForm(forms.Form):
    kind = forms.ChoiceField(
        required=False, choices=_blank(translated_choices("case.kind"), _("Any kind"))
    )
    status = forms.ChoiceField(
        required=False, choices=_blank(translated_choices("case.status"), _("Any status"))
    )
    tenant = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, label=_("Tenant"))
    overdue = forms.BooleanField(required=False, label=_("Overdue only"))

    def __init__(self, *args: Any, tenants: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tenant"].choices = _blank(_tenant_choices(tenants), _("All tenants"))

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "kind": data.get("kind") or None,
            "status": data.get("status") or None,
            "tenant_id": data.get("tenant"),
            "overdue_only": bool(data.get("overdue")),
        }


class CaseOpenForm(forms.Form):
    tenant = forms.TypedChoiceField(coerce=int, label=_("Tenant"))
    subject_id = forms.CharField(
        max_length=128,
        label=_("Subject id"),
        help_text=_("The id the agent uses for the person (e.g. wang.fang)."),
    )
    kind = forms.ChoiceField(
        label=_("Request"),
        choices=[
            (DataSubjectRequest.Kind.ACCESS, _("Access: export all their data")),
            (DataSubjectRequest.Kind.RECTIFICATION, _("Rectification: correct data")),
            (DataSubjectRequest.Kind.ERASURE, _("Erasure: delete everything")),
            (DataSubjectRequest.Kind.RESTRICTION, _("Restriction: pause memory")),
            (KIND_RESTRICTION_LIFT, _("Lift restriction: resume memory")),
        ],
    )
    notes = forms.CharField(
        required=False,
        max_length=NOTES_MAX,
        label=_("Notes"),
        help_text=_("How the request arrived, identity check done, … (no personal data)."),
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, *args: Any, tenants: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tenant"].choices = _tenant_choices(tenants)

    def case_kind(self) -> tuple[str, bool]:
        """(kind, lift) for `case_open`."""
        kind = self.cleaned_data["kind"]
        if kind == KIND_RESTRICTION_LIFT:
            return DataSubjectRequest.Kind.RESTRICTION, True
        return kind, False


class CaseExecuteForm(forms.Form):
    confirm_subject_id = forms.CharField(
        required=False, max_length=128, label=_("Type the subject id to confirm")
    )


class CaseRejectForm(forms.Form):
    reason = forms.CharField(max_length=REASON_MAX, label=_("Reason"))


# --------------------------------------------------------------------------- console: audit


class AuditFilterForm(forms.Form):
    actor_type = forms.ChoiceField(
        required=False,
        label=_("Actor type"),
        choices=_blank(translated_choices("audit.actor"), _("Any actor")),
    )
    actor_id = forms.CharField(required=False, max_length=64, label=_("Actor id"))
    action = forms.CharField(
        required=False,
        max_length=64,
        label=_("Action"),
        widget=forms.TextInput(attrs={"placeholder": _("e.g. privacy. or memory.delete")}),
    )
    subject = forms.CharField(
        required=False,
        max_length=128,
        label=_("Subject"),
        widget=forms.TextInput(attrs={"placeholder": _("Subject id or number")}),
    )
    since = forms.DateTimeField(
        required=False,
        label=_("From"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    until = forms.DateTimeField(
        required=False,
        label=_("Until"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "actor_type": data.get("actor_type") or None,
            "actor_id": (data.get("actor_id") or "").strip() or None,
            "action": (data.get("action") or "").strip() or None,
            "subject": (data.get("subject") or "").strip() or None,
            "since": data.get("since"),
            "until": data.get("until"),
        }
