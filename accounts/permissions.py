from typing import Any

from rest_framework.permissions import BasePermission

from accounts.models import SCOPE_READ, SCOPE_WRITE, Agent


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
