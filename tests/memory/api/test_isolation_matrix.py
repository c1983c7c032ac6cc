"""Every agent endpoint: an outsider gets 404 (or an empty answer of its own tenant), a key
without the needed scope gets 403, and nothing of the tenant's data leaks."""

import pytest

from memory.models import Memory

SECRET = "用户的秘密偏好：只喝单一产地的耶加雪菲咖啡"


@pytest.fixture
def world(cast):
    c = cast.alice_client
    memory = c.post(
        "/api/v1/subjects/victim/memories",
        {"content": SECRET, "category": "preference", "confidence": 0.9, "linked_doc_id": "doc-1"},
        format="json",
    ).json()["memory"]
    c.post(
        "/api/v1/subjects/victim/events",
        {"session_id": "s1", "extract": "none", "events": [{"role": "user", "content": SECRET}]},
        format="json",
    )
    return memory["id"]


def endpoints(memory_id):
    base = "/api/v1/subjects/victim"
    return [
        ("get", f"{base}/events", None),
        (
            "post",
            f"{base}/events",
            {"session_id": "s", "events": [{"role": "user", "content": "hi"}]},
        ),
        ("get", f"{base}/memories", None),
        ("post", f"{base}/memories", {"content": "x", "category": "fact"}),
        ("get", f"{base}/memories/{memory_id}", None),
        ("patch", f"{base}/memories/{memory_id}", {"content": "changed"}),
        ("delete", f"{base}/memories/{memory_id}", None),
        ("get", f"{base}/memories/{memory_id}/history", None),
        ("post", f"{base}/recall", {"query": "咖啡"}),
        ("get", f"{base}/sessions/s1/context", None),
        ("get", f"{base}/profile", None),
        ("post", f"{base}/portal-link", None),
        ("delete", base, None),
    ]


def call(client, method, url, body):
    return (
        getattr(client, method)(url, body, format="json")
        if body is not None
        else getattr(client, method)(url)
    )


def test_a_restricted_agent_gets_404_on_every_endpoint_of_an_ungranted_subject(cast, world):
    for method, url, body in endpoints(world):
        response = call(cast.bob_client, method, url, body)
        assert response.status_code == 404, (method, url, response.status_code)
        assert SECRET not in response.content.decode()
    assert Memory.objects.get(pk=world).content == SECRET


def test_another_tenant_never_sees_or_changes_the_data(cast, world):
    for method, url, body in endpoints(world):
        response = call(cast.charlie_client, method, url, body)
        assert SECRET not in response.content.decode(), (method, url)
        if f"/memories/{world}" in url:
            assert response.status_code == 404, (method, url, response.status_code)
    # Ids resolve inside charlie's own tenant: his writes made (and his DELETE erased) his own
    # "victim"; the tenant's subject and memory are untouched.
    from memory.models import Subject

    assert Subject.objects.filter(tenant=cast.tenant_a, external_id="victim").exists()
    assert Memory.objects.get(pk=world).content == SECRET
    assert cast.charlie_client.post("/api/v1/knowledge/doc-1/updated").json() == {"flagged": 0}
    assert Memory.objects.get(pk=world).status == "active"


def test_a_read_only_key_gets_403_for_writes_on_a_granted_subject(cast):
    writes = [
        (
            "post",
            "/api/v1/subjects/granted-1/events",
            {"session_id": "s", "events": [{"role": "user", "content": "hi"}]},
        ),
        ("post", "/api/v1/subjects/granted-1/memories", {"content": "x", "category": "fact"}),
        ("post", "/api/v1/subjects/granted-1/portal-link", None),
        ("delete", "/api/v1/subjects/granted-1", None),
        ("post", "/api/v1/knowledge/doc-1/updated", None),
    ]
    for method, url, body in writes:
        response = call(cast.bob_client, method, url, body)
        assert response.status_code == 403, (method, url, response.status_code)
        assert response.json()["error"]["code"] == "permission_denied"
    reads = [
        "/api/v1/subjects/granted-1/memories",
        "/api/v1/subjects/granted-1/events",
        "/api/v1/subjects/granted-1/profile",
    ]
    for url in reads:
        assert cast.bob_client.get(url).status_code == 200
    assert (
        cast.bob_client.post(
            "/api/v1/subjects/granted-1/recall", {"query": "x"}, format="json"
        ).status_code
        == 200
    )


def test_bad_input_never_answers_500(cast):
    c = cast.alice_client
    bad = [
        ("post", "/api/v1/subjects/u1/events", {"events": None}),
        ("post", "/api/v1/subjects/u1/events", ["not", "an", "object"]),
        ("post", "/api/v1/subjects/u1/memories", {"content": None, "category": 7}),
        ("patch", "/api/v1/subjects/u1/memories/1", {}),
        ("post", "/api/v1/subjects/u1/recall", {"query": "x", "top_k": "many", "token_budget": -1}),
        ("get", "/api/v1/subjects/u1/memories?limit=0&cursor=%%%", None),
        ("get", "/api/v1/subjects/u1/profile?as_of=yesterday", None),
        ("get", "/api/v1/subjects/u1/sessions/s/context?token_budget=abc", None),
        ("post", "/api/v1/subjects/" + "x" * 200 + "/recall", {"query": "x"}),
    ]
    for method, url, body in bad:
        response = call(c, method, url, body)
        assert 400 <= response.status_code < 500, (method, url, response.status_code)
        assert "error" in response.json()
