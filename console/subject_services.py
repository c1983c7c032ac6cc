"""Console-only writes for the subjects part: the audited reveal of masked personal data.

Memory changes themselves go through `memory.services` (the same services the API uses).
"""

from __future__ import annotations

from django.db import transaction

from audit.services import Actor, audit_record
from memory.models import Event, Memory

PII_REVEAL = "pii.reveal"


@transaction.atomic
def pii_reveal(*, actor: Actor, target: Memory | Event, reason: str) -> None:
    """Record that a staff member unmasked a memory's or an event's content, and why."""
    subject = target.subject
    audit_record(
        actor=actor,
        action=PII_REVEAL,
        target=target,
        tenant_id=subject.tenant_id,
        subject_id=subject.pk,
        reason=reason,
    )
