"""A scripted OpenAI-compatible Chat Completions server for tests, on 127.0.0.1 in a background thread.

Invariant: the socket is bound and listening before the server is handed out (no sleeps, no polling),
each POST consumes the next scripted response in order, and every request is recorded.

Scripted responses (the format of ../shared/fixtures/upstream_compaction_cases.json.gz, plus extras):
- ``"text"``                                  → 200, a chat completion whose message content is the text
- ``{"raise": MESSAGE, "status_code": N}``    → HTTP N, body ``{"error": {"message": MESSAGE}}``
- ``{"timeout": True}``                       → no answer until ``hold_seconds`` pass or the server stops
- ``{"status_code": N, "body": "raw text"}``  → HTTP N with that body as is
- ``{"json": {...}}``                         → 200 (or ``status_code``) with that JSON body
Any of the dict forms may add ``"headers": {...}``. When the script runs out: HTTP 500 saying so.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import pytest

Response = str | dict[str, Any]

#: How long a scripted timeout holds the request when the server is not stopped first.
DEFAULT_HOLD_SECONDS = 10.0
#: How often the serving loop checks for shutdown (the stdlib default of 0.5 s would slow every test).
SHUTDOWN_POLL_SECONDS = 0.02


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it; header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or None when it was not JSON
    raw: bytes = field(repr=False, default=b"")


def chat_completion(content: str, model: str = "scripted-model", number: int = 0) -> dict[str, Any]:
    """A minimal Chat Completions reply holding ``content`` (no usage: like openJiuwen's canned replies)."""
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
    }


class ScriptedServer:
    """``with ScriptedServer(["reply"]) as server:`` then point a client at ``server.url`` (ends in /v1)."""

    def __init__(self, responses: Iterable[Response], *, hold_seconds: float = DEFAULT_HOLD_SECONDS) -> None:
        self.responses: list[Response] = list(responses)
        self.requests: list[RecordedRequest] = []
        self.hold_seconds = hold_seconds
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._next = 0
        self._thread: threading.Thread | None = None
        # Binding happens here, so the port is known and connections queue up before the thread runs.
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base_url}/v1"

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS},
                name="scripted-openai",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases any held "timeout" request at once
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- script ----------------------------------------------------------------------------------

    @property
    def calls(self) -> int:
        """How many chat-completion requests (POSTs) arrived."""
        return sum(1 for request in self.requests if request.method == "POST")

    @property
    def remaining(self) -> int:
        return len(self.responses) - self._next

    def _take(self, request: RecordedRequest) -> tuple[int, Response | None]:
        with self._lock:
            self.requests.append(request)
            number = self._next
            self._next += 1
        if number >= len(self.responses):
            return number, None
        return number, self.responses[number]


def _handler_for(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        def do_GET(self) -> None:
            self._send(
                404, {"error": {"message": "scripted server: only POST /chat/completions is scripted"}}
            )

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            recorded = RecordedRequest(
                method="POST",
                path=self.path,
                headers={name.lower(): value for name, value in self.headers.items()},
                body=body,
                raw=raw,
            )
            number, response = server._take(recorded)
            model = body.get("model", "scripted-model") if isinstance(body, dict) else "scripted-model"
            self._answer(number, response, model)

        def _answer(self, number: int, response: Response | None, model: str) -> None:
            if response is None:
                message = f"scripted server: no response left for request #{number + 1}"
                self._send(500, {"error": {"message": message}})
            elif isinstance(response, str):
                self._send(200, chat_completion(response, model, number))
            elif response.get("timeout"):
                if not server._stopping.wait(server.hold_seconds):
                    self._send(
                        504, {"error": {"message": "scripted timeout elapsed before the client gave up"}}
                    )
            elif "raise" in response:
                status = int(response.get("status_code", 500))
                self._send(status, {"error": {"message": response["raise"]}}, response.get("headers"))
            elif "json" in response:
                self._send(int(response.get("status_code", 200)), response["json"], response.get("headers"))
            elif "body" in response:
                raw = str(response["body"]).encode("utf-8")
                self._send_bytes(
                    int(response.get("status_code", 200)), raw, response.get("headers"), "text/plain"
                )
            else:
                self._send(
                    500, {"error": {"message": f"scripted server: cannot play response #{number + 1}"}}
                )

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            raw = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self._send_bytes(status, raw, headers, "application/json")

        def _send_bytes(
            self, status: int, raw: bytes, headers: dict[str, str] | None, content_type: str
        ) -> None:
            try:
                self.send_response(status)
                extra = dict(headers or {})
                if not any(name.lower() == "content-type" for name in extra):
                    self.send_header("Content-Type", content_type)
                for name, value in extra.items():
                    self.send_header(name, str(value))
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except OSError:
                pass  # the client already gave up (a timeout test): nothing left to tell it

    return Handler


@pytest.fixture
def scripted_server() -> Iterator[Callable[..., ScriptedServer]]:
    """A factory: ``server = scripted_server(["reply", {"raise": "…", "status_code": 429}])``, stopped after the test."""
    started: list[ScriptedServer] = []

    def start(responses: Iterable[Response], **options: Any) -> ScriptedServer:
        server = ScriptedServer(responses, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def refused_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens: the port was bound, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
