"""Following what an agent is still writing: a dump folder's fingerprint between two polls, and which followed
sources changed since the page last showed them.

Invariant: a poll only stats files (the dump index and the loaders read what changed, once); a source counts as
changed exactly when its fingerprint differs from the one recorded at the previous poll of this session.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from . import keys

#: Seconds between two polls of a followed file or folder.
FOLLOW_SECONDS = 2.0
#: Files a folder's fingerprint looks at, at most (a folder of dumps holds far fewer).
FINGERPRINT_FILES = 50_000
Fingerprint = tuple[tuple[str, int, int], ...]


def folder_fingerprint(folder: Path, *, limit: int = FINGERPRINT_FILES) -> Fingerprint:
    """(path below the folder, mtime_ns, size) of every dump (``*.json``) and debug log (``*.jsonl``) below it,
    sorted; links to folders are not walked and hidden names (our temp files) are left out."""
    found: list[tuple[str, int, int]] = []
    pending = [folder]
    while pending and len(found) < limit:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                elif entry.name.endswith((".json", ".jsonl")) and entry.is_file():
                    info = entry.stat()
                    found.append((os.path.relpath(entry.path, folder), info.st_mtime_ns, info.st_size))
            except OSError:
                continue
    return tuple(sorted(found))


def changed(source: str, fingerprint: object) -> bool:
    """Whether ``source`` (a folder path, a conversation key) looks different from the previous poll; the first
    poll records what is on show and reports no change."""
    store: dict[str, object] = st.session_state.setdefault(keys.K_FOLLOW_SEEN, {})
    previous = store.get(source, fingerprint)
    store[source] = fingerprint
    return previous != fingerprint
