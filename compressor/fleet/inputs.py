"""The files a fleet reads: paths given (files, folders walked recursively) and the agents' standard places.

Invariant: only directory listings and ``stat`` here, nothing is opened; every regular file with a suffix a
reader takes is one input, once, named by its absolute path, and so is every folder a store reader takes
(``formats.registry.STORE_READERS``: read whole, never walked into); a path that cannot be listed is one
``Broken`` line, never an exception.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..dumps.files import inside
from ..formats.places import find_sessions, is_store_folder, left_out
from ..formats.source import RUN_FILE_SUFFIXES
from ..formats.stores import DATABASE_SUFFIXES
from ..formats.tallies import database_tally, folder_tally
from ..jsontext import encodable
from .catalog import DATABASE as CATALOG_DATABASE
from .values import Broken

#: What the readers take (``formats``): run files (compressed ones too: ``.jsonl.zst``) and SQLite stores.
SUFFIXES: tuple[str, ...] = (*RUN_FILE_SUFFIXES, *DATABASE_SUFFIXES)
#: Folders never walked: caches and version control hold no runs.
SKIPPED_FOLDERS: frozenset[str] = frozenset({".git", "__pycache__", "node_modules", ".venv"})


@dataclass(frozen=True, kw_only=True)
class Input:
    """One file to catalogue, with what ``stat`` said of it (the catalog's first key): for a database with a
    write-ahead log beside it, of the two together (``formats.tallies.database_tally``)."""

    path: str
    size: int
    mtime_ns: int
    agent: str = ""  # the standard place it was found in, if any


def _entry(path: Path, agent: str = "") -> Input | None:
    try:
        info = path.stat()
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):
        return _store_entry(path, agent)
    if not stat.S_ISREG(info.st_mode):
        return None
    # An SQLite store in WAL mode: a write that reached only its -wal changes the pair's size or time.
    size, mtime_ns = database_tally(path, info)
    return Input(path=str(path), size=size, mtime_ns=mtime_ns, agent=agent)


def _sub_folders(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            return [
                Path(e.path)
                for e in entries
                if e.is_dir(follow_symlinks=False) and e.name not in SKIPPED_FOLDERS
            ]
    except OSError:
        return []


def is_store(folder: Path) -> bool:
    """A store reader takes the folder whole (an OpenHands SDK conversation, OpenCode storage, ...), and it is not
    a folder of stores: none of its sub-folders is taken while holding folders of its own (a folder of SDK
    conversations is walked, so runs beside them are found too). The readers' tests list folders only."""
    if not is_store_folder(folder):
        return False
    return not any(is_store_folder(sub) and _sub_folders(sub) for sub in _sub_folders(folder))


def _store_entry(folder: Path, agent: str = "") -> Input:
    """A store folder as one input: the bytes of its files, and the newest change to any file or folder in it
    (a file added, removed or rewritten anywhere in it changes one or the other)."""
    size, newest = folder_tally(folder, folder.stat().st_mtime_ns)
    return Input(path=str(folder), size=size, mtime_ns=newest, agent=agent)


def _walk(folder: Path, broken: list[Broken]) -> Iterable[Path]:
    """The files with a reader's suffix under ``folder``, and the store folders (not walked into)."""

    def failed(error: OSError) -> None:
        name = error.filename or str(folder)
        broken.append(Broken(str(name), f"cannot list the folder: {error.strerror or type(error).__name__}"))

    for root, folders, files in os.walk(folder, onerror=failed, followlinks=False):
        if is_store(Path(root)):
            folders[:] = []
            if Path(root) == folder or not left_out(Path(root)):  # a store it migrated from is no second run
                yield Path(root)
            continue
        # A fleet catalog holds no runs, and its shards are Parquet, a suffix runs may have too.
        if CATALOG_DATABASE in files:
            folders[:] = []
            continue
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS)
        for name in sorted(files):
            if name.lower().endswith(SUFFIXES):
                path = Path(root) / name
                if encodable(str(path)) != str(path):  # as Dump review does: DuckDB and pages take only UTF-8
                    broken.append(Broken(encodable(str(path)), "the file name is not valid UTF-8; rename it"))
                elif path.is_symlink() and not path.exists():
                    broken.append(Broken(str(path), "is a link to nothing"))
                elif path.is_symlink() and not inside(folder, path):  # the folder holds for its links too
                    broken.append(Broken(str(path), "links outside the folder; not read"))
                elif not path.is_file():  # a FIFO would block the read, a device never end
                    broken.append(Broken(str(path), "is not a regular file"))
                elif not left_out(path):  # an older copy, an index, an imported file (formats.places)
                    yield path


def discover(
    paths: Sequence[str | Path],
    *,
    standard: bool = False,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[Input], list[Broken]]:
    """Every input under ``paths`` (and, with ``standard``, in the agents' standard places), sorted by path."""
    found: dict[str, Input] = {}
    broken: list[Broken] = []
    for given in paths:
        path = Path(given).expanduser().absolute()
        if path.is_dir():
            for file in _walk(path, broken):
                entry = _entry(file)
                if entry is not None:
                    found.setdefault(entry.path, entry)
        elif path.exists():
            entry = _entry(path)
            if entry is None:
                broken.append(Broken(str(path), "is not a regular file"))
            else:
                found.setdefault(entry.path, entry)
        else:
            broken.append(Broken(str(path), "no such file or folder"))
    if standard:
        for session in find_sessions(home, environ):
            entry = _entry(session.path.absolute(), session.agent)
            if entry is not None:
                found.setdefault(entry.path, entry)
    return sorted(found.values(), key=lambda entry: entry.path), broken
