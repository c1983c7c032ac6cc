"""An agent loop with Engram's Python SDK: remember each turn, recall before answering.

pip install -e clients/python
ENGRAM_URL=http://127.0.0.1:8000 ENGRAM_KEY=egk_… python examples/sdk_agent_loop.py
"""

import os

from engram import Engram

USER = os.environ.get("ENGRAM_SUBJECT", "demo.traveller")
TURNS = [
    "I always prefer aisle seats on flights.",
    "我不吃辣，以后推荐餐厅记得避开辣味。",
    "Book me a flight to Tokyo and find a restaurant near the hotel.",
]


def answer(question: str, context: str) -> str:
    """Stand-in for the model call: a real agent puts `context` in its prompt."""
    return f"(answering {question!r} with {len(context)} characters of memory)"


with Engram(os.environ["ENGRAM_URL"], api_key=os.environ["ENGRAM_KEY"]) as engram:
    for turn in TURNS:
        recall = engram.recall(USER, turn, token_budget=400)
        reply = answer(turn, recall.context)
        appended = engram.append_events(
            USER,
            [{"role": "user", "content": turn}, {"role": "assistant", "content": reply}],
            session_id="example-session",
            extract="sync",
        )
        print(f"user: {turn}\n  recalled: {[m.content for m in recall.memories]}")
        print(f"  remembered: {[m.content for m in appended.extraction.memories]}")
    print("context for the last turn:\n" + engram.recall(USER, TURNS[-1]).context)
