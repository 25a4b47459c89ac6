"""Tune: the whole run replayed under the sidebar settings, a sweep of trigger ratio × keep, and the
recommended setting taken into the sidebar in one click. Every number comes from compressor's replay."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from compressor.errors import CompressorError
from compressor.replay import CompactionEvent, recommend
from dashboard import charts, report, state, tables
from dashboard.components import plain, stop_when_empty, table
from dashboard.i18n import capacity_text, chart_labels, reason_text, recommendation_reasons, t
from dashboard.i18n import trace_names as i18n_trace_names
from dashboard.settings import TRIGGER_MAX, TRIGGER_MIN, with_changes
from dashboard.sources import safe_file_name

settings = state.settings()
item = state.current()

st.title(t("tune.title"))
if item is None:
    stop_when_empty("tune.empty")
state.init_tune()
conversation = item.conversation


# Labels fixed at this run's language: Streamlit may call format_func later, outside the script run.
SUMMARY_LABELS = {
    "ratio": t("tune.summary.ratio"),
    "fixed": t("tune.summary.fixed"),
    "offline": t("tune.summary.offline"),
    "live": t("tune.summary.live"),
}


def outcome_text(event: CompactionEvent) -> str:
    """A compaction attempt's outcome in words: compacted, or skipped and why."""
    if event.status == "compacted":
        return t("status.compacted")
    reason = event.reason
    if reason == "no_benefit":
        return t("status.no_benefit")
    return f"{t('status.skipped')}: {reason_text(reason)}"


st.caption(plain(t("tune.subtitle", name=item.label, messages=len(conversation.messages))))

# -- the summary model ----------------------------------------------------------------------------
st.subheader(t("tune.summary"))
kind = st.radio(
    t("tune.summary_kind"),
    state.SUMMARY_KINDS,
    format_func=lambda kind: SUMMARY_LABELS.get(kind, kind),
    key=state.W_SUMMARY_KIND,
    persist_state=state.PERSIST,
    horizontal=True,
    help=t("tune.summary_help"),
)
if kind == "fixed":
    st.number_input(
        t("tune.summary_tokens"),
        min_value=1,
        max_value=1_000_000,
        step=100,
        key=state.W_SUMMARY_TOKENS,
        persist_state=state.PERSIST,
        width=280,
    )
elif kind == "ratio":
    st.number_input(
        t("tune.summary_ratio"),
        min_value=0.01,
        max_value=1.0,
        step=0.01,
        format="%.2f",
        key=state.W_SUMMARY_RATIO,
        persist_state=state.PERSIST,
        width=280,
    )
elif kind == "offline":
    st.caption(t("tune.offline_note"))

live_run = None
if kind == "live":
    estimate = state.live_estimate(item, settings)
    st.info(
        t(
            "tune.live_estimate",
            calls=estimate.calls,
            tokens=estimate.request_tokens,
            largest=estimate.largest_request_tokens,
            ratio=f"{estimate.summary_ratio:.0%}",
        )
    )
    backend_label: str | None
    try:
        backend_label = state.live_backend().label
    except ValueError as error:  # ConfigError: the Live page's endpoint is missing a field
        backend_label = None
        st.warning(plain(t("tune.live_unconfigured", problem=str(error))))
    if backend_label is not None:
        st.caption(plain(t("tune.live_backend", backend=backend_label)))
    confirmed = st.checkbox(
        t("tune.live_confirm", calls=estimate.calls, tokens=estimate.request_tokens),
        key=state.live_confirm_key(estimate),
    )
    if st.button(
        t("tune.live_run"),
        type="primary",
        disabled=not confirmed or backend_label is None or estimate.calls == 0,
        key=state.page_widget("tune", "live_run"),
    ):
        with st.spinner(t("tune.live_running", calls=estimate.calls)):
            try:
                state.run_live_replay(item, settings)
            except (CompressorError, ValueError) as error:
                st.error(plain(str(error)))
    live_run = state.live_replay(item, settings)
    if live_run is None:
        st.caption(t("tune.live_pending", summary=state.STAND_IN_SUMMARY))

# -- this setting over the run --------------------------------------------------------------------
with st.spinner(t("tune.replaying")):
    simulation = state.replay(item, settings)
outcome = simulation.outcome
st.subheader(t("tune.run"))
st.caption(
    t(
        "tune.run_caption",
        steps=outcome.steps,
        summary=simulation.summary,
        capacity=capacity_text(simulation.capacity),
    )
)
if outcome.steps == 0:
    st.info(t("tune.no_steps"))
    st.stop()

top = st.columns(3)
top[0].metric(
    t("tune.metric.first_trigger"),
    t("tune.never") if outcome.first_trigger_index is None else f"#{outcome.first_trigger_index}",
    help=t("tune.metric.first_trigger_help", threshold=outcome.threshold),
)
top[1].metric(
    t("tune.metric.compactions"),
    f"{outcome.compactions:,}",
    help=t("tune.metric.compactions_help", refused=outcome.refused),
)
top[2].metric(
    t("tune.metric.peak"),
    f"{outcome.peak_utilisation:.1%}",
    help=t("tune.metric.peak_help", peak=outcome.peak_tokens, context_max=outcome.context_max),
)
bottom = st.columns(3)
bottom[0].metric(
    t("tune.metric.compaction_input"),
    f"{outcome.compaction_input_tokens:,}",
    help=t("tune.metric.compaction_input_help", calls=outcome.compaction_calls),
)
bottom[1].metric(
    t("tune.metric.agent_input"),
    f"{outcome.agent_input_tokens:,}",
    delta=f"{-outcome.agent_input_tokens_saved:,}" if outcome.agent_input_tokens_saved else None,
    delta_color="inverse",
    help=t("tune.metric.agent_input_help"),
)
bottom[2].metric(t("tune.metric.agent_input_uncompacted"), f"{outcome.agent_input_tokens_uncompacted:,}")
if outcome.steps_over_capacity:
    st.warning(t("tune.over_capacity", over=outcome.steps_over_capacity, steps=outcome.steps))
if not simulation.model_configured:
    st.caption(t("tune.no_model"))

trace_names = i18n_trace_names()
st.plotly_chart(
    charts.relabel(
        report.context_figure(simulation),
        names=trace_names,
        title=t("tune.chart.context"),
        xaxis_title=t("tune.chart.context_x"),
        yaxis_title=chart_labels()["tokens"],
    ),
    key="tune_context",
)
if simulation.events:
    table(
        tables.compactions_frame(simulation.events, outcome_text),
        hide_index=True,
        column_config={
            "message": st.column_config.NumberColumn(t("tune.col.message")),
            "outcome": st.column_config.TextColumn(t("tune.col.outcome")),
            "span": st.column_config.TextColumn(t("metric.span_counts")),
            "compress": st.column_config.NumberColumn(t("tune.col.compress")),
            "before": st.column_config.NumberColumn(t("metric.tokens_before")),
            "after": st.column_config.NumberColumn(t("metric.tokens_after")),
            "memory": st.column_config.NumberColumn(t("chart.memory")),
            "reinjection": st.column_config.NumberColumn(t("chart.reinjection")),
            "request": st.column_config.NumberColumn(t("metric.request_tokens")),
            "calls": st.column_config.NumberColumn(t("metric.calls")),
            "files": st.column_config.TextColumn(t("tune.col.files")),
        },
    )
else:
    st.caption(t("tune.no_events"))

# -- the sweep ------------------------------------------------------------------------------------
st.subheader(t("tune.sweep"))
left, middle, right = st.columns([3, 1, 3])
left.slider(
    t("tune.grid.ratios"),
    min_value=TRIGGER_MIN,
    max_value=TRIGGER_MAX,
    step=0.01,
    key=state.W_SWEEP_RATIOS,
    persist_state=state.PERSIST,
)
middle.selectbox(t("tune.grid.step"), state.SWEEP_STEPS, key=state.W_SWEEP_STEP, persist_state=state.PERSIST)
right.multiselect(
    t("tune.grid.keeps"),
    state.KEEP_CHOICES,
    key=state.W_SWEEP_KEEPS,
    persist_state=state.PERSIST,
    help=t("tune.grid.keeps_help"),
)
ratios, keeps = state.sweep_grid(settings)
sweep_summary = state.replay_summary()
st.caption(
    t(
        "tune.grid.size",
        settings=len(ratios) * len(keeps),
        ratios=len(ratios),
        keeps=len(keeps),
        min_target=f"{settings.min_target_context_ratio:g}",
        summary=sweep_summary,
    )
)
if sweep_summary == "offline":
    st.caption(t("tune.offline_sweep"))
with st.spinner(t("tune.sweeping", settings=len(ratios) * len(keeps))):
    swept = state.sweep_for(item, settings, sweep_summary, ratios, keeps)

heat_titles = {
    "compactions": t("tune.heat.compactions"),
    "compaction_input_tokens": t("tune.heat.cost"),
    "peak_utilisation": t("tune.heat.peak"),
}
tabs = st.tabs([heat_titles[metric] for metric, _, _ in report.HEATMAPS])
for tab, (metric, _, scale) in zip(tabs, report.HEATMAPS, strict=True):
    tab.plotly_chart(
        report.heatmap_figure(swept, metric, title=heat_titles[metric], colorscale=scale),
        key=f"tune_heat_{metric}",
    )

# -- the recommendation ---------------------------------------------------------------------------
st.subheader(t("tune.recommendation"))
headroom = st.slider(
    t("tune.headroom"),
    min_value=0.0,
    max_value=0.5,
    step=0.01,
    key=state.W_HEADROOM,
    persist_state=state.PERSIST,
    help=t("tune.headroom_help"),
)
recommendation = recommend(swept, headroom=float(headroom))
chosen = recommendation.setting
st.plotly_chart(
    charts.relabel(
        report.tradeoff_figure(swept, chosen),
        names=trace_names,
        title=t("tune.chart.tradeoff"),
        xaxis_title=t("tune.chart.tradeoff_x"),
        yaxis_title=t("tune.chart.tradeoff_y"),
    ),
    key="tune_tradeoff",
)
if chosen is None:
    st.warning(t("tune.recommend.none", headroom=f"{recommendation.headroom:.0%}"))
else:
    st.success(
        t(
            "tune.recommend.use",
            ratio=f"{chosen.trigger_context_ratio:g}",
            keep=chosen.keep_recent_messages,
            min_target=f"{chosen.min_target_context_ratio:g}",
        )
    )
st.markdown("\n".join(f"- {plain(sentence)}" for sentence in recommendation_reasons(recommendation)))
if chosen is not None:
    target = with_changes(
        settings,
        trigger_context_ratio=chosen.trigger_context_ratio,
        keep_recent_messages=chosen.keep_recent_messages,
        min_target_context_ratio=chosen.min_target_context_ratio,
    )
    applied = target == settings
    st.button(
        t("tune.apply"),
        type="primary",
        on_click=state.apply_settings,
        args=(target,),
        disabled=applied,
        key=state.page_widget("tune", "apply"),
    )
    if applied:
        st.caption(t("tune.applied"))

# -- downloads ------------------------------------------------------------------------------------
# Both files are made only when clicked (Streamlit runs the function then): the report inlines plotly.js.
st.subheader(t("tune.downloads"))
stem = safe_file_name(conversation.name or item.label).rsplit(".", 1)[0] or "run"
title = t("tune.report_title", name=item.label)


def sweep_csv() -> str:
    return pd.DataFrame([o.to_dict() for o in swept.outcomes]).to_csv(index=False)


def report_html() -> str:
    return report.build_report(simulation, swept, recommendation, title=title)


left, right = st.columns(2)
left.download_button(
    t("tune.download_csv"),
    data=sweep_csv,
    file_name=f"{stem}-sweep.csv",
    mime="text/csv",
    on_click="ignore",
    key=state.page_widget("tune", "download_csv"),
)
right.download_button(
    t("tune.download_report"),
    data=report_html,
    file_name=f"{stem}-report.html",
    mime="text/html",
    on_click="ignore",
    key=state.page_widget("tune", "download_report"),
)
