"""The Load page's account of a run and its picker: how the file was read (the loader's readings in words),
what it holds (the census), the agent's own compactions scored, and the sessions an agent wrote inside the roots.

Invariant: the words come from the readings' and counts' codes (``i18n.quality``); nothing outside the allowed
roots is listed, and a picked session opens through the roots' confined read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from compressor.census import count_messages

from . import roots
from .components import plain
from .i18n.quality import count_lines, reading_words
from .quality import recorded_kept
from .sources import LoadedConversation
from .state import conversations, keys, quality, session, sessions
from .state.session import t


def run_account(item: LoadedConversation) -> None:
    """How the conversation on show was read, what it holds, and its recorded compactions scored."""
    language = session.language()
    conversation = item.conversation
    st.subheader(t("load.readings_title"), anchor=False)
    readings = [reading_words(reading, language) for reading in conversation.readings]
    if readings:
        st.markdown("\n".join(f"- {plain(line)}" for line in readings))
    else:
        st.caption(t("load.readings_none"))
    with st.container(horizontal=True, gap="medium"):
        for label, value in count_lines(count_messages(conversation), language):
            st.metric(label, f"{value:,}", width="content")
    if conversation.recorded_compactions:
        recorded_kept(quality.recorded_score(conversation, session.settings().counter))


def session_picker(configured: Sequence[Path]) -> None:
    """The sessions the agents wrote (inside the roots), newest first, and a button that loads the chosen one."""
    st.subheader(t("load.picker_title"), anchor=False)
    offered = sessions.offered_sessions(configured)
    if not offered:
        st.caption(t("load.picker_none"))
        return
    chosen = st.selectbox(
        t("load.picker"),
        range(len(offered)),
        format_func=lambda n: " · ".join(
            (
                offered[n].session.agent,
                offered[n].session.modified.strftime("%Y-%m-%d %H:%M"),
                roots.size_text(offered[n].session.size),
                roots.root_label(configured[offered[n].root_index]) + offered[n].relative,
            )
        ),
        key=keys.page_widget("load", "session"),
    )
    if chosen is not None:
        picked = offered[int(chosen)]
        st.button(
            t("load.picker_load"),
            key=keys.page_widget("load", "open_session"),
            # a store kept as a folder (OpenCode's storage/) opens with every session it holds
            on_click=conversations.on_open_root_store if picked.folder else conversations.on_open_root_file,
            args=(picked.root_index, picked.relative),
        )


def compaction_blocker(item: LoadedConversation) -> str | None:
    """Why no setting can ever compact this run, as a ``tune.cannot_compact.*`` code, or None when one can.

    openJiuwen compacts only the work after the latest real user request, in the context of a model call (the
    messages before an assistant turn): a run with no real request, or whose every model call comes straight
    after one, never has a span to summarise, whatever the ratio.
    """
    messages = item.conversation.messages
    seen_request = False
    for index, message in enumerate(messages):
        if message.role == "assistant" and seen_request and not messages[index - 1].is_real_user:
            return None
        seen_request = seen_request or message.is_real_user
    return "nothing_after" if seen_request else "no_real_user"


def blocker_sentence(code: str) -> str:
    return (
        t("tune.cannot_compact.no_real_user")
        if code == "no_real_user"
        else t("tune.cannot_compact.nothing_after")
    )
