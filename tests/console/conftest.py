"""Staff cast for console tests (shared by the subjects and the review parts).

Built on the `cast` fixture of tests/conftest.py: tenant A ("acme") and tenant B ("globex").

* `viewer`, `operator`, `privacy_officer`, `admin_user`: one user per role group, each limited
  to tenant A (a `StaffTenantAccess` row + guardian `accounts.view_tenant` on tenant A), so
  tenant B is "another tenant" for all of them.
* `limited_staff`: an operator limited to tenant B — the outsider for tenant A's objects.
* `superuser`: sees every tenant.
* `logged_in(client, user)`: logs the user into the test client and returns the client.

Keep these stable: other console test modules rely on them.
"""

from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import (
    ROLE_ADMIN,
    ROLE_OPERATOR,
    ROLE_PRIVACY_OFFICER,
    ROLE_VIEWER,
    Tenant,
)
from tests.factories import STAFF_PASSWORD, make_staff


@pytest.fixture
def tenant_a(cast) -> Tenant:
    return cast.tenant_a


@pytest.fixture
def tenant_b(cast) -> Tenant:
    return cast.tenant_b


@pytest.fixture
def viewer(cast):
    return make_staff("viewer", role=ROLE_VIEWER, tenants=[cast.tenant_a])


@pytest.fixture
def operator(cast):
    return make_staff("operator", role=ROLE_OPERATOR, tenants=[cast.tenant_a])


@pytest.fixture
def privacy_officer(cast):
    return make_staff("privacy", role=ROLE_PRIVACY_OFFICER, tenants=[cast.tenant_a])


@pytest.fixture
def admin_user(cast):
    return make_staff("admin-a", role=ROLE_ADMIN, tenants=[cast.tenant_a])


@pytest.fixture
def limited_staff(cast):
    """An operator who may only see tenant B."""
    return make_staff("limited-b", role=ROLE_OPERATOR, tenants=[cast.tenant_b])


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser(
        username="root", email="root@example.com", password=STAFF_PASSWORD
    )


@pytest.fixture
def no_role_user(db):
    """Logged-in staff account without any console role (403 everywhere)."""
    return make_staff("norole", role=None)


def login(client: Client, user) -> Client:
    client.force_login(user)
    return client


@pytest.fixture
def logged_in() -> Callable[[Client, object], Client]:
    """`logged_in(client, user)` → the client, logged in as `user`."""
    return login
