"""Dump review: every compression dump (openJiuwen's or ours, with its debug log) below a folder of the server
or among uploaded files, grouped by folder, as a filterable, paged table and charts; one dump in detail, and
re-run with its own settings, then with the sidebar's."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from compressor.errors import CompressorError
from dashboard import charts, dump_cost_view, quality, roots, tables
from dashboard.browser import folder_browser
from dashboard.components import error_line, plain, table
from dashboard.dump_view import show_dump
from dashboard.follow import follow_folder
from dashboard.i18n import chart_labels, counted, option_labels
from dashboard.run_marker import run_marker
from dashboard.state import dumps, keys, session
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
            st.error(error_line(chosen.error))
        st.text(t("dumps.folder", path=chosen.label))
        with st.expander(t("dumps.choose_folder")):
            choice = folder_browser("dumps", configured, suffixes=(".json", ".jsonl"))
            if choice is not None:
                targets = [
                    choice.folder
                ]  # the folder on show (a root's top included), then a chosen sub-folder
                if choice.entry is not None and choice.entry.is_dir:
                    targets.append(choice.entry.relative)
                row = st.container(horizontal=True)
                for number, target in enumerate(targets):
                    row.button(
                        plain(t("dumps.use_folder", path=roots.root_label(choice.root) + target)),
                        key=keys.page_widget("dumps", f"use_folder_{number}"),
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
    folder, saved = dumps.receive_dump_uploads(uploads or [])
    for note in saved.notes:
        st.info(plain(note))
    for problem in saved.problems:
        st.error(error_line(problem))

if folder is None or not folder.is_dir():
    st.info(t("dumps.no_folder"))
    st.stop()
if source == "folder":
    follow_folder(folder, "dumps")

index = dumps.dump_index(folder)
if index.broken:
    with st.expander(t("dumps.broken", files=counted(len(index.broken), "file", language))):
        st.text(
            "\n".join(
                f"{tables.folder_of(item.get('path', ''), str(folder))}/"
                f"{Path(item.get('path', '')).name}: {item.get('error', '')}"
                for item in index.broken[:BROKEN_SHOWN]
            )
        )
        if len(index.broken) > BROKEN_SHOWN:
            st.caption(t("dumps.broken_more", count=len(index.broken) - BROKEN_SHOWN))

frame = tables.dump_frame(index.dumps, base=str(folder))
if frame.empty:
    st.info(t("dumps.empty"))
    st.code(
        "compaction-lab compact dashboard/samples/demo-conversation.json --context-max 16000 --dump-dir dumps/mine",
        language="bash",
    )
    st.stop()

# -- filters, table and charts --------------------------------------------------------------------
filters = st.container(horizontal=True, vertical_alignment="bottom")
folders = sorted(frame["folder"].unique().tolist())
chosen_folders = (
    filters.multiselect(
        t("dumps.folders"),
        folders,
        key=keys.page_widget("dumps", "folders"),
        persist_state=keys.PERSIST,
        width=260,
    )
    if len(folders) > 1
    else []
)
sessions = filters.multiselect(
    t("dumps.sessions"),
    sorted(frame["session"].unique().tolist()),
    key=keys.page_widget("dumps", "sessions"),
    persist_state=keys.PERSIST,
    width=260,
)
min_ratio = filters.slider(
    t("dumps.min_ratio"),
    0.0,
    1.0,
    0.0,
    0.05,
    key=keys.page_widget("dumps", "min_ratio"),
    persist_state=keys.PERSIST,
    width=220,
)
text = filters.text_input(
    t("dumps.search"), key=keys.page_widget("dumps", "search"), persist_state=keys.PERSIST, width=220
)
retried_only = filters.checkbox(
    t("dumps.retried"), key=keys.page_widget("dumps", "retried"), persist_state=keys.PERSIST
)
shown = tables.filter_dumps(
    frame,
    sessions=sessions,
    min_ratio=min_ratio,
    text=text,
    retried_only=retried_only,
    folders=chosen_folders,
)
st.caption(
    t(
        "dumps.count",
        shown=f"{len(shown):,}",
        total=counted(len(frame), "dump", language),
        folders=counted(len(folders), "folder", language),
    )
)
if shown.empty:
    st.info(t("dumps.filtered_out"))
    st.stop()

axis = tables.time_axis(shown)
ratio_tab, scatter_tab, time_tab = st.tabs(
    [t("dumps.chart.ratio"), t("dumps.chart.before_after"), t("dumps.chart.time")]
)
ratio_tab.plotly_chart(charts.reduction_histogram(shown, labels=labels), key="dumps_ratio")
scatter_tab.plotly_chart(charts.before_vs_after(shown, labels=labels), key="dumps_scatter")
if axis == "sequence":
    time_tab.caption(t("dumps.by_sequence"))
time_tab.plotly_chart(charts.over_time(shown, labels=labels, axis=axis), key="dumps_time")

price = dump_cost_view.price_section(settings)  # Tune's picker; then the total of the dumps shown
dump_cost_view.folder_total(shown["path"].tolist(), price, settings.counter)

pages = tables.page_count(len(shown), PAGE_SIZE)
page = st.number_input(
    t("dumps.page", pages=pages),
    min_value=1,
    max_value=pages,
    value=1,
    step=1,
    key=keys.page_widget("dumps", "page"),
    width=200,
)
on_page = tables.page_of(shown, int(page), PAGE_SIZE)
costs = dump_cost_view.costs_of(on_page["path"], price, settings.counter)  # each listed dump's call, priced
unit = dump_cost_view.unit_of(price)
table(
    dump_cost_view.with_costs(
        tables.dump_table(on_page, here=t("dumps.this_folder")), on_page["path"], costs
    ),
    hide_index=True,
    labels=dump_cost_view.cost_headers(unit),
    column_config={
        "reduction_ratio": st.column_config.NumberColumn(format=tables.SHARE_FORMAT),
        "took": st.column_config.NumberColumn(format="%.2f"),
        "folder": st.column_config.TextColumn(width="medium"),
        **dump_cost_view.cost_config(unit),
    },
)
quality.folder_kept(on_page["path"].tolist(), on_page["file"].tolist())  # what the dumps listed forgot


# -- one dump -------------------------------------------------------------------------------------
@st.fragment
def one_dump() -> None:
    """One dump in detail; picking another reruns only this part."""
    run_marker()  # a fragment's rerun skips the entry script's marker
    st.subheader(t("dumps.detail"))
    files = {
        path: name if where == "." else f"{where}/{name}"
        for path, name, where in zip(shown["path"], shown["file"], shown["folder"], strict=True)
    }
    newest = int(shown["sequence"].to_numpy().argmax())  # the latest dump is shown first, whatever its folder
    path = st.selectbox(
        t("dumps.pick"),
        list(files),
        index=newest,
        format_func=lambda p: files.get(p, p),
        key=keys.W_DUMP_PICK,
    )
    if path is None:
        return
    try:
        record = dumps.dump_record(path)
    except (CompressorError, OSError) as error:
        st.error(error_line(str(error)))
        return
    quality.dump_kept(path, record.before, keys.page_widget("dumps", "kept_jump"))
    show_dump(path, record, settings, base=reviewed, price=price)


reviewed: Path = folder  # known from here on, in the function above too
one_dump()
