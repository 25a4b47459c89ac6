"""Turn a source (path, JSON or JSONL text, bytes, list or dict) into parsed JSON values, read-only.

Invariant: input files are opened for reading only, files over MAX_FILE_BYTES are refused from their
size before any byte is read (a compressed file's text is refused once it passes it), and nesting is bounded so
no later step can hit a RecursionError.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compressor.errors import ConversationFormatError
from compressor.formats.compressed import (
    COMPRESSED_SUFFIXES,
    GZIP_MAGIC,
    ZSTD_MAGIC,
    compression_of,
    damaged,
    decompressed,
    decompressing,
    decompression_errors,
    inner_name,
    opened,
    read_bounded,
    refuse_past,
)
from compressor.formats.lines import Lines, Values, decode_line, shared_keys_decoder
from compressor.formats.problems import (
    FormatProblem,
    Loc,
    first_line_is_json,
    first_line_number,
    is_one_document,
    json_problem,
    unreadable_number,
)

#: Larger files are refused without being read (the dashboard and CLI hold a conversation in memory).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: Deepest nesting of lists/objects we accept; real transcripts stay far below it.
MAX_DEPTH = 100

#: Names of the files the readers take: JSON and JSONL of every agent, SWE-agent trajectories, Parquet rows (the
#: content decides the format; these only pick which files a folder walk or a file picker offers).
_PLAIN_SUFFIXES = (".json", ".jsonl", ".ndjson", ".traj")
PARQUET_SUFFIX = ".parquet"  # compressed inside (formats/parquet.py), never as a whole file
RUN_FILE_SUFFIXES: tuple[str, ...] = (
    *_PLAIN_SUFFIXES,
    PARQUET_SUFFIX,
    *(plain + compressed for compressed in COMPRESSED_SUFFIXES for plain in _PLAIN_SUFFIXES),
)
_JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
_MB = 1024 * 1024
#: Bytes read at a time when a file's top-level array is parsed element by element.
_CHUNK_BYTES = 256 * 1024
#: A JSON file up to this size is parsed whole, in one C call: element by element (which bounds the memory of a
#: large file) it took 3x as long, and below this the text held at once is small beside the interpreter. A JSONL
#: file up to this size has its lines parsed without sharing keys (the saving is small, the Python calls are not).
WHOLE_TEXT_BYTES = 1024 * 1024
_NOT_JSON_SPACE = re.compile(r"[^ \t\r\n]")
_NOT_SPACE = re.compile(r"\S")
#: Characters that may continue a number: a value followed by one of these may have been cut at a chunk end.
_NUMBER_CHARS = frozenset("0123456789+-.eE")

Source = str | os.PathLike[str] | bytes | list[Any] | dict[str, Any]


@dataclass(frozen=True)
class Document:
    """What a source holds once parsed: one JSON value, or the values of a JSONL file's lines."""

    label: str
    stem: str
    value: Any = None
    lines: Lines | None = None
    #: True when the values were parsed here (nobody else holds them): a loader may release them as it goes.
    parsed: bool = True
    #: True when the last JSONL line was cut off mid-record (a file still being written) and was left out.
    truncated_tail: bool = False


def read_source(source: Source, name: str | None = None) -> Document:
    """Parse a source; problems are raised as ConversationFormatError naming the source."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and looks_like_path(source)):
        path = Path(source)
        label = name or str(source)
        stem = _stem(name or path.name)
        jsonl = _is_jsonl(name or path.name)
        if jsonl:
            read = read_lines(path)
            if read is not None:
                return Document(label=label, stem=stem, lines=read[0], truncated_tail=read[1])
        elif not _small_file(path):
            elements = read_array(path)
            if elements is not None:
                _guard(lambda: check_depth(elements, Loc()), label)
                return Document(label=label, stem=stem, value=elements)
        # Decode, then let the bytes go before parsing: file bytes, text and values never live at once.
        text = _decode(_read_file(path, label), label)
        return _parse_text(text, label, stem, jsonl)
    if isinstance(source, bytes | bytearray | memoryview):
        label = name or "<bytes>"
        data = bytes(source)
        _check_size(len(data), label)
        if compression_of(data) is not None:
            data = decompressed(data, MAX_FILE_BYTES, label)
        return _parse_bytes(data, label, _stem(name), _is_jsonl(name))
    if isinstance(source, str):
        label = name or "<text>"
        _check_size(len(source), label)
        return _parse_text(source, label, _stem(name), _is_jsonl(name))
    label = name or "<value>"
    if isinstance(source, list | dict):
        _guard(lambda: check_depth(source, Loc()), label)
        return Document(label=label, stem=_stem(name), value=source, parsed=False)
    raise ConversationFormatError(
        label, f"cannot read a conversation from a value of type {type(source).__name__}"
    )


def _small_file(path: Path) -> bool:
    try:
        return os.stat(path).st_size <= WHOLE_TEXT_BYTES
    except OSError:
        return False  # _read_file names the problem


def looks_like_path(text: str) -> bool:
    """A path, not JSON text: no newline, and not opening with ``[`` or ``{`` (a byte order mark aside)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    return bool(stripped) and stripped[0] not in "[{" and "\n" not in text


def _stem(name: str | None) -> str:
    return Path(inner_name(name)).stem if name else "conversation"


def _is_jsonl(name: str | None) -> bool:
    return bool(name) and Path(inner_name(str(name))).suffix.lower() in _JSONL_SUFFIXES


def _check_size(size: int, label: str) -> None:
    if size > MAX_FILE_BYTES:
        raise ConversationFormatError(
            label,
            f"is {size / _MB:.1f} MB, over the {MAX_FILE_BYTES // _MB} MB limit; refusing to read it",
        )


def _read_file(path: Path, label: str) -> bytes:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConversationFormatError(label, "no such file") from None
    except OSError as error:
        raise ConversationFormatError(label, f"cannot read the file ({error.strerror or error})") from None
    if stat.S_ISDIR(info.st_mode):
        raise ConversationFormatError(label, "is a directory, not a conversation file")
    _check_size(info.st_size, label)
    kind: str | None = None
    try:
        with open(path, "rb") as raw:
            kind = compression_of(raw.read(4))
            raw.seek(0)
            with decompressing(raw, kind) as handle:
                # Read one byte past the limit: files that grow, or report no size, are still bounded.
                data = read_bounded(handle, MAX_FILE_BYTES + 1)
    except decompression_errors() as error:  # OSError among them: a plain file that cannot be read
        if kind is None:
            reason = getattr(error, "strerror", None) or error
            raise ConversationFormatError(label, f"cannot read the file ({reason})") from None
        raise ConversationFormatError(label, damaged(kind, error)) from None
    if kind is None:
        _check_size(len(data), label)
    else:
        refuse_past(MAX_FILE_BYTES, len(data), label)
    return data


class _ReadWhole(Exception):
    """Not what the chunked reader reads, or wrong somewhere: the whole-text path reads it and names the problem."""


class _Chunks:
    """A file's text decoded chunk by chunk (or a whole text, no handle); ``_text[_pos:]`` is not consumed yet."""

    def __init__(
        self, handle: Any, chunk_bytes: int = _CHUNK_BYTES, text: str = "", *, share_keys: bool = True
    ) -> None:
        self._handle = handle
        self._chunk_bytes = chunk_bytes
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        # Each element is parsed on its own: one shared copy of each key saves ~0.3x the file size, and costs
        # a Python call per object (a small file's values are few: json's own decoder reads them in C).
        self._json = shared_keys_decoder() if share_keys else json.JSONDecoder()
        self._text = text
        self._pos = 0
        self._read = 0
        self._eof = handle is None

    def _more(self, at_least: int) -> bool:
        """Append the next chunk (at least ``at_least`` bytes) to the unconsumed text; False at the end."""
        if self._eof:
            return False
        data = self._handle.read(max(at_least, self._chunk_bytes))
        self._read += len(data)
        if self._read > MAX_FILE_BYTES:
            raise _ReadWhole
        try:
            text = self._decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise _ReadWhole from None
        self._eof = not data
        # A long element makes these reads as large as the text held: drop the bytes, then the old text, first.
        del data
        rest, self._text = self._text[self._pos :], ""
        self._text = rest + text
        del rest, text
        self._pos = 0
        return True


class _ArrayReader(_Chunks):
    """Elements of a file's top-level JSON array, decoded chunk by chunk."""

    def elements(self) -> Values:
        if self._next_char() != "[":
            raise _ReadWhole
        self._pos += 1
        values = Values()
        if self._next_char() == "]":
            self._pos += 1
        else:
            while True:
                values.append(self._value())
                char = self._next_char()
                self._pos += 1
                if char == "]":
                    break
                if char != ",":
                    raise _ReadWhole
        if self._next_char() is not None:
            raise _ReadWhole  # extra data: maybe JSONL, which the whole-text path recognises
        return values

    def _next_char(self) -> str | None:
        """The next character that is not JSON whitespace (left unconsumed), or None at the end."""
        while True:
            found = _NOT_JSON_SPACE.search(self._text, self._pos)
            if found is not None:
                self._pos = found.start()
                return self._text[self._pos]
            self._pos = len(self._text)
            if not self._more(0):
                return None

    def _value(self) -> Any:
        self._next_char()
        while True:
            try:
                value, end = self._json.raw_decode(self._text, self._pos)
            except RecursionError:
                raise _ReadWhole from None
            except ValueError:  # not JSON yet (the text may stop mid-value), or an over-long integer
                end = -1
            # A number touching the end of the text may be cut short: read on and parse again.
            if end >= 0 and (self._eof or (end < len(self._text) and self._text[end] not in _NUMBER_CHARS)):
                self._pos = end
                return value
            if not self._more(len(self._text) - self._pos):
                raise _ReadWhole


class _LineReader(_Chunks):
    """The values of JSONL lines, each line parsed on its own: a file's text is never held whole."""

    def lines(self, *, second_mark: bool = False) -> tuple[Lines, bool]:
        """The values with their numbers, and whether a torn last line (no newline after it) was left out.

        Lines are split on "\\n" only (JSON strings may hold other line separators unescaped); a blank line (as
        str.strip() sees it) is skipped. ``second_mark``: drop a "\\ufeff" that follows the byte order mark.
        """
        if second_mark:
            while not self._text and self._more(0):
                pass
            self._pos = int(self._text.startswith("\ufeff"))
        lines = Lines()
        append, decoder, number = lines.append, self._json, 0
        text, start = self._text, self._pos
        while True:
            end = text.find("\n", start)
            if end < 0:  # read on to the line's end; no local keeps the old text as the new one is made
                self._pos, text = start, ""
                while end < 0 and self._more(len(self._text) - self._pos):
                    end = self._text.find("\n", self._pos)
                text, start = self._text, self._pos
            number += 1
            last = end < 0
            stop = len(text) if last else end
            if _NOT_SPACE.search(text, start, stop) is not None:
                loc = Loc(line=number)
                try:
                    value = decode_line(decoder, text, start, stop)
                except RecursionError:
                    raise FormatProblem(loc, f"nested deeper than {MAX_DEPTH} levels") from None
                except json.JSONDecodeError as error:
                    if last and lines:
                        return lines, True  # the writer is mid-line: read up to the last whole record
                    problem = f"not valid JSON ({error.msg} at column {error.colno})"
                    raise FormatProblem(loc, problem) from None
                except ValueError as error:
                    raise FormatProblem(loc, unreadable_number(error)) from None
                check_depth(value, loc)
                append(number, value)
            if last:
                return lines, False
            start = end + 1


def read_array(path: str | os.PathLike[str], chunk_bytes: int = _CHUNK_BYTES) -> Values | None:
    """The elements of a file holding one top-level array, without the whole text in memory at once.

    None when the file is anything else or anything is wrong with it; the caller then reads it whole,
    which raises the same errors, naming line and column, as before this path existed.
    """
    try:
        if os.stat(path).st_size > MAX_FILE_BYTES:
            return None
        with opened(path) as handle:
            return _ArrayReader(handle, chunk_bytes).elements()
    except decompression_errors(_ReadWhole):
        return None


def read_lines(path: str | os.PathLike[str], chunk_bytes: int = _CHUNK_BYTES) -> tuple[Lines, bool] | None:
    """A JSONL file's lines, read chunk by chunk, and whether a torn last line was left out; None when anything
    is wrong (or it is blank): read whole, it gives its one-line error, or is one pretty-printed document."""
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            return None
        with opened(path) as handle:
            reader = _LineReader(handle, chunk_bytes, share_keys=size > WHOLE_TEXT_BYTES)
            lines, truncated = reader.lines(second_mark=True)
    except decompression_errors(_ReadWhole, FormatProblem):
        return None
    return (lines, truncated) if lines else None


#: Compressed files met where JSON is expected: magic bytes → the one line naming the problem.
_COMPRESSED = {
    ZSTD_MAGIC: "holds zstd-compressed data inside its compression: decompress it first (zstd -d)",
    GZIP_MAGIC: "holds gzip-compressed data inside its compression: decompress it first (gunzip)",
}


def _decode(data: bytes, label: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for magic, problem in _COMPRESSED.items():
        if data.startswith(magic):
            raise ConversationFormatError(label, problem)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        bad = data[error.start : error.start + 1].hex()
        raise ConversationFormatError(label, f"line {line}: not UTF-8 text (byte 0x{bad})") from None


def _parse_bytes(data: bytes, label: str, stem: str, jsonl: bool) -> Document:
    return _parse_text(_decode(data, label), label, stem, jsonl)


def _parse_text(text: str, label: str, stem: str, jsonl: bool) -> Document:
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ConversationFormatError(label, "is empty")
    if not jsonl:
        try:
            value = json.loads(text)
        except RecursionError:
            raise ConversationFormatError(label, f"nested deeper than {MAX_DEPTH} levels") from None
        except json.JSONDecodeError as error:
            if not (error.msg == "Extra data" and first_line_is_json(text)):
                raise ConversationFormatError(label, json_problem(error, text)) from None
        except ValueError as error:  # valid JSON Python will not read: an integer past the digit limit
            raise ConversationFormatError(label, unreadable_number(error)) from None
        else:
            _guard(lambda: check_depth(value, Loc()), label)
            return Document(label=label, stem=stem, value=value)
    try:
        lines, truncated = _parse_lines(text)
    except FormatProblem as problem:
        if jsonl and problem.loc.line == first_line_number(text) and is_one_document(text):
            # A ".jsonl" name on one pretty-printed JSON document: read it as the document it is.
            return _parse_text(text, label, stem, jsonl=False)
        raise ConversationFormatError(label, str(problem)) from None
    return Document(label=label, stem=stem, lines=lines, truncated_tail=truncated)


def _parse_lines(text: str) -> tuple[Lines, bool]:
    """The values of a JSONL text's lines, and whether a torn last line was left out."""
    return _LineReader(None, text=text).lines()


def check_depth(value: Any, loc: Loc, limit: int = MAX_DEPTH) -> None:
    """Raise when lists/objects nest deeper than ``limit`` (iteratively, so cycles end too).

    Depth first, one iterator per level: the walk holds one entry per level, not one per waiting value (a
    million-element array made a million (value, depth) pairs at once, 1.7x the file of short messages).
    """
    if limit < 1:
        raise FormatProblem(loc, f"nested deeper than {limit} levels")
    if not isinstance(value, dict | list | Values):
        return
    levels: list[Iterator[Any]] = [_children(value)]
    while levels:
        for child in levels[-1]:
            if isinstance(child, dict | list):
                if len(levels) >= limit:
                    raise FormatProblem(loc, f"nested deeper than {limit} levels")
                levels.append(_children(child))
                break
        else:
            levels.pop()


def _children(value: dict[str, Any] | list[Any] | Values) -> Iterator[Any]:
    return iter(value.values() if isinstance(value, dict) else value)


def _guard(step: Any, label: str) -> Any:
    try:
        return step()
    except FormatProblem as problem:
        raise ConversationFormatError(label, str(problem)) from None


__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "Document", "Source", "check_depth", "read_array", "read_source"]
