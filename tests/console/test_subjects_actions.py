"""Staff actions on memories (correct, pin/unpin, expire, delete) and the audited reveal."""

import json

import pytest
from django.urls import reverse

from audit.models import AuditEntry
from memory.models import Memory, Subject
from tests.console.subject_world import PHONE, build_world
from tests.factories import make_memory

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "memory-detail"}


@pytest.fixture
def world(cast):
    return build_world(cast)


@pytest.fixture
def staff(client, logged_in, operator):
    return logged_in(client, operator)


def action_url(memory: Memory, action: str) -> str:
    return reverse("console-memory-action", args=[memory.pk, action])


def last_entry() -> AuditEntry:
    return AuditEntry.objects.order_by("-id").first()


def correction(**fields) -> dict[str, str]:
    data = {
        "content": "用户不吃辣，也不吃香菜",
        "category": "preference",
        "kind": "semantic",
        "importance": "0.7",
        "confidence": "0.9",
        "entities": "辣, 香菜",
        "reason": "user added coriander",
    }
    data.update(fields)
    return {f"correct-{key}": value for key, value in data.items()}


class TestCorrect:
    def test_it_creates_a_new_version_through_the_service(self, staff, operator, world):
        response = staff.post(action_url(world.memory_a, "correct"), correction(), **HX)
        assert response.status_code == 200
        old = Memory.objects.get(pk=world.memory_a.pk)
        new = Memory.objects.get(supersedes=old)
        assert (old.status, old.superseded_by_id) == ("superseded", new.pk)
        assert (new.version, new.content, new.entities) == (
            2,
            "用户不吃辣，也不吃香菜",
            ["辣", "香菜"],
        )
        assert new.change_reason == "user added coriander"
        entry = last_entry()
        assert (entry.action, entry.target_id, entry.reason) == (
            "memory.correct",
            str(new.pk),
            "user added coriander",
        )
        assert (entry.actor_type, entry.actor_id) == ("user", str(operator.pk))
        assert "content" in entry.changed_fields

    def test_it_answers_htmx_with_the_new_versions_panel_and_a_trigger(self, staff, world):
        response = staff.post(action_url(world.memory_a, "correct"), correction(), **HX)
        body = response.content.decode()
        new = Memory.objects.get(supersedes_id=world.memory_a.pk)
        assert body.lstrip().startswith('<section class="memory-detail" id="memory-detail"')
        assert f"Memory #{new.pk}" in body
        assert "<html" not in body
        trigger = json.loads(response["HX-Trigger"])
        assert trigger["memory-changed"]["id"] == world.memory_a.pk

    def test_it_redirects_plain_posts_to_the_new_version(self, staff, world):
        response = staff.post(action_url(world.memory_a, "correct"), correction())
        new = Memory.objects.get(supersedes_id=world.memory_a.pk)
        assert response.status_code == 302
        assert response["Location"] == reverse("console-memory", args=[new.pk])

    def test_it_redacts_personal_data_in_corrections(self, staff, world):
        staff.post(action_url(world.memory_a, "correct"), correction(content=f"call {PHONE}"))
        new = Memory.objects.get(supersedes_id=world.memory_a.pk)
        assert PHONE not in new.content
        assert "[PHONE]" in new.content

    @pytest.mark.parametrize(
        ("fields", "message"),
        [
            ({"reason": ""}, "This field is required."),
            ({"reason": "   "}, "This field is required."),
            ({"content": ""}, "This field is required."),
            ({"confidence": "2"}, "Ensure this value is less than or equal to 1."),
            ({"category": "gossip"}, "Select a valid choice."),
        ],
    )
    def test_it_shows_validation_errors_inline(self, staff, world, fields, message):
        response = staff.post(action_url(world.memory_a, "correct"), correction(**fields), **HX)
        assert response.status_code == 200
        body = response.content.decode()
        assert message in body
        assert "<details open>" in body
        assert not Memory.objects.filter(supersedes_id=world.memory_a.pk).exists()

    def test_it_answers_400_with_errors_for_plain_posts(self, staff, world):
        response = staff.post(action_url(world.memory_a, "correct"), correction(reason=""))
        assert response.status_code == 400
        assert "This field is required." in response.content.decode()

    def test_it_refuses_to_correct_a_superseded_version(self, staff, world):
        staff.post(action_url(world.memory_a, "correct"), correction())
        response = staff.post(action_url(world.memory_a, "correct"), correction(), **HX)
        assert "Only the current version of a memory can be corrected" in response.content.decode()
        assert Memory.objects.filter(lineage=world.memory_a.lineage).count() == 2

    def test_it_refuses_to_correct_while_the_subject_is_paused(self, staff, world):
        Subject.objects.filter(pk=world.subject_a.pk).update(paused=True)
        response = staff.post(action_url(world.memory_a, "correct"), correction(), **HX)
        assert "Memory is paused for this subject" in response.content.decode()
        assert not Memory.objects.filter(supersedes_id=world.memory_a.pk).exists()


class TestPinExpireDelete:
    def test_it_pins_and_unpins(self, staff, world):
        response = staff.post(action_url(world.memory_a, "pin"), {"pin-reason": "core fact"}, **HX)
        assert response.status_code == 200
        assert Memory.objects.get(pk=world.memory_a.pk).pinned
        assert (last_entry().action, last_entry().reason) == ("memory.pin", "core fact")
        assert "memory-changed" in response["HX-Trigger"]
        staff.post(action_url(world.memory_a, "unpin"), {"pin-reason": "not core"})
        assert not Memory.objects.get(pk=world.memory_a.pk).pinned
        assert last_entry().action == "memory.unpin"

    def test_it_expires(self, staff, world):
        response = staff.post(action_url(world.memory_a, "expire"), {"expire-reason": "done"})
        assert response.status_code == 302
        memory = Memory.objects.get(pk=world.memory_a.pk)
        assert memory.status == "expired"
        assert memory.valid_to is not None
        assert (last_entry().action, last_entry().reason) == ("memory.expire", "done")

    def test_it_refuses_to_expire_what_is_not_live(self, staff, world):
        superseded = make_memory(world.subject_a, "old", status="superseded")
        before = AuditEntry.objects.count()
        response = staff.post(action_url(superseded, "expire"), {"expire-reason": "x"}, **HX)
        assert "Only an active, observed or needs-review memory can be expired." in (
            response.content.decode()
        )
        assert Memory.objects.get(pk=superseded.pk).status == "superseded"
        assert AuditEntry.objects.count() == before

    @pytest.mark.parametrize("action", ["pin", "expire", "delete"])
    def test_it_requires_a_reason(self, staff, world, action):
        prefix = "pin" if action == "pin" else action
        before = AuditEntry.objects.count()
        response = staff.post(action_url(world.memory_a, action), {f"{prefix}-reason": ""}, **HX)
        assert response.status_code == 200
        assert "This field is required." in response.content.decode()
        memory = Memory.objects.get(pk=world.memory_a.pk)
        assert (memory.pinned, memory.status) == (False, "active")
        assert AuditEntry.objects.count() == before

    def test_it_deletes(self, staff, world):
        response = staff.post(
            action_url(world.memory_a, "delete"), {"delete-reason": "asked by user"}, **HX
        )
        assert response.status_code == 200
        assert not Memory.objects.filter(pk=world.memory_a.pk).exists()
        entry = last_entry()
        assert (entry.action, entry.target_id, entry.reason) == (
            "memory.delete",
            str(world.memory_a.pk),
            "asked by user",
        )
        assert "Memory deleted." in response.content.decode()
        assert "memory-changed" in response["HX-Trigger"]

    def test_it_redirects_to_the_subject_after_a_plain_delete(self, staff, world):
        response = staff.post(action_url(world.memory_a, "delete"), {"delete-reason": "gdpr"})
        assert response.status_code == 302
        assert response["Location"] == reverse("console-subject", args=[world.subject_a.pk])


class TestReveal:
    def test_it_reveals_an_event_with_a_reason_and_audits_it(self, staff, operator, world):
        url = reverse("console-reveal", args=["event", world.event_a.pk])
        response = staff.post(
            url,
            {"reason": "user asked for a copy"},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET=f"pii-event-{world.event_a.pk}",
        )
        body = response.content.decode()
        assert response.status_code == 200
        assert PHONE in body
        assert body.lstrip().startswith(
            f'<div class="pii is-revealed" id="pii-event-{world.event_a.pk}"'
        )
        entry = last_entry()
        assert (entry.action, entry.reason) == ("pii.reveal", "user asked for a copy")
        assert (entry.target_type, entry.target_id) == ("memory.event", str(world.event_a.pk))
        assert (entry.actor_id, entry.subject_id) == (str(operator.pk), world.subject_a.pk)

    def test_it_reveals_a_memory(self, staff, world):
        url = reverse("console-reveal", args=["memory", world.memory_a.pk])
        response = staff.post(url, {"reason": "checking a complaint"}, HTTP_HX_REQUEST="true")
        assert PHONE in response.content.decode()
        assert (last_entry().action, last_entry().target_type) == ("pii.reveal", "memory.memory")

    def test_it_highlights_the_quote_in_a_revealed_source_event(self, staff, world):
        url = reverse("console-reveal", args=["event", world.event_a.pk])
        body = staff.post(
            url, {"reason": "audit", "quote_of": world.memory_a.pk}, HTTP_HX_REQUEST="true"
        ).content.decode()
        assert "<mark>我不吃辣</mark>" in body
        assert PHONE in body

    @pytest.mark.parametrize("reason", ["", "   "])
    def test_it_requires_a_reason(self, staff, world, reason):
        before = AuditEntry.objects.count()
        url = reverse("console-reveal", args=["event", world.event_a.pk])
        response = staff.post(url, {"reason": reason}, HTTP_HX_REQUEST="true")
        body = response.content.decode()
        assert response.status_code == 200
        assert PHONE not in body
        assert "This field is required." in body
        assert AuditEntry.objects.count() == before

    def test_it_renders_a_page_for_plain_posts(self, staff, world):
        url = reverse("console-reveal", args=["event", world.event_a.pk])
        response = staff.post(url, {"reason": "no js"})
        assert response.status_code == 200
        assert "<html" in response.content.decode()
        assert PHONE in response.content.decode()

    def test_it_answers_404_for_unknown_kinds(self, staff, world):
        url = reverse("console-reveal", args=["subject", world.subject_a.pk])
        assert staff.post(url, {"reason": "x"}).status_code == 404
