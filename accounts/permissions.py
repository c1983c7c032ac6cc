"""Who may do what: the agent API's scope check and the per-subject grant predicate."""

from typing import Any

from django.db.models import QuerySet
from rest_framework.permissions import BasePermission

from accounts.models import SCOPE_READ, SCOPE_WRITE, Agent

SUBJECT_ACCESS_PERM = "memory.access_subject"  # the guardian object permission of a grant


def agent_may_access_subject(agent: Agent, subject: Any) -> bool:
    """The one grant rule: an agent sees subjects of its own tenant, and a restricted agent
    only those it was granted (django-guardian `memory.access_subject` on the Subject row)."""
    if subject.tenant_id != agent.tenant_id:
        return False
    if not agent.restricted_to_granted_subjects:
        return True
    return agent.user is not None and agent.user.has_perm(SUBJECT_ACCESS_PERM, subject)


def agent_granted_subjects(agent: Agent) -> QuerySet:
    """The Subject rows granted to an agent (object permissions only, never a global one)."""
    from guardian.shortcuts import get_objects_for_user

    return get_objects_for_user(
        agent.user, SUBJECT_ACCESS_PERM, accept_global_perms=False, with_superuser=False
    ).filter(tenant_id=agent.tenant_id)


class IsAgent(BasePermission):
    """Authenticated agent whose scopes cover the method: reads need `read`, writes `write`.

    Views that need another scope (e.g. erase) set `required_scope`.
    """

    message = "This agent key lacks the scope this request needs."

    def has_permission(self, request: Any, view: Any) -> bool:
        agent = request.auth
        if not isinstance(agent, Agent):
            return False
        subject_id = getattr(view, "kwargs", {}).get("subject_id")
        if subject_id is not None:
            # 404 before 403: a subject the agent may not see does not exist for it.
            from memory.selectors import subject_for_agent

            # Kept on the request so the view does not look the subject up again.
            request.engram_subject = subject_for_agent(agent=agent, external_id=subject_id)
        scope = getattr(view, "required_scope", None)
        if scope is None:
            scope = SCOPE_READ if request.method in ("GET", "HEAD", "OPTIONS") else SCOPE_WRITE
        return agent.has_scope(scope)
