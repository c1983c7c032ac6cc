"""The real `mem0ai` client (pip install mem0ai==2.2.1, the `dev` extra) against a live test
server: every call goes through Engram's services, so isolation, grants, audit and erasure
hold as in /api/v1/."""

import os
import time

import pytest

os.environ.setdefault("MEM0_TELEMETRY", "false")  # before mem0 is imported: no network calls
mem0 = pytest.importorskip("mem0", reason="pip install mem0ai==2.2.1 (the dev extra)")
import httpx  # noqa: E402
from mem0.exceptions import MemoryNotFoundError, ValidationError  # noqa: E402

from audit.models import AuditEntry  # noqa: E402
from memory.models import Event, Memory, Subject  # noqa: E402

pytestmark = pytest.mark.django_db(transaction=True)


def mem0_client(live_server, key):
    return mem0.MemoryClient(api_key=key, host=f"{live_server.url}/mem0")


def raw(live_server, **headers):
    return httpx.Client(base_url=f"{live_server.url}/mem0", headers=headers, timeout=30)


def poll(client, event_id, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        body = client.client.get(f"/v1/event/{event_id}/").raise_for_status().json()
        if body["status"] in ("SUCCEEDED", "FAILED") or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


def test_it_runs_the_mem0_client_flow_end_to_end(live_server, cast):
    client = mem0_client(live_server, cast.alice_key)
    assert client.org_id == "acme"
    other_tenant = mem0_client(live_server, cast.charlie_key)

    # add, infer=true: Engram's extraction pipeline, asynchronous, pollable
    queued = client.add("I always prefer aisle seats on flights.", user_id="u-mem0")
    assert queued["status"] == "PENDING"
    done = poll(client, queued["event_id"])
    assert done["status"] == "SUCCEEDED"
    assert any("aisle" in r["data"]["memory"].lower() for r in done["results"]), done

    # add, infer=false: the text as given, with agent_id and metadata kept as filters
    queued = client.add(
        "My favourite tea is oolong.",
        user_id="u-mem0",
        agent_id="tea-bot",
        run_id="run-7",
        metadata={"source": "crm"},
        infer=False,
    )
    done = poll(client, queued["event_id"])
    assert done["status"] == "SUCCEEDED"
    [tea] = done["results"]
    assert tea["data"]["memory"] == "My favourite tea is oolong."
    assert tea["event"] == "ADD"

    # another subject of the same tenant, and the same user id in another tenant
    client.add("My favourite tea is green tea.", user_id="u-other", infer=False)
    other_tenant.add("My favourite tea is black tea.", user_id="u-mem0", infer=False)

    found = client.search("which tea do I like", filters={"user_id": "u-mem0"})["results"]
    assert found and found[0]["memory"] == "My favourite tea is oolong."
    hit = found[0]
    assert hit["user_id"] == "u-mem0" and hit["agent_id"] == "tea-bot"
    assert hit["run_id"] == "run-7" and hit["metadata"] == {"source": "crm"}
    assert 0 < hit["score"] <= 1.5
    assert {"semantic", "keyword", "entity", "recency", "importance"} <= set(hit["score_breakdown"])
    assert hit["status"] == "active" and hit["version"] == 1 and "confidence" in hit
    assert all(r["user_id"] == "u-mem0" for r in found)
    assert not any("green" in r["memory"] or "black" in r["memory"] for r in found)

    narrowed = client.search(
        "seat or tea",
        filters={"AND": [{"user_id": "u-mem0"}, {"agent_id": {"in": ["tea-bot"]}}]},
    )["results"]
    assert [r["memory"] for r in narrowed] == ["My favourite tea is oolong."]

    listed = client.get_all(filters={"user_id": "u-mem0"})
    assert listed["count"] == 2 and len(listed["results"]) == 2
    assert {r["user_id"] for r in listed["results"]} == {"u-mem0"}
    first_page = client.get_all(filters={"user_id": "u-mem0"}, page=1, page_size=1)
    assert first_page["count"] == 2 and len(first_page["results"]) == 1
    assert first_page["next"] and first_page["previous"] is None
    by_agent = client.get_all(filters={"AND": [{"user_id": "u-mem0"}, {"agent_id": "tea-bot"}]})
    assert [r["id"] for r in by_agent["results"]] == [hit["id"]]

    # update = a correction: a new version; the old id still names the memory
    updated = client.update(hit["id"], text="My favourite tea is jasmine.")
    assert updated["memory"] == "My favourite tea is jasmine." and updated["version"] == 2
    assert client.get(hit["id"])["memory"] == "My favourite tea is jasmine."
    history = client.history(hit["id"])
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == "My favourite tea is oolong."
    assert history[1]["new_memory"] == "My favourite tea is jasmine."

    client.delete(hit["id"])
    with pytest.raises(MemoryNotFoundError):
        client.get(hit["id"])
    assert not Memory.objects.filter(content__contains="jasmine").exists()

    users = {e["name"] for e in client.users()["results"]}
    assert users == {"u-mem0", "u-other", "granted-1"}

    client.delete_users(user_id="u-mem0")
    assert not Subject.objects.filter(tenant=cast.tenant_a, external_id="u-mem0").exists()
    assert Memory.objects.filter(subject__external_id="u-other").count() == 1
    theirs = other_tenant.get_all(filters={"user_id": "u-mem0"})
    assert [r["memory"] for r in theirs["results"]] == ["My favourite tea is black tea."]

    actions = set(
        AuditEntry.objects.filter(actor_id=str(cast.alice.pk)).values_list("action", flat=True)
    )
    assert {"event.append", "memory.create", "memory.correct", "memory.delete"} <= actions


def test_a_bad_key_is_refused_with_401(live_server, cast):
    with pytest.raises(ValueError, match="Invalid or revoked agent key"):
        mem0_client(live_server, "egk_nothing_bad")
    response = raw(live_server, **{"X-API-Key": "egk_nothing_bad"}).get("/v1/ping/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert raw(live_server).get("/v1/ping/").status_code == 401


def test_every_mem0_auth_header_takes_an_agent_key(live_server, cast):
    for headers in (
        {"Authorization": f"Token {cast.alice_key}"},
        {"Authorization": f"Bearer {cast.alice_key}"},
        {"X-API-Key": cast.alice_key},
    ):
        body = raw(live_server, **headers).get("/v1/ping/").raise_for_status().json()
        assert body["status"] == "ok" and body["org_id"] == "acme"


def test_an_unknown_filter_is_a_clear_400(live_server, cast):
    client = mem0_client(live_server, cast.alice_key)
    with pytest.raises(ValidationError, match="colour"):
        client.get_all(filters={"user_id": "u1", "colour": "red"})
    response = client.client.post(
        "/v3/memories/search/", json={"query": "x", "filters": {"user_id": {"near": "u1"}}}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_filter" and "filters.user_id.near" in error["fields"]


def test_delete_all_touches_only_the_named_user(live_server, cast):
    client = mem0_client(live_server, cast.alice_key)
    for user in ("u-a", "u-b"):
        client.add(f"I live in {user}-town.", user_id=user, infer=False)
    client.delete_all(user_id="u-a")
    assert not Memory.objects.filter(subject__external_id="u-a").exists()
    assert Memory.objects.filter(subject__external_id="u-b").count() == 1
    response = client.client.delete("/v1/memories/")
    assert response.status_code == 400
    assert Memory.objects.filter(subject__external_id="u-b").count() == 1


def test_another_tenant_and_an_ungranted_agent_see_nothing(live_server, cast):
    alice = mem0_client(live_server, cast.alice_key)
    alice.add("I am allergic to peanuts.", user_id="u-secret", infer=False)
    memory_id = alice.get_all(filters={"user_id": "u-secret"})["results"][0]["id"]
    charlie = mem0_client(live_server, cast.charlie_key)
    with pytest.raises(MemoryNotFoundError):
        charlie.get(memory_id)
    assert charlie.search("peanuts", filters={"user_id": "u-secret"})["results"] == []
    assert charlie.get_all(filters={"user_id": "u-secret"})["count"] == 0
    assert charlie.client.delete(f"/v1/memories/{memory_id}/").status_code == 404

    bob = mem0_client(live_server, cast.bob_key)  # read-only, granted only "granted-1"
    assert bob.client.get(f"/v1/memories/{memory_id}/").status_code == 404
    assert bob.get_all(filters={})["count"] == 0
    refused = bob.client.post("/v3/memories/add/", json={"messages": "hi", "user_id": "granted-1"})
    assert refused.status_code == 403
    assert Memory.objects.filter(subject__external_id="u-secret").count() == 1


def test_a_paused_subject_refuses_adds_and_searches(live_server, cast):
    from audit.services import SYSTEM
    from memory.services import subject_get_or_create, subject_set_paused

    subject = subject_get_or_create(tenant=cast.tenant_a, external_id="u-paused", actor=SYSTEM)
    subject_set_paused(subject=subject, paused=True, actor=SYSTEM)
    client = mem0_client(live_server, cast.alice_key)
    response = client.client.post(
        "/v3/memories/add/", json={"messages": "I like tea.", "user_id": "u-paused"}
    )
    assert response.status_code == 423
    search = client.client.post(
        "/v3/memories/search/", json={"query": "tea", "filters": {"user_id": "u-paused"}}
    )
    assert search.status_code == 423
    assert not Event.objects.filter(subject=subject).exists()


def test_pii_is_redacted_through_the_door(live_server, cast):
    client = mem0_client(live_server, cast.alice_key)
    client.add("My phone number is 13812345678.", user_id="u-pii", infer=False)
    [stored] = client.get_all(filters={"user_id": "u-pii"})["results"]
    assert "13812345678" not in stored["memory"]


def test_the_oss_server_paths(live_server, cast):
    oss = raw(live_server, **{"X-API-Key": cast.alice_key})
    added = oss.post(
        "/memories",
        json={
            "messages": [{"role": "user", "content": "I prefer window seats."}],
            "user_id": "u-oss",
            "infer": False,
        },
    )
    assert added.status_code == 200, added.text
    [result] = added.json()["results"]
    assert result["event"] == "ADD"
    memory_id = result["id"]
    listed = oss.get("/memories", params={"user_id": "u-oss"}).json()["results"]
    assert [m["id"] for m in listed] == [memory_id]
    found = oss.post("/search", json={"query": "window seat", "user_id": "u-oss"}).json()
    assert found["results"][0]["id"] == memory_id
    assert oss.get(f"/memories/{memory_id}").json()["memory"] == "I prefer window seats."
    put = oss.put(f"/memories/{memory_id}", json={"text": "I prefer aisle seats."})
    assert put.json() == {"message": "Memory updated successfully!"}
    history = oss.get(f"/memories/{memory_id}/history").json()
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert oss.delete(f"/memories/{memory_id}").status_code == 200
    assert oss.get(f"/memories/{memory_id}").status_code == 404
    assert oss.delete("/memories").status_code == 400
    assert oss.get("/nowhere").status_code == 404


def test_the_v1_and_v2_platform_paths(live_server, cast):
    client = mem0_client(live_server, cast.alice_key).client
    added = client.post(
        "/v1/memories/",
        json={
            "messages": [{"role": "user", "content": "I always prefer aisle seats."}],
            "user_id": "u-v1",
        },
    ).json()
    assert any("aisle" in r["memory"].lower() for r in added["results"]), added
    assert client.get("/v1/memories/", params={"user_id": "u-v1"}).json()[0]["user_id"] == "u-v1"
    listed = client.post("/v2/memories/", json={"filters": {"user_id": "u-v1"}}).json()
    assert len(listed) == 1
    v2 = client.post(
        "/v2/memories/search/", json={"query": "aisle", "filters": {"user_id": "u-v1"}}
    )
    assert v2.json()[0]["score"] > 0
    v1 = client.post(
        "/v1/memories/search/", json={"query": "aisle", "user_id": "u-v1", "output_format": "v1.1"}
    )
    assert v1.json()["results"][0]["user_id"] == "u-v1"
    erased = client.delete("/v2/entities/user/u-v1/").json()
    assert erased["receipt"]["residue_total"] == 0
    assert not Subject.objects.filter(external_id="u-v1").exists()
