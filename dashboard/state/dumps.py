"""Dumps and folders on the server for a session: where the folder browsers stand, the dump folder under
review, this session's private folders (uploaded dumps, live-run dumps), and the caches of parsed dumps.

Invariant: a folder is always confined to a configured root; parsed dump files and spans are cached by path,
mtime and size (shared by all sessions), while a folder's walk is fresh on every run so new dumps show at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from compressor.dumps import DumpCallTokens, DumpIndex, DumpIndexCache, DumpRecord, index_dumps, read_dump
from compressor.dumps import dump_call_tokens as call_tokens_of
from compressor.dumps.reader import DumpSpan
from compressor.errors import DumpFormatError

from .. import dump_uploads, roots
from . import conversations, keys, scratch

#: Where the demo dump session lives (produced by our own compressor); the Dump review page opens it first.
DEMO_DUMP_FOLDER = "demo"
#: Where the Live page keeps a dump when the user asks to keep it (under the project's dumps/).
LIVE_DUMP_SUBFOLDER = "dashboard"


# -- folder browsers -------------------------------------------------------------------------------


def browse_position(page: str) -> tuple[int, str]:
    """Where ``page``'s folder browser stands: (root index, folder relative to the root)."""
    found = st.session_state.get(keys.K_BROWSE + page)
    return found if isinstance(found, tuple) else (0, "")


def set_browse_position(page: str, root_index: int, relative: str) -> None:
    st.session_state[keys.K_BROWSE + page] = (root_index, relative)


# -- the folder under review -----------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewFolder:
    """The dump folder chosen for review: its root, its place under the root, and the folder itself (None
    with ``error`` when the choice no longer lies inside the root)."""

    root_index: int
    root: Path
    relative: str
    path: Path | None
    error: str | None = None

    @property
    def label(self) -> str:
        return roots.root_label(self.root) + self.relative


def dump_folder() -> tuple[int, str] | None:
    """The dump folder chosen for review (root index, relative path), or None before any choice."""
    found = st.session_state.get(keys.K_DUMP_FOLDER)
    return found if isinstance(found, tuple) else None


def set_dump_folder(root_index: int, relative: str) -> None:
    st.session_state[keys.K_DUMP_FOLDER] = (root_index, relative)


def default_dump_folder(configured: Sequence[Path]) -> tuple[int, str]:
    """The demo session under the first root that has it, else the first root itself."""
    for index, root in enumerate(configured):
        try:
            if roots.confine(root, DEMO_DUMP_FOLDER).is_dir():
                return index, DEMO_DUMP_FOLDER
        except (roots.OutsideRootError, OSError):
            continue
    return 0, ""


def review_folder(configured: Sequence[Path]) -> ReviewFolder | None:
    """The folder the Dump review page reads (the chosen one, else the default), or None without roots."""
    if not configured:
        return None
    index, relative = dump_folder() or default_dump_folder(configured)
    index = min(index, len(configured) - 1)
    root = configured[index]
    try:
        return ReviewFolder(index, root, relative, roots.confine(root, relative))
    except roots.OutsideRootError as error:
        return ReviewFolder(index, root, relative, None, str(error))


# -- this session's private folders ----------------------------------------------------------------


def dump_upload_dir() -> Path:
    """This session's private folder of uploaded dumps (removed when the session ends)."""
    return scratch.session_subfolder("uploads")


def receive_dump_uploads(files: Sequence[UploadedFile]) -> tuple[Path, dump_uploads.Saved]:
    """Save the dumps uploaded since the last run into this session's folder: the folder to review, and what
    was refused or set apart."""
    base = dump_upload_dir()
    if not dump_uploads.review_folder(
        base
    ).is_dir():  # a new folder (first upload, or after a reconnect): save them all
        st.session_state.pop(keys.K_DUMP_SEEN_UPLOADS, None)
    fresh = conversations.new_uploads(files, keys.K_DUMP_SEEN_UPLOADS)
    saved = dump_uploads.save_uploads(base, [(upload.name, upload.getvalue()) for upload in fresh])
    return dump_uploads.review_folder(base), saved


def live_dump_dir(keep: bool) -> Path:
    """Where the Live page writes its dump: dumps/dashboard/ when kept, else a private temporary folder."""
    if keep:
        return roots.PROJECT_DIR / "dumps" / LIVE_DUMP_SUBFOLDER
    return scratch.session_subfolder("live")


# -- parsed dumps, cached ----------------------------------------------------------------------------


def dump_index(folder: Path) -> DumpIndex:
    """``compressor.dumps.index_dumps`` of a folder: the walk is fresh on every run (new dumps show at
    once) while parsed files come from a cache shared by all sessions, so 2,000 dumps are read once."""
    return index_dumps(folder, cache=dump_index_cache())


@st.cache_resource(show_spinner=False)
def dump_index_cache() -> DumpIndexCache:
    """The parsed dump files of every session's folder walks."""
    return DumpIndexCache()


def dump_record(path: str) -> DumpRecord:
    """One dump read back, once per version of the file; raises DumpFormatError/OSError naming the file."""
    stat = Path(path).stat()
    return _dump_record(path, stat.st_mtime_ns, stat.st_size)


@st.cache_resource(max_entries=64, show_spinner=False)
def _dump_record(path: str, mtime_ns: int, size: int) -> DumpRecord:
    del mtime_ns, size  # part of the cache key only
    return read_dump(path)


def dump_span(path: str, counter: str) -> DumpSpan:
    """``DumpRecord.span(counter)`` of the dump at ``path``: its messages are counted once per counter."""
    stat = Path(path).stat()
    return _dump_span(path, stat.st_mtime_ns, stat.st_size, counter)


@st.cache_resource(max_entries=64, show_spinner=False)
def _dump_span(path: str, mtime_ns: int, size: int, counter: str) -> DumpSpan:
    return _dump_record(path, mtime_ns, size).span(counter)


def dump_call_tokens(path: str, counter: str) -> DumpCallTokens | None:
    """``compressor.dumps.dump_call_tokens`` of the dump at ``path``, once per version of the file and counter;
    None when the file is no longer a readable dump (it changed since the folder was listed)."""
    try:
        stat = Path(path).stat()
        return _dump_call_tokens(path, stat.st_mtime_ns, stat.st_size, counter)
    except (DumpFormatError, OSError):
        return None


@st.cache_resource(max_entries=4096, show_spinner=False)
def _dump_call_tokens(path: str, mtime_ns: int, size: int, counter: str) -> DumpCallTokens:
    return call_tokens_of(_dump_record(path, mtime_ns, size), counter)
