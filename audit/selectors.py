"""Reads of the audit log."""

from dataclasses import dataclass

from audit.models import AuditEntry
from audit.services import GENESIS_HASH, entry_hash, hashed_fields

VERIFY_BATCH = 5000


@dataclass
class ChainVerification:
    ok: bool
    checked: int
    broken_id: int | None = None
    problem: str = ""


def audit_chain_verify() -> ChainVerification:
    """Recompute every entry's hash in id order; report the first entry that does not match
    its fields or does not point at its predecessor's hash."""
    previous = GENESIS_HASH
    checked = 0
    last_id = 0
    while True:
        batch = list(AuditEntry.objects.filter(pk__gt=last_id).order_by("pk")[:VERIFY_BATCH])
        if not batch:
            return ChainVerification(ok=True, checked=checked)
        for entry in batch:
            if entry.prev_hash != previous:
                return ChainVerification(False, checked, entry.pk, "previous hash mismatch")
            if entry.entry_hash != entry_hash(hashed_fields(entry), entry.prev_hash):
                return ChainVerification(False, checked, entry.pk, "content changed")
            previous = entry.entry_hash
            checked += 1
        last_id = batch[-1].pk
