"""Sources that are not one JSON or JSONL text: a folder of JSON files (OpenHands SDK persistence, OpenCode
storage) and an SQLite database (OpenCode's ``opencode.db``, OpenAI Agents SDK sessions), read only.

Invariant: a folder is walked without following any symbolic link that leaves it, only regular files are opened,
each at most MAX_FILE_BYTES and all together at most MAX_FILE_BYTES (a database's rows likewise, whatever the size
of its file); a database is opened read-only (a path through a ``mode=ro`` URI, ``immutable`` for a WAL database with
no log, so nothing is created beside it; an upload deserialised in memory); every problem is a FormatProblem naming
the file.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from compressor.errors import ConversationFormatError
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.source import MAX_FILE_BYTES, check_depth, looks_like_path
from compressor.messages import Conversation

#: Names SQLite session stores go by (``sessions.db``, ``opencode.db``, ``data.sqlite3``, Cursor's ``state.vscdb``);
#: a database is told by its first bytes, these only pick which files a folder walk or a file picker offers.
DATABASE_SUFFIXES: tuple[str, ...] = (".db", ".sqlite", ".sqlite3", ".vscdb")
#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"
_MB = 1024 * 1024

StoreKind = Literal["directory", "sqlite"]


@dataclass
class Store:
    """A folder or a database to read; ``data`` holds an uploaded database's bytes (no path then)."""

    kind: StoreKind
    label: str
    stem: str
    path: Path | None = None
    data: bytes | None = None
    _read_bytes: int = field(default=0, repr=False)

    # -- folders -------------------------------------------------------------------------------

    def has_dir(self, *parts: str) -> bool:
        return (
            self.kind == "directory"
            and self.path is not None
            and _inside_dir(self.path, self.path.joinpath(*parts))
        )

    def files(self, relative: str = "", pattern: re.Pattern[str] | None = None) -> list[Path]:
        """Regular files directly in ``relative`` (a sub-folder), whose name matches ``pattern``, sorted by name."""
        if self.kind != "directory" or self.path is None:
            return []
        folder = self.path / relative if relative else self.path
        if not _inside_dir(self.path, folder):
            return []
        out: list[Path] = []
        for entry in self._entries(folder):
            if pattern is not None and not pattern.match(entry.name):
                continue
            target = self._checked(Path(entry.path))
            if target is not None and stat.S_ISREG(os.stat(target).st_mode):
                out.append(Path(entry.path))
        return out

    def dirs(self, relative: str = "") -> list[str]:
        """Names of the sub-folders of ``relative``, sorted (links that leave the folder are refused)."""
        if self.kind != "directory" or self.path is None:
            return []
        folder = self.path / relative if relative else self.path
        if not _inside_dir(self.path, folder):
            return []
        names = []
        for entry in self._entries(folder):
            target = self._checked(Path(entry.path))
            if target is not None and stat.S_ISDIR(os.stat(target).st_mode):
                names.append(entry.name)
        return names

    def _entries(self, folder: Path) -> list[os.DirEntry[str]]:
        try:
            with os.scandir(folder) as entries:
                return sorted(entries, key=lambda item: item.name)
        except OSError as error:
            raise FormatProblem(
                self.loc(folder), f"cannot list the folder ({error.strerror or error})"
            ) from None

    def read_json(self, path: Path) -> Any:
        """One JSON file of the folder, parsed; a problem names the file relative to the folder."""
        loc = self.loc(path)
        target = self._checked(path)
        if target is None or not stat.S_ISREG(os.stat(target).st_mode):
            raise FormatProblem(loc, "is not a regular file")
        try:
            with open(target, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise FormatProblem(loc, f"cannot read the file ({error.strerror or error})") from None
        self._read_bytes += len(data)
        if len(data) > MAX_FILE_BYTES or self._read_bytes > MAX_FILE_BYTES:
            raise FormatProblem(
                loc, f"the folder holds over {MAX_FILE_BYTES // _MB} MB of JSON; refusing to read on"
            )
        try:
            value = json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise FormatProblem(loc, "not UTF-8 text") from None
        except RecursionError:
            raise FormatProblem(loc, "nested too deeply") from None
        except json.JSONDecodeError as error:
            raise FormatProblem(
                loc, f"not valid JSON at line {error.lineno} column {error.colno} ({error.msg})"
            ) from None
        check_depth(value, loc)
        return value

    def loc(self, path: Path) -> Loc:
        """A location naming ``path`` relative to the folder (the loader prefixes the folder itself)."""
        if self.path is None:
            return Loc()
        try:
            return Loc(path=str(path.relative_to(self.path)))
        except ValueError:
            return Loc(path=str(path))

    def _checked(self, path: Path) -> Path | None:
        """``path`` resolved; a symbolic link that leaves the folder is refused."""
        assert self.path is not None
        if not path.is_symlink():
            return path
        resolved = path.resolve()
        if not _within(self.path.resolve(), resolved):
            raise FormatProblem(
                self.loc(path), "is a symbolic link that leaves the folder; refusing to follow it"
            )
        return resolved if resolved.exists() else None

    # -- databases -----------------------------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        """A read-only connection to the database (the caller closes it)."""
        try:
            if self.data is not None:
                connection = sqlite3.connect(":memory:")
                connection.deserialize(_rollback_journal(self.data))
            else:
                assert self.path is not None
                connection = sqlite3.connect(_read_only_uri(self.path), uri=True)
            connection.execute("PRAGMA query_only = ON")
            return connection
        except sqlite3.Error as error:
            raise FormatProblem(Loc(), f"cannot open the SQLite database ({error})") from None

    def tables(self) -> frozenset[str]:
        """Names of the database's tables (empty for a folder or a database that cannot be read)."""
        if self.kind != "sqlite":
            return frozenset()
        try:
            connection = self.connect()
        except FormatProblem:
            return frozenset()
        try:
            rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        except sqlite3.Error:
            return frozenset()
        finally:
            connection.close()
        return frozenset(str(row[0]) for row in rows)


@dataclass(frozen=True)
class StoreReader:
    """A format stored as a folder or a database: whether a store is it, and how to read it."""

    name: str
    looks_like: Callable[[Store], bool]
    read: Callable[[Store], list[Conversation]]
    # Whether a store it takes keeps conversations of its own, asked cheaply before one is listed among an agent's
    # sessions (``places``: a store a pattern names, one of many); None: every store it takes does.
    holds: Callable[[Store], bool] | None = None


def open_store(source: Any, name: str | None = None) -> Store | None:
    """A Store when ``source`` is a folder, an SQLite database file or the bytes of one; else None."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        if not data.startswith(SQLITE_HEADER):
            return None
        label = name or "<bytes>"
        if len(data) > MAX_FILE_BYTES:
            raise ConversationFormatError(
                label, f"is over the {MAX_FILE_BYTES // _MB} MB limit; refusing to read it"
            )
        return Store("sqlite", label, Path(name).stem if name else "database", data=data)
    if not isinstance(source, os.PathLike | str) or (isinstance(source, str) and not looks_like_path(source)):
        return None
    path = Path(source)
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None  # the file reader names the problem
    label = name or str(source)
    stem = Path(name).stem if name else (path.stem or path.name)
    if stat.S_ISDIR(info.st_mode):
        return Store("directory", label, path.resolve().name if not name else stem, path=path)
    if is_database_file(path):
        # No limit on the file's size: SQLite reads it page by page, and the budget is on the rows read (``rows``).
        # Cursor's state.vscdb is often 1-2 GB of which the chats are a small part.
        return Store("sqlite", label, stem, path=path)
    return None


def rows(store: Store, query: str, parameters: tuple[Any, ...] = ()) -> Iterator[sqlite3.Row]:
    """The rows of a read-only query; a database error becomes a FormatProblem. The text and bytes the rows of a
    store hold count against one budget of MAX_FILE_BYTES, as a folder's JSON files do."""
    connection = store.connect()
    connection.row_factory = sqlite3.Row
    try:
        for row in connection.execute(query, parameters):
            store._read_bytes += sum(len(value) for value in row if isinstance(value, str | bytes))
            if store._read_bytes > MAX_FILE_BYTES:
                raise FormatProblem(
                    Loc(), f"holds over {MAX_FILE_BYTES / _MB:g} MB of rows to read; refusing to read on"
                )
            yield row
    except sqlite3.Error as error:
        raise FormatProblem(Loc(), f"cannot read the database ({error})") from None
    finally:
        connection.close()


def _read_only_uri(path: Path) -> str:
    """A read-only URI for the database at ``path``. One in WAL mode whose log is gone (every writer closed it) is
    opened immutable: a plain read-only open of it leaves an empty ``-wal`` and a ``-shm`` beside it."""
    resolved = path.resolve()
    uri = f"file:{quote(str(resolved))}?mode=ro"
    if _in_wal_mode(resolved) and not os.path.lexists(resolved.with_name(resolved.name + "-wal")):
        uri += "&immutable=1"
    return uri


def _rollback_journal(data: bytes) -> bytes:
    """An uploaded database as one in rollback-journal mode: SQLite cannot open a WAL one in memory (an upload has
    no log beside it), so header bytes 18 and 19 (the write and read versions) go from 2 to 1."""
    return data[:18] + b"\x01\x01" + data[20:] if data[18:20] == b"\x02\x02" else data


def _in_wal_mode(path: Path) -> bool:
    """The header's write and read versions are 2 (WAL), at bytes 18 and 19."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    return header[18:20] == b"\x02\x02"


def is_database_file(path: Path) -> bool:
    """``path`` is a regular file that starts as an SQLite database does (opened only once it is known regular)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size >= len(SQLITE_HEADER) and _starts_with_header(path)


def _starts_with_header(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _within(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _inside_dir(root: Path, folder: Path) -> bool:
    """``folder`` exists as a directory inside ``root`` (through no link that leaves it)."""
    if not folder.is_dir():
        return False
    return _within(root.resolve(), folder.resolve())
