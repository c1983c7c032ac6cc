"""Test data builders. Memories are built straight into the index (with a real embedding and
search text) when a test needs exact control, bypassing the dedupe pipeline on purpose."""

import datetime as dt
from typing import Any

from django.utils import timezone

from memory import textsearch
from memory.embeddings import get_embedder
from memory.models import Memory, Subject


def make_memory(subject: Subject, content: str, **fields: Any) -> Memory:
    now = timezone.now()
    defaults: dict[str, Any] = {
        "tenant_id": subject.tenant_id,
        "subject": subject,
        "category": "fact",
        "content": content,
        "importance": 0.5,
        "confidence": 0.9,
        "observed_at": now,
        "valid_from": now,
        "embedding": get_embedder().embed([content])[0].tolist(),
        "embedding_model": get_embedder().name,
        "search_text": textsearch.search_document(content),
    }
    defaults.update(fields)
    created_at = defaults.pop("created_at", None)
    memory = Memory.objects.create(**defaults)
    if created_at is not None:
        Memory.objects.filter(pk=memory.pk).update(created_at=created_at)
        memory.refresh_from_db()
    return memory


def days_ago(days: float) -> dt.datetime:
    return timezone.now() - dt.timedelta(days=days)


STAFF_PASSWORD = "staff-pass-123"


def make_staff(username: str, *, role: str | None, tenants: list | None = None) -> Any:
    """A staff user in the `role` group, limited to `tenants` (None = every tenant)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from guardian.shortcuts import assign_perm

    from accounts.models import StaffTenantAccess

    user = get_user_model().objects.create_user(
        username=username, password=STAFF_PASSWORD, is_staff=True
    )
    if role:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    if tenants is not None:
        StaffTenantAccess.objects.create(user=user, limited=True)
        for tenant in tenants:
            assign_perm("accounts.view_tenant", user, tenant)
    return user
