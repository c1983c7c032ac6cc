"""Tenants, agents (API clients with hashed keys) and staff roles."""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from core.models import BaseModel

# Staff roles are Django groups, created by a data migration.
ROLE_VIEWER = "viewer"
ROLE_OPERATOR = "operator"
ROLE_PRIVACY_OFFICER = "privacy_officer"
ROLE_ADMIN = "admin"
STAFF_ROLES = (ROLE_VIEWER, ROLE_OPERATOR, ROLE_PRIVACY_OFFICER, ROLE_ADMIN)

SCOPE_READ = "read"
SCOPE_WRITE = "write"
SCOPE_ERASE = "erase"
AGENT_SCOPES = (SCOPE_READ, SCOPE_WRITE, SCOPE_ERASE)


class Tenant(BaseModel):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class Agent(BaseModel):
    """An API client of one tenant. The key itself is never stored: prefix + HMAC only.

    `user` is a service account so django-guardian can grant the agent per-subject
    permissions; when `restricted_to_granted_subjects` is set the agent sees only those.
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="agents")
    name = models.CharField(max_length=120)
    key_prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=128)
    scopes = ArrayField(models.CharField(max_length=16), default=list)
    is_active = models.BooleanField(default=True)
    restricted_to_granted_subjects = models.BooleanField(default=False)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="agent",
        null=True,
        blank=True,
    )

    class Meta:
        ordering = ["tenant", "name"]
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="agent_name_unique_per_tenant"),
            models.CheckConstraint(
                condition=Q(scopes__contained_by=list(AGENT_SCOPES)), name="agent_scopes_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tenant.slug}/{self.name}"

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    @property
    def is_authenticated(self) -> bool:  # lets DRF treat the agent as request.user
        return True


class StaffTenantAccess(models.Model):
    """Marker table: staff limited to some tenants get guardian perms on those Tenant rows.

    Staff with no row here (and superusers) see every tenant.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tenant_access"
    )
    limited = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"{self.user} limited={self.limited}"
