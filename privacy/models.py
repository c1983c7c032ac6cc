"""Data-subject requests (GDPR access / rectification / erasure / restriction) as tracked cases.

A case outlives the subject it is about: after an erasure it keeps the subject's numeric id
(no foreign key) and a receipt with counts only — never content.
"""

import datetime as dt
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from accounts.models import Tenant
from core.models import BaseModel

RESPONSE_DAYS = 30


def default_due_at() -> dt.datetime:
    from django.utils import timezone

    return timezone.now() + dt.timedelta(days=RESPONSE_DAYS)


class DataSubjectRequest(BaseModel):
    class Kind(models.TextChoices):
        ACCESS = "access"
        RECTIFICATION = "rectification"
        ERASURE = "erasure"
        RESTRICTION = "restriction"

    class Status(models.TextChoices):
        OPEN = "open"
        AWAITING_APPROVAL = "awaiting_approval"
        RUNNING = "running"
        COMPLETED = "completed"
        FAILED = "failed"
        REJECTED = "rejected"

    class Requester(models.TextChoices):
        END_USER = "end_user"
        STAFF = "staff"
        AGENT = "agent"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="privacy_cases")
    subject_pk = models.BigIntegerField(help_text="Subject id (kept after erasure).")
    subject_label = models.CharField(
        max_length=128, blank=True, help_text="External id; blanked when the subject is erased."
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN)
    requested_by_type = models.CharField(max_length=16, choices=Requester.choices)
    requested_by_id = models.CharField(max_length=64, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    due_at = models.DateTimeField(default=default_due_at)
    notes = models.TextField(blank=True)
    # Restriction: lift instead of impose.
    lift = models.BooleanField(default=False)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    executed_by_type = models.CharField(max_length=16, blank=True)
    executed_by_id = models.CharField(max_length=64, blank=True)
    executed_at = models.DateTimeField(null=True, blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    progress_note = models.CharField(max_length=200, blank=True)
    receipt = models.JSONField(default=dict, blank=True)
    export_path = models.CharField(max_length=300, blank=True)
    export_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]
        indexes = [
            models.Index(fields=["tenant", "status", "due_at"], name="dsr_tenant_open"),
            models.Index(fields=["subject_pk"], name="dsr_subject"),
            # the export clean-up job
            models.Index(
                fields=["export_expires_at"], condition=~Q(export_path=""), name="dsr_exports"
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="dsr_progress_range"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} case {self.public_id}"


class PortalLinkNonce(models.Model):
    """The nonce of a `/me/` sign-in link that has been used once.

    Lives in PostgreSQL, not in the cache: a Redis restart, flush or failover must not make a
    used single-use link work again. The unique index is the atomic "first use wins"; rows are
    pruned once the link they belong to has expired anyway (`portal_nonces_prune`).
    """

    nonce = models.CharField(max_length=64, unique=True)
    used_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="portal_nonce_expiry")]  # the prune

    def __str__(self) -> str:
        return f"portal nonce used {self.used_at:%Y-%m-%d %H:%M}"
