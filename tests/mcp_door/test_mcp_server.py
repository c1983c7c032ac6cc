"""The MCP door, driven by the official `mcp` client over streamable HTTP against a live
uvicorn serving config.asgi (the same app `make run` and compose serve), on real PostgreSQL
and Redis."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
import uvicorn
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from audit.models import AuditEntry
from memory.models import Event, Memory, Subject

EXPECTED_TOOLS = {
    "add_memory",
    "search_memories",
    "get_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
    "delete_all_memories",
    "delete_entities",
    "list_entities",
    "get_event_status",
    # OpenMemory's names
    "add_memories",
    "search_memory",
    "list_memories",
    "delete_memories",
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def mcp_url(transactional_db):
    """A live uvicorn in a thread serving a fresh config.asgi application."""
    from config.asgi import build_application

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            build_application(), host="127.0.0.1", port=port, lifespan="on", log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=15)


@asynccontextmanager
async def mcp_session(url: str, headers: dict[str, str]):
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def call(session: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    text = result.content[0].text
    assert not result.is_error, text
    return json.loads(text)


async def call_error(session: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    assert result.is_error, result.content[0].text
    text = result.content[0].text
    return json.loads(text[text.index("{") :])


def run(coro):
    return asyncio.run(coro)


def audit_count(**filters: Any) -> int:
    return AuditEntry.objects.filter(**filters).count()


async def in_thread(fn, *args: Any, **kwargs: Any) -> Any:
    """ORM work from the test's event loop (Django refuses it there), on its own connection."""
    from mcp_door.db import with_db_connection

    return await asyncio.to_thread(with_db_connection, lambda: fn(*args, **kwargs))


@pytest.mark.django_db(transaction=True)
def test_it_lists_every_tool_and_calls_each_one_with_an_audit_entry(cast, mcp_url):
    alice = str(cast.alice.pk)
    seen: dict[str, int] = {}

    async def scenario() -> None:
        async with mcp_session(mcp_url, bearer(cast.alice_key)) as session:
            listed = {tool.name for tool in (await session.list_tools()).tools}
            assert listed >= EXPECTED_TOOLS

            async def audited(name: str) -> None:
                # every tool call leaves at least one new entry by this agent
                now = await in_thread(audit_count, actor_type="agent", actor_id=alice)
                assert now > seen.get("n", 0), f"{name} left no audit entry"
                seen["n"] = now

            seen["n"] = await in_thread(audit_count, actor_type="agent", actor_id=alice)
            stored = await call(
                session,
                "add_memory",
                text="I am vegetarian and allergic to peanuts",
                user_id="jane",
                infer=False,
                category="preference",
            )
            await audited("add_memory")
            assert stored["action"] == "created"
            memory_id = stored["results"][0]["id"]
            assert stored["results"][0]["user_id"] == "jane"

            queued = await call(
                session,
                "add_memory",
                messages=[{"role": "user", "content": "我住在上海，下个月去东京出差"}],
                user_id="jane",
                run_id="trip-1",
                agent_id="planner",
            )
            await audited("add_memory (infer)")
            assert queued["status"] == "PENDING" and queued["event_id"]
            status = await call(session, "get_event_status", event_id=queued["event_id"])
            await audited("get_event_status")
            # Celery runs eagerly in tests: the extraction already ran on commit.
            assert status["status"] == "SUCCEEDED"
            assert status["results"], status

            found = await call(
                session, "search_memories", query="what can jane not eat?", user_id="jane"
            )
            await audited("search_memories")
            assert memory_id in [item["id"] for item in found["results"]]
            assert "peanut" in found["context"]
            assert found["token_count"] > 0
            assert {"semantic", "keyword"} <= set(found["results"][0]["score_breakdown"])

            listed_memories = await call(session, "get_memories", user_id="jane")
            await audited("get_memories")
            assert memory_id in [item["id"] for item in listed_memories["results"]]
            one = await call(session, "get_memory", memory_id=memory_id)
            await audited("get_memory")
            assert one["memory"].startswith("I am vegetarian")

            updated = await call(
                session,
                "update_memory",
                memory_id=memory_id,
                text="I am vegan and allergic to peanuts",
            )
            await audited("update_memory")
            assert updated["version"] == 2 and updated["supersedes"] == int(memory_id)

            entities = await call(session, "list_entities")
            await audited("list_entities")
            assert "jane" in [entity["id"] for entity in entities["results"]]

            await call(session, "delete_memory", memory_id=updated["id"])
            await audited("delete_memory")
            assert not await in_thread(lambda: Memory.objects.filter(pk=updated["id"]).exists())

            # OpenMemory's names, with the connection's default user
        async with mcp_session(mcp_url + "?user_id=omar", bearer(cast.alice_key)) as session:
            await call(session, "add_memories", text="I prefer window seats", infer=False)
            await audited("add_memories")
            recalled = await call(session, "search_memory", query="seat preference")
            await audited("search_memory")
            assert recalled["results"][0]["user_id"] == "omar"
            mine = await call(session, "list_memories")
            await audited("list_memories")
            ids = [item["id"] for item in mine["results"]]
            assert ids
            await call(session, "delete_memories", memory_ids=ids[:1])
            await audited("delete_memories")
            await call(session, "add_memories", text="I drink oat milk", infer=False)
            wiped = await call(session, "delete_all_memories")
            await audited("delete_all_memories")
            assert wiped["deleted"] >= 1
            erased = await call(session, "delete_entities", user_id="omar")
            await audited("delete_entities")
            assert erased["receipt"]

    run(scenario())
    assert not Memory.objects.filter(subject__external_id="omar").exists()
    assert not Subject.objects.filter(tenant=cast.tenant_a, external_id="omar").exists()
    # jane's other memories (from the extraction) are untouched by omar's wipe
    assert Memory.objects.filter(subject__external_id="jane").exists()
    assert Event.objects.filter(subject__external_id="jane", session_id="trip-1").exists()


@pytest.mark.django_db(transaction=True)
def test_another_tenants_key_sees_nothing_of_the_first_tenants_data(cast, mcp_url):
    async def scenario() -> None:
        async with mcp_session(mcp_url, bearer(cast.alice_key)) as session:
            stored = await call(
                session, "add_memory", text="My PIN hint is the cat", user_id="jane", infer=False
            )
            memory_id = stored["results"][0]["id"]
            queued = await call(session, "add_memory", text="I live in Berlin", user_id="jane")
        async with mcp_session(mcp_url, bearer(cast.charlie_key)) as session:
            assert (await call(session, "search_memories", query="PIN", user_id="jane"))[
                "results"
            ] == []
            assert (await call(session, "get_memories", user_id="jane"))["results"] == []
            assert (await call(session, "list_entities"))["results"] == []
            for name, arguments in (
                ("get_memory", {"memory_id": memory_id}),
                ("update_memory", {"memory_id": memory_id, "text": "hacked"}),
                ("delete_memory", {"memory_id": memory_id}),
                ("delete_memories", {"memory_ids": [memory_id]}),
                ("get_event_status", {"event_id": queued["event_id"]}),
            ):
                error = await call_error(session, name, **arguments)
                assert error["status"] == 404 and error["error"]["code"] == "not_found", name
            wiped = await call(session, "delete_all_memories", user_id="jane")
            assert wiped["deleted"] == 0  # charlie's own (empty) "jane", not acme's
            error = await call_error(session, "delete_entities", user_id="jane")
            assert error["status"] == 404

    run(scenario())
    assert Memory.objects.filter(pk=int(_first_memory_id("jane"))).exists()
    assert Memory.objects.get(subject__external_id="jane", content__contains="PIN").version == 1


def _first_memory_id(external_id: str) -> int:
    return Memory.objects.filter(subject__external_id=external_id).values_list("pk", flat=True)[0]


@pytest.mark.django_db(transaction=True)
def test_a_restricted_read_only_agent_keeps_its_grants_and_scopes(cast, mcp_url):
    async def scenario() -> None:
        async with mcp_session(mcp_url, bearer(cast.alice_key)) as session:
            await call(session, "add_memory", text="granted fact", user_id="granted-1", infer=False)
            await call(session, "add_memory", text="other fact", user_id="other", infer=False)
        async with mcp_session(mcp_url, {"X-API-Key": cast.bob_key}) as session:
            found = await call(session, "get_memories", user_id="granted-1")
            assert [item["memory"] for item in found["results"]] == ["granted fact"]
            assert [e["id"] for e in (await call(session, "list_entities"))["results"]] == [
                "granted-1"
            ]
            error = await call_error(session, "get_memories", user_id="other")
            assert error["status"] == 404
            error = await call_error(
                session, "add_memory", text="x", user_id="granted-1", infer=False
            )
            assert error["status"] == 403 and error["error"]["code"] == "permission_denied"

    run(scenario())


@pytest.mark.django_db(transaction=True)
def test_paused_subjects_refuse_writes_and_recall_and_pii_is_redacted(cast, mcp_url):
    from audit.services import SYSTEM
    from memory.services import subject_get_or_create, subject_set_paused

    paused = subject_get_or_create(tenant=cast.tenant_a, external_id="paused-1", actor=SYSTEM)
    subject_set_paused(subject=paused, paused=True, actor=SYSTEM)

    async def scenario() -> None:
        async with mcp_session(mcp_url, {"Authorization": f"Token {cast.alice_key}"}) as session:
            for name, arguments in (
                ("add_memory", {"text": "x", "infer": False}),
                ("add_memory", {"text": "x"}),
                ("search_memories", {"query": "x"}),
            ):
                error = await call_error(session, name, user_id="paused-1", **arguments)
                assert error["status"] == 423, (name, error)
            stored = await call(
                session,
                "add_memory",
                text="My phone is 13812345678, call me after 6",
                user_id="jane",
                infer=False,
            )
            assert "13812345678" not in stored["results"][0]["memory"]

    run(scenario())
    assert not Memory.objects.filter(subject=paused).exists()


@pytest.mark.django_db(transaction=True)
def test_it_refuses_a_missing_or_bad_key_before_any_tool_runs(cast, mcp_url):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    before = AuditEntry.objects.count()
    # the key with its last character changed (a key that ends in "x" stays wrong with "y")
    wrong_key = cast.alice_key[:-1] + ("y" if cast.alice_key.endswith("x") else "x")
    for auth in (
        {},
        {"Authorization": "Bearer egk_nope"},
        {"Authorization": "Basic abc"},
        {"X-API-Key": wrong_key},
    ):
        response = httpx2.post(mcp_url, json=body, headers={**headers, **auth}, timeout=10)
        assert response.status_code == 401, (auth, response.text)
        assert response.json()["error"]["code"] == "not_authenticated"
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert AuditEntry.objects.count() == before

    async def with_bad_key() -> None:
        async with mcp_session(mcp_url, bearer("egk_AAAAAAAA_" + "A" * 32)):
            pass

    with pytest.raises(BaseException):  # noqa: B017 - the client surfaces the 401 its own way
        run(with_bad_key())


@pytest.mark.django_db(transaction=True)
def test_a_revoked_key_is_refused(cast, mcp_url):
    from accounts.services import agent_revoke
    from audit.services import SYSTEM

    agent_revoke(agent=cast.charlie, actor=SYSTEM)
    response = httpx2.post(
        mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={**bearer(cast.charlie_key), "Accept": "application/json, text/event-stream"},
        timeout=10,
    )
    assert response.status_code == 401


@pytest.mark.django_db(transaction=True)
def test_bad_arguments_answer_a_clear_tool_error_not_a_crash(cast, mcp_url):
    async def scenario() -> None:
        async with mcp_session(mcp_url, bearer(cast.alice_key)) as session:
            error = await call_error(session, "get_memory", memory_id="abc")
            assert error["status"] == 400
            error = await call_error(session, "get_memories")
            assert error["status"] == 400 and "user_id" in error["error"]["fields"]
            error = await call_error(session, "get_memories", user_id="bad id!")
            assert error["status"] == 400
            error = await call_error(
                session, "search_memories", query="x", filters={"created_at": {"gte": "2024"}}
            )
            assert error["error"]["code"] == "invalid_filter"
            error = await call_error(session, "search_memories", query="x" * 5000, user_id="j")
            assert error["status"] == 400 and "query" in error["error"]["fields"]

    run(scenario())


@pytest.mark.django_db(transaction=True)
def test_the_rest_of_the_asgi_app_is_django(cast, mcp_url):
    base = mcp_url.removesuffix("/mcp")
    health = httpx2.get(base + "/healthz", timeout=10).json()  # 503 here: no Celery worker
    assert health["database"]["ok"] is True
    response = httpx2.get(
        base + "/api/v1/subjects/jane/memories", headers=bearer(cast.alice_key), timeout=10
    )
    assert response.status_code == 200
