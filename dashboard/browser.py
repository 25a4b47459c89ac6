"""The folder browser the Load and Dump review pages share: a root, its folders (never above the root) and an
entry chosen inside the folder on show.

Invariant: every listing goes through ``roots.list_folder`` (confined, regular files and folders only), so a
choice is always a place inside a configured root.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from . import roots
from .components import plain
from .state import dumps, keys
from .state.session import t


@dataclass(frozen=True)
class FolderChoice:
    """Where the browser stands and what is selected in it."""

    root_index: int
    root: Path
    folder: str
    entry: roots.Entry | None


def folder_browser(
    page: str, configured: Sequence[Path], *, suffixes: Sequence[str] | None
) -> FolderChoice | None:
    """Pick a root, walk its folders (never above the root) and select a folder or file inside it."""
    if not configured:
        st.info(t("browse.no_roots", env=roots.ROOTS_ENV))
        return None
    root_index, folder = dumps.browse_position(page)
    root_index = min(max(root_index, 0), len(configured) - 1)
    chosen_root = st.selectbox(
        t("browse.root"),
        range(len(configured)),
        index=root_index,
        format_func=lambda i: roots.root_label(configured[i]),
        key=keys.browse_widget(page, "root"),
        help=t("browse.root_help", env=roots.ROOTS_ENV),
    )
    if chosen_root != root_index:
        root_index, folder = int(chosen_root), ""
        dumps.set_browse_position(page, root_index, folder)
    root = configured[root_index]
    if not root.is_dir():
        st.warning(plain(t("browse.missing_root", root=roots.root_label(root))))
        return None
    try:
        entries = roots.list_folder(root, folder, suffixes=suffixes)
    except (roots.OutsideRootError, OSError):
        folder = ""
        dumps.set_browse_position(page, root_index, folder)
        entries = roots.list_folder(root, folder, suffixes=suffixes)
    st.text(t("browse.here", path=roots.root_label(root) + folder))
    up, _ = st.columns([1, 4])
    up.button(
        t("browse.up"),
        disabled=not folder,
        key=keys.browse_widget(page, "up"),
        on_click=dumps.set_browse_position,
        args=(page, root_index, roots.parent_of(folder)),
    )
    if not entries:
        st.caption(t("browse.empty"))
        return FolderChoice(root_index, root, folder, None)
    picked = st.selectbox(
        t("browse.entries", count=len(entries)),
        range(len(entries)),
        format_func=lambda i: entries[i].label,
        key=keys.browse_widget(page, f"entry:{root_index}:{folder}"),
    )
    entry = entries[int(picked)] if picked is not None else None
    if entry is not None and entry.is_dir:
        st.button(
            t("browse.open"),
            key=keys.browse_widget(page, "open"),
            on_click=dumps.set_browse_position,
            args=(page, root_index, entry.relative),
        )
    return FolderChoice(root_index, root, folder, entry)
