"""Parquet files of agent runs (trajectory datasets on the Hugging Face Hub, Harbor's ``traces export --push``): a
row a run, read through DuckDB and handed to the readers as the JSONL lines the same rows would be.

Invariant: a file is only read, by DuckDB from its absolute path (never a URL, a glob or a second file); one over
MAX_PARQUET_BYTES is refused from its size, and rows whose text passes MAX_FILE_BYTES once read are refused too; a
row is a dict of its columns, structs and maps dicts, lists lists, a JSON or string column the string it holds.

When the first row, read in the columns a row reader names (ROW_COLUMNS), goes to that reader, only those columns
are read: a Hub shard's patches, evaluation logs and test output are never fetched, so a shard larger than the text
limit loads when what a conversation needs is within it. Otherwise every column is read.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from compressor.errors import ConversationFormatError
from compressor.formats import trajectory_rows
from compressor.formats.lines import Lines
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.registry import reader_for
from compressor.formats.shape import Reader, Shape
from compressor.formats.source import (
    MAX_FILE_BYTES,
    PARQUET_SUFFIX,
    Document,
    Source,
    check_depth,
    looks_like_path,
)

#: A Parquet file begins (and ends) with these four bytes; the content decides, as for every other format.
PARQUET_MAGIC = b"PAR1"
#: How a Git LFS pointer file begins (git-lfs docs/spec.md): the text left in place of a file not fetched.
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
#: Rows converted at a time: DuckDB hands out a batch, the batch becomes Python values, then the next is asked.
BATCH_ROWS = 64
#: Characters DuckDB reads as a glob in a path; a path holding one is read through a plain-named link instead.
_GLOB_CHARS = re.compile(r"[*?\[\]{}]")
#: A larger file is refused from its size. Parquet is compressed and is read a column at a time, so the bound that
#: holds memory is the text of the columns read (MAX_FILE_BYTES); this one keeps out what no Hub shard is (the
#: datasets library writes shards of some 500 MB at most: its push_to_hub's max_shard_size).
MAX_PARQUET_BYTES = 5 * MAX_FILE_BYTES
#: Row readers that read named columns only, each with the columns it reads, walked in order.
ROW_COLUMNS: tuple[tuple[Reader, tuple[str, ...]], ...] = ((trajectory_rows.READER, trajectory_rows.COLUMNS),)
_MB = 1024 * 1024


def read_parquet(source: Source, name: str | None = None) -> Document | None:
    """The rows of a Parquet file (a path, or an upload's bytes) as a Document of lines numbered from 1; None when
    ``source`` is not Parquet (the JSON readers take it). Problems are ConversationFormatError naming the file."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        label = name or "<bytes>"
        if not _is_parquet_head(data[: len(LFS_POINTER)], name, label):
            return None
        _check_size(len(data), label)
        with _written(data) as path:
            return _document(path, label, name)
    if not isinstance(source, os.PathLike | str) or (isinstance(source, str) and not looks_like_path(source)):
        return None
    path = Path(source)
    label = name or str(source)
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None  # read_source names the problem (no such file, cannot read it)
    if not stat.S_ISREG(info.st_mode) or not _is_parquet_file(path, name, label):
        return None  # a folder, a pipe, a device: read_source says what it is (a pipe is never opened here)
    _check_size(info.st_size, label)
    with _plain_named(path.resolve()) as plain:
        return _document(plain, label, name or path.name)


def _is_parquet_file(path: Path, name: str | None, label: str) -> bool:
    """Parquet by its first bytes; a file named ``.parquet`` is read as one too, so that what is wrong with it is
    said as of a Parquet file (a Git LFS pointer, what a dataset cloned without LFS holds, is named as one)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(LFS_POINTER))
    except OSError:
        return False  # not readable: read_source names the problem
    return _is_parquet_head(head, str(name or path), label)


def _is_parquet_head(head: bytes, name: str | None, label: str) -> bool:
    named = bool(name) and str(name).lower().endswith(PARQUET_SUFFIX)
    if named and head == LFS_POINTER:
        raise ConversationFormatError(
            label, "is a Git LFS pointer, not the Parquet file: fetch it (git lfs pull)"
        )
    return named or head.startswith(PARQUET_MAGIC)


def _check_size(size: int, label: str) -> None:
    if size > MAX_PARQUET_BYTES:
        raise ConversationFormatError(
            label,
            f"is {size / _MB:.1f} MB, over the {MAX_PARQUET_BYTES // _MB} MB limit for a Parquet file; "
            "refusing to read it",
        )


@contextmanager
def _written(data: bytes) -> Iterator[Path]:
    """An upload's bytes as a file DuckDB can open, gone afterwards."""
    with tempfile.TemporaryDirectory(prefix="compaction-lab-parquet-") as folder:
        path = Path(folder) / "upload.parquet"
        path.write_bytes(data)
        yield path


@contextmanager
def _plain_named(path: Path) -> Iterator[Path]:
    """``path``, or a link to it with a plain name when its own holds a character DuckDB would read as a glob."""
    if not _GLOB_CHARS.search(str(path)):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="compaction-lab-parquet-") as folder:
        link = Path(folder) / "run.parquet"
        link.symlink_to(path)
        yield link


def _document(path: Path, label: str, name: str | None) -> Document:
    stem = Path(name).stem if name else "conversation"
    return Document(label=label, stem=stem, lines=_rows(path, label, stem))


def _rows(path: Path, label: str, stem: str) -> Lines:
    import duckdb

    lines = Lines()
    converter = _Converter(label)
    number = 0
    try:
        with duckdb.connect(":memory:", config={"threads": 1}) as connection:
            wanted = _columns_read(connection, path, label, stem)
            listed = "*" if wanted is None else ", ".join(_quoted(column) for column in wanted)
            result = connection.execute(f"SELECT {listed} FROM read_parquet(?)", [str(path)])
            columns = [column[0] for column in result.description or ()]
            while batch := result.fetchmany(BATCH_ROWS):
                for values in batch:
                    number += 1
                    row = {
                        column: converter.plain(value) for column, value in zip(columns, values, strict=True)
                    }
                    try:
                        check_depth(row, Loc())
                    except FormatProblem as problem:
                        raise ConversationFormatError(label, f"row {number}: {problem.problem}") from None
                    lines.append(number, row)
                del batch
    except RecursionError:
        raise ConversationFormatError(label, f"row {number + 1}: nested too deep to read") from None
    except duckdb.Error as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ConversationFormatError(
            label, f"is not a readable Parquet file ({reason.replace(str(path), label)})"
        ) from None
    if not lines:
        raise ConversationFormatError(label, "is a Parquet file with no rows")
    return lines


def _columns_read(connection: Any, path: Path, label: str, stem: str) -> list[str] | None:
    """The columns of the file a row reader reads, when its first row read in only those goes to that reader; None
    (every column) when no row reader's columns take it."""
    described = connection.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)]).fetchall()
    names = [str(column[0]) for column in described]
    for reader, read in ROW_COLUMNS:
        wanted = [name for name in names if name in read]
        if not wanted or len(wanted) == len(names):
            continue
        listed = ", ".join(_quoted(column) for column in wanted)
        first = connection.execute(f"SELECT {listed} FROM read_parquet(?) LIMIT 1", [str(path)]).fetchone()
        if first is None:
            return None
        converter = _Converter(label)
        row = {column: converter.plain(value) for column, value in zip(wanted, first, strict=True)}
        try:
            check_depth(row, Loc())
        except FormatProblem:
            return None  # the whole read names the problem
        if reader_for(Shape.of_lines([(1, row)], stem)) is reader:
            return wanted
    return None


def _quoted(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


class _Converter:
    """DuckDB's Python values made plain JSON values, counting the characters of text held so far."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.chars = 0

    def plain(self, value: Any) -> Any:
        if isinstance(value, str):
            self._count(len(value))
            return value
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, dict):
            return {str(key): self.plain(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.plain(item) for item in value]
        if isinstance(value, Decimal):
            return int(value) if value == value.to_integral_value() else float(value)
        if isinstance(value, datetime | date | time):
            return value.isoformat()
        if isinstance(value, timedelta):
            return value.total_seconds()
        if isinstance(value, bytes | bytearray | memoryview):
            return self.plain(bytes(value).decode("utf-8", errors="replace"))
        return self.plain(str(value))  # UUID, and what DuckDB may add: its text

    def _count(self, size: int) -> None:
        self.chars += size
        if self.chars > MAX_FILE_BYTES:
            raise ConversationFormatError(
                self.label,
                f"holds over {MAX_FILE_BYTES // _MB} MB of text in its rows, over the limit; refusing to read it",
            )


__all__ = [
    "BATCH_ROWS",
    "MAX_PARQUET_BYTES",
    "PARQUET_MAGIC",
    "PARQUET_SUFFIX",
    "ROW_COLUMNS",
    "read_parquet",
]
