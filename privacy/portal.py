"""Short-lived, single-use signed links that let an agent's app send its user to the
"what you remember about me" page without a password."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.services import subject_access_check
from audit.services import Actor, audit_record
from core.exceptions import ApplicationError
from memory.models import Subject
from privacy.models import PortalLinkNonce

PORTAL_SALT = "engram.privacy.portal"
MSG_BAD_LINK = "This sign-in link is invalid, expired or already used. Ask the app for a new one."


def portal_link_for(*, subject: Subject, request: Any, actor: Actor) -> tuple[str, int]:
    subject_access_check(actor=actor, subject=subject)  # grants: 404 for an ungranted agent
    max_age = settings.ENGRAM_PORTAL_LINK_MAX_AGE
    token = signing.dumps(
        {"s": subject.pk, "t": subject.tenant_id, "n": secrets.token_urlsafe(12)}, salt=PORTAL_SALT
    )
    with transaction.atomic():
        audit_record(
            actor=actor,
            action="portal.link",
            target=subject,
            tenant_id=subject.tenant_id,
            subject_id=subject.pk,
        )
    return request.build_absolute_uri(reverse("me-link", args=[token])), max_age


def portal_token_consume(token: str) -> Subject:
    """The subject a link was made for; each link works once and only while fresh."""
    try:
        payload = signing.loads(
            token, salt=PORTAL_SALT, max_age=settings.ENGRAM_PORTAL_LINK_MAX_AGE
        )
    except signing.BadSignature as exc:
        raise ApplicationError("bad_link", MSG_BAD_LINK, status_code=404) from exc
    if not _nonce_consume(payload["n"]):
        raise ApplicationError("bad_link", MSG_BAD_LINK, status_code=404)
    subject = Subject.objects.filter(pk=payload["s"], tenant_id=payload["t"]).first()
    if subject is None:
        raise ApplicationError("bad_link", MSG_BAD_LINK, status_code=404)
    return subject


def _nonce_consume(nonce: str) -> bool:
    """Mark a link's nonce used; False if it already was (the unique index decides races).

    The row outlives the link: the link was issued before now, so it has expired by
    now + max age, after which its signature check refuses it anyway.
    """
    expires_at = timezone.now() + dt.timedelta(seconds=settings.ENGRAM_PORTAL_LINK_MAX_AGE)
    try:
        with transaction.atomic():
            PortalLinkNonce.objects.create(nonce=nonce, expires_at=expires_at)
    except IntegrityError:
        return False
    return True


def portal_nonces_prune() -> int:
    """Delete used nonces whose links have expired; returns how many."""
    deleted, _ = PortalLinkNonce.objects.filter(expires_at__lt=timezone.now()).delete()
    return deleted


def end_user_for(*, subject: Subject, actor: Actor) -> Any:
    """The subject's end-user account, created (without a password) on first portal use."""
    if subject.end_user_id:
        return subject.end_user
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.create(username=f"subject-{subject.pk}-{secrets.token_hex(4)}")
        user.set_unusable_password()
        user.save(update_fields=["password"])
        Subject.objects.filter(pk=subject.pk).update(end_user=user)
        subject.end_user = user
        audit_record(
            actor=actor,
            action="portal.account_create",
            target=subject,
            tenant_id=subject.tenant_id,
            subject_id=subject.pk,
        )
    return user
