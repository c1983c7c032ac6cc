"""The keyed per-tenant chain against tampering by someone who can write the table (a
superuser with the triggers disabled) but does not hold ENGRAM_AUDIT_HMAC_KEY."""

import hashlib
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction

from audit.models import AuditEntry
from audit.selectors import audit_chain_head, audit_chain_verify
from audit.services import GENESIS_HASH, SYSTEM, audit_record, entry_hash, hashed_fields

GUARD = "audit_auditentry_append_only"


def _tamper(sql, params=()):
    """Run SQL as the table owner with the append-only trigger off (what the drill does)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE audit_auditentry DISABLE TRIGGER {GUARD}")
        cursor.execute(sql, params)
        cursor.execute(f"ALTER TABLE audit_auditentry ENABLE TRIGGER {GUARD}")


def _plain_hash(entry):
    """The unkeyed SHA-256 an attacker can recompute (the drill's py_hash)."""
    payload = json.dumps({**hashed_fields(entry), "prev_hash": entry.prev_hash}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


@pytest.fixture
def entries(cast):
    for number in range(6):
        audit_record(
            actor=SYSTEM, action=f"test.{number}", tenant_id=cast.tenant_a.pk, target_id=number
        )
    return list(AuditEntry.objects.filter(tenant_id=cast.tenant_a.pk).order_by("pk"))


def test_it_verifies_an_untouched_chain(entries):
    result = audit_chain_verify()
    assert result.ok
    assert result.checked == AuditEntry.objects.count()


def test_it_chains_each_tenant_separately(cast):
    a1 = audit_record(actor=SYSTEM, action="a1", tenant_id=cast.tenant_a.pk)
    b1 = audit_record(actor=SYSTEM, action="b1", tenant_id=cast.tenant_b.pk)
    a2 = audit_record(actor=SYSTEM, action="a2", tenant_id=cast.tenant_a.pk)
    assert a2.prev_hash == a1.entry_hash
    assert b1.prev_hash == (
        AuditEntry.objects.filter(tenant_id=cast.tenant_b.pk, pk__lt=b1.pk)
        .order_by("-pk")
        .values_list("entry_hash", flat=True)
        .first()
        or GENESIS_HASH
    )
    assert audit_chain_verify().ok


def test_it_detects_an_edited_row(entries):
    _tamper("UPDATE audit_auditentry SET action = 'nothing' WHERE id = %s", [entries[2].pk])
    result = audit_chain_verify()
    assert (result.ok, result.broken_id, result.problem) == (
        False,
        entries[2].pk,
        "content changed",
    )


def test_it_detects_a_deleted_row(entries):
    _tamper("DELETE FROM audit_auditentry WHERE id = %s", [entries[2].pk])
    result = audit_chain_verify()
    assert (result.ok, result.broken_id) == (False, entries[3].pk)


def test_it_detects_an_edit_rehashed_without_the_key(entries):
    edited = entries[2:]
    edited[0].action = "nothing"
    previous = edited[0].prev_hash
    for entry in edited:
        entry.prev_hash = previous
        entry.entry_hash = previous = _plain_hash(entry)
    for entry in edited:
        _tamper(
            "UPDATE audit_auditentry SET action = %s, prev_hash = %s, entry_hash = %s "
            "WHERE id = %s",
            [entry.action, entry.prev_hash, entry.entry_hash, entry.pk],
        )
    result = audit_chain_verify()
    assert (result.ok, result.broken_id) == (False, entries[2].pk)
    assert "MAC" in result.problem


def test_it_detects_a_forged_row_with_a_correct_plain_hash(entries):
    forged = AuditEntry.objects.get(pk=entries[-1].pk)
    forged.pk, forged.action = None, "privacy.erasure.approve"
    forged.prev_hash = entries[-1].entry_hash
    forged.entry_hash = entry_hash(hashed_fields(forged), forged.prev_hash)
    forged.entry_mac = "0" * 64
    forged.save()
    result = audit_chain_verify()
    assert (result.ok, result.broken_id) == (False, forged.pk)


def test_it_detects_a_dropped_tail_against_the_exported_head(entries, tmp_path):
    head = tmp_path / "head.json"
    call_command("audit_export_head", "--output", str(head))
    newest = [entry.pk for entry in entries[-2:]]
    _tamper("DELETE FROM audit_auditentry WHERE id = ANY(%s)", [newest])

    assert audit_chain_verify().ok  # a shorter chain is still a valid chain …
    with pytest.raises(CommandError, match=r"anchored head of tenant:\d+ is gone"):
        call_command("audit_verify", "--head", str(head))  # … but not the anchored one


def test_it_accepts_entries_appended_after_the_head(entries, tmp_path, capsys):
    head = tmp_path / "head.json"
    call_command("audit_export_head", "--output", str(head))
    audit_record(actor=SYSTEM, action="later", tenant_id=entries[0].tenant_id)
    call_command("audit_verify", "--head", str(head))
    assert "intact" in capsys.readouterr().out


def test_it_detects_an_emptied_table_against_the_exported_head(entries):
    head = audit_chain_head()
    _tamper("DELETE FROM audit_auditentry")
    assert audit_chain_verify().ok
    result = audit_chain_verify(head=head)
    assert not result.ok and "gone" in result.problem


def test_it_rejects_a_file_that_is_not_a_head(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text("[1, 2]")
    with pytest.raises(CommandError, match="not an audit head"):
        call_command("audit_verify", "--head", str(bogus))


def test_it_refuses_truncate_even_with_the_row_triggers_on(entries):
    with (
        pytest.raises(DatabaseError, match="TRUNCATE refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        # The test settings let the table owner TRUNCATE (Django's flush between tests);
        # a session without that setting is refused.
        cursor.execute("SET LOCAL engram.audit_truncate = ''")
        cursor.execute("TRUNCATE audit_auditentry CASCADE")
    assert AuditEntry.objects.count() >= len(entries)


def test_it_refuses_truncate_to_a_role_that_does_not_own_the_table(entries):
    with (
        pytest.raises(DatabaseError, match="TRUNCATE refused"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("CREATE ROLE engram_test_app")  # rolled back with the transaction
        cursor.execute(
            "GRANT TRUNCATE ON audit_auditentry, audit_auditentrytext TO engram_test_app"
        )
        cursor.execute("SET LOCAL ROLE engram_test_app")
        cursor.execute("SET LOCAL engram.audit_truncate = 'allow'")
        cursor.execute("TRUNCATE audit_auditentry CASCADE")


def test_it_reseals_the_chain_when_the_key_rotates(entries, settings, monkeypatch):
    old_key = settings.ENGRAM_AUDIT_HMAC_KEY
    settings.ENGRAM_AUDIT_HMAC_KEY = "a-new-audit-key"
    assert not audit_chain_verify().ok
    monkeypatch.setenv("ENGRAM_AUDIT_HMAC_OLD_KEY", old_key)
    call_command("audit_reseal")
    assert audit_chain_verify().ok


def test_it_refuses_to_reseal_a_tampered_chain(entries, settings, monkeypatch):
    _tamper("UPDATE audit_auditentry SET entry_mac = %s WHERE id = %s", ["0" * 64, entries[1].pk])
    monkeypatch.setenv("ENGRAM_AUDIT_HMAC_OLD_KEY", settings.ENGRAM_AUDIT_HMAC_KEY)
    settings.ENGRAM_AUDIT_HMAC_KEY = "a-new-audit-key"
    with pytest.raises(CommandError, match=f"entry {entries[1].pk} is not sealed"):
        call_command("audit_reseal")


def test_the_app_role_can_append_but_not_rewrite_the_audit_log(entries, monkeypatch):
    monkeypatch.setenv("TEST_APP_ROLE_PASSWORD", "app-pass")
    with transaction.atomic():  # rolled back below: roles are cluster-wide
        call_command(
            "audit_grant_app_role", "engram_test_app", "--password-env", "TEST_APP_ROLE_PASSWORD"
        )
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL ROLE engram_test_app")
        appended = audit_record(
            actor=SYSTEM, action="as.app", tenant_id=entries[0].tenant_id, reason="x"
        )
        for statement in (
            "UPDATE audit_auditentry SET action = 'x'",
            "DELETE FROM audit_auditentry",
            "TRUNCATE audit_auditentry CASCADE",
            f"ALTER TABLE audit_auditentry DISABLE TRIGGER {GUARD}",
        ):
            with (
                pytest.raises(DatabaseError, match=r"permission denied|must be owner"),
                transaction.atomic(),
                connection.cursor() as cursor,
            ):
                cursor.execute(statement)
        assert AuditEntry.objects.filter(pk=appended.pk).exists()
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
        transaction.set_rollback(True)


def test_it_detects_a_dropped_entry_by_the_text_it_left_behind(entries):
    newest = audit_record(
        actor=SYSTEM, action="with.text", tenant_id=entries[0].tenant_id, reason="kept words"
    )
    _tamper("DELETE FROM audit_auditentry WHERE id = %s", [newest.pk])
    result = audit_chain_verify()
    assert (result.ok, result.broken_id, result.problem) == (
        False,
        newest.pk,
        "free text of a missing entry",
    )
