"""The HTTP transport of one model call: httpcore's pool on network streams that count the bytes of the head.

Invariant: bytes read before the final response head (interim ``1xx`` responses included) never go past
``ReplyLimits.max_head_bytes`` by more than one read; past it the next read raises ``ReplyRefused``.
httpcore's errors leave as httpx's, holding nothing of the request (the key is in its headers).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from .limits import ReplyLimits, ReplyRefused

#: httpcore's errors and the httpx errors they become, most specific first.
_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)
_HEAD_STARTS = "http11.send_request_headers.started"
_HEAD_ENDS = "http11.receive_response_headers.complete"


@contextmanager
def _as_httpx_errors() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        for core, mapped in _ERRORS:
            if isinstance(exc, core):
                raise mapped(str(exc)) from None
        raise


class HeadBudget:
    """Bytes read while a response head is awaited; the httpcore trace says when the final head is in."""

    def __init__(self, limits: ReplyLimits) -> None:
        self.limits = limits
        self.read = 0
        self.open = True

    async def trace(self, event: str, info: dict[str, Any]) -> None:
        if event == _HEAD_STARTS:
            self.read, self.open = 0, True
        elif event == _HEAD_ENDS:
            self.open = False

    def before_read(self) -> None:
        if self.open and self.read > self.limits.max_head_bytes:
            size = self.limits.describe(self.limits.max_head_bytes)
            raise ReplyRefused(
                f"the reply's head (interim responses included) went past {size}; reading stopped"
            )


class _CountingStream(httpcore.AsyncNetworkStream):
    def __init__(self, stream: httpcore.AsyncNetworkStream, budget: HeadBudget) -> None:
        self._stream = stream
        self._budget = budget

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._budget.before_read()
        data = await self._stream.read(max_bytes, timeout)
        if self._budget.open:
            self._budget.read += len(data)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        return _CountingStream(
            await self._stream.start_tls(ssl_context, server_hostname, timeout), self._budget
        )

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _CountingBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, budget: HeadBudget) -> None:
        self._backend = httpcore.AnyIOBackend()
        self._budget = budget

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(host, port, timeout, local_address, socket_options)
        return _CountingStream(stream, self._budget)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_unix_socket(path, timeout, socket_options)
        return _CountingStream(stream, self._budget)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


class _Body(httpx.AsyncByteStream):
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        with _as_httpx_errors():
            await self._stream.aclose()


class BoundedTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 to the endpoint (TLS verified unless told not to), with the head of every reply budgeted."""

    def __init__(self, *, verify: bool, limits: ReplyLimits) -> None:
        self.budget = HeadBudget(limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(verify=verify),
            network_backend=_CountingBackend(self.budget),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions={**request.extensions, "trace": self.budget.trace},
        )
        with _as_httpx_errors():
            response = await self._pool.handle_async_request(core)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()
