"""How big a session store is and when it last changed: a database with its write-ahead log, or a folder's files.

Invariant: only ``stat`` and directory listings here, nothing is opened; no link is followed; a store that changes
anywhere (a write that reached only the log, a file added, removed or rewritten deep in a folder) changes its size
or its newest time.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: What SQLite appends to a database's name for its write-ahead log (WAL mode).
WAL_SUFFIX = "-wal"


def write_ahead_log(path: Path) -> Path | None:
    """``<name>-wal`` beside the file when it is a regular file (no link): in WAL mode SQLite keeps the newest
    writes there until a checkpoint, so the database's content is the file and its log together. The ``-shm``
    beside them is only an index SQLite rebuilds from the log (a reader alone changes it): no part of the content."""
    log = path.with_name(path.name + WAL_SUFFIX)
    try:
        return log if stat.S_ISREG(os.lstat(log).st_mode) else None
    except OSError:
        return None


def database_tally(path: Path, info: os.stat_result | None = None) -> tuple[int, int]:
    """(bytes, newest ``st_mtime_ns``) of a file with its write-ahead log, if it has one (``info``: the file's own
    ``stat``, when the caller has it): a write that only reached the log changes one of them."""
    info = path.stat() if info is None else info
    try:
        log = os.lstat(path.with_name(path.name + WAL_SUFFIX))
    except OSError:
        return info.st_size, info.st_mtime_ns
    if not stat.S_ISREG(log.st_mode):
        return info.st_size, info.st_mtime_ns
    return info.st_size + log.st_size, max(info.st_mtime_ns, log.st_mtime_ns)


def folder_tally(folder: Path, newest_ns: int = 0) -> tuple[int, int]:
    """(bytes of the regular files below ``folder``, the newest ``st_mtime_ns`` of any file or folder in it or
    ``newest_ns``): a file added, removed or rewritten anywhere in it changes one of them. No link is followed."""
    size = 0
    for root, folders, files in os.walk(folder, followlinks=False):
        for name in (*folders, *files):
            try:
                entry = os.lstat(Path(root) / name)
            except OSError:
                continue
            newest_ns = max(newest_ns, entry.st_mtime_ns)
            size += entry.st_size if stat.S_ISREG(entry.st_mode) else 0
    return size, newest_ns
