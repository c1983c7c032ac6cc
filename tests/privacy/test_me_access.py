"""/me/: who may open what. Outsiders (another person, staff of any tenant, anonymous) never
reach someone else's page, memory, export or case; sign-in links work once and expire."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEntry
from audit.services import SYSTEM
from memory.models import Memory
from privacy.models import DataSubjectRequest
from privacy.portal import portal_link_for
from privacy.services import export_link_token
from tests.privacy.conftest import client_for


def link_for(subject, rf) -> str:
    url, _ = portal_link_for(subject=subject, request=rf.get("/"), actor=SYSTEM)
    return url.removeprefix("http://testserver")


def export_for(person):
    client = person.client()
    client.post(reverse("me-export"))
    case = DataSubjectRequest.objects.get(subject_pk=person.subject.pk, kind="access")
    assert case.status == "completed"
    return case


def test_it_redirects_anonymous_visitors_to_sign_in(client, person_a):
    case = export_for(person_a)
    memory = Memory.objects.filter(subject=person_a.subject).first()
    urls = [
        reverse("me-home"),
        reverse("me-export"),
        reverse("me-forget"),
        reverse("me-download", args=[export_link_token(case)]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    for url in (reverse("me-correct", args=[memory.pk]), reverse("me-delete", args=[memory.pk])):
        assert client.post(url, {"content": "x"}).status_code == 302
    assert Memory.objects.filter(pk=memory.pk, content=memory.content).exists()


def test_it_answers_404_to_staff_without_a_subject(cast, officer_a, root):
    for user in (officer_a, root):
        assert client_for(user).get(reverse("me-home")).status_code == 404
        assert client_for(user).get(reverse("me-export")).status_code == 404


def test_it_shows_only_the_signed_in_persons_memories(person_a, person_b):
    response = person_a.client().get(reverse("me-home"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "不吃辣" in body and "aisle" not in body
    assert AuditEntry.objects.filter(
        action="portal.view", subject_id=person_a.subject.pk, actor_id=str(person_a.user.pk)
    ).exists()


def test_it_hides_another_persons_memories_from_correct_and_delete(person_a, person_b):
    theirs = Memory.objects.filter(subject=person_b.subject, status="active").first()
    client = person_a.client()
    assert (
        client.post(reverse("me-correct", args=[theirs.pk]), {"content": "hacked"}).status_code
        == 404
    )
    assert client.post(reverse("me-delete", args=[theirs.pk])).status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == "active" and "hacked" not in theirs.content


def test_it_never_serves_an_export_to_anyone_else(person_a, person_b, person_c, officer_a, root):
    case = export_for(person_a)
    url = reverse("me-download", args=[export_link_token(case)])
    assert person_a.client().get(url).status_code == 200
    for outsider in (person_b.client(), person_c.client(), client_for(officer_a), client_for(root)):
        assert outsider.get(url).status_code == 404
        assert outsider.get(url + "?format=html").status_code == 404


def test_it_rejects_forged_download_tokens(person_a):
    export_for(person_a)
    assert person_a.client().get(reverse("me-download", args=["forged:token"])).status_code == 404


def test_it_does_not_show_someone_elses_export_progress(person_a, person_b):
    export_for(person_a)
    response = person_b.client().get(reverse("me-export"))
    assert response.status_code == 200
    assert "me-download" not in response.content.decode()
    assert "/me/download/" not in response.content.decode()


def test_the_sign_in_link_works_once(client, person_a, rf):
    url = link_for(person_a.subject, rf)
    response = client.get(url)
    assert response.status_code == 302 and response["Location"] == reverse("me-home")
    assert client.get(reverse("me-home")).status_code == 200
    again = client.get(url)
    assert again.status_code == 404
    assert "only once" in again.content.decode()


def test_the_sign_in_link_creates_the_account_on_first_use(client, cast, rf):
    from memory.models import Subject
    from tests.privacy.conftest import SAID, converse

    converse(cast.alice_client, "newcomer", SAID["person-a"])
    subject = Subject.objects.get(external_id="newcomer")
    assert subject.end_user_id is None
    client.get(link_for(subject, rf))
    subject.refresh_from_db()
    assert subject.end_user_id is not None
    assert "不吃辣" in client.get(reverse("me-home")).content.decode()


def test_the_sign_in_link_expires(client, person_a, rf, settings):
    settings.ENGRAM_PORTAL_LINK_MAX_AGE = 60
    url = link_for(person_a.subject, rf)
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=120)):
        response = client.get(url)
    assert response.status_code == 404
    assert client.get(reverse("me-home")).status_code == 302  # still signed out


@pytest.mark.parametrize("token", ["garbage", "a" * 80])
def test_a_bad_link_is_a_friendly_404(client, token):
    response = client.get(reverse("me-link", args=[token]))
    assert response.status_code == 404
    assert "ask it for a new link" in response.content.decode()
