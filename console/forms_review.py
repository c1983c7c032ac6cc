"""Input forms of the console's review part (queue, traces, replay, agents)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import AGENT_SCOPES, Tenant
from console.templatetags.choice_labels import translated_choices
from memory.recall import DEFAULT_WEIGHTS, SIGNALS

DECISIONS = ("accept", "reject", "merge", "edit")
ROUTES = tuple(DEFAULT_WEIGHTS)
NO_TENANT = -1  # an unknown / invisible tenant filter: matches nothing


class QueueFilterForm(forms.Form):
    kind = forms.ChoiceField(
        required=False, choices=[("", _("All kinds")), *translated_choices("observation.kind")]
    )
    tenant = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, choices=())

    def __init__(self, *args: Any, tenants: list[Tenant], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tenant"].choices = [("", _("All tenants"))] + [
            (t.pk, t.name or t.slug) for t in tenants
        ]

    def values(self) -> dict[str, Any]:
        """Valid filters; a tenant the staff member may not see matches nothing (never all)."""
        self.is_valid()
        data = self.cleaned_data
        tenant_id = NO_TENANT if "tenant" in self.errors else data.get("tenant")
        return {"kind": data.get("kind", ""), "tenant_id": tenant_id}


class ResolveForm(forms.Form):
    decision = forms.ChoiceField(choices=[(d, d) for d in DECISIONS])
    note = forms.CharField(required=False, max_length=2000)
    content = forms.CharField(required=False, max_length=20000)
    # the last item shown in the queue window (to append the next one after a resolve)
    after = forms.IntegerField(required=False, min_value=1)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("decision") == "edit" and not (data.get("content") or "").strip():
            self.add_error("content", _("Write the corrected content to edit and accept."))
        return data


class BulkResolveForm(forms.Form):
    decision = forms.ChoiceField(choices=[("accept", "accept"), ("reject", "reject")])
    ids = forms.TypedMultipleChoiceField(coerce=int, choices=())
    note = forms.CharField(required=False, max_length=2000)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Any id is syntactically fine; the selector decides what may be resolved.
        self.fields["ids"].choices = [(v, v) for v in self.data.getlist("ids") if v.isdigit()]


class TraceFilterForm(forms.Form):
    agent = forms.TypedChoiceField(required=False, coerce=int, empty_value=None, choices=())
    subject = forms.CharField(required=False, max_length=128)
    route = forms.ChoiceField(
        required=False, choices=[("", _("All routes"))] + [(r, r) for r in ROUTES]
    )
    date_from = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, agents: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["agent"].choices = [("", _("All agents"))] + [
            (a.pk, f"{a.tenant.slug}/{a.name}") for a in agents
        ]


class ReplayForm(forms.Form):
    top_k = forms.IntegerField(min_value=1, max_value=50)
    token_budget = forms.IntegerField(min_value=50, max_value=8000)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for signal in SIGNALS:
            self.fields[f"w_{signal}"] = forms.FloatField(
                label=signal,
                min_value=0,
                max_value=5,
                widget=forms.NumberInput(attrs={"step": "0.05"}),
            )

    @classmethod
    def initial_for(cls, trace: Any) -> dict[str, Any]:
        parameters = trace.parameters or {}
        weights = parameters.get("weights") or DEFAULT_WEIGHTS.get(
            trace.route, DEFAULT_WEIGHTS["mixed"]
        )
        initial: dict[str, Any] = {
            "top_k": parameters.get("top_k", 5),
            "token_budget": parameters.get("token_budget", 800),
        }
        initial.update({f"w_{s}": weights.get(s, 0.0) for s in SIGNALS})
        return initial

    def weights(self) -> dict[str, float]:
        return {s: float(self.cleaned_data[f"w_{s}"]) for s in SIGNALS}

    def weight_fields(self) -> list[forms.BoundField]:
        return [self[f"w_{s}"] for s in SIGNALS]


class AgentCreateForm(forms.Form):
    tenant = forms.ModelChoiceField(queryset=Tenant.objects.none(), label=_("Tenant"))
    name = forms.CharField(max_length=120, label=_("Name"))
    scopes = forms.MultipleChoiceField(
        label=_("Scopes"),
        choices=[(s, s) for s in AGENT_SCOPES],
        widget=forms.CheckboxSelectMultiple,
        initial=["read"],
    )
    restricted = forms.BooleanField(
        required=False,
        label=_("Restricted: sees only subjects granted to it"),
    )

    def __init__(self, *args: Any, tenants: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tenant"].queryset = tenants


class AgentScopesForm(forms.Form):
    scopes = forms.MultipleChoiceField(
        choices=[(s, s) for s in AGENT_SCOPES], widget=forms.CheckboxSelectMultiple
    )


class AgentGrantForm(forms.Form):
    subject = forms.CharField(max_length=128, label=_("Subject id"))


class AgentRevokeForm(forms.Form):
    reason = forms.CharField(required=False, max_length=500, label=_("Reason"))
    confirm = forms.BooleanField(label=_("Yes, revoke this key"))
