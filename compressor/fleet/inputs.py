"""The files a fleet reads: paths given (files, folders walked recursively) and the agents' standard places.

Invariant: only directory listings and ``stat`` here, nothing is opened; every regular file with a suffix a
reader takes is one input, once, named by its absolute path, and a path that cannot be listed is one
``Broken`` line, never an exception.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..formats.places import find_sessions
from .values import Broken

#: What the readers take (``formats``): JSON and JSONL of every agent, SWE-agent trajectories, SQLite stores.
SUFFIXES: frozenset[str] = frozenset({".json", ".jsonl", ".ndjson", ".traj", ".db", ".sqlite", ".sqlite3"})
#: Folders never walked: caches and version control hold no runs.
SKIPPED_FOLDERS: frozenset[str] = frozenset({".git", "__pycache__", "node_modules", ".venv"})


@dataclass(frozen=True, kw_only=True)
class Input:
    """One file to catalogue, with what ``stat`` said of it (the catalog's first key)."""

    path: str
    size: int
    mtime_ns: int
    agent: str = ""  # the standard place it was found in, if any


def _entry(path: Path, agent: str = "") -> Input | None:
    try:
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return Input(path=str(path), size=info.st_size, mtime_ns=info.st_mtime_ns, agent=agent)


def _walk(folder: Path, broken: list[Broken]) -> Iterable[Path]:
    def failed(error: OSError) -> None:
        name = error.filename or str(folder)
        broken.append(Broken(str(name), f"cannot list the folder: {error.strerror or type(error).__name__}"))

    for root, folders, files in os.walk(folder, onerror=failed, followlinks=False):
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS)
        for name in sorted(files):
            if Path(name).suffix.lower() in SUFFIXES:
                yield Path(root) / name


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
