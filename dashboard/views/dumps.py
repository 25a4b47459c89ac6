"""Dump review: a folder of compression dumps (openJiuwen's or ours, with the debug log) or uploaded
dumps, as a filterable, paged table and charts; one dump in detail, and re-run under the current settings."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from compressor.errors import CompressorError
from dashboard import charts, roots, state, tables
from dashboard.components import flag_summary_secrets, folder_browser, message_picker, plain, table
from dashboard.i18n import chart_labels, option_labels, segment_names, t
from dashboard.results import compaction_available, run_compaction, show_result
from dashboard.settings import with_changes
from dashboard.sources import save_uploaded_dumps

PAGE_SIZE = 50

st.title(t("dumps.title"))
st.caption(t("dumps.intro"))

# -- where the dumps come from --------------------------------------------------------------------
source = st.radio(
    t("dumps.source"),
    ("folder", "upload"),
    format_func=option_labels("dumps.source."),
    key=state.W_DUMP_SOURCE,
    persist_state=state.PERSIST,
    horizontal=True,
)
configured = roots.configured_roots()
folder: Path | None = None
if source == "folder":
    chosen = state.dump_folder() or state.default_dump_folder(configured)
    if configured:
        root_index = min(chosen[0], len(configured) - 1)
        root = configured[root_index]
        try:
            folder = roots.confine(root, chosen[1])
        except roots.OutsideRootError as error:
            st.error(plain(str(error)))
        st.text(t("dumps.folder", path=roots.root_label(root) + chosen[1]))
        with st.expander(t("dumps.choose_folder")):
            choice = folder_browser("dumps", configured, suffixes=(".json", ".jsonl"))
            if choice is not None:
                target = (
                    choice.entry.relative
                    if choice.entry is not None and choice.entry.is_dir
                    else choice.folder
                )
                label = plain(t("dumps.use_folder", path=roots.root_label(choice.root) + target))
                st.button(
                    label,
                    key=state.page_widget("dumps", "use_folder"),
                    on_click=state.set_dump_folder,
                    args=(choice.root_index, target),
                )
    else:
        st.info(t("browse.no_roots", env=roots.ROOTS_ENV))
else:
    uploads = st.file_uploader(
        t("dumps.upload"),
        type=["json", "jsonl", "zip"],
        accept_multiple_files=True,
        key=state.W_DUMP_UPLOAD,
        help=t("dumps.upload_help"),
    )
    folder = state.dump_upload_dir()
    fresh = state.new_dump_uploads(uploads or [])
    for problem in save_uploaded_dumps(folder, [(f.name, f.getvalue()) for f in fresh]):
        st.error(plain(problem))

if folder is None or not folder.is_dir():
    st.info(t("dumps.no_folder"))
    st.stop()

index = state.dump_index(folder)
if index.broken:
    with st.expander(t("dumps.broken", count=len(index.broken))):
        for item in index.broken[:200]:
            st.text(f"{item.get('path', '')}: {item.get('error', '')}")
        if len(index.broken) > 200:
            st.caption(t("dumps.broken_more", count=len(index.broken) - 200))

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
    key=state.page_widget("dumps", "sessions"),
    persist_state=state.PERSIST,
)
min_ratio = middle.slider(
    t("dumps.min_ratio"),
    0.0,
    1.0,
    0.0,
    0.05,
    key=state.page_widget("dumps", "min_ratio"),
    persist_state=state.PERSIST,
)
text = right.text_input(
    t("dumps.search"), key=state.page_widget("dumps", "search"), persist_state=state.PERSIST
)
retried_only = far.checkbox(
    t("dumps.retried"), key=state.page_widget("dumps", "retried"), persist_state=state.PERSIST
)
shown = tables.filter_dumps(
    frame, sessions=sessions, min_ratio=min_ratio, text=text, retried_only=retried_only
)
st.caption(t("dumps.count", shown=len(shown), total=len(frame)))
if shown.empty:
    st.info(t("dumps.filtered_out"))
    st.stop()

labels = chart_labels()
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
    key=state.page_widget("dumps", "page"),
)
table(
    tables.page_of(shown, int(page), PAGE_SIZE).drop(columns=["path"]),
    hide_index=True,
    column_config={"reduction_ratio": st.column_config.NumberColumn(format="percent")},
)

# -- one dump -------------------------------------------------------------------------------------
st.subheader(t("dumps.detail"))
paths = shown["path"].tolist()
files = dict(zip(shown["path"], shown["file"], strict=True))
path = st.selectbox(t("dumps.pick"), paths, format_func=lambda p: files.get(p, p), key=state.W_DUMP_PICK)
if path is None:
    st.stop()
try:
    record = state.dump_record(path)
except (CompressorError, OSError) as error:
    st.error(plain(str(error)))
    st.stop()

columns = st.columns(5)
columns[0].metric(t("metric.tokens_before"), f"{record.tokens_before:,}")
columns[1].metric(t("metric.tokens_after"), f"{record.tokens_after:,}")
columns[2].metric(t("metric.saved"), f"{record.reduction_ratio:.1%}")
columns[3].metric(t("metric.context_max"), f"{record.context_max:,}")
columns[4].metric(
    t("metric.span_counts"), f"{record.prefix_count} / {record.compress_count} / {record.tail_count}"
)
st.caption(
    plain(
        t(
            "dumps.record",
            session=record.session_id,
            context=record.context_id,
            backend=record.backend or t("dumps.openjiuwen_dump"),
        )
    )
)

names = ["messages", "span", "prompt", "reply", "summary", "debug", "rerun"]
tabs = st.tabs([t(f"dumps.tab.{name}") for name in names])
with tabs[0]:
    before_col, after_col = st.columns(2)
    with before_col:
        st.caption(t("dumps.before", count=len(record.before)))
        table(tables.messages_table(record.before, state.settings().counter), hide_index=True)
        message_picker(record.before, state.page_widget("dumps", "before_message"), t("dumps.before_message"))
    with after_col:
        st.caption(t("dumps.after", count=len(record.after)))
        table(tables.messages_table(record.after, state.settings().counter), hide_index=True)
        message_picker(record.after, state.page_widget("dumps", "after_message"), t("dumps.after_message"))
with tabs[1]:
    settings = state.settings()
    span_frame = tables.dump_span_frame(record, settings.counter)
    st.caption(t("dumps.span_note", counter=t(f"counter.{settings.counter}")))
    st.plotly_chart(charts.span_bars(span_frame, labels=labels), key="dumps_span")
    table(tables.message_table(span_frame, segment_names()), hide_index=True)
with tabs[2]:
    st.code(record.prompt, language=None, wrap_lines=True)
with tabs[3]:
    st.code(record.raw_content, language=None, wrap_lines=True)
with tabs[4]:
    from compressor.prompt import section_checklist

    flag_summary_secrets(record.extracted_summary)
    checklist = section_checklist(record.extracted_summary)
    st.caption(t("result.sections", present=sum(1 for _, ok in checklist if ok), total=len(checklist)))
    table(tables.checklist_table(checklist), hide_index=True)
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
    settings = state.settings()
    st.caption(t("dumps.rerun_intro"))
    if settings.explicit_context_max != record.context_max:
        st.button(
            t("dumps.use_context_max", context_max=record.context_max),
            key=state.page_widget("dumps", "use_cmax"),
            on_click=state.apply_settings,
            args=(with_changes(settings, capacity_mode="number", context_max=record.context_max),),
        )
    if not compaction_available():
        st.info(t("compact.unavailable"))
        st.stop()
    backend_choice = st.radio(
        t("dumps.rerun_backend"),
        ("replay", "live"),
        format_func=option_labels("dumps.rerun_backend."),
        key=state.W_RERUN_BACKEND,
        persist_state=state.PERSIST,
        horizontal=True,
    )
    force = st.toggle(
        t("compact.force"), key=state.W_RERUN_FORCE, persist_state=state.PERSIST, help=t("compact.force_help")
    )
    signature = (path, settings.compaction_key, backend_choice, bool(force))
    if st.button(t("dumps.rerun"), type="primary", key=state.page_widget("dumps", "rerun")):
        with st.status(t("compact.running"), expanded=False) as status:
            try:
                from compressor.backends import ReplayBackend

                backend = (
                    ReplayBackend.from_dump(path) if backend_choice == "replay" else state.live_backend()
                )
            except (ValueError, OSError) as error:
                status.update(label=t("compact.config_error"), state="error")
                st.error(plain(str(error)))
                st.stop()
            result = run_compaction(
                tables.dump_conversation(record),
                settings,
                backend,
                force=bool(force),
                preserve=None,
                dump_dir=None,
            )
            status.update(label=t(f"status.{result.status}"), state="complete")
        state.store_rerun_result(path, signature, result)
    stored = state.rerun_result(path)
    if stored is not None:
        stored_signature, result = stored
        if stored_signature != signature:
            st.warning(t("compact.stale"))
        st.caption(t("dumps.rerun_compare", before=record.tokens_before, after=record.tokens_after))
        show_result(result, key="rerun")
