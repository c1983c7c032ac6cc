"""The same loop with mem0's own client (`pip install mem0ai`), pointed at Engram's
mem0-compatible door: switching from mem0 to Engram is the `host=` argument.

    ENGRAM_URL=http://127.0.0.1:8000 ENGRAM_KEY=egk_… python examples/mem0_client.py
"""

import os
import time

os.environ.setdefault("MEM0_TELEMETRY", "False")  # the client would phone home otherwise

from mem0 import MemoryClient  # after the telemetry switch

USER = os.environ.get("ENGRAM_SUBJECT", "demo.mem0")
TURNS = [
    "I always prefer aisle seats on flights.",
    "我不吃辣，以后推荐餐厅记得避开辣味。",
]

client = MemoryClient(
    api_key=os.environ["ENGRAM_KEY"], host=os.environ["ENGRAM_URL"].rstrip("/") + "/mem0"
)


def wait_for(event_id: str) -> dict:
    """Adds are asynchronous: poll the event until the extraction is done."""
    for _ in range(60):
        event = client.client.get(f"/v1/event/{event_id}/").json()
        if event.get("status") in ("SUCCEEDED", "FAILED"):
            return event
        time.sleep(0.5)
    raise TimeoutError(event_id)


for turn in TURNS:
    added = client.add([{"role": "user", "content": turn}], user_id=USER, infer=True)
    if added.get("event_id"):
        print(f"add {turn!r}: {wait_for(added['event_id']).get('status')}")

client.add("Prefers morning meetings.", user_id=USER, infer=False)  # stored as given
hits = client.search("book a flight and a restaurant", filters={"user_id": USER})
for hit in hits.get("results", hits if isinstance(hits, list) else []):
    print(f"search: {hit['memory']}  (score {hit.get('score')})")
everything = client.get_all(filters={"user_id": USER})
print(f"{everything.get('count', len(everything.get('results', [])))} memories for {USER}")
