"""Temporary folders: one per server process (``compaction-lab-<pid>-…`` in the system's temp folder), one per
session inside it for uploaded dumps and live-run dumps.

Invariant: a session's folder is removed when the session ends (Streamlit releases session-scoped resources
when a session disconnects or closes); the server's folder when the server exits; and a server starting up
removes the folders of servers that are no longer running. No key is ever written here (the dump writer
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

#: The server folders' names: ``compaction-lab-<pid>-<random>``.
SERVER_PREFIX = "compaction-lab-"
_SERVER_NAME = re.compile(rf"{re.escape(SERVER_PREFIX)}(\d+)-[A-Za-z0-9_]+")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
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
        if match is None or _alive(int(match.group(1))):
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
    folder = Path(tempfile.mkdtemp(prefix=f"{SERVER_PREFIX}{os.getpid()}-"))
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
