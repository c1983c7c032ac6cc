"""A LangChain-style conversation memory over Engram, without depending on LangChain.

It has the two methods chains call on a memory object — `load_memory_variables(inputs)`
before a turn (the recalled context block under `memory_key`) and `save_context(inputs,
outputs)` after it (the turn appended as events, extracted by Engram) — so it drops into code
written for LangChain's `BaseMemory` protocol, or into a hand-written loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram._sync import Engram
from engram.types import ExtractMode


@dataclass
class EngramMemory:
    client: Engram
    subject_id: str
    session_id: str
    memory_key: str = "history"
    input_key: str | None = None  # default: the only input (or "input")
    output_key: str | None = None  # default: the only output (or "output")
    extract: ExtractMode = "async"
    token_budget: int = 800

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, str]:
        """The context block recalled for this turn's input."""
        query = _pick(inputs, self.input_key, "input")
        recall = self.client.recall(self.subject_id, query, token_budget=self.token_budget)
        return {self.memory_key: recall.context}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Append the turn (user input, assistant output) for Engram to remember."""
        self.client.append_events(
            self.subject_id,
            [
                {"role": "user", "content": _pick(inputs, self.input_key, "input")},
                {"role": "assistant", "content": _pick(outputs, self.output_key, "output")},
            ],
            session_id=self.session_id,
            extract=self.extract,
        )


def _pick(values: dict[str, Any], key: str | None, default: str) -> str:
    if key is None:
        others = [k for k in values if k != "stop"]
        key = others[0] if len(others) == 1 else default
    return str(values[key])
