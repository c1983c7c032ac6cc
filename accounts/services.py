"""State changes for tenants and agents (each writes its audit entry in the same transaction),
and the grant guards every service that changes a subject's data calls with its actor."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from accounts import keys
from accounts.models import AGENT_SCOPES, Agent, Tenant
from accounts.permissions import agent_granted_subjects, agent_may_access_subject
from audit.models import AuditEntry
from audit.services import Actor, audit_record
from core.exceptions import ApplicationError, NotFound

MSG_UNKNOWN_SCOPE = "Unknown scope {scope!r}; choose from read, write, erase."
MSG_NO_SCOPES = "An agent needs at least one scope."
MSG_NO_SUBJECT = "No such subject."


@dataclass(frozen=True)
class AgentWithKey:
    agent: Agent
    key: str  # shown once, never stored


def tenant_get_or_create(*, slug: str, name: str = "", actor: Actor) -> Tenant:
    slug = slugify(slug)
    if not slug:
        raise ApplicationError("invalid_tenant", "A tenant slug needs letters or digits.")
    with transaction.atomic():
        tenant, created = Tenant.objects.get_or_create(slug=slug, defaults={"name": name or slug})
        if created:
            audit_record(actor=actor, action="tenant.create", target=tenant, tenant_id=tenant.pk)
    return tenant


def _validated_scopes(scopes: Iterable[str]) -> list[str]:
    cleaned = sorted({scope.strip().lower() for scope in scopes if scope.strip()})
    if not cleaned:
        raise ApplicationError("invalid_scopes", MSG_NO_SCOPES)
    for scope in cleaned:
        if scope not in AGENT_SCOPES:
            raise ApplicationError("invalid_scopes", MSG_UNKNOWN_SCOPE.format(scope=scope))
    return cleaned


def agent_create(
    *,
    tenant: Tenant,
    name: str,
    scopes: Iterable[str],
    actor: Actor,
    restricted_to_granted_subjects: bool = False,
) -> AgentWithKey:
    """Create an agent with a fresh key; the key is returned once and only its HMAC is kept."""
    clean_scopes = _validated_scopes(scopes)
    name = name.strip()
    if not name:
        raise ApplicationError("invalid_name", "An agent needs a name.")
    if Agent.objects.filter(tenant=tenant, name=name).exists():
        raise ApplicationError(
            "duplicate_agent", f"Tenant {tenant.slug!r} already has an agent named {name!r}."
        )
    key, prefix = keys.generate_key()
    with transaction.atomic():
        # Service account so django-guardian can hold per-subject grants for this agent.
        user = get_user_model().objects.create(
            username=f"agent-{prefix}", is_active=True, is_staff=False
        )
        user.set_unusable_password()
        user.save(update_fields=["password"])
        agent = Agent(
            tenant=tenant,
            name=name,
            key_prefix=prefix,
            key_hash=keys.hash_key(key),
            scopes=clean_scopes,
            restricted_to_granted_subjects=restricted_to_granted_subjects,
            user=user,
        )
        agent.full_clean()
        agent.save()
        audit_record(
            actor=actor,
            action="agent.create",
            target=agent,
            tenant_id=tenant.pk,
            changed_fields=["scopes", "name"],
        )
    return AgentWithKey(agent=agent, key=key)


def agent_revoke(*, agent: Agent, actor: Actor, reason: str = "") -> Agent:
    with transaction.atomic():
        agent.is_active = False
        agent.revoked_at = timezone.now()
        agent.save(update_fields=["is_active", "revoked_at", "updated_at"])
        audit_record(
            actor=actor,
            action="agent.revoke",
            target=agent,
            tenant_id=agent.tenant_id,
            reason=reason,
            changed_fields=["is_active"],
        )
    return agent


def agent_set_scopes(*, agent: Agent, scopes: Iterable[str], actor: Actor) -> Agent:
    clean_scopes = _validated_scopes(scopes)
    with transaction.atomic():
        agent.scopes = clean_scopes
        agent.save(update_fields=["scopes", "updated_at"])
        audit_record(
            actor=actor,
            action="agent.update",
            target=agent,
            tenant_id=agent.tenant_id,
            changed_fields=["scopes"],
        )
    return agent


def agent_touch(*, agent: Agent) -> None:
    """Record use at most once a minute (a hot path: no audit, one conditional UPDATE)."""
    now = timezone.now()
    if agent.last_used_at and (now - agent.last_used_at).total_seconds() < 60:
        return
    Agent.objects.filter(pk=agent.pk).update(last_used_at=now)
    agent.last_used_at = now


# --------------------------------------------------------------------------- grant guards
#
# Every service that changes a subject's data calls one of these with its `actor`, so the
# grant rule holds whichever door (API, task, command) the change came through. Actors that
# are not agents (staff, the person on /me/, system jobs) pass: their doors check them.


def _agent_for_actor(actor: Actor) -> Agent | None:
    """The active agent behind an agent actor; None when it is gone, revoked or malformed."""
    try:
        pk = int(actor.id)
    except ValueError:
        return None
    return Agent.objects.select_related("user").filter(pk=pk, is_active=True).first()


def subject_access_check(*, actor: Actor, subject: Any) -> None:
    """Raise NotFound (404, as if the subject did not exist) when an agent actor may not
    change `subject`: another tenant's, or not granted to a restricted agent."""
    if actor.type != AuditEntry.ActorType.AGENT:
        return
    agent = _agent_for_actor(actor)
    if agent is None or not agent_may_access_subject(agent, subject):
        raise NotFound(MSG_NO_SUBJECT)


def subject_create_check(*, actor: Actor, tenant_id: int) -> None:
    """Creating a subject on first write: a restricted agent may not (it can only be granted
    existing subjects), nor an agent of another tenant."""
    if actor.type != AuditEntry.ActorType.AGENT:
        return
    agent = _agent_for_actor(actor)
    if agent is None or agent.tenant_id != tenant_id or agent.restricted_to_granted_subjects:
        raise NotFound(MSG_NO_SUBJECT)


def subject_scope_for_actor(*, actor: Actor, tenant_id: int) -> Q:
    """Condition on `subject_id` for a tenant-wide change (e.g. flag every memory linked to a
    document): the subjects the actor may change, nothing of another tenant's."""
    if actor.type != AuditEntry.ActorType.AGENT:
        return Q()
    agent = _agent_for_actor(actor)
    if agent is None or agent.tenant_id != tenant_id:
        return Q(pk__in=[])
    if not agent.restricted_to_granted_subjects:
        return Q()
    if agent.user is None:
        return Q(pk__in=[])
    return Q(subject_id__in=agent_granted_subjects(agent).values("pk"))
