"""Compressed run files, read as the file inside: Codex (0.137 on) keeps a rollout idle for a week as
``rollout-….jsonl.zst`` (zstd frames, appended to as further frames; its plain sibling, while one exists, is the
one Codex reads), and gzip is the other compression a saved log meets.

Invariant: a file is decompressed only when its first bytes say so (the suffix only names the file inside:
``run.jsonl.zst`` is JSONL); what comes out is bounded by the caller's limit; a zstd file cut short is an error,
never the part of it that decompresses.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Protocol

from compressor.errors import ConversationFormatError

COMPRESSED_SUFFIXES: tuple[str, ...] = (".zst", ".gz")
ZSTD_MAGIC, GZIP_MAGIC = b"\x28\xb5\x2f\xfd", b"\x1f\x8b"


def compression_of(head: bytes) -> str | None:
    """The compression a file's first bytes name ("zstd", "gzip"), or None."""
    if head.startswith(ZSTD_MAGIC):
        return "zstd"
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    return None


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


@contextmanager
def opened(path: str | os.PathLike[str]) -> Iterator[Readable]:
    """The file's bytes as a stream, decompressed when its first bytes say it is compressed."""
    with open(path, "rb") as raw:
        kind = compression_of(raw.read(4))
        raw.seek(0)
        with decompressing(raw, kind) as stream:
            yield stream


@contextmanager
def decompressing(raw: IO[bytes], kind: str | None) -> Iterator[Readable]:
    """``raw`` (at its start) as the stream inside it, for the compression its first bytes named (None: as it is)."""
    if kind is None:
        yield raw
    elif kind == "gzip":
        with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
            yield unzipped
    else:
        import zstandard

        check_zstd_frames(raw, os.fstat(raw.fileno()).st_size)
        raw.seek(0)
        # Codex appends to a compressed rollout as further frames: all of them are the file.
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=False)
        with reader:
            yield reader


class CutShort(ValueError):
    """A zstd file whose last frame goes on past its end: the decompressor hands out what is there, silently."""


#: What a damaged compressed file raises while it is decompressed.
_ERRORS: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error, CutShort)
#: RFC 8878: the magic numbers of skippable frames, and the sizes of a frame header's optional fields by flag.
_SKIPPABLE = range(0x184D2A50, 0x184D2A60)
_DICTIONARY_ID_BYTES = (0, 1, 2, 4)
_CONTENT_SIZE_BYTES = (0, 2, 4, 8)  # flag 0 of a single-segment frame: 1 byte
#: Blocks walked at most (about a second): a real 200 MB rollout has some thousands, but empty blocks cost 3 bytes
#: each, so a hostile file could hold tens of millions; past this the file is left to the decoder as it is.
MAX_WALKED_BLOCKS = 1_000_000


def check_zstd_frames(raw: IO[bytes], size: int) -> None:
    """Raise ``CutShort`` unless every frame of the zstd stream ``raw`` (``size`` bytes) ends within it: the frame
    and block headers are walked (RFC 8878), nothing is decompressed. What is not a frame is left to the decoder,
    and so is a file past ``MAX_WALKED_BLOCKS``."""
    at = blocks = 0
    while at < size:
        raw.seek(at)
        head = raw.read(5)
        if len(head) < 5:
            raise CutShort("its last frame's header is cut off")
        magic = int.from_bytes(head[:4], "little")
        if magic in _SKIPPABLE:
            at += 8 + int.from_bytes((head[4:] + raw.read(3))[:4], "little")
            continue
        if head[:4] != ZSTD_MAGIC:
            return
        descriptor = head[4]
        single_segment = descriptor >> 5 & 1
        content_size = _CONTENT_SIZE_BYTES[descriptor >> 6] or single_segment
        at += 5 + (1 - single_segment) + _DICTIONARY_ID_BYTES[descriptor & 3] + content_size
        last = False
        while not last:
            blocks += 1
            if blocks > MAX_WALKED_BLOCKS:
                return
            raw.seek(at)
            block = raw.read(3)
            if len(block) < 3:
                raise CutShort("the file ends inside a compressed frame")
            header = int.from_bytes(block, "little")
            last, kind, block_size = bool(header & 1), header >> 1 & 3, header >> 3
            at += 3 + (1 if kind == 1 else block_size)  # an RLE block holds one byte
        at += 4 * (descriptor >> 2 & 1)  # the content checksum
    if at > size:
        raise CutShort("the file ends inside a compressed frame")


def decompression_errors(*more: type[Exception]) -> tuple[type[Exception], ...]:
    import zstandard

    return (*_ERRORS, zstandard.ZstdError, *more)


def read_bounded(handle: Readable, limit: int) -> bytes:
    """Up to ``limit`` bytes (a decompressing stream may hand out fewer than asked before its end)."""
    pieces, held = [], 0
    while held < limit:
        piece = handle.read(min(limit - held, 1 << 20))
        if not piece:
            break
        pieces.append(piece)
        held += len(piece)
    return b"".join(pieces)


def decompressed(data: bytes, limit: int, label: str) -> bytes:
    """Compressed bytes (an upload) decompressed; more than ``limit`` bytes, or damage, is ``label``'s one line."""
    stream: IO[bytes] = io.BytesIO(data)
    kind = compression_of(data)
    try:
        if kind == "gzip":
            with gzip.GzipFile(fileobj=stream, mode="rb") as unzipped:
                text = read_bounded(unzipped, limit + 1)
        else:
            import zstandard

            check_zstd_frames(stream, len(data))
            stream.seek(0)
            with zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True) as reader:
                text = read_bounded(reader, limit + 1)
    except decompression_errors() as error:
        raise ConversationFormatError(label, damaged(kind, error)) from None
    refuse_past(limit, len(text), label)
    return text


def refuse_past(limit: int, size: int, label: str) -> None:
    """A decompressed text over the size limit is refused, as a file over it is."""
    if size > limit:
        raise ConversationFormatError(
            label, f"holds over {limit >> 20} MB once decompressed, over the limit; refusing to read it"
        )


def damaged(kind: str | None, error: Exception) -> str:
    """The one line a compressed file that does not decompress gets."""
    return f"is {kind}-compressed but does not decompress ({str(error) or type(error).__name__})"


def inner_name(name: str) -> str:
    """A file's name without its compression suffix (``rollout-x.jsonl.zst`` → ``rollout-x.jsonl``)."""
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def hidden_by_plain_sibling(path: Path) -> bool:
    """A compressed file beside its plain one (``x.jsonl.zst`` and ``x.jsonl``): Codex reads the plain one, and
    keeps both only while it rewrites one as the other."""
    plain = inner_name(path.name)
    return plain != path.name and (path.parent / plain).is_file()
