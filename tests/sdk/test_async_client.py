import asyncio

import pytest
from engram import AsyncEngram, InvalidRequestError, NotFoundError

from memory.models import Event, Subject
from tests.factories import days_ago, make_memory
from tests.sdk.conftest import FAST_RETRY
from tests.sdk.faulty_proxy import FaultyProxy

pytestmark = pytest.mark.django_db(transaction=True)


def client_for(url, key):
    return AsyncEngram(url, api_key=key, timeout=30, retry=FAST_RETRY)


def test_the_async_client_runs_the_whole_flow(cast, live_server):
    # The ORM is used outside the event loop only (Django refuses it inside).
    subject = Subject.objects.create(tenant=cast.tenant_a, external_id="async-user")
    for n in range(5):
        make_memory(subject, f"old fact {n}", created_at=days_ago(30 - n))

    async def flow():
        async with client_for(live_server.url, cast.alice_key) as engram:
            appended = await engram.append_events(
                "async-user",
                [{"role": "user", "content": "我不吃辣，以后推荐餐厅记得避开辣味。"}],
                session_id="chat",
                extract="sync",
            )
            listed = [m async for m in engram.iter_memories("async-user", page_size=2)]
            events = [e async for e in engram.iter_events("async-user", page_size=1)]
            recall = await engram.recall("async-user", "推荐个餐厅")
            spicy = appended.extraction.memories[0]
            corrected = await engram.correct_memory(
                "async-user", spicy.id, content="用户现在能吃一点辣。"
            )
            history = await engram.memory_history("async-user", corrected.id)
            await engram.delete_memory("async-user", corrected.id)
            try:
                await engram.get_memory("async-user", corrected.id)
            except NotFoundError:
                deleted = True
            receipt = await engram.erase_subject("async-user")
            return appended, listed, events, recall, history, deleted, receipt

    appended, listed, events, recall, history, deleted, receipt = asyncio.run(flow())
    assert appended.extraction.status == "done"
    assert len(listed) == 6 and "辣" in listed[0].content  # newest first, over three pages
    assert len(events) == 1
    assert "辣" in recall.context
    assert [m.version for m in history] == [1, 2]
    assert deleted
    assert receipt.complete
    assert not Subject.objects.filter(external_id="async-user").exists()


def test_the_async_client_retries_and_posts_events_once(cast, live_server):
    async def post(url):
        async with client_for(url, cast.alice_key) as engram:
            return await engram.append_events(
                "wang.fang", [{"role": "user", "content": "hello"}], session_id="s"
            )

    with FaultyProxy(live_server.url, ["503", "drop"]) as proxy:
        result = asyncio.run(post(proxy.url))
    assert len(proxy.requests) == 3
    assert [e.id for e in result.events] == [Event.objects.get(subject__external_id="wang.fang").pk]


def test_the_async_client_raises_the_error_shape(cast, live_server):
    async def bad():
        async with client_for(live_server.url, cast.alice_key) as engram:
            await engram.recall("wang.fang", "x", top_k=0)

    with pytest.raises(InvalidRequestError) as raised:
        asyncio.run(bad())
    assert "top_k" in raised.value.fields
