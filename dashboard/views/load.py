"""Load: upload conversation files (JSON, JSONL, .traj, or a zip of many), open a bundled sample, or
pick a file or dump folder under the configured roots; see what loaded, in which format, and what failed."""

from __future__ import annotations

import streamlit as st

from dashboard import loading, roots, tables
from dashboard.browser import folder_browser
from dashboard.components import error_line, plain, table
from dashboard.i18n import counted
from dashboard.sources import UPLOAD_TYPES
from dashboard.state import conversations, dumps, keys, session
from dashboard.state.session import t

language = session.language()
st.title(t("load.title"))
st.caption(t("load.intro"))

# -- what the session holds -----------------------------------------------------------------------
loaded = conversations.items()
current = conversations.current()
if loaded and current is not None:
    st.text(t("load.current", name=current.label, format=current.source_format))
    origins = {
        "sample": t("origin.sample"),
        "upload": t("origin.upload"),
        "root": t("origin.root"),
        "store": t("origin.store"),
        "fleet": t("origin.fleet"),
    }
    table(tables.loaded_table(loaded.values(), origins), hide_index=True)
    st.button(t("load.clear"), key=keys.page_widget("load", "clear"), on_click=conversations.clear_items)
    loading.run_account(current)  # how the file was read, what it holds, its own compactions scored
else:
    st.info(t("load.nothing"))

report = conversations.load_report()
if report:
    for outcome in report:
        if outcome.ok:
            formats = sorted({c.source_format for c in outcome.conversations})
            st.success(
                plain(
                    t(
                        "load.ok",
                        file=outcome.file,
                        conversations=counted(len(outcome.conversations), "conversation", language),
                        format=", ".join(formats),
                    )
                )
            )
        else:
            st.error(error_line(outcome.error or outcome.file))
    if sum(len(outcome.conversations) for outcome in report) > 1:
        st.caption(t("load.pick_hint"))

upload_tab, samples_tab, server_tab = st.tabs(
    [t("load.tab.upload"), t("load.tab.samples"), t("load.tab.server")]
)

# -- upload ---------------------------------------------------------------------------------------
with upload_tab:
    st.file_uploader(
        t("load.upload"),
        type=list(UPLOAD_TYPES),
        accept_multiple_files=True,
        key=keys.W_UPLOAD,
        help=t("load.upload_help"),
        on_change=conversations.on_upload,
    )

# -- bundled samples ------------------------------------------------------------------------------
with samples_tab:
    samples = conversations.sample_files()
    if not samples:
        st.info(t("load.no_samples"))
    else:
        st.selectbox(
            t("load.sample"),
            samples,
            key=keys.W_SAMPLE,
            persist_state=keys.PERSIST,
            help=t("load.sample_help"),
        )
        st.button(
            t("load.open_sample"),
            key=keys.page_widget("load", "open_sample"),
            on_click=conversations.on_open_sample,
        )

# -- files and dump folders on the server ---------------------------------------------------------
with server_tab:
    st.caption(t("load.server_intro", env=roots.ROOTS_ENV))
    configured = roots.configured_roots()
    loading.session_picker(configured)  # the sessions agents wrote inside the roots, newest first
    choice = folder_browser("load", configured, suffixes=roots.CONVERSATION_SUFFIXES)
    if choice is not None:
        left, right = st.columns(2)
        entry = choice.entry
        folder = entry.relative if entry is not None and entry.is_dir else choice.folder
        if entry is not None and not entry.is_dir:
            left.button(
                t("load.open_file"),
                key=keys.page_widget("load", "open_file"),
                type="primary",
                on_click=conversations.on_open_root_file,
                args=(choice.root_index, entry.relative),
            )
        elif conversations.is_root_store(choice.root, folder):  # OpenCode's storage/: every session it holds
            left.button(
                plain(t("load.open_store", folder=roots.root_label(choice.root) + folder)),
                key=keys.page_widget("load", "open_store"),
                type="primary",
                on_click=conversations.on_open_root_store,
                args=(choice.root_index, folder),
            )
        review_label = plain(t("load.review_folder", folder=roots.root_label(choice.root) + folder))
        if right.button(
            review_label,
            key=keys.page_widget("load", "review"),
            on_click=dumps.set_dump_folder,
            args=(choice.root_index, folder),
        ):
            st.switch_page("views/dumps.py")
