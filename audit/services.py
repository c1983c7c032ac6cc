"""The one writer of audit entries.

Call `audit_record` inside the transaction of the change it records, as its last write (from
there on the transaction's foreign-key checks are immediate).

Chain. Each tenant has its own hash chain (entries without a tenant form one more): an
entry's `entry_hash` is SHA-256 over the canonical JSON of its fields and the previous
entry's hash, and its `entry_mac` is HMAC-SHA256 of that hash under
`ENGRAM_AUDIT_HMAC_KEY`. Someone who can write the table but does not hold the key can edit
a row and recompute the plain hashes, but not the MACs. Dropping the newest rows leaves a
shorter valid chain; `audit_export_head` prints the chain heads for an external anchor and
`audit_verify --head` detects a missing tail against it.

Locking. A transaction-scoped advisory lock per tenant serialises appends so that two
writers never chain onto the same predecessor. It is the last lock a transaction takes: the
deferred foreign-key checks (which lock parent rows such as the subject and the tenant with
FOR KEY SHARE) run *before* it, not at COMMIT while it is held. Otherwise a writer holding
the chain lock waits at COMMIT for a subject row that another writer has locked while that
writer waits for the chain lock: a deadlock (issue 11, row 1).

Free text. Only ids and codes go into the chained row. A free-text reason, a client-chosen
request id or target id go to `AuditEntryText`, which `audit_erase_subject_text` deletes
when the subject is erased.
"""

import hashlib
import hmac
import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from audit.models import AuditEntry, AuditEntryText

AUDIT_CHAIN_LOCK = 0x656E6772  # "engr": first key of pg_advisory_xact_lock(int, int)
GENESIS_HASH = "0" * 64
MAC_CONTEXT = b"engram-audit-v1:"

# What may be stored in the chained row as an id: numbers, hex digests and UUIDs. Anything
# else a client chose (a document id "contract-jane-doe", an X-Request-ID) is free text.
_ID_PATTERN = re.compile(
    r"[0-9]{1,20}|[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    re.IGNORECASE,
)
_CODE_PATTERN = re.compile(r"[a-z0-9_.:-]{0,64}")


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


def _key(key: str | None = None) -> bytes:
    return str(settings.ENGRAM_AUDIT_HMAC_KEY if key is None else key).encode()


def entry_hash(fields: dict[str, Any], prev_hash: str) -> str:
    """SHA-256 over the canonical JSON of the entry's fields plus the previous hash."""
    payload = json.dumps({**fields, "prev_hash": prev_hash}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def entry_mac(digest: str, *, key: str | None = None) -> str:
    """The keyed seal of one link of the chain (under the configured key unless given)."""
    return hmac.new(_key(key), MAC_CONTEXT + digest.encode(), hashlib.sha256).hexdigest()


def text_mac(
    entry_id: int, reason: str, request_id: str, target_ref: str, *, key: str | None = None
) -> str:
    payload = json.dumps([entry_id, reason, request_id, target_ref], ensure_ascii=False)
    return hmac.new(
        _key(key), b"engram-audit-text-v1:" + payload.encode(), hashlib.sha256
    ).hexdigest()


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
        "reason": entry.reason_code,
        "changed_fields": list(entry.changed_fields),
        "created_at": entry.created_at.isoformat(),
    }


def chain_lock_key(tenant_id: int | None) -> int:
    """Second advisory-lock key of a tenant's chain (0: entries without a tenant)."""
    return (tenant_id or 0) % 2**31


def _split_id(value: str) -> tuple[str, str]:
    """(id for the chained row, free text for the side table)."""
    return (value, "") if not value or _ID_PATTERN.fullmatch(value) else ("", value)


def _lock_chain_and_read_tail(tenant_id: int | None) -> str | None:
    """In one round trip: run the transaction's pending foreign-key checks now (they stay
    immediate for the rest of it), take the tenant's chain lock, read the chain's tail hash.

    The keys are integers formatted here, not client text: a multi-statement query cannot
    carry bound parameters."""
    chain = "tenant_id IS NULL" if tenant_id is None else f"tenant_id = {int(tenant_id)}"
    statements = (
        "SET CONSTRAINTS ALL IMMEDIATE; "  # noqa: S608 - integers only, see above
        f"SELECT pg_advisory_xact_lock({AUDIT_CHAIN_LOCK}, {chain_lock_key(tenant_id)}); "
        f"SELECT entry_hash FROM audit_auditentry WHERE {chain} ORDER BY id DESC LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(statements)
        while cursor.nextset():
            pass
        row = cursor.fetchone()
    return row[0] if row else None


# Inside `audit_chain_held`: the tail hash of each tenant chain this transaction holds the lock
# of (the entries it appended last), so that a batch of writes takes the lock and reads the tail
# once instead of once per entry.
_held_tails: ContextVar[dict[int | None, str] | None] = ContextVar("audit_held_tails", default=None)
# …and the entries (with their free text) it has sealed but not written yet: written together,
# in chain order, when the batch ends — still inside the caller's transaction.
_held_entries: ContextVar[list[tuple[AuditEntry, dict[str, Any] | None]] | None] = ContextVar(
    "audit_held_entries", default=None
)


@contextmanager
def audit_chain_held() -> Iterator[None]:
    """Within one transaction (the caller's `atomic` block, which must enclose this one and
    not roll back a savepoint of it), audit entries after the first of a tenant reuse its lock
    and the tail it wrote: no other writer can append to that chain until the commit. The
    entries are written in two statements when the block ends (the chain order is the list
    order, ids ascending), not two per entry; on an exception nothing is written, and the
    caller's transaction rolls back the change they audit."""
    if not connection.in_atomic_block:
        raise RuntimeError("audit_chain_held needs the caller's transaction")
    tails = _held_tails.set({})
    entries = _held_entries.set([])
    try:
        yield
        _write_entries(_held_entries.get() or [])
    finally:
        _held_tails.reset(tails)
        _held_entries.reset(entries)


def _write_entries(held: list[tuple[AuditEntry, dict[str, Any] | None]]) -> None:
    """Write sealed entries and their free text (the text's seal needs the entry's id)."""
    if not held:
        return
    AuditEntry.objects.bulk_create([entry for entry, _ in held])  # ids come back (RETURNING)
    texts = [
        AuditEntryText(
            entry=entry,
            **text,
            text_mac=text_mac(entry.pk, text["reason"], text["request_id"], text["target_ref"]),
        )
        for entry, text in held
        if text is not None
    ]
    AuditEntryText.objects.bulk_create(texts)


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
    reason_code: str = "",
    changed_fields: Iterable[str] = (),
) -> AuditEntry:
    """Append one audit entry to its tenant's chain (inside the caller's transaction).

    `reason` is free text (kept erasable, outside the chain); `reason_code` a short code
    that the chain covers."""
    if not _CODE_PATTERN.fullmatch(reason_code):
        raise ValueError(f"reason_code must be a short code, got {reason_code!r}")
    if target is not None:
        target_type = target_type or target._meta.label_lower
        target_id = target_id or target.pk
    chained_target, target_ref = _split_id(str(target_id or "")[:200])
    chained_request, client_request = _split_id(actor.request_id[:64])
    entry = AuditEntry(
        actor_type=actor.type,
        actor_id=actor.id,
        action=action,
        target_type=target_type,
        target_id=chained_target,
        tenant_id=tenant_id,
        subject_id=subject_id,
        request_id=chained_request,
        ip=actor.ip,
        reason_code=reason_code,
        changed_fields=sorted(set(changed_fields)),
        created_at=timezone.now(),
    )
    reason = reason[:500]
    # no savepoint inside the caller's transaction: a failure here fails the change it audits
    with transaction.atomic(savepoint=False):
        held = _held_tails.get()
        if held is not None and tenant_id in held:
            entry.prev_hash = held[tenant_id]
        else:
            entry.prev_hash = _lock_chain_and_read_tail(tenant_id) or GENESIS_HASH
        entry.entry_hash = entry_hash(hashed_fields(entry), entry.prev_hash)
        entry.entry_mac = entry_mac(entry.entry_hash)
        text = None
        if reason or client_request or target_ref:
            text = {
                "tenant_id": tenant_id,
                "subject_id": subject_id,
                "reason": reason,
                "request_id": client_request,
                "target_ref": target_ref,
            }
        pending = _held_entries.get()
        if pending is not None:
            pending.append((entry, text))
        else:
            _write_entries([(entry, text)])
        if held is not None:
            held[tenant_id] = entry.entry_hash
    return entry


def audit_erase_subject_text(*, subject_id: int) -> int:
    """Delete the free text of every audit entry about one subject (erasure); the chained
    entries stay and still verify. Returns the number of texts deleted."""
    deleted, _ = AuditEntryText.objects.filter(subject_id=subject_id).delete()
    return deleted


def audit_chain_reseal(*, old_key: str) -> int:
    """Key rotation: re-seal every entry and text made under `old_key` with the configured key.

    Refuses (ValueError) unless every MAC matches the old key, so that a rotation can never
    launder a tampered row. Needs the table owner (it lifts the append-only trigger inside
    this one transaction); run it with the writers stopped. Returns the entries re-sealed."""
    resealed = 0
    with transaction.atomic(durable=True):
        with connection.cursor() as cursor:
            cursor.execute(
                "LOCK TABLE audit_auditentry, audit_auditentrytext IN EXCLUSIVE MODE; "
                "ALTER TABLE audit_auditentry DISABLE TRIGGER audit_auditentry_append_only"
            )
        for entry in AuditEntry.objects.order_by("pk").iterator(chunk_size=2000):
            if not hmac.compare_digest(entry.entry_mac, entry_mac(entry.entry_hash, key=old_key)):
                raise ValueError(f"entry {entry.pk} is not sealed with the old key; not re-sealing")
            AuditEntry.objects.filter(pk=entry.pk).update(entry_mac=entry_mac(entry.entry_hash))
            resealed += 1
        for text in AuditEntryText.objects.order_by("pk").iterator(chunk_size=2000):
            fields = (text.entry_id, text.reason, text.request_id, text.target_ref)
            if not hmac.compare_digest(text.text_mac, text_mac(*fields, key=old_key)):
                raise ValueError(f"text of entry {text.entry_id} is not sealed with the old key")
            AuditEntryText.objects.filter(pk=text.pk).update(text_mac=text_mac(*fields))
        with connection.cursor() as cursor:
            cursor.execute(
                "ALTER TABLE audit_auditentry ENABLE TRIGGER audit_auditentry_append_only"
            )
    return resealed
