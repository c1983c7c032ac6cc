"""Who may see and do what in the staff console.

Roles are Django groups (`viewer` < `operator` < `privacy_officer`; `admin` and superusers can
do everything). Staff limited to some tenants (a `StaffTenantAccess` row) see only tenants on
which they hold guardian's `accounts.view_tenant`; anything outside answers 404.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse

from accounts.models import (
    ROLE_ADMIN,
    ROLE_OPERATOR,
    ROLE_PRIVACY_OFFICER,
    ROLE_VIEWER,
    StaffTenantAccess,
    Tenant,
)

ROLE_RANK = {ROLE_VIEWER: 1, ROLE_OPERATOR: 2, ROLE_PRIVACY_OFFICER: 3, ROLE_ADMIN: 4}

# What each action needs (privacy officers can do what operators can).
CAN_VIEW = ROLE_VIEWER
CAN_EDIT_MEMORIES = ROLE_OPERATOR
CAN_RESOLVE_QUEUE = ROLE_OPERATOR
CAN_MANAGE_AGENTS = ROLE_ADMIN
CAN_PRIVACY = ROLE_PRIVACY_OFFICER


def user_roles(user: Any) -> set[str]:
    if not user.is_authenticated:
        return set()
    if user.is_superuser:
        return set(ROLE_RANK)
    cached = getattr(user, "_engram_roles", None)
    if cached is None:
        cached = set(user.groups.filter(name__in=ROLE_RANK).values_list("name", flat=True))
        user._engram_roles = cached
    return cached


def role_rank(user: Any) -> int:
    return max((ROLE_RANK[role] for role in user_roles(user)), default=0)


def has_role(user: Any, role: str) -> bool:
    """At least `role` (ranks are cumulative; admin implies everything)."""
    return role_rank(user) >= ROLE_RANK[role]


def can_reveal(user: Any) -> bool:
    """Personal data is shown masked to every role; operators and above may reveal one item
    at a time, with a reason and an audit entry."""
    return has_role(user, ROLE_OPERATOR)


def tenants_for(user: Any) -> QuerySet[Tenant]:
    """Tenants this staff member may see."""
    if user.is_superuser:
        return Tenant.objects.all()
    access = StaffTenantAccess.objects.filter(user=user, limited=True).exists()
    if not access:
        return Tenant.objects.all()
    from guardian.shortcuts import get_objects_for_user

    return get_objects_for_user(
        user, "accounts.view_tenant", klass=Tenant, accept_global_perms=False
    )


def tenant_ids_for(user: Any) -> list[int]:
    return list(tenants_for(user).values_list("pk", flat=True))


def ensure_tenant(user: Any, tenant_id: int) -> None:
    """404 (not 403) for objects of tenants the staff member cannot see."""
    if tenant_id not in tenant_ids_for(user):
        raise Http404("No such object.")


def staff_view(role: str = CAN_VIEW) -> Callable:
    """Login + a staff role at least `role`; 403 for staff without it."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not has_role(request.user, role):
                raise PermissionDenied("Your role does not allow this.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
