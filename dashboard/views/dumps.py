"""Dump review: a folder of compression dumps (openJiuwen's or ours, with the debug log) or uploaded
dumps, as a filterable, paged table and charts; one dump in detail, and re-run under the current settings."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from compressor.errors import CompressorError
from dashboard import charts, roots, tables
from dashboard.components import (
    compaction_run,
    flag_summary_secrets,
    folder_browser,
    message_picker,
    plain,
    show_result,
    stats,
    summary_checklist,
    table,
)
from dashboard.i18n import chart_labels, dump_stats, option_labels, segment_names
from dashboard.settings import with_changes
from dashboard.sources import dump_conversation
from dashboard.state import dumps, keys, live, session
from dashboard.state.session import t

PAGE_SIZE = 50
#: Broken files listed by name; the rest are counted.
BROKEN_SHOWN = 200

language = session.language()
settings = session.settings()
labels = chart_labels(language)
st.title(t("dumps.title"))
st.caption(t("dumps.intro"))

# -- where the dumps come from --------------------------------------------------------------------
source = st.radio(
    t("dumps.source"),
    ("folder", "upload"),
    format_func=option_labels("dumps.source.", language),
    key=keys.W_DUMP_SOURCE,
    persist_state=keys.PERSIST,
    horizontal=True,
)
folder: Path | None = None
if source == "folder":
    configured = roots.configured_roots()
    chosen = dumps.review_folder(configured)
    if chosen is None:
        st.info(t("browse.no_roots", env=roots.ROOTS_ENV))
    else:
        folder = chosen.path
        if chosen.error:
            st.error(plain(chosen.error))
        st.text(t("dumps.folder", path=chosen.label))
        with st.expander(t("dumps.choose_folder")):
            choice = folder_browser("dumps", configured, suffixes=(".json", ".jsonl"))
            if choice is not None:
                entry = choice.entry
                target = entry.relative if entry is not None and entry.is_dir else choice.folder
                st.button(
                    plain(t("dumps.use_folder", path=roots.root_label(choice.root) + target)),
                    key=keys.page_widget("dumps", "use_folder"),
                    on_click=dumps.set_dump_folder,
                    args=(choice.root_index, target),
                )
else:
    uploads = st.file_uploader(
        t("dumps.upload"),
        type=["json", "jsonl", "zip"],
        accept_multiple_files=True,
        key=keys.W_DUMP_UPLOAD,
        help=t("dumps.upload_help"),
    )
    folder, problems = dumps.receive_dump_uploads(uploads or [])
    for problem in problems:
        st.error(plain(problem))

if folder is None or not folder.is_dir():
    st.info(t("dumps.no_folder"))
    st.stop()

index = dumps.dump_index(folder)
if index.broken:
    with st.expander(t("dumps.broken", count=len(index.broken))):
        st.text(
            "\n".join(
                f"{item.get('path', '')}: {item.get('error', '')}" for item in index.broken[:BROKEN_SHOWN]
            )
        )
        if len(index.broken) > BROKEN_SHOWN:
            st.caption(t("dumps.broken_more", count=len(index.broken) - BROKEN_SHOWN))

frame = tables.dump_frame(index.dumps)
if frame.empty:
    st.info(t("dumps.empty"))
    st.code(
        "compaction-lab compact dashboard/samples/demo-conversation.json --context-max 16000 --dump-dir dumps/mine",
        language="bash",
    )
    st.stop()

# -- filters, table and charts --------------------------------------------------------------------
left, middle, right, far = st.columns([3, 2, 2, 1])
sessions = left.multiselect(
    t("dumps.sessions"),
    sorted(frame["session"].unique().tolist()),
    key=keys.page_widget("dumps", "sessions"),
    persist_state=keys.PERSIST,
)
min_ratio = middle.slider(
    t("dumps.min_ratio"),
    0.0,
    1.0,
    0.0,
    0.05,
    key=keys.page_widget("dumps", "min_ratio"),
    persist_state=keys.PERSIST,
)
text = right.text_input(
    t("dumps.search"), key=keys.page_widget("dumps", "search"), persist_state=keys.PERSIST
)
retried_only = far.checkbox(
    t("dumps.retried"), key=keys.page_widget("dumps", "retried"), persist_state=keys.PERSIST
)
shown = tables.filter_dumps(
    frame, sessions=sessions, min_ratio=min_ratio, text=text, retried_only=retried_only
)
st.caption(t("dumps.count", shown=len(shown), total=len(frame)))
if shown.empty:
    st.info(t("dumps.filtered_out"))
    st.stop()

ratio_tab, scatter_tab, time_tab = st.tabs(
    [t("dumps.chart.ratio"), t("dumps.chart.before_after"), t("dumps.chart.time")]
)
ratio_tab.plotly_chart(charts.reduction_histogram(shown, labels=labels), key="dumps_ratio")
scatter_tab.plotly_chart(charts.before_vs_after(shown, labels=labels), key="dumps_scatter")
time_tab.plotly_chart(charts.over_time(shown, labels=labels), key="dumps_time")

pages = tables.page_count(len(shown), PAGE_SIZE)
page = st.number_input(
    t("dumps.page", pages=pages),
    min_value=1,
    max_value=pages,
    value=1,
    step=1,
    key=keys.page_widget("dumps", "page"),
)
table(
    tables.page_of(shown, int(page), PAGE_SIZE).drop(columns=["path"]),
    hide_index=True,
    column_config={"reduction_ratio": st.column_config.NumberColumn(format="percent")},
)

# -- one dump -------------------------------------------------------------------------------------
st.subheader(t("dumps.detail"))
files = dict(zip(shown["path"], shown["file"], strict=True))
path = st.selectbox(t("dumps.pick"), list(files), format_func=lambda p: files.get(p, p), key=keys.W_DUMP_PICK)
if path is None:
    st.stop()
try:
    record = dumps.dump_record(path)
except (CompressorError, OSError) as error:
    st.error(plain(str(error)))
    st.stop()

stats(dump_stats(record, language))
backend = record.backend or t("dumps.openjiuwen_dump")
st.caption(plain(t("dumps.record", session=record.session_id, context=record.context_id, backend=backend)))

names = ["messages", "span", "prompt", "reply", "summary", "debug", "rerun"]
tabs = st.tabs([t(f"dumps.tab.{name}") for name in names])
with tabs[0]:
    for column, side, messages in zip(
        st.columns(2), ("before", "after"), (record.before, record.after), strict=True
    ):
        with column:
            st.caption(t(f"dumps.{side}", count=len(messages)))
            table(tables.messages_table(messages, settings.counter), hide_index=True)
            message_picker(messages, keys.page_widget("dumps", f"{side}_message"), t(f"dumps.{side}_message"))
with tabs[1]:
    span_frame = tables.dump_span_frame(record, dumps.dump_span(path, settings.counter))
    st.caption(t("dumps.span_note", counter=t(f"counter.{settings.counter}")))
    st.plotly_chart(charts.span_bars(span_frame, labels=labels), key="dumps_span")
    table(tables.message_table(span_frame, segment_names(language)), hide_index=True)
with tabs[2]:
    st.code(record.prompt, language=None, wrap_lines=True)
with tabs[3]:
    st.code(record.raw_content, language=None, wrap_lines=True)
with tabs[4]:
    flag_summary_secrets(record.extracted_summary)
    summary_checklist(record.extracted_summary)
    st.code(record.extracted_summary, language=None, wrap_lines=True)
    if record.reinjection_message is not None:
        with st.expander(t("dumps.reinjection")):
            st.code(record.reinjection_message.text, language=None, wrap_lines=True)
with tabs[5]:
    if record.debug_records:
        table(tables.debug_table(record.debug_records), hide_index=True)
        st.json(list(record.debug_records), expanded=False)
    else:
        st.caption(t("dumps.no_debug"))
with tabs[6]:
    st.caption(t("dumps.rerun_intro"))
    if settings.explicit_context_max != record.context_max:
        st.button(
            t("dumps.use_context_max", context_max=record.context_max),
            key=keys.page_widget("dumps", "use_cmax"),
            on_click=session.apply_settings,
            args=(with_changes(settings, capacity_mode="number", context_max=record.context_max),),
        )
    backend_choice = st.radio(
        t("dumps.rerun_backend"),
        ("replay", "live"),
        format_func=option_labels("dumps.rerun_backend.", language),
        key=keys.W_RERUN_BACKEND,
        persist_state=keys.PERSIST,
        horizontal=True,
    )
    force = st.toggle(
        t("compact.force"), key=keys.W_RERUN_FORCE, persist_state=keys.PERSIST, help=t("compact.force_help")
    )
    signature = (path, settings.compaction_key, backend_choice, bool(force))
    if st.button(t("dumps.rerun"), type="primary", key=keys.page_widget("dumps", "rerun")):
        result = compaction_run(
            dump_conversation(record),
            settings,
            lambda: live.rerun_backend(backend_choice, path),
            force=bool(force),
        )
        live.store_rerun_result(path, signature, result)
    stored = live.rerun_result(path)
    if stored is not None:
        if stored[0] != signature:
            st.warning(t("compact.stale"))
        st.caption(t("dumps.rerun_compare", before=record.tokens_before, after=record.tokens_after))
        show_result(stored[1], key="rerun")
