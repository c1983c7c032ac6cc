"""A local OpenAI-compatible HTTP server for tests (stdlib only, 127.0.0.1, random port).

Serves ``POST /v1/chat/completions`` and ``POST /v1/embeddings`` from scripted reply queues
and records every request. Point the ``openai`` SDK at ``server.base_url``.

    def test_x(fake_openai):
        fake_openai.queue_chat_json({"candidates": []})     # valid JSON content
        fake_openai.queue_chat("not json {")                 # malformed content
        fake_openai.queue_error(500)                         # HTTP 500, then...
        fake_openai.queue_chat_json({...}, usage=(100, 20))  # ...success
        client = OpenAI(base_url=fake_openai.base_url, api_key="test")
        ...
        assert fake_openai.requests[0].json["model"] == "gpt-4o-mini"

Chat with an empty queue answers HTTP 400 ("no scripted reply": a test bug, and not
retryable). Embeddings with an empty queue answer deterministic pseudo-random vectors derived
from each input text (``dimensions`` from the request, default 1536), in float or base64
encoding as requested. Use the ``fake_openai`` fixture (import it into the test module, or
list ``tests.fake_openai`` in ``pytest_plugins``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

CHAT = "chat"
EMBEDDINGS = "embeddings"
_PATHS = {
    "/v1/chat/completions": CHAT,
    "/chat/completions": CHAT,
    "/v1/embeddings": EMBEDDINGS,
    "/embeddings": EMBEDDINGS,
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any = None


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict → JSON; str/bytes → sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def chat_completion(
    content: str, *, model: str = "gpt-4o-mini", usage=(50, 10), finish_reason: str = "stop"
) -> dict:
    prompt_tokens, completion_tokens = usage
    return {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def fake_vector(text: str, dim: int) -> list[float]:
    """Deterministic unit vector for `text` (same text → same vector)."""
    seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
    vec = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    vec /= np.linalg.norm(vec)
    return vec.tolist()


class FakeOpenAI:
    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Reply]] = {CHAT: deque(), EMBEDDINGS: deque()}
        self.requests: list[RecordedRequest] = []
        self.embedding_dim_default = 1536
        self._httpd = ThreadingHTTPServer((host, port), self._make_handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ scripting
    def queue(self, endpoint: str, reply: Reply) -> None:
        with self._lock:
            self._queues[endpoint].append(reply)

    def queue_chat(
        self,
        content: str,
        *,
        usage=(50, 10),
        model: str = "gpt-4o-mini",
        finish_reason: str = "stop",
    ) -> None:
        """A successful completion whose message content is `content` (any text)."""
        self.queue(
            CHAT,
            Reply(
                body=chat_completion(content, model=model, usage=usage, finish_reason=finish_reason)
            ),
        )

    def queue_chat_json(self, obj: Any, **kwargs) -> None:
        self.queue_chat(json.dumps(obj, ensure_ascii=False), **kwargs)

    def queue_error(
        self,
        status: int = 500,
        *,
        endpoint: str = CHAT,
        message: str = "boom",
        headers: dict[str, str] | None = None,
    ) -> None:
        body = {"error": {"message": message, "type": "server_error", "code": None}}
        self.queue(endpoint, Reply(status=status, body=body, headers=headers or {}))

    def queue_raw(
        self, status: int, body: str | bytes | dict, *, endpoint: str = CHAT, delay: float = 0.0
    ) -> None:
        self.queue(endpoint, Reply(status=status, body=body, delay=delay))

    def queue_embeddings(self, vectors: list[list[float]], *, prompt_tokens: int = 5) -> None:
        self.queue(
            EMBEDDINGS,
            Reply(
                body={
                    "object": "list",
                    "model": "fake",
                    "data": [
                        {"object": "embedding", "index": i, "embedding": v}
                        for i, v in enumerate(vectors)
                    ],
                    "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
                }
            ),
        )

    def pending(self, endpoint: str = CHAT) -> int:
        with self._lock:
            return len(self._queues[endpoint])

    def requests_to(self, endpoint: str) -> list[RecordedRequest]:
        return [r for r in self.requests if _PATHS.get(r.path) == endpoint]

    # ------------------------------------------------------------------ serving
    def _next_reply(self, endpoint: str, payload: Any) -> Reply:
        with self._lock:
            if self._queues[endpoint]:
                return self._queues[endpoint].popleft()
        if endpoint == EMBEDDINGS:
            return Reply(body=self._default_embeddings(payload))
        return Reply(
            status=400,
            body={
                "error": {
                    "message": "fake_openai: no scripted reply",
                    "type": "invalid_request_error",
                }
            },
        )

    def _default_embeddings(self, payload: Any) -> dict:
        payload = payload if isinstance(payload, dict) else {}
        inputs = payload.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        dim = int(payload.get("dimensions") or self.embedding_dim_default)
        b64 = payload.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = fake_vector(str(text), dim)
            emb: Any = (
                base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode() if b64 else vec
            )
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(len(str(t).split()) for t in inputs)
        return {
            "object": "list",
            "model": payload.get("model", "fake"),
            "data": data,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _make_handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def _send(self, reply: Reply) -> None:
                if isinstance(reply.body, dict | list):
                    data = json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
                    ctype = "application/json"
                elif isinstance(reply.body, str):
                    data, ctype = reply.body.encode("utf-8"), "application/json"
                else:
                    data, ctype = reply.body or b"", "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    payload = json.loads(raw) if raw else None
                except ValueError:
                    payload = None
                path = self.path.split("?", 1)[0]
                with server._lock:
                    server.requests.append(
                        RecordedRequest(
                            "POST",
                            path,
                            {k.lower(): v for k, v in self.headers.items()},
                            raw,
                            payload,
                        )
                    )
                endpoint = _PATHS.get(path)
                if endpoint is None:
                    self._send(Reply(status=404, body={"error": {"message": "not found"}}))
                    return
                reply = server._next_reply(endpoint, payload)
                if reply.delay:
                    time.sleep(reply.delay)
                self._send(reply)

            def do_GET(self) -> None:
                self._send(Reply(status=404, body={"error": {"message": "not found"}}))

        return Handler


@pytest.fixture
def fake_openai():
    """A running `FakeOpenAI`; stopped after the test."""
    with FakeOpenAI() as server:
        yield server
