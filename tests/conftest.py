"""The fixed cast of actors (healthchecks' BaseTestCase, as pytest fixtures).

Tenant A ("acme"): alice_agent (read, write, erase), bob_agent (read only, restricted by
guardian to subject "granted-1"), a staff user. Tenant B ("globex"): charlie_agent, the outsider.
"""

import shutil
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from accounts.models import Agent, Tenant
from accounts.services import agent_create, tenant_get_or_create
from audit.services import SYSTEM
from memory.models import Subject
from memory.services import agent_subject_grant, subject_get_or_create


@dataclass
class Cast:
    tenant_a: Tenant
    tenant_b: Tenant
    alice: Agent
    alice_key: str
    bob: Agent
    bob_key: str
    charlie: Agent
    charlie_key: str
    granted_subject: Subject

    def client(self, key: str) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        return client

    @property
    def alice_client(self) -> APIClient:
        return self.client(self.alice_key)

    @property
    def bob_client(self) -> APIClient:
        return self.client(self.bob_key)

    @property
    def charlie_client(self) -> APIClient:
        return self.client(self.charlie_key)


@pytest.fixture(scope="session", autouse=True)
def _remove_test_exports():
    yield
    from django.conf import settings

    shutil.rmtree(settings.ENGRAM_EXPORT_DIR, ignore_errors=True)


@pytest.fixture
def cast(db) -> Cast:
    tenant_a = tenant_get_or_create(slug="acme", actor=SYSTEM)
    tenant_b = tenant_get_or_create(slug="globex", actor=SYSTEM)
    alice = agent_create(
        tenant=tenant_a, name="alice", scopes=["read", "write", "erase"], actor=SYSTEM
    )
    bob = agent_create(
        tenant=tenant_a,
        name="bob",
        scopes=["read"],
        actor=SYSTEM,
        restricted_to_granted_subjects=True,
    )
    charlie = agent_create(
        tenant=tenant_b, name="charlie", scopes=["read", "write", "erase"], actor=SYSTEM
    )
    granted = subject_get_or_create(tenant=tenant_a, external_id="granted-1", actor=SYSTEM)
    agent_subject_grant(agent=bob.agent, subject=granted, actor=SYSTEM)
    return Cast(
        tenant_a=tenant_a,
        tenant_b=tenant_b,
        alice=alice.agent,
        alice_key=alice.key,
        bob=bob.agent,
        bob_key=bob.key,
        charlie=charlie.agent,
        charlie_key=charlie.key,
        granted_subject=granted,
    )


@pytest.fixture
def staff_user(db):
    return get_user_model().objects.create_user(
        username="staff", password="staff-pass-123", is_staff=True
    )


def error_code(response) -> str:
    return response.json()["error"]["code"]
