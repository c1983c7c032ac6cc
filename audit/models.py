"""The audit log: append-only (database trigger) and hash-chained.

Entries hold ids, actor, action, reason and changed field names — never memory or event
content. Tenant and subject are plain ids (no foreign keys) so that erasing a subject leaves its
audit trail intact and content-free.
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
    reason = models.CharField(max_length=500, blank=True)
    changed_fields = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    created_at = models.DateTimeField()
    prev_hash = models.CharField(max_length=64, blank=True)
    entry_hash = models.CharField(max_length=64, unique=True)

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["tenant_id", "-created_at"], name="audit_tenant_recent"),
            models.Index(fields=["subject_id", "-created_at"], name="audit_subject_recent"),
            models.Index(fields=["action", "-created_at"], name="audit_action_recent"),
        ]

    def __str__(self) -> str:
        return (
            f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_type}:{self.actor_id} {self.action}"
        )
