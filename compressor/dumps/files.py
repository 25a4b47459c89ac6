"""Files in a folder as the library reads and writes them: inside the folder, regular, bounded, tidied after.

Invariant: ``read_regular`` opens without blocking (a FIFO named ``*.json`` is refused, never waited on), reads
only a regular file and at most ``limit`` bytes; ``remove_stale_temps`` deletes only regular files whose names
match our own temp pattern and that no writer has touched for ``STALE_TEMP_SECONDS``.
"""

from __future__ import annotations

import os
import re
import stat
import time
from contextlib import suppress
from pathlib import Path

#: Larger dump or log files are not read (a dump holds a conversation twice; real ones stay far below this).
MAX_READ_BYTES = 256 * 1024 * 1024
#: A temp file this old belongs to a writer that died (kill -9, power loss): a live one is written in seconds.
STALE_TEMP_SECONDS = 15 * 60
#: What ``tempfile.mkstemp`` adds between our prefix and suffix.
_RANDOM_PART = r"[a-z0-9_]{8}"


class UnreadableFile(Exception):
    """A file that is not read, with the reason in words (``str(error)``)."""


def inside(root: Path, path: Path) -> bool:
    """Whether ``path``, every link resolved, stays within ``root`` (itself resolved)."""
    try:
        resolved = path.resolve(strict=True)
        base = root.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link, a loop
        return False
    return resolved == base or base in resolved.parents


def read_regular(path: Path, *, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of a regular file, opened without blocking; UnreadableFile naming why not."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"not a regular file ({_kind(info.st_mode)}); only files are read")
        if info.st_size > limit:
            raise UnreadableFile(f"is {info.st_size / 2**20:.0f} MiB, over the {limit // 2**20} MiB limit")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1024 * 1024):
            size += len(chunk)
            if size > limit:  # grown since fstat
                raise UnreadableFile(f"grew past the {limit // 2**20} MiB limit while being read")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):  # fmt: skip
        if test(mode):
            return name
    return "not a plain file"


def temp_pattern(prefix: str, suffix: str) -> re.Pattern[str]:
    """The names ``tempfile.mkstemp(prefix=prefix, suffix=suffix)`` makes, and nothing else."""
    return re.compile(f"{re.escape(prefix)}{_RANDOM_PART}{re.escape(suffix)}")


def remove_stale_temps(
    folder: Path, pattern: re.Pattern[str], *, older_than: float = STALE_TEMP_SECONDS
) -> int:
    """Delete our own temp files in ``folder`` left by writers that died; how many went. Never raises."""
    removed = 0
    cutoff = time.time() - older_than
    try:
        with os.scandir(folder) as listing:
            entries = [entry for entry in listing if pattern.fullmatch(entry.name)]
    except OSError:
        return 0
    for entry in entries:
        with suppress(OSError):
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
    return removed
