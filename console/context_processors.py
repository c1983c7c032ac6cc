from typing import Any

from django.http import HttpRequest

from console.access import ROLE_RANK, can_reveal, has_role


def console(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "staff_can": {role: has_role(user, role) for role in ROLE_RANK},
        "staff_can_reveal": can_reveal(user),
    }
