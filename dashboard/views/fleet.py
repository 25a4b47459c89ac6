"""Fleet: one setting for many runs. Choose a folder on the server (or upload a zip), build the catalog in the
background with a progress bar, then read the fleet's figures, its heatmap, the recommendation and the runs it
hurts, filter the runs table (read from the catalog) and open a run on Span & trigger or Tune."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from compressor.errors import CompressorError
from compressor.fleet import DEFAULT_KEEPS, DEFAULT_SHARE, ORDERS, RunFilter, facets, runs_table
from dashboard import roots
from dashboard.charts import fleet as render
from dashboard.components import error_line, table
from dashboard.i18n import counted
from dashboard.state import fleet as state
from dashboard.state import keys, session
from dashboard.state.session import t


def w(name: str) -> str:
    return keys.page_widget("fleet", name)


problem = state.pending_error()

st.title(t("fleet.title"))
st.caption(t("fleet.subtitle"))
if problem is not None:
    st.error(error_line(problem))

# -- where the runs are ------------------------------------------------------------------------------
sources = {"folder": t("fleet.source.folder"), "upload": t("fleet.source.upload")}
source = st.radio(
    t("fleet.source"),
    tuple(sources),
    format_func=sources.__getitem__,
    horizontal=True,
    key=w("source"),
    persist_state=keys.PERSIST,
)
configured = roots.configured_roots()
upload, root_index, relative = None, 0, ""
if source == "folder":
    left, right = st.columns([1, 2])
    root_index = left.selectbox(
        t("fleet.root"),
        range(len(configured)),
        # the bundled runs before dumps/, which holds dumps and no run
        index=next((i for i, root in enumerate(configured) if root == roots.SAMPLES_DIR), 0),
        format_func=lambda i: roots.root_label(configured[i]),
        key=w("root"),
    )
    relative = right.text_input(t("fleet.folder"), key=w("folder"), help=t("fleet.folder_help"))
else:
    upload = st.file_uploader(t("fleet.upload"), type=["zip"], key=w("upload"), help=t("fleet.upload_help"))
    if upload is not None:  # drawn once the server has the whole file: a build can start
        st.caption(t("fleet.upload_ready", name=upload.name, size=roots.size_text(upload.size)))

# -- what every run is swept with ----------------------------------------------------------------------
with st.expander(t("fleet.grid"), expanded=False):
    one, two, three = st.columns(3)
    low, high = one.slider(t("fleet.ratios"), 0.3, 0.95, (0.5, 0.95), step=0.05, key=w("ratios"))
    keeps = two.multiselect(
        t("fleet.keeps"), (0, 1, 2, 3, 4, 6, 8, 12, 16), default=DEFAULT_KEEPS, key=w("keeps")
    )
    summary = three.number_input(t("fleet.summary"), 0.01, 1.0, 0.1, step=0.01, key=w("summary"))
    one, two, three = st.columns(3)
    capacity = one.number_input(
        t("fleet.capacity"), 0, 10_000_000, 0, step=1000, key=w("capacity"), help=t("fleet.capacity_help")
    )
    headroom = two.slider(t("fleet.headroom"), 0.0, 0.5, 0.1, step=0.01, key=w("headroom"))
    share = three.slider(t("fleet.share"), 0.5, 1.0, DEFAULT_SHARE, step=0.01, key=w("share"))

grid = state.grid_of(low, high, keeps, summary, int(capacity), headroom, share, session.settings())
if st.button(t("fleet.build"), type="primary", key=w("build")):
    try:
        paths = state.build_paths(configured[root_index] if upload is None else None, relative, upload)
        state.start(paths, grid)
    except (ValueError, OSError, CompressorError) as error:
        st.error(error_line(str(error)))  # one line, no server path


@st.fragment(run_every=0.5)
def progress_panel() -> None:
    """Redrawn on its own every half second while the build runs; the rest of the page stays usable."""
    running = state.job()
    if running is not None and not running.running and state.finished_unseen(running):
        st.rerun(scope="app")
    if running is None or not running.running:
        return
    st.progress(
        running.progress.fraction if running.progress else 0.0, text=render.progress_text(t, running.progress)
    )
    st.button(t("fleet.cancel"), on_click=state.cancel, key=w("cancel"))


progress_panel()
job = state.job()
if job is None:
    st.info(t("fleet.start", build=t("fleet.build")))
if job is None or job.running:
    st.stop()
if job.error is not None:
    st.error(error_line(job.error))
    st.stop()
fleet = job.fleet
if fleet is None:
    st.stop()
counts = fleet.counts
if counts.cancelled:
    st.warning(t("fleet.cancelled", processed=counts.processed))
    st.stop()

# -- the fleet ---------------------------------------------------------------------------------------
cells = st.columns(5)
cells[0].metric(t("fleet.metric.runs"), f"{counts.runs:,}")
cells[1].metric(t("fleet.metric.files"), f"{counts.files:,}")
cells[2].metric(t("fleet.metric.processed"), f"{counts.processed:,}")
cells[3].metric(t("fleet.metric.reused"), f"{counts.reused:,}")
cells[4].metric(t("fleet.metric.broken"), f"{len(fleet.broken):,}")
if fleet.broken:
    with st.expander(t("fleet.broken", files=counted(len(fleet.broken), "file", session.language()))):
        st.dataframe(
            render.runs_frame(
                [b.to_dict() for b in fleet.broken],
                {"path": t("fleet.col.path"), "error": t("fleet.col.error")},
            ),
            hide_index=True,
            width="stretch",
        )
if counts.runs == 0:  # nothing to sweep: no empty heatmap or charts, just what to do next
    st.info(t("fleet.no_runs"))
    st.stop()

recommendation = fleet.recommendation
st.subheader(t("fleet.recommendation"))
if recommendation.setting is not None:
    ratio, keep, target = recommendation.setting
    st.success(t("fleet.pick", ratio=f"{ratio:g}", keep=keep, target=f"{target:g}"))
else:
    st.warning(t("fleet.no_pick"))
for sentence in render.recommendation_lines(recommendation, t):
    st.markdown(f"- {sentence}")
unit = t("fleet.unit.usd") if recommendation.unit == "usd" else t("fleet.unit.tokens")
st.caption(f"{unit} {render.retention_line(fleet.retention, t)}")
if recommendation.hurt:
    st.markdown(f"**{t('fleet.hurt')}**")
    for hurt in recommendation.hurt:
        st.markdown(f"- `{Path(hurt.key).name}` — {render.hurt_lines(hurt.reasons, recommendation.unit, t)}")

metrics = render.metric_labels(t)
metric = st.radio(
    t("fleet.heat_metric"), tuple(metrics), format_func=metrics.__getitem__, horizontal=True, key=w("heat")
)
labels = {
    "title": t("fleet.heat_title"),
    "hover": t("fleet.heat_hover"),
    "pick": t("fleet.recommendation"),
    **{f"metric.{m}": words for m, words in metrics.items()},
}
st.plotly_chart(render.fleet_heatmap(fleet, metric, labels=labels), width="stretch", key=w("heatmap"))
peaks, compactions = render.picked_values(fleet)
left, right = st.columns(2)
headers = render.column_labels(t)
left.plotly_chart(
    render.distribution(
        peaks,
        title=t("fleet.dist_peak"),
        axis=headers["peak_utilisation"],
        runs=t("fleet.runs_axis"),
        percent=True,
    ),
    width="stretch",
    key=w("peaks"),
)
right.plotly_chart(
    render.distribution(
        compactions,
        title=t("fleet.dist_compactions"),
        axis=headers["compactions"],
        runs=t("fleet.runs_axis"),
        colour="compaction",
    ),
    width="stretch",
    key=w("compactions"),
)
with st.expander(t("fleet.settings_table")):
    st.dataframe(render.settings_frame(fleet, headers), hide_index=True, width="stretch")

# -- the runs, read from the catalog -----------------------------------------------------------------
st.subheader(t("fleet.runs"))
found = facets(fleet)
one, two, three, four = st.columns(4)
agents = one.multiselect(headers["agent"], found["agents"], key=w("agents"))
models = two.multiselect(
    headers["model"], found["models"], key=w("models"), format_func=lambda m: m or t("fleet.no_model")
)
min_tokens = three.number_input(t("fleet.min_tokens"), 0, 100_000_000, 0, step=1000, key=w("min_tokens"))
min_compactions = four.number_input(t("fleet.min_compactions"), 0, 10_000, 0, key=w("min_compactions"))
one, two, three = st.columns(3)
min_kb = one.number_input(t("fleet.min_size"), 0, 10_000_000, 0, key=w("min_size"))
order = two.selectbox(t("fleet.order"), ORDERS, format_func=headers.__getitem__, key=w("order"))
descending = three.toggle(t("fleet.descending"), value=True, key=w("descending"))
rows, total = runs_table(
    state.catalog(),
    fleet,
    recommendation.setting,
    RunFilter(
        agents=tuple(agents),
        models=tuple(models),
        min_tokens=int(min_tokens),
        min_compactions=int(min_compactions),
        min_size=int(min_kb) * 1024,
        order=order,
        descending=descending,
    ),
)
st.caption(t("fleet.shown", shown=len(rows), total=total))
table(
    render.runs_frame(rows, {c: headers[c] for c in render.RUN_TABLE_COLUMNS}),
    hide_index=True,
    width="stretch",
    key=w("table"),
)

# -- one run, on another page --------------------------------------------------------------------------
if rows and recommendation.setting is not None:
    by_key = {row["key"]: row for row in rows}
    chosen = st.selectbox(
        t("fleet.open_run"),
        list(by_key),
        key=w("open"),
        format_func=lambda k: f"{by_key[k]['name'] or Path(k).name} · {Path(by_key[k]['path']).name}",
    )
    row = by_key[chosen]
    left, right = st.columns(2)
    for column, page, words in ((left, "span", t("fleet.open.span")), (right, "tune", t("fleet.open.tune"))):
        if column.button(words, key=w(f"open_{page}")):
            destination = state.open_run(
                row["path"], row["conversation"], page, recommendation.setting, row["context_max"]
            )
            if destination:
                st.switch_page(destination)
            st.rerun()  # the run could not be read: its line shows at the top
