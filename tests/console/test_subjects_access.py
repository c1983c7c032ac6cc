"""Who may see and do what in the subjects part of the console (the role × tenant grid)."""

import pytest
from django.urls import reverse

from audit.models import AuditEntry
from memory.models import Memory
from tests.console.subject_world import PHONE, build_world

pytestmark = pytest.mark.django_db

MASK = "▇▇▇"


@pytest.fixture
def world(cast):
    return build_world(cast)


def _urls(world, which: str) -> dict[str, tuple[str, str]]:
    memory = world.memory_a if which == "a" else world.memory_b
    subject = world.subject_a if which == "a" else world.subject_b
    event = world.event_a if which == "a" else world.event_b
    return {
        "subject": ("get", reverse("console-subject", args=[subject.pk])),
        "memory": ("get", reverse("console-memory", args=[memory.pk])),
        "pin": ("post", reverse("console-memory-action", args=[memory.pk, "pin"])),
        "delete": ("post", reverse("console-memory-action", args=[memory.pk, "delete"])),
        "reveal": ("post", reverse("console-reveal", args=["event", event.pk])),
    }


class TestSubjectsAccess:
    def test_it_redirects_anonymous_users_to_login(self, client, world):
        for method, url in [("get", reverse("console-subjects")), *_urls(world, "a").values()]:
            response = getattr(client, method)(url, {"reason": "x"})
            assert response.status_code == 302, url
            assert response["Location"].startswith(reverse("login"))

    def test_it_forbids_staff_without_a_role(self, client, logged_in, no_role_user, world):
        logged_in(client, no_role_user)
        assert client.get(reverse("console-subjects")).status_code == 403
        assert client.get(reverse("console-subject", args=[world.subject_a.pk])).status_code == 403

    def test_it_lists_only_the_staff_members_tenants(
        self, client, logged_in, viewer, limited_staff, world
    ):
        body = logged_in(client, viewer).get(reverse("console-subjects")).content.decode()
        assert "wang.fang" in body
        assert "outsider" not in body
        client.logout()
        body = logged_in(client, limited_staff).get(reverse("console-subjects")).content.decode()
        assert "outsider" in body
        assert "wang.fang" not in body

    def test_it_lists_every_tenant_for_superusers(self, client, logged_in, superuser, world):
        body = logged_in(client, superuser).get(reverse("console-subjects")).content.decode()
        assert "wang.fang" in body
        assert "outsider" in body

    @pytest.mark.parametrize("name", ["subject", "memory", "pin", "delete", "reveal"])
    def test_it_answers_404_for_another_tenants_objects(
        self, client, logged_in, limited_staff, world, name
    ):
        logged_in(client, limited_staff)  # an operator, but of tenant B only
        method, url = _urls(world, "a")[name]
        response = getattr(client, method)(url, {"reason": "looking"})
        assert response.status_code == 404
        assert Memory.objects.filter(pk=world.memory_a.pk, pinned=False).exists()

    @pytest.mark.parametrize("name", ["subject", "memory", "pin", "delete", "reveal"])
    def test_it_answers_404_before_403_for_viewers(self, client, logged_in, viewer, world, name):
        logged_in(client, viewer)
        method, url = _urls(world, "b")[name]
        assert getattr(client, method)(url, {"reason": "x"}).status_code == 404

    @pytest.mark.parametrize("name", ["pin", "delete", "reveal"])
    def test_it_forbids_viewers_to_act_or_reveal(self, client, logged_in, viewer, world, name):
        logged_in(client, viewer)
        method, url = _urls(world, "a")[name]
        before = AuditEntry.objects.count()
        assert getattr(client, method)(url, {"reason": "because"}).status_code == 403
        memory = Memory.objects.get(pk=world.memory_a.pk)
        assert not memory.pinned
        assert AuditEntry.objects.count() == before

    def test_it_masks_personal_data_for_viewers(self, client, logged_in, viewer, world):
        logged_in(client, viewer)
        for url in (
            reverse("console-subject", args=[world.subject_a.pk]),
            reverse("console-memory", args=[world.memory_a.pk]),
        ):
            body = client.get(url).content.decode()
            assert PHONE not in body
            assert MASK in body
            assert "Only operators and above can reveal personal data." in body
            assert reverse("console-reveal", args=["event", world.event_a.pk]) not in body

    def test_it_shows_viewers_no_action_forms(self, client, logged_in, viewer, world):
        body = (
            logged_in(client, viewer)
            .get(reverse("console-memory", args=[world.memory_a.pk]))
            .content.decode()
        )
        assert reverse("console-memory-action", args=[world.memory_a.pk, "correct"]) not in body
        assert "can view memories but not change them" in body

    @pytest.mark.parametrize("role", ["operator", "privacy_officer", "admin_user"])
    def test_it_offers_actions_and_reveal_to_operators_and_above(
        self, client, logged_in, world, role, request
    ):
        logged_in(client, request.getfixturevalue(role))
        body = client.get(reverse("console-memory", args=[world.memory_a.pk])).content.decode()
        # masked by default for every role: unmasking is a deliberate, audited reveal
        assert PHONE not in body
        assert reverse("console-reveal", args=["event", world.event_a.pk]) in body
        for action in ("correct", "pin", "expire", "delete"):
            assert reverse("console-memory-action", args=[world.memory_a.pk, action]) in body

    @pytest.mark.parametrize("role", ["operator", "privacy_officer", "admin_user"])
    def test_it_lets_operators_and_above_act(self, client, logged_in, world, role, request):
        logged_in(client, request.getfixturevalue(role))
        url = reverse("console-memory-action", args=[world.memory_a.pk, "pin"])
        assert client.post(url, {"pin-reason": "keep"}).status_code == 302
        assert Memory.objects.get(pk=world.memory_a.pk).pinned

    def test_it_rejects_get_on_actions(self, client, logged_in, operator, world):
        logged_in(client, operator)
        url = reverse("console-memory-action", args=[world.memory_a.pk, "pin"])
        assert client.get(url).status_code == 405

    def test_it_answers_404_for_unknown_actions(self, client, logged_in, operator, world):
        logged_in(client, operator)
        url = reverse("console-memory-action", args=[world.memory_a.pk, "explode"])
        assert client.post(url, {"reason": "x"}).status_code == 404
