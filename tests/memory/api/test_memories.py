import pytest

from memory.models import Memory, Observation
from tests.conftest import error_code

URL = "/api/v1/subjects/{}/memories"


def create(client, subject, **body):
    payload = {"content": "用户不吃辣味食物", "category": "preference", "confidence": 0.9}
    payload.update(body)
    return client.post(URL.format(subject), payload, format="json")


def test_it_creates_a_memory_with_every_contract_field(cast):
    response = create(cast.alice_client, "u1", entities=["辣"], importance=0.7)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["action"] == "created"
    memory = body["memory"]
    for key in (
        "id",
        "subject_id",
        "kind",
        "category",
        "content",
        "entities",
        "importance",
        "confidence",
        "status",
        "version",
        "supersedes",
        "superseded_by",
        "source_event_id",
        "source_quote",
        "linked_doc_id",
        "pinned",
        "hit_count",
        "last_accessed_at",
        "valid_from",
        "created_at",
        "updated_at",
    ):
        assert key in memory
    assert memory["subject_id"] == "u1"
    assert memory["status"] == "active" and memory["version"] == 1


def test_it_redacts_pii_before_writing(cast):
    body = create(
        cast.alice_client,
        "u1",
        content="用户的手机号是 13812345678，邮箱 a.b@example.com",
        category="profile",
    ).json()
    content = body["memory"]["content"]
    assert "13812345678" not in content and "a.b@example.com" not in content
    assert "[PHONE]" in content and "[EMAIL]" in content


def test_it_merges_a_duplicate(cast):
    first = create(cast.alice_client, "u1").json()
    second = create(cast.alice_client, "u1").json()
    assert second["action"] == "merged"
    assert second["memory"]["id"] == first["memory"]["id"]
    assert Memory.objects.filter(subject__external_id="u1").count() == 1


def test_low_confidence_goes_to_the_review_queue(cast):
    body = create(
        cast.alice_client,
        "u1",
        content="The user might like jazz",
        confidence=0.4,
        category="preference",
    ).json()
    assert body["action"] == "observed"
    assert body["memory"]["status"] == "observed"
    observation = Observation.objects.get(pk=body["observation_id"])
    assert observation.kind == "low_confidence" and observation.status == "pending"


def test_patch_makes_a_new_version_and_history_lists_the_chain(cast):
    original = create(cast.alice_client, "u1").json()["memory"]
    url = URL.format("u1") + f"/{original['id']}"
    response = cast.alice_client.patch(url, {"content": "用户不吃辣，也不吃香菜"}, format="json")
    assert response.status_code == 200, response.json()
    new = response.json()
    assert new["version"] == 2 and new["supersedes"] == original["id"]
    old = cast.alice_client.get(url).json()
    assert old["status"] == "superseded" and old["superseded_by"] == new["id"]
    history = cast.alice_client.get(url + "/history").json()["results"]
    assert [m["version"] for m in history] == [1, 2]
    # the superseded version cannot be corrected again
    again = cast.alice_client.patch(url, {"content": "x"}, format="json")
    assert again.status_code == 409
    assert error_code(again) == "not_current"


def test_delete_removes_the_row_physically(cast):
    memory = create(cast.alice_client, "u1").json()["memory"]
    url = URL.format("u1") + f"/{memory['id']}"
    assert cast.alice_client.delete(url).status_code == 204
    assert not Memory.objects.filter(pk=memory["id"]).exists()
    assert cast.alice_client.get(url).status_code == 404


def test_list_filters_by_status_category_and_keyword(cast):
    create(cast.alice_client, "u1")
    create(cast.alice_client, "u1", content="The user lives in Berlin", category="profile")
    create(
        cast.alice_client,
        "u1",
        content="The user may move to Paris",
        confidence=0.3,
        category="plan",
    )
    everything = cast.alice_client.get(URL.format("u1")).json()["results"]
    assert len(everything) == 3
    active = cast.alice_client.get(URL.format("u1"), {"status": "active"}).json()["results"]
    assert {m["status"] for m in active} == {"active"} and len(active) == 2
    profile = cast.alice_client.get(URL.format("u1"), {"category": "profile"}).json()["results"]
    assert [m["content"] for m in profile] == ["The user lives in Berlin"]
    found = cast.alice_client.get(URL.format("u1"), {"q": "berlin"}).json()["results"]
    assert [m["content"] for m in found] == ["The user lives in Berlin"]
    found_zh = cast.alice_client.get(URL.format("u1"), {"q": "不吃辣"}).json()["results"]
    assert len(found_zh) == 1


def test_list_paginates(cast):
    for i in range(5):
        create(
            cast.alice_client,
            "u1",
            content=f"The user owns {i} unrelated item type {i * 7}",
            category="fact",
        )
    page = cast.alice_client.get(URL.format("u1"), {"limit": 2}).json()
    ids = [m["id"] for m in page["results"]]
    while page["next"]:
        page = cast.alice_client.get(URL.format("u1"), {"limit": 2, "cursor": page["next"]}).json()
        ids += [m["id"] for m in page["results"]]
    assert len(ids) == len(set(ids)) == Memory.objects.count()


@pytest.mark.parametrize(
    "body,field",
    [
        ({"content": "", "category": "fact"}, "content"),
        ({"content": "x", "category": "gossip"}, "category"),
        ({"content": "x", "category": "fact", "importance": 2}, "importance"),
        ({"content": "x", "category": "fact", "confidence": "high"}, "confidence"),
        ({"content": "x", "category": "fact", "kind": "dream"}, "kind"),
        ({"content": "x", "category": "fact", "source_event_id": 999999}, "source_event_id"),
    ],
)
def test_it_rejects_invalid_memories(cast, body, field):
    response = cast.alice_client.post(URL.format("u1"), body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_invalid_status_filter_is_a_400(cast):
    response = cast.alice_client.get(URL.format("u1"), {"status": "deleted"})
    assert response.status_code == 400


def test_outsiders_get_404_for_memory_ids(cast):
    memory = create(cast.alice_client, "u1").json()["memory"]
    url = URL.format("u1") + f"/{memory['id']}"
    for client in (cast.charlie_client, cast.bob_client):
        assert client.get(url).status_code == 404
        assert client.get(url + "/history").status_code == 404
    assert cast.charlie_client.patch(url, {"content": "hacked"}, format="json").status_code == 404
    assert cast.charlie_client.delete(url).status_code == 404
    assert cast.charlie_client.get(URL.format("u1")).json()["results"] == []
    assert Memory.objects.get(pk=memory["id"]).content == "用户不吃辣味食物"


def test_read_only_agents_cannot_write(cast):
    response = create(cast.bob_client, "granted-1")
    assert response.status_code == 403


def test_paused_subjects_refuse_writes(cast):
    from audit.services import SYSTEM
    from memory.models import Subject
    from memory.services import subject_set_paused

    create(cast.alice_client, "u1")
    subject_set_paused(subject=Subject.objects.get(external_id="u1"), paused=True, actor=SYSTEM)
    response = create(cast.alice_client, "u1", content="new fact", category="fact")
    assert response.status_code == 423
    assert error_code(response) == "subject_paused"
    events = cast.alice_client.post(
        "/api/v1/subjects/u1/events",
        {"session_id": "s", "events": [{"role": "user", "content": "hi"}]},
        format="json",
    )
    assert events.status_code == 423


def test_every_write_and_read_is_audited(cast):
    from audit.models import AuditEntry

    memory = create(cast.alice_client, "u1").json()["memory"]
    cast.alice_client.get(URL.format("u1") + f"/{memory['id']}")
    actions = set(
        AuditEntry.objects.filter(actor_id=str(cast.alice.pk)).values_list("action", flat=True)
    )
    assert {"subject.create", "memory.create", "memory.read"} <= actions
