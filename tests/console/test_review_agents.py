import pytest
from django.urls import reverse
from guardian.shortcuts import get_perms

from accounts.keys import hash_key
from accounts.models import Agent
from audit.models import AuditEntry
from memory.models import Subject

AGENTS = reverse("console-agents")
CREATE = reverse("console-agent-create")


def url(name: str, agent: Agent) -> str:
    return reverse(name, args=[agent.pk])


class TestAgentList:
    def test_admins_see_agents_of_their_tenants(self, cast, admin_user, client):
        client.force_login(admin_user)
        response = client.get(AGENTS)
        assert response.status_code == 200
        html = response.content.decode()
        assert "alice" in html and "bob" in html and cast.alice.key_prefix in html
        assert "charlie" not in html
        assert "restricted" in html  # bob

    @pytest.mark.parametrize("role", ["viewer", "operator", "privacy_officer"])
    def test_other_roles_are_refused(self, cast, request, client, role):
        client.force_login(request.getfixturevalue(role))
        assert client.get(AGENTS).status_code == 403
        assert client.get(CREATE).status_code == 403
        assert client.get(url("console-agent", cast.alice)).status_code == 403
        assert (
            client.post(url("console-agent-revoke", cast.alice), {"confirm": "on"}).status_code
            == 403
        )
        cast.alice.refresh_from_db()
        assert cast.alice.is_active

    def test_admins_of_other_tenants_get_404(self, cast, admin_user, client):
        client.force_login(admin_user)
        for name in ("console-agent", "console-agent-revoke"):
            assert client.get(url(name, cast.charlie)).status_code == 404
        assert (
            client.post(url("console-agent-scopes", cast.charlie), {"scopes": ["read"]}).status_code
            == 404
        )
        assert (
            client.post(url("console-agent-grant", cast.charlie), {"subject": "x"}).status_code
            == 404
        )
        assert (
            client.post(url("console-agent-revoke", cast.charlie), {"confirm": "on"}).status_code
            == 404
        )


class TestAgentCreate:
    def test_the_key_is_shown_once(self, cast, admin_user, client):
        client.force_login(admin_user)
        response = client.post(
            CREATE,
            {"tenant": cast.tenant_a.pk, "name": "support-bot", "scopes": ["read", "write"]},
        )
        assert response.status_code == 200
        assert response["Cache-Control"] == "no-store"
        key = response.context["key"]
        agent = Agent.objects.get(name="support-bot")
        assert key in response.content.decode()
        assert agent.key_hash == hash_key(key) and agent.scopes == ["read", "write"]
        assert AuditEntry.objects.filter(action="agent.create", target_id=str(agent.pk)).exists()
        # Never again: not on the detail page, not in the list.
        assert key not in client.get(url("console-agent", agent)).content.decode()
        assert key not in client.get(AGENTS).content.decode()

    def test_the_tenant_must_be_one_the_admin_sees(self, cast, admin_user, client):
        client.force_login(admin_user)
        response = client.post(
            CREATE, {"tenant": cast.tenant_b.pk, "name": "sneaky", "scopes": ["read"]}
        )
        assert response.status_code == 200 and "key" not in response.context
        assert not Agent.objects.filter(name="sneaky").exists()

    def test_duplicate_names_are_a_form_error(self, cast, admin_user, client):
        client.force_login(admin_user)
        response = client.post(
            CREATE, {"tenant": cast.tenant_a.pk, "name": "alice", "scopes": ["read"]}
        )
        assert "already has an agent named" in response.content.decode()

    def test_a_restricted_agent_can_be_created(self, cast, admin_user, client):
        client.force_login(admin_user)
        client.post(
            CREATE,
            {"tenant": cast.tenant_a.pk, "name": "r", "scopes": ["read"], "restricted": "on"},
        )
        assert Agent.objects.get(name="r").restricted_to_granted_subjects


class TestAgentChanges:
    def test_revoke_asks_for_confirmation_first(self, cast, admin_user, client):
        client.force_login(admin_user)
        revoke = url("console-agent-revoke", cast.alice)
        assert "cannot be undone" in client.get(revoke).content.decode()
        client.post(revoke, {})  # box not ticked
        cast.alice.refresh_from_db()
        assert cast.alice.is_active
        response = client.post(revoke, {"confirm": "on", "reason": "leaked"})
        assert response.status_code == 302
        cast.alice.refresh_from_db()
        assert not cast.alice.is_active and cast.alice.revoked_at is not None
        entry = AuditEntry.objects.get(action="agent.revoke")
        assert entry.actor_id == str(admin_user.pk) and entry.reason == "leaked"
        # The revoked key no longer works on the API.
        assert cast.alice_client.get("/api/v1/subjects/u1/memories").status_code == 401

    def test_scopes_can_be_edited(self, cast, admin_user, client):
        client.force_login(admin_user)
        client.post(url("console-agent-scopes", cast.alice), {"scopes": ["read"]})
        cast.alice.refresh_from_db()
        assert cast.alice.scopes == ["read"]
        client.post(url("console-agent-scopes", cast.alice), {})  # at least one scope
        cast.alice.refresh_from_db()
        assert cast.alice.scopes == ["read"]

    def test_subjects_can_be_granted_to_restricted_agents(self, cast, admin_user, client):
        subject = Subject.objects.create(tenant=cast.tenant_a, external_id="vip")
        Subject.objects.create(tenant=cast.tenant_b, external_id="elsewhere")
        client.force_login(admin_user)
        client.post(url("console-agent-grant", cast.bob), {"subject": "vip"})
        assert "access_subject" in get_perms(cast.bob.user, subject)
        response = client.post(url("console-agent-grant", cast.bob), {"subject": "elsewhere"})
        assert response.status_code == 302
        assert Subject.objects.get(external_id="elsewhere").pk not in [
            s.pk for s in client.get(url("console-agent", cast.bob)).context["granted"]
        ]
        html = client.get(url("console-agent", cast.bob)).content.decode()
        assert "vip" in html and "granted-1" in html

    def test_a_grant_can_be_removed_and_the_agent_loses_the_subject(
        self, cast, admin_user, operator, client
    ):
        from django.urls import reverse

        remove = reverse("console-agent-ungrant", args=[cast.bob.pk, cast.granted_subject.pk])
        client.force_login(operator)
        assert client.post(remove).status_code == 403
        client.force_login(admin_user)
        assert client.post(remove).status_code == 302
        assert "access_subject" not in get_perms(cast.bob.user, cast.granted_subject)
        assert cast.bob_client.get("/api/v1/subjects/granted-1/memories").status_code == 404
        assert client.post(remove).status_code == 404
