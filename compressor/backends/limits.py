"""How much of a reply a model call may hold: its body as sent and as decoded, and its head, interim responses included.

Invariant: ``read_body`` never holds, nor inflates, more than ``ReplyLimits.max_reply_bytes`` of a body: it reads
the raw stream and decompresses it itself, a bounded step at a time; going over raises ``ReplyRefused``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import httpx

MIB = 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class ReplyLimits:
    """The caps of one call. A summary is a few KB; the room left is for verbose gateways and reasoning traces."""

    #: The body, as sent and as decoded (a gzip reply is inflated only up to this).
    max_reply_bytes: int = 16 * MIB
    #: Status lines and headers read before the final response head: endless ``100 Continue`` stop here.
    max_head_bytes: int = 64 * 1024

    def describe(self, limit: int) -> str:
        return f"{limit / MIB:g} MiB" if limit >= MIB else f"{limit / 1024:g} KiB"


class ReplyRefused(Exception):
    """A reply read no further: over a cap, compressed in a way not read, or corrupt. The message says which in
    words, with sizes in MiB/KiB (never a bare number that the classification would read as a status)."""


#: Content encodings ``read_body`` decodes itself; the request asks for these only.
ACCEPTED_ENCODINGS = "gzip, deflate"
_GZIP_WBITS = 16 + zlib.MAX_WBITS


class _Layer:
    """One content encoding undone with a cap on what each step may produce."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._fresh()

    def _fresh(self) -> None:
        wbits = _GZIP_WBITS if self.encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS
        self._inflater = zlib.decompressobj(wbits)
        self._first = True

    def decode(self, data: bytes, room: int) -> bytes:
        """Up to ``room + 1`` bytes of output for ``data`` (one more than the room means: over the cap)."""
        out: list[bytes] = []
        produced = 0
        while data and produced <= room:
            try:
                piece = self._inflater.decompress(data, room + 1 - produced)
            except zlib.error:
                if not (self.encoding == "deflate" and self._first):
                    raise
                # Some servers send raw deflate without the zlib wrapper (httpx falls back the same way).
                self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                self._first = False
                continue
            self._first = False
            out.append(piece)
            produced += len(piece)
            if self._inflater.unconsumed_tail:
                break  # the output cap stopped it: the caller sees more than the room
            data = self._inflater.unused_data if self._inflater.eof else b""
            if data:
                self._fresh()  # a gzip stream of several members
        return b"".join(out)


class BodyDecoder:
    """Undoes a ``Content-Encoding`` list (last applied, first undone), never producing more than ``limit`` bytes."""

    def __init__(self, content_encoding: str | None, limit: int) -> None:
        self.limit = limit
        self.produced = 0
        names = [name.strip().lower() for name in (content_encoding or "").split(",") if name.strip()]
        layers = [name for name in names if name != "identity"]
        unknown = [name for name in layers if name not in ("gzip", "x-gzip", "deflate")]
        if unknown:
            raise ValueError(
                f"the reply is encoded as {unknown[0]!r}, which is not read (only gzip and deflate)"
            )
        self._layers = [_Layer(name) for name in reversed(layers)]

    def feed(self, data: bytes) -> bytes:
        room = self.limit - self.produced
        for layer in self._layers:
            data = layer.decode(data, room)
            if len(data) > room:
                break
        self.produced += len(data)
        return data


async def read_body(response: httpx.Response, limits: ReplyLimits) -> bytes:
    """The decoded body of a streamed response, or ReplyRefused as soon as it goes over the cap."""
    cap = limits.max_reply_bytes
    if response.is_stream_consumed:  # a response made in memory (httpx.MockTransport): already decoded
        if len(response.content) > cap:
            raise ReplyRefused(f"the reply was longer than {limits.describe(cap)}")
        return response.content
    try:
        decoder = BodyDecoder(response.headers.get("content-encoding"), cap)
    except ValueError as exc:
        raise ReplyRefused(str(exc)) from None
    pieces: list[bytes] = []  # joined once at the end: no buffer regrown and copied on the way
    received = 0
    async for chunk in response.aiter_raw():
        received += len(chunk)
        if received > cap:
            raise ReplyRefused(f"the reply was longer than {limits.describe(cap)}; reading stopped there")
        try:
            pieces.append(decoder.feed(chunk))
        except zlib.error:
            raise ReplyRefused("the reply's compressed body is corrupt") from None
        if decoder.produced > cap:
            raise ReplyRefused(
                f"the reply inflates to more than {limits.describe(cap)}; decompression stopped there"
            )
    return b"".join(pieces)
