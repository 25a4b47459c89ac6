"""Temporary folders: one per server process (``compaction-lab-<pid>-<start>-…`` in the system's temp folder), one
per session inside it for uploaded dumps and live-run dumps.

Invariant: a session's folder is removed when the session ends (Streamlit releases session-scoped resources
when a session disconnects or closes); the server's folder when the server exits; and a server starting up
removes the folders of servers that are no longer running (a pid the system has given to another process since
counts as not running: the process's start time, where the system tells it, is part of the name). No key is ever written here (the dump writer
refuses to write one).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path

import streamlit as st

#: The server folders' names: ``compaction-lab-<pid>-<start>-<random>`` (``<start>`` left out where the system
#: gives no process start time; folders of older versions have none either).
SERVER_PREFIX = "compaction-lab-"
_SERVER_NAME = re.compile(rf"{re.escape(SERVER_PREFIX)}(\d+)-(?:(\d+)-)?[A-Za-z0-9_]+")


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, in clock ticks since boot (Linux ``/proc/<pid>/stat``), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the name in parentheses may hold spaces
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else None


def _alive(pid: int, start: str | None = None) -> bool:
    if pid == os.getpid():
        return start is None or start == process_start(pid)
    if start is not None:
        now = process_start(pid)
        if now is not None:
            return now == start  # another start time: the pid was given to another process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    except OSError:
        return False
    return True


def remove_dead_servers(temp: Path | None = None) -> list[Path]:
    """Remove the folders of dashboard servers that are no longer running; the folders removed."""
    base = Path(temp or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _SERVER_NAME.fullmatch(entry.name)
        if match is None or _alive(int(match.group(1)), match.group(2)):
            continue
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
        except OSError:
            continue
    return removed


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


@st.cache_resource(show_spinner=False)
def server_folder() -> Path:
    """This server's temporary folder, made once (after removing those of dead servers), gone at exit."""
    remove_dead_servers()
    start = process_start(os.getpid())
    stamp = f"{start}-" if start is not None else ""
    folder = Path(tempfile.mkdtemp(prefix=f"{SERVER_PREFIX}{os.getpid()}-{stamp}"))
    atexit.register(_remove, folder)
    return folder


@st.cache_resource(scope="session", on_release=_remove, show_spinner=False)
def session_folder() -> Path:
    """This session's temporary folder, inside the server's; removed when the session ends."""
    return Path(tempfile.mkdtemp(prefix="session-", dir=server_folder()))


def session_subfolder(name: str) -> Path:
    """A folder of this session's own (``uploads``, ``live``), made on first use (again after a reconnect)."""
    folder = session_folder() / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
