"""Listing a directory of dumps: one summary row per readable dump, one ``{path, error}`` per broken file.

Invariant: indexing never raises because of a file; only regular files inside the folder are read (a link that
leaves it, a FIFO, a name that is not UTF-8 are listed as broken, with the reason); a warm re-index of unchanged
files parses none of them again (entries are cached by path, mtime and size), and no message object is built.
"""

from __future__ import annotations

import bisect
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DumpFormatError
from ..jsontext import encodable
from .debuglog import debug_log_name, read_debug_log
from .files import inside
from .reader import DumpSummary, extension_retries, load_dump_file, summarise, window_seconds

_StatKey = tuple[str, int, int]


@dataclass(frozen=True)
class DumpIndex:
    """Rows sorted by timestamp (then path), and the files that could not be read."""

    directory: str
    dumps: list[dict[str, Any]] = field(default_factory=list)
    broken: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"dumps": [dict(row) for row in self.dumps], "broken": [dict(item) for item in self.broken]}


@dataclass(frozen=True)
class _Entry:
    summary: DumpSummary | None  # retries from our extension only; the debug log is applied per index run
    error: str | None


class _LogIndex:
    """Timestamps of ``threshold_check`` and ``compression_retry`` records per (session_id, context_id)."""

    def __init__(self, records: Sequence[Mapping[str, Any]]) -> None:
        self._starts: dict[tuple[str, str], list[float]] = {}
        self._retries: dict[tuple[str, str], list[float]] = {}
        for record in records:
            stamp, event = record.get("timestamp"), record.get("event")
            if not isinstance(stamp, int | float) or isinstance(stamp, bool):
                continue
            key = (str(record.get("session_id")), str(record.get("context_id")))
            if event == "threshold_check":
                self._starts.setdefault(key, []).append(float(stamp))
            elif event == "compression_retry":
                self._retries.setdefault(key, []).append(float(stamp))
        for series in (*self._starts.values(), *self._retries.values()):
            series.sort()

    def since(self, session_id: str, context_id: str, until: float) -> float | None:
        """The latest threshold_check at or before ``until``: where a dump's debug window opens (None: no check)."""
        starts = self._starts.get((session_id, context_id), [])
        position = bisect.bisect_right(starts, until)
        return starts[position - 1] if position else None

    def retries(self, session_id: str, context_id: str, until: float) -> int:
        """Retry records between the latest threshold_check at or before ``until`` and ``until`` (inclusive)."""
        since = self.since(session_id, context_id, until)
        if since is None:
            return 0
        retries = self._retries.get((session_id, context_id), [])
        return bisect.bisect_right(retries, until) - bisect.bisect_left(retries, since)


class DumpIndexCache:
    """Parsed entries keyed by (path, mtime_ns, size), bounded; safe to share between threads."""

    def __init__(self, max_entries: int = 20_000, max_logs: int = 256) -> None:
        self.max_entries = max_entries
        self.max_logs = max_logs
        self._entries: OrderedDict[_StatKey, _Entry] = OrderedDict()
        self._logs: OrderedDict[_StatKey, _LogIndex] = OrderedDict()
        self._lock = threading.Lock()
        self.files_read = 0  # dump files parsed since creation: a warm re-index leaves it unchanged
        self.logs_read = 0

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._logs.clear()

    def entry(self, path: Path, stat: os.stat_result) -> _Entry:
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._entries.get(key)
            if cached is not None:
                self._entries.move_to_end(key)
                return cached
        try:
            model = load_dump_file(path)
            built = _Entry(summarise(path, model, extension_retries(model)), None)
        except DumpFormatError as exc:
            built = _Entry(None, exc.problem)
        except (
            ValueError,
            TypeError,
            OverflowError,
            RecursionError,
        ) as exc:  # one odd file never ends the listing
            built = _Entry(None, f"unreadable ({type(exc).__name__})")
        with self._lock:
            self.files_read += 1
            self._entries[key] = built
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return built

    def log(self, path: Path) -> _LogIndex | None:
        try:
            info = path.stat()
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device named like a log tells nothing
            return None
        key = (str(path), info.st_mtime_ns, info.st_size)
        with self._lock:
            cached = self._logs.get(key)
            if cached is not None:
                self._logs.move_to_end(key)
                return cached
        built = _LogIndex(read_debug_log(path))
        with self._lock:
            self.logs_read += 1
            self._logs[key] = built
            while len(self._logs) > self.max_logs:
                self._logs.popitem(last=False)
        return built


DEFAULT_CACHE = DumpIndexCache()


def index_dumps(
    directory: str | os.PathLike[str], *, recursive: bool = True, cache: DumpIndexCache | None = None
) -> DumpIndex:
    """Summary rows of every ``*.json`` dump under ``directory`` and the broken files; never raises for a file.

    Debug logs (``*.jsonl``), temp files and hidden files are skipped. A path to one file indexes that file.
    """
    cache = DEFAULT_CACHE if cache is None else cache
    root = Path(directory)
    base = root if root.is_dir() else root.parent
    rows: list[
        tuple[DumpSummary, dict[str, Any]]
    ] = []  # each summary, and what its debug log adds to its row
    broken: list[dict[str, str]] = []
    logs: dict[tuple[Path, str], _LogIndex | None] = {}
    for path, info, problem in _dump_files(root, recursive):
        if info is None:
            broken.append({"path": str(path), "error": problem})
            continue
        entry = cache.entry(path, info)
        if entry.summary is None:
            broken.append({"path": str(path), "error": entry.error or "unreadable"})
            continue
        summary = entry.summary
        log_key = (path.parent, summary.processor_type)
        if log_key not in logs:
            log_path = path.parent / debug_log_name(summary.processor_type)
            logs[log_key] = cache.log(log_path) if inside(base, log_path) else None
        log = logs[log_key]
        logged: dict[str, Any] = {}
        if log is not None:  # the log says how long it took, and the retries when our extension does not
            key = (summary.session_id, summary.context_id, summary.timestamp)
            if summary.retries is None:
                logged["retries"] = log.retries(*key)
            logged["seconds"] = window_seconds(log.since(*key), summary.timestamp)
        rows.append((summary, logged))
    rows.sort(key=lambda row: (row[0].timestamp, row[0].path))
    broken.sort(key=lambda item: item["path"])
    return DumpIndex(
        directory=str(root),
        dumps=[{**summary.to_dict(), **logged} for summary, logged in rows],
        broken=broken,
    )


def _dump_files(root: Path, recursive: bool) -> Iterator[tuple[Path, os.stat_result | None, str]]:
    """(path, stat, "") for candidate dump files, or (path, None, problem) for what is not read."""
    if not root.is_dir():
        yield _candidate(root.parent, root)
        return
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as exc:
            yield folder, None, f"cannot list the directory: {exc.strerror or exc}"
            continue
        for item in entries:
            if item.name.startswith("."):  # our temp files and other hidden files
                continue
            try:
                if item.is_dir(follow_symlinks=False):
                    if recursive:
                        pending.append(Path(item.path))
                    continue
            except OSError:
                pass  # left to _candidate, which names the problem
            if item.name.endswith(".json"):
                yield _candidate(root, Path(item.path))


def _candidate(root: Path, path: Path) -> tuple[Path, os.stat_result | None, str]:
    if encodable(str(path)) != str(path):
        return (
            Path(encodable(str(path))),
            None,
            "the file name is not valid UTF-8; rename the file to read it",
        )
    try:
        if path.is_symlink() and not inside(root, path):
            if not path.exists():
                return path, None, "a link to nothing (its target is gone)"
            return path, None, "a link to a file outside the folder; not followed"
        info = path.stat()
    except OSError as exc:
        return path, None, f"cannot read the file: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        return path, None, "not a regular file (a FIFO, a device or a folder); only files are read"
    return path, info, ""
