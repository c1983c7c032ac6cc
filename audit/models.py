"""The audit log: append-only (database triggers), hash-chained per tenant, keyed (HMAC).

Entries hold ids and codes only: actor, action, target type and id, tenant and subject ids,
a server request id, a reason code and changed field names. Client-supplied free text (a
staff member's reason, a client's X-Request-ID, a knowledge document id) goes to
`AuditEntryText`, which the chain does not cover, so erasing a subject can delete it while
the chain still verifies. Tenant and subject are plain ids (no foreign keys) so that erasing
a subject leaves its audit trail intact.
"""

from django.contrib.postgres.fields import ArrayField
from django.db import models


class AuditEntry(models.Model):
    class ActorType(models.TextChoices):
        AGENT = "agent"
        USER = "user"  # staff or end user (Django user)
        SYSTEM = "system"  # tasks and management commands

    actor_type = models.CharField(max_length=16, choices=ActorType.choices)
    actor_id = models.CharField(max_length=64, blank=True)
    action = models.CharField(max_length=64)
    target_type = models.CharField(max_length=64, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    tenant_id = models.BigIntegerField(null=True, blank=True)
    subject_id = models.BigIntegerField(null=True, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    # A short code ("" when none); free text lives in AuditEntryText. The column keeps its
    # old name so that existing SQL tooling and the chain's field names stay the same.
    reason_code = models.CharField(max_length=64, blank=True, db_column="reason")
    changed_fields = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    created_at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64, blank=True)
    entry_hash = models.CharField(max_length=64, unique=True)
    # HMAC-SHA256 of entry_hash under ENGRAM_AUDIT_HMAC_KEY: without the key nobody can
    # rehash an edited chain. The database default lets a forged INSERT land (and be caught).
    entry_mac = models.CharField(max_length=64, blank=True, db_default="")

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["tenant_id", "-created_at"], name="audit_tenant_recent"),
            models.Index(fields=["subject_id", "-created_at"], name="audit_subject_recent"),
            models.Index(fields=["action", "-created_at"], name="audit_action_recent"),
            # audit_record: the newest entry of the tenant's chain (its predecessor).
            models.Index(fields=["tenant_id", "-id"], name="audit_chain_tail"),
        ]

    def __str__(self) -> str:
        return (
            f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_type}:{self.actor_id} {self.action}"
        )

    @property
    def reason(self) -> str:
        """The free-text reason ('' once the subject was erased), else the reason code.
        Read entries with `select_related("text")` to avoid a query per entry."""
        text = getattr(self, "text", None)
        return (text.reason if text is not None else "") or self.reason_code


class AuditEntryText(models.Model):
    """Free text that came with one audit entry; erased with its subject.

    `text_mac` (HMAC of the entry id and the texts) shows an edit while the row exists;
    deleting the row is the legitimate erasure path and leaves the chain intact."""

    # No database foreign key: a deferred FK check would lock the audit row at COMMIT and
    # queue trigger events on the append-only table. `audit_verify` reports a text whose
    # entry is gone (an entry deleted behind the triggers' back).
    entry = models.OneToOneField(
        AuditEntry,
        primary_key=True,
        on_delete=models.DO_NOTHING,
        related_name="text",
        db_constraint=False,
    )
    tenant_id = models.BigIntegerField(null=True, blank=True)
    subject_id = models.BigIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=500, blank=True)
    request_id = models.CharField(max_length=64, blank=True)  # a client's X-Request-ID
    target_ref = models.CharField(max_length=200, blank=True)  # a client's id of the target
    text_mac = models.CharField(max_length=64)

    class Meta:
        indexes = [
            # audit_erase_subject_text: this subject's texts.
            models.Index(fields=["subject_id"], name="audit_text_subject"),
        ]

    def __str__(self) -> str:
        return f"text of audit entry {self.entry_id}"
