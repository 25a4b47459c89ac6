"""The "follow" switch of a page showing something an agent is still writing: a session file (Span & trigger,
Tune) or a dump folder (Dump review). While it is on, a small fragment polls every ``FOLLOW_SECONDS`` and reruns
the page when something new has landed.

Invariant: the poll reruns the page only on a change; what was already read is not read or tokenised again
(``state.conversations.refresh_item`` keeps unchanged messages, the dump index caches unchanged files).
"""

from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

from .i18n import counted
from .sources import LoadedConversation
from .state import conversations, follow, keys, session
from .state.session import t


@st.fragment(run_every=follow.FOLLOW_SECONDS)
def _poll_item(key: str) -> None:
    if conversations.refresh_item(key):
        st.rerun()
    found = conversations.items().get(key)
    messages = len(found.conversation.messages) if found is not None else 0
    st.caption(
        t(
            "follow.watching_file",
            messages=counted(messages, "message", session.language()),
            at=time.strftime("%H:%M:%S"),
        )
    )


@st.fragment(run_every=follow.FOLLOW_SECONDS)
def _poll_folder(folder: str) -> None:
    fingerprint = follow.folder_fingerprint(Path(folder))
    if follow.changed(folder, fingerprint):
        st.rerun()
    dumps = sum(1 for name, _, _ in fingerprint if name.endswith(".json"))
    st.caption(
        t(
            "follow.watching_folder",
            dumps=counted(dumps, "dump", session.language()),
            at=time.strftime("%H:%M:%S"),
        )
    )


def follow_panel(item: LoadedConversation | None, page: str) -> None:
    """The follow switch for a conversation read from a file on the server (none for uploads and samples)."""
    if item is None or not item.followable:
        return
    if st.toggle(t("follow.file"), key=keys.page_widget(page, "follow"), help=t("follow.file_help")):
        _poll_item(item.key)


def follow_folder(folder: Path, page: str) -> None:
    """The follow switch for a dump folder under review."""
    if st.toggle(t("follow.folder"), key=keys.page_widget(page, "follow"), help=t("follow.folder_help")):
        _poll_folder(str(folder))
