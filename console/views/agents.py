"""Agents (API clients) for admins: list, create (key shown once), scopes, subject grants,
revoke. Every change goes through `accounts.services` / `memory.services`."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import Agent
from accounts.services import agent_create, agent_revoke, agent_set_scopes
from audit.services import actor_for_user
from console.access import CAN_MANAGE_AGENTS, has_role, staff_view, tenant_ids_for, tenants_for
from console.forms_review import (
    AgentCreateForm,
    AgentGrantForm,
    AgentRevokeForm,
    AgentScopesForm,
)
from console.review_selectors import (
    agent_get_for_staff,
    agent_granted_subjects,
    agent_list,
    subject_in_tenant,
)
from core.exceptions import ApplicationError
from memory.services import agent_subject_grant, agent_subject_ungrant


def _agent_for_admin(request: HttpRequest, pk: int) -> Agent:
    """404 for agents of tenants the staff member cannot see, then 403 below admin."""
    agent = agent_get_for_staff(user=request.user, agent_id=pk)
    if not has_role(request.user, CAN_MANAGE_AGENTS):
        raise PermissionDenied(_("Only admins manage agents."))
    return agent


@staff_view(CAN_MANAGE_AGENTS)
def agent_list_view(request: HttpRequest) -> HttpResponse:
    agents = agent_list(tenant_ids=tenant_ids_for(request.user))
    return render(request, "console/agent_list.html", {"nav": "agents", "agents": agents})


@require_http_methods(["GET", "POST"])
@staff_view(CAN_MANAGE_AGENTS)
def agent_create_view(request: HttpRequest) -> HttpResponse:
    """On success the key is rendered in this response only (never stored, never redirected)."""
    form = AgentCreateForm(request.POST or None, tenants=tenants_for(request.user))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            created = agent_create(
                tenant=data["tenant"],
                name=data["name"],
                scopes=data["scopes"],
                actor=actor_for_user(request.user, request),
                restricted_to_granted_subjects=data["restricted"],
            )
        except ApplicationError as exc:
            form.add_error("name" if exc.code != "invalid_scopes" else "scopes", exc.message)
        else:
            response = render(
                request,
                "console/agent_created.html",
                {"nav": "agents", "agent": created.agent, "key": created.key},
            )
            response["Cache-Control"] = "no-store"
            return response
    return render(request, "console/agent_form.html", {"nav": "agents", "form": form})


@staff_view()
def agent_detail(request: HttpRequest, pk: int) -> HttpResponse:
    agent = _agent_for_admin(request, pk)
    context = {
        "nav": "agents",
        "agent": agent,
        "scopes_form": AgentScopesForm(initial={"scopes": agent.scopes}),
        "grant_form": AgentGrantForm(),
        "granted": agent_granted_subjects(agent=agent),
    }
    return render(request, "console/agent_detail.html", context)


@require_POST
@staff_view()
def agent_scopes(request: HttpRequest, pk: int) -> HttpResponse:
    agent = _agent_for_admin(request, pk)
    form = AgentScopesForm(request.POST)
    if form.is_valid():
        try:
            agent_set_scopes(
                agent=agent,
                scopes=form.cleaned_data["scopes"],
                actor=actor_for_user(request.user, request),
            )
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Scopes saved."))
    else:
        messages.error(request, _("Choose at least one scope."))
    return redirect("console-agent", pk=agent.pk)


@require_POST
@staff_view()
def agent_grant(request: HttpRequest, pk: int) -> HttpResponse:
    """Grant a restricted agent one subject of its own tenant."""
    agent = _agent_for_admin(request, pk)
    form = AgentGrantForm(request.POST)
    subject = (
        subject_in_tenant(tenant_id=agent.tenant_id, external_id=form.cleaned_data["subject"])
        if form.is_valid()
        else None
    )
    if subject is None:
        messages.error(request, _("No such subject in tenant %s.") % agent.tenant.slug)
    else:
        agent_subject_grant(
            agent=agent, subject=subject, actor=actor_for_user(request.user, request)
        )
        messages.success(request, _("Granted %s.") % subject.external_id)
    return redirect("console-agent", pk=agent.pk)


@require_POST
@staff_view()
def agent_ungrant(request: HttpRequest, pk: int, subject_pk: int) -> HttpResponse:
    """Take a granted subject away from a restricted agent."""
    agent = _agent_for_admin(request, pk)
    subject = next((s for s in agent_granted_subjects(agent=agent) if s.pk == subject_pk), None)
    if subject is None:
        raise Http404("No such grant.")
    agent_subject_ungrant(agent=agent, subject=subject, actor=actor_for_user(request.user, request))
    messages.success(request, _("Removed %s.") % subject.external_id)
    return redirect("console-agent", pk=agent.pk)


@require_http_methods(["GET", "POST"])
@staff_view()
def agent_revoke_view(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST (with the box ticked) revokes the key for good."""
    agent = _agent_for_admin(request, pk)
    form = AgentRevokeForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and agent.is_active:
        agent_revoke(
            agent=agent,
            actor=actor_for_user(request.user, request),
            reason=form.cleaned_data["reason"],
        )
        messages.success(request, _("Agent %s revoked; its key no longer works.") % agent.name)
        return redirect("console-agent", pk=agent.pk)
    context = {"nav": "agents", "agent": agent, "form": form}
    return render(request, "console/agent_revoke.html", context)
