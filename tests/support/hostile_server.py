"""A hostile HTTP endpoint for tests, on 127.0.0.1 in background threads: it answers every POST with one behaviour.

Invariant: the socket is bound and listening before the server is handed out (no sleeps to wait for it); every
request is recorded with its headers, and ``sent`` counts what was written back, so a test can see the client
hung up early. A behaviour ends when the client goes away or the server stops; waits never outlive ``stop()``.

Behaviours (``HostileServer(behaviour)``, each a function of the connection and the request):
- ``drip(interval)``                a 200 whose JSON body arrives one byte every ``interval`` seconds
- ``endless_chunked()``             a 200 with a chunked body that never ends
- ``gzip_bomb(inflated)``           a 200, ``Content-Encoding: gzip``, ~1 KB per MiB it inflates to (1 GB → 1 MB)
- ``interim_forever(interval)``     ``100 Continue`` after ``100 Continue``, never a final response
- ``huge_json(size)``               a 200 holding one valid chat completion of about ``size`` bytes
- ``echo_key(encode, status)``      a chat completion (or an error of ``status``) quoting the request's key, encoded
- ``declared_charset(charset)``     a UTF-8 chat completion whose Content-Type names another charset
- ``raw_reply(data)``               exactly these bytes, then the connection closes
- ``asks_to_wait(seconds, status)`` an error of ``status`` (429 by default) with ``Retry-After: seconds``
- ``slow_then(seconds, data)``      nothing for ``seconds``, then exactly these bytes
- ``in_turn(first, …, last)``       the first request gets ``first``, the next the next one; ``last`` repeats
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
import socket
import socketserver
import threading
import urllib.parse
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType

SHUTDOWN_POLL_SECONDS = 0.02
CHUNK = 64 * 1024
SNAPSHOT = (
    "<coverage_check>all covered</coverage_check>\n<state_snapshot>\n1. Active Task: fix the parser\n"
    "5. Immediate Resume Point: {quote}\n</state_snapshot>"
)


@dataclass
class Request:
    """One request as the server read it; header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes = field(repr=False)

    @property
    def key(self) -> str:
        return self.headers.get("authorization", "").removeprefix("Bearer ")


class Wire:
    """The connection as a behaviour sees it: ``send`` counts bytes, ``wait`` ends early when the server stops."""

    def __init__(self, sock: socket.socket, server: HostileServer) -> None:
        self._sock = sock
        self._server = server

    def send(self, data: bytes) -> None:
        self._sock.sendall(data)
        with self._server.lock:
            self._server.sent += len(data)

    @property
    def lock(self) -> threading.Lock:
        return self._server.lock

    def wait(self, seconds: float) -> bool:
        """False when the server is stopping (the behaviour should end)."""
        return not self._server.stopping.wait(seconds)

    @property
    def open(self) -> bool:
        return not self._server.stopping.is_set()


Behaviour = Callable[[Wire, Request], None]


def chat_completion(content: str) -> bytes:
    reply = {"id": "hostile", "object": "chat.completion", "model": "hostile",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}  # fmt: skip
    return json.dumps(reply).encode()


def head(status: int = 200, **headers: str | int) -> bytes:
    lines = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def drip(interval: float) -> Behaviour:
    def behave(wire: Wire, request: Request) -> None:
        body = chat_completion(SNAPSHOT.format(quote="a reply that takes its time"))
        wire.send(head(Content_Type="application/json", Content_Length=len(body)))
        for byte in body:
            if not wire.wait(interval):
                return
            wire.send(bytes([byte]))

    return behave


def endless_chunked() -> Behaviour:
    def behave(wire: Wire, request: Request) -> None:
        wire.send(head(Content_Type="application/json", Transfer_Encoding="chunked"))
        piece = b"%x\r\n%s\r\n" % (CHUNK, b" " * CHUNK)
        wire.send(b'%x\r\n{"choices": [\r\n' % len(b'{"choices": ['))
        while wire.open:
            wire.send(piece)

    return behave


@functools.lru_cache(maxsize=4)
def _gzip_of_zeros(inflated: int, single: bool) -> bytes:
    """Gzip of ``inflated`` zero bytes: one member (slow to build past ~100 MB), or 1 MiB members end to end."""
    block = bytes(min(inflated, 1024 * 1024))
    if not single:
        return gzip.compress(block, 9) * (inflated // len(block))
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join([*(packer.compress(block) for _ in range(inflated // len(block))), packer.flush()])


def gzip_bomb(inflated: int = 1024**3, *, single: bool = False) -> Behaviour:
    """About 1 KB per inflated MiB; the body is built when the behaviour is made, not while a client waits."""
    body = _gzip_of_zeros(inflated, single)

    def behave(wire: Wire, request: Request) -> None:
        wire.send(head(Content_Type="application/json", Content_Encoding="gzip", Content_Length=len(body)))
        for start in range(0, len(body), CHUNK):
            wire.send(body[start : start + CHUNK])

    return behave


def interim_forever(interval: float = 0.0) -> Behaviour:
    def behave(wire: Wire, request: Request) -> None:
        while wire.open:
            wire.send(b"HTTP/1.1 100 Continue\r\n\r\n")
            if interval and not wire.wait(interval):
                return

    return behave


def huge_json(size: int) -> Behaviour:
    body = chat_completion(
        SNAPSHOT.format(quote="x" * size)
    )  # built before any client waits (and is measured)

    def behave(wire: Wire, request: Request) -> None:
        wire.send(head(Content_Type="application/json", Content_Length=len(body)))
        for start in range(0, len(body), CHUNK):
            wire.send(body[start : start + CHUNK])

    return behave


def raw_reply(data: bytes) -> Behaviour:
    """Exactly ``data`` on the wire, then the connection closes (broken heads, cut bodies, nonsense)."""

    def behave(wire: Wire, request: Request) -> None:
        for start in range(0, len(data), CHUNK):
            wire.send(data[start : start + CHUNK])

    return behave


def asks_to_wait(seconds: str, status: int = 429) -> Behaviour:
    """An error reply whose ``Retry-After`` asks the client to come back in ``seconds`` (a number or an HTTP date)."""
    body = json.dumps({"error": {"message": "slow down", "type": "rate_limit_exceeded"}}).encode()

    def behave(wire: Wire, request: Request) -> None:
        wire.send(
            head(status, Content_Type="application/json", Content_Length=len(body), Retry_After=seconds)
            + body
        )

    return behave


def slow_then(seconds: float, data: bytes) -> Behaviour:
    """Silence for ``seconds`` (a model thinking), then ``data`` as ``raw_reply`` sends it."""

    def behave(wire: Wire, request: Request) -> None:
        if wire.wait(seconds):
            raw_reply(data)(wire, request)

    return behave


def in_turn(*behaviours: Behaviour) -> Behaviour:
    """Each request the next behaviour, the last one for every request after."""
    served: list[int] = []

    def behave(wire: Wire, request: Request) -> None:
        with wire.lock:
            number = len(served)
            served.append(number)
        behaviours[min(number, len(behaviours) - 1)](wire, request)

    return behave


def declared_charset(charset: str, body: bytes | None = None) -> Behaviour:
    """A chat completion in UTF-8 whose Content-Type names ``charset`` (rot13, zlib, punycode, nonsense …)."""
    payload = body if body is not None else chat_completion(SNAPSHOT.format(quote="naïve café ✓"))

    def behave(wire: Wire, request: Request) -> None:
        wire.send(
            head(Content_Type=f"application/json; charset={charset}", Content_Length=len(payload)) + payload
        )

    return behave


#: Ways a careless or hostile endpoint writes a key back; each takes the key and returns the text to embed.
ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda key: key,
    "json-unicode-escaped": lambda key: "".join(f"\\u{ord(c):04x}" for c in key),  # decodes to the plain key
    "half-unicode-escaped": lambda key: key[:5] + "".join(f"\\u{ord(c):04X}" for c in key[5:12]) + key[12:],
    "base64": lambda key: base64.b64encode(key.encode()).decode(),
    "basic-auth-base64": lambda key: base64.b64encode(f"user:{key}".encode()).decode(),
    "urlsafe-base64": lambda key: base64.urlsafe_b64encode(b"k=" + key.encode()).decode(),
    "percent": lambda key: "".join(f"%{ord(c):02X}" for c in key),
    "percent-every-other": lambda key: "".join(f"%{ord(c):02x}" if i % 2 else c for i, c in enumerate(key)),
    "url-quoted": lambda key: urllib.parse.quote(f"key={key}", safe=""),
    "hex": lambda key: key.encode().hex(),
    "HEX": lambda key: key.encode().hex().upper(),
    "first-half": lambda key: key[: len(key) // 2],
    "second-half": lambda key: key[len(key) // 2 :],
    "python-repr": lambda key: repr(f"Bearer {key}\r".encode()),
}


def echo_key(encoding: str, status: int = 200) -> Behaviour:
    """The key, written as ``ENCODINGS[encoding]`` does, inside the reply's JSON text (so JSON escapes decode)."""

    def behave(wire: Wire, request: Request) -> None:
        quoted = ENCODINGS[encoding](request.key)
        if status == 200:
            body = chat_completion(SNAPSHOT.format(quote="@@")).replace(b"@@", quoted.encode())
        else:
            body = json.dumps({"error": {"message": "bad credentials @@ for this gateway"}}).encode()
            body = body.replace(b"@@", quoted.encode())
        wire.send(head(status, Content_Type="application/json", Content_Length=len(body)) + body)

    return behave


class HostileServer:
    """``with HostileServer(drip(0.5)) as server:`` then point a client at ``server.url`` (ends in /v1)."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.requests: list[Request] = []
        self.sent = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> HostileServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS},
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def calls(self) -> int:
        return len(self.requests)


def _read_request(sock: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        if not more:
            return None
        data += more
    raw_head, _, body = data.partition(b"\r\n\r\n")
    first, *lines = raw_head.decode("latin-1").split("\r\n")
    method, path, _ = first.split(" ", 2)
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length") or 0)
    while len(body) < length:
        more = sock.recv(65536)
        if not more:
            break
        body += more
    return Request(method=method, path=path, headers=headers, body=body)


def _handler_for(server: HostileServer) -> type[socketserver.BaseRequestHandler]:
    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            sock: socket.socket = self.request
            try:
                request = _read_request(sock)
                if request is None:
                    return
                with server.lock:
                    server.requests.append(request)
                server.behaviour(Wire(sock, server), request)
            except OSError:
                return  # the client hung up: that is what most behaviours are waiting for

    return Handler


__all__ = [
    "ENCODINGS",
    "HostileServer",
    "Request",
    "Wire",
    "asks_to_wait",
    "declared_charset",
    "drip",
    "echo_key",
    "endless_chunked",
    "gzip_bomb",
    "huge_json",
    "in_turn",
    "interim_forever",
    "raw_reply",
    "slow_then",
]
