"""The one writer of audit entries.

Call `audit_record` inside the transaction of the change it records. Entries form a hash chain:
each entry's hash covers its fields and the previous entry's hash. A transaction-scoped advisory
lock serialises appends so two writers never chain onto the same predecessor.
"""

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from audit.models import AuditEntry

AUDIT_CHAIN_LOCK = 0x656E6772  # "engr": pg_advisory_xact_lock key for chain appends
GENESIS_HASH = "0" * 64


@dataclass(frozen=True)
class Actor:
    """Who did it. Build with `actor_for_agent`, `actor_for_user` or `SYSTEM`."""

    type: str
    id: str = ""
    request_id: str = ""
    ip: str | None = None


SYSTEM = Actor(type=AuditEntry.ActorType.SYSTEM, id="system")


def actor_for_agent(agent: Any, request: Any = None) -> Actor:
    return Actor(type=AuditEntry.ActorType.AGENT, id=str(agent.pk), **_request_meta(request))


def actor_for_user(user: Any, request: Any = None) -> Actor:
    return Actor(type=AuditEntry.ActorType.USER, id=str(user.pk), **_request_meta(request))


def actor_for_task(name: str) -> Actor:
    return Actor(type=AuditEntry.ActorType.SYSTEM, id=name[:64])


def _request_meta(request: Any) -> dict[str, Any]:
    if request is None:
        return {}
    return {
        "request_id": getattr(request, "request_id", "") or "",
        "ip": request.META.get("REMOTE_ADDR") or None,
    }


def entry_hash(fields: dict[str, Any], prev_hash: str) -> str:
    """SHA-256 over the canonical JSON of the entry's fields plus the previous hash."""
    payload = json.dumps({**fields, "prev_hash": prev_hash}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def hashed_fields(entry: AuditEntry) -> dict[str, Any]:
    return {
        "actor_type": entry.actor_type,
        "actor_id": entry.actor_id,
        "action": entry.action,
        "target_type": entry.target_type,
        "target_id": entry.target_id,
        "tenant_id": entry.tenant_id,
        "subject_id": entry.subject_id,
        "request_id": entry.request_id,
        "ip": entry.ip,
        "reason": entry.reason,
        "changed_fields": list(entry.changed_fields),
        "created_at": entry.created_at.isoformat(),
    }


def audit_record(
    *,
    actor: Actor,
    action: str,
    target: Any = None,
    target_type: str = "",
    target_id: Any = "",
    tenant_id: int | None = None,
    subject_id: int | None = None,
    reason: str = "",
    changed_fields: Iterable[str] = (),
) -> AuditEntry:
    """Append one audit entry to the chain (inside the caller's transaction)."""
    if target is not None:
        target_type = target_type or target._meta.label_lower
        target_id = target_id or target.pk
    entry = AuditEntry(
        actor_type=actor.type,
        actor_id=actor.id,
        action=action,
        target_type=target_type,
        target_id=str(target_id or ""),
        tenant_id=tenant_id,
        subject_id=subject_id,
        request_id=actor.request_id,
        ip=actor.ip,
        reason=reason[:500],
        changed_fields=sorted(set(changed_fields)),
        created_at=timezone.now(),
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [AUDIT_CHAIN_LOCK])
        last = AuditEntry.objects.order_by("-id").values_list("entry_hash", flat=True).first()
        entry.prev_hash = last or GENESIS_HASH
        entry.entry_hash = entry_hash(hashed_fields(entry), entry.prev_hash)
        entry.save()
    return entry
