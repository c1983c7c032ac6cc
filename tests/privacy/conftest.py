"""People and staff for the privacy front-end tests (/me/ and the console privacy pages).

Built on `cast` (tests/conftest.py): tenant A ("acme"), tenant B ("globex").

* `person_a` / `person_b`: subjects of tenant A with a few memories each, and end-user accounts.
* `person_c`: a subject of tenant B with an end-user account (the other tenant's person).
* staff (each limited to one tenant): `officer_a`, `officer_a2` (privacy officers of tenant A),
  `officer_b` (privacy officer of tenant B), `viewer_a`, `operator_a`; `root` (superuser).
"""

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import (
    ROLE_OPERATOR,
    ROLE_PRIVACY_OFFICER,
    ROLE_VIEWER,
)
from audit.services import SYSTEM
from memory.models import Subject
from privacy.portal import end_user_for
from tests.factories import make_staff

EVENTS = "/api/v1/subjects/{}/events"
SAID = {
    "person-a": ["我不吃辣，以后推荐餐厅记得避开辣味。", "我在杭州做产品经理。"],
    "person-b": ["I always prefer aisle seats on flights.", "I am vegetarian, no meat please."],
}


@dataclass
class Person:
    subject: Subject
    user: object

    def client(self) -> Client:
        client = Client()
        client.force_login(self.user, backend="django.contrib.auth.backends.ModelBackend")
        return client


def converse(api_client, external_id: str, lines: list[str]) -> None:
    response = api_client.post(
        EVENTS.format(external_id),
        {
            "session_id": "s1",
            "events": [{"role": "user", "content": line} for line in lines],
            "extract": "sync",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()


def _person(subject: Subject) -> Person:
    user = end_user_for(subject=subject, actor=SYSTEM)
    subject.refresh_from_db()
    return Person(subject=subject, user=user)


@pytest.fixture
def person_a(cast) -> Person:
    converse(cast.alice_client, "person-a", SAID["person-a"])
    return _person(Subject.objects.get(tenant=cast.tenant_a, external_id="person-a"))


@pytest.fixture
def person_b(cast) -> Person:
    converse(cast.alice_client, "person-b", SAID["person-b"])
    return _person(Subject.objects.get(tenant=cast.tenant_a, external_id="person-b"))


@pytest.fixture
def person_c(cast) -> Person:
    converse(cast.charlie_client, "person-c", ["I live in Oslo and love skiing."])
    return _person(Subject.objects.get(tenant=cast.tenant_b, external_id="person-c"))


@pytest.fixture
def officer_a(cast):
    return make_staff("po-a", role=ROLE_PRIVACY_OFFICER, tenants=[cast.tenant_a])


@pytest.fixture
def officer_a2(cast):
    return make_staff("po-a2", role=ROLE_PRIVACY_OFFICER, tenants=[cast.tenant_a])


@pytest.fixture
def officer_b(cast):
    return make_staff("po-b", role=ROLE_PRIVACY_OFFICER, tenants=[cast.tenant_b])


@pytest.fixture
def viewer_a(cast):
    return make_staff("viewer-a", role=ROLE_VIEWER, tenants=[cast.tenant_a])


@pytest.fixture
def operator_a(cast):
    return make_staff("operator-a", role=ROLE_OPERATOR, tenants=[cast.tenant_a])


@pytest.fixture
def root(db):
    return get_user_model().objects.create_superuser("root-p", "root@example.com", "pw-123456")


def client_for(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client
