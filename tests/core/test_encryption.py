from cryptography.fernet import Fernet
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from core import crypto
from memory.models import Event, Subject


def raw_content(pk):
    with connection.cursor() as cursor:
        cursor.execute("SELECT content FROM memory_event WHERE id = %s", [pk])
        return cursor.fetchone()[0]


def make_event(cast, content="我的身份证号是 110101199003077777"):
    subject, _ = Subject.objects.get_or_create(tenant=cast.tenant_a, external_id="enc")
    return Event.objects.create(
        subject=subject,
        session_id="s",
        role="user",
        content=content,
        occurred_at=timezone.now(),
        content_hash="h",
    )


def test_event_content_is_encrypted_at_rest(cast):
    event = make_event(cast)
    stored = raw_content(event.pk)
    assert stored.startswith("fernet:") and "110101" not in stored
    assert Event.objects.get(pk=event.pk).content == "我的身份证号是 110101199003077777"


def test_key_rotation_reencrypts_with_the_new_key(cast, settings, capsys):
    old_key, new_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.ENGRAM_ENCRYPTION_KEYS = [old_key]
    event = make_event(cast, "old secret")
    before = raw_content(event.pk)
    settings.ENGRAM_ENCRYPTION_KEYS = [new_key, old_key]
    call_command("rotate_encryption_key", "--batch-size", "1")
    assert "events use the primary key" in capsys.readouterr().out
    settings.ENGRAM_ENCRYPTION_KEYS = [new_key]  # the old key can go now
    assert raw_content(event.pk) != before
    assert Event.objects.get(pk=event.pk).content == "old secret"
    assert crypto.decrypt(raw_content(event.pk)) == "old secret"
