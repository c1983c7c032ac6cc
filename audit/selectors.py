"""Reads of the audit log: chain verification and the chain heads for an external anchor."""

import hmac
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max
from django.utils import timezone

from audit.models import AuditEntry, AuditEntryText
from audit.services import GENESIS_HASH, entry_hash, entry_mac, hashed_fields, text_mac

VERIFY_BATCH = 5000
HEAD_FORMAT = "engram-audit-head-v1"


@dataclass
class ChainVerification:
    ok: bool
    checked: int
    broken_id: int | None = None
    problem: str = ""


def chain_name(tenant_id: int | None) -> str:
    return "system" if tenant_id is None else f"tenant:{tenant_id}"


def audit_chain_verify(*, head: dict[str, Any] | None = None) -> ChainVerification:
    """Check every entry in id order, each against its tenant chain's predecessor.

    1. Each entry must point at the previous entry of its chain, its hash must match its
       fields and its MAC must match the key: catches edits, deletions, forged rows and
       rehashed chains.
    2. With `head` (from `audit_chain_head`, kept outside the database): each anchored
       entry must still be there with the same hash and position; catches a dropped tail
       and a truncated table. Entries appended after the export are fine.
    3. Every free-text row must still match its MAC (texts may be erased, not edited).
    """
    anchors = {name: anchor for name, anchor in (head or {}).get("chains", {}).items()}
    previous: dict[int | None, str] = {}
    counts: dict[int | None, int] = {}
    seen_anchors: set[str] = set()
    checked = 0
    last_id = 0
    while True:
        batch = list(AuditEntry.objects.filter(pk__gt=last_id).order_by("pk")[:VERIFY_BATCH])
        for entry in batch:
            chain = entry.tenant_id
            if entry.prev_hash != previous.get(chain, GENESIS_HASH):
                return ChainVerification(False, checked, entry.pk, "previous hash mismatch")
            if entry.entry_hash != entry_hash(hashed_fields(entry), entry.prev_hash):
                return ChainVerification(False, checked, entry.pk, "content changed")
            if not hmac.compare_digest(entry.entry_mac, entry_mac(entry.entry_hash)):
                return ChainVerification(False, checked, entry.pk, "MAC mismatch (forged)")
            previous[chain] = entry.entry_hash
            counts[chain] = counts.get(chain, 0) + 1
            anchor = anchors.get(chain_name(chain))
            if anchor is not None and anchor["last_id"] == entry.pk:
                if anchor["entry_hash"] != entry.entry_hash or anchor["count"] != counts[chain]:
                    return ChainVerification(False, checked, entry.pk, "differs from the head")
                seen_anchors.add(chain_name(chain))
            checked += 1
        if len(batch) < VERIFY_BATCH:
            break
        last_id = batch[-1].pk
    missing = sorted(set(anchors) - seen_anchors)
    if missing:
        anchor = anchors[missing[0]]
        return ChainVerification(
            False,
            checked,
            anchor["last_id"],
            f"anchored head of {missing[0]} is gone (newest entries dropped or table emptied)",
        )
    return _verify_texts(checked)


def _verify_texts(checked: int) -> ChainVerification:
    orphan = (
        AuditEntryText.objects.exclude(entry_id__in=AuditEntry.objects.values("pk"))
        .values_list("entry_id", flat=True)
        .first()
    )
    if orphan is not None:
        return ChainVerification(False, checked, orphan, "free text of a missing entry")
    texts = AuditEntryText.objects.order_by("pk").iterator(chunk_size=VERIFY_BATCH)
    for text in texts:
        expected = text_mac(text.entry_id, text.reason, text.request_id, text.target_ref)
        if not hmac.compare_digest(text.text_mac, expected):
            return ChainVerification(False, checked, text.entry_id, "free text changed")
    return ChainVerification(ok=True, checked=checked)


def audit_chain_head() -> dict[str, Any]:
    """The newest entry of every chain (id, hash, length), to be stored outside the database."""
    tails = list(
        AuditEntry.objects.order_by()
        .values("tenant_id")
        .annotate(last_id=Max("id"), count=Count("id"))
    )
    hashes = dict(
        AuditEntry.objects.filter(pk__in=[tail["last_id"] for tail in tails]).values_list(
            "pk", "entry_hash"
        )
    )
    chains = {
        chain_name(tail["tenant_id"]): {
            "last_id": tail["last_id"],
            "entry_hash": hashes[tail["last_id"]],
            "count": tail["count"],
        }
        for tail in tails
    }
    return {
        "format": HEAD_FORMAT,
        "exported_at": timezone.now().isoformat(),
        "chains": dict(sorted(chains.items())),
    }
