"""A real HTTP proxy on a local socket that injects faults in front of the live test server.

Each request takes the next fault from a script, then the rest pass through unchanged:
- `"503"` / `"429"` / `"502"`: answered by the proxy in the API's error shape (with
  `Retry-After` when given), nothing forwarded;
- `"drop"`: forwarded, the server's answer read in full, then the connection closed without a
  byte of it — the client cannot know its request was done (a lost response).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "host", "content-length"}


class FaultyProxy:
    def __init__(self, upstream: str, faults: list[str], *, retry_after: str | None = "0"):
        target = urlsplit(upstream)
        self.upstream_host = target.hostname or "127.0.0.1"
        self.upstream_port = target.port or 80
        self.faults = deque(faults)
        self.retry_after = retry_after
        self.requests: list[tuple[str, str]] = []  # (method, path) of every request received
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FaultyProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next_fault(self, method: str, path: str) -> str | None:
        with self._lock:
            self.requests.append((method, path))
            return self.faults.popleft() if self.faults else None

    def _forward(self, method: str, path: str, headers: dict[str, str], body: bytes):
        connection = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=60)
        try:
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            connection.close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass  # keep the test output clean

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fault = proxy._next_fault(self.command, self.path)
                if fault in ("503", "429", "502"):
                    self._answer_fault(int(fault))
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                status, response_headers, response_body = proxy._forward(
                    self.command, self.path, headers, body
                )
                if fault == "drop":
                    self.close_connection = True  # the server did the work; the answer is lost
                    return
                self.send_response(status)
                for name, value in response_headers:
                    if name.lower() not in HOP_BY_HOP:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(response_body)))
                self.end_headers()
                self.wfile.write(response_body)

            def _answer_fault(self, status: int) -> None:
                code = {503: "service_unavailable", 429: "throttled"}.get(status, "error")
                payload = json.dumps(
                    {"error": {"code": code, "message": "injected", "fields": {}}}
                ).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if proxy.retry_after is not None:
                    self.send_header("Retry-After", proxy.retry_after)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = _handle

        return Handler
