from django.core.management import call_command

from memory.models import Memory, Subject
from tests.factories import make_memory


def test_reembed_updates_only_memories_of_another_model(cast, capsys):
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="u1")
    placeholder = [0.0] * 511 + [1.0]
    stale = make_memory(
        subject, "The user likes jazz", embedding_model="old-model", embedding=placeholder
    )
    fresh = make_memory(subject, "The user likes tea")
    call_command("reembed", "--batch-size", "1")
    out = capsys.readouterr().out
    assert "1/1 memories re-embedded" in out
    stale.refresh_from_db()
    fresh_model = Memory.objects.get(pk=fresh.pk).embedding_model
    assert stale.embedding_model == fresh_model
    assert [round(float(x), 6) for x in stale.embedding] != placeholder
    call_command("reembed")
    assert "0 memories" in capsys.readouterr().out
