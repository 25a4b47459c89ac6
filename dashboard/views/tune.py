"""Tune: the whole run replayed under the sidebar settings, a sweep of trigger ratio × keep, and the
recommended setting taken into the sidebar in one click. Every number comes from compressor's replay."""

from __future__ import annotations

import streamlit as st

from compressor.quality import score_replay
from compressor.replay import Recommendation, assess_sweep, recommend
from compressor.window_parts import run_peaks
from dashboard import charts, loading, price_picker, report, tables, tune_view
from dashboard.components import plain, stats, stop_when_empty, table
from dashboard.follow import follow_panel
from dashboard.i18n import (
    capacity_text,
    chart_labels,
    compaction_headers,
    counted,
    outcome_stats,
    outcome_words,
    recommendation_sentences,
    recommendation_verdict,
)
from dashboard.run_marker import run_marker
from dashboard.settings import TRIGGER_MAX, TRIGGER_MIN, with_outcome
from dashboard.sources import LoadedConversation, safe_file_name
from dashboard.state import conversations, keys, replays, session
from dashboard.state.session import t

language = session.language()
settings = session.settings()
found = conversations.current()

st.title(t("tune.title"))
if found is None:
    stop_when_empty("tune.empty")
item: LoadedConversation = found  # known from here on, in the functions below too
replays.init_tune()
conversation = item.conversation
labels = chart_labels(language)
st.caption(
    plain(
        t("tune.subtitle", name=item.label, messages=counted(len(conversation.messages), "message", language))
    )
)
follow_panel(item, "tune")

# -- the summary model ----------------------------------------------------------------------------
tune_view.summary_model(item, settings)

# -- this setting over the run --------------------------------------------------------------------
with st.spinner(t("tune.replaying")):
    simulation = replays.replay(item, settings)
outcome = simulation.outcome
st.subheader(t("tune.run"))
st.caption(
    t(
        "tune.run_caption",
        steps=counted(outcome.steps, "call", language),
        summary=simulation.summary,
        capacity=capacity_text(simulation.capacity, language),
    )
)
if outcome.steps == 0:
    st.info(t("tune.no_steps"))
    st.stop()

peaks = run_peaks(simulation.steps, capacity=simulation.context_max, threshold=outcome.threshold)
stats(outcome_stats(outcome, peaks, language))
if simulation.hidden_overhead:
    st.caption(t("tune.hidden_overhead", tokens=simulation.hidden_overhead))
if outcome.steps_over_capacity:
    st.warning(t("tune.over_capacity", over=outcome.steps_over_capacity, steps=outcome.steps))
if not simulation.model_configured:
    st.caption(t("tune.no_model"))

words = outcome_words(language)
st.plotly_chart(charts.context_figure(simulation, labels=labels, outcome_text=words), key="tune_context")
if simulation.events:
    frame = tables.compactions_frame(simulation.events, words)
    table(frame, hide_index=True, labels=compaction_headers(language))
else:
    st.caption(t("tune.no_events"))

# -- what it costs: the price, the run's bill and each compaction's line (cache writes, payback) -------------
st.subheader(t("tune.bill"))
price = price_picker.price_choice(conversation, settings)
tune_view.run_bill(simulation, price)

# -- the sweep ------------------------------------------------------------------------------------
st.subheader(t("tune.sweep"))
left, middle, right = st.columns([3, 1, 3])
left.slider(
    t("tune.grid.ratios"),
    min_value=TRIGGER_MIN,
    max_value=TRIGGER_MAX,
    step=0.01,
    key=keys.W_SWEEP_RATIOS,
    persist_state=keys.PERSIST,
)
middle.selectbox(t("tune.grid.step"), replays.SWEEP_STEPS, key=keys.W_SWEEP_STEP, persist_state=keys.PERSIST)
right.multiselect(
    t("tune.grid.keeps"),
    replays.KEEP_CHOICES,
    key=keys.W_SWEEP_KEEPS,
    persist_state=keys.PERSIST,
    help=t("tune.grid.keeps_help"),
)
ratios, keeps = replays.sweep_grid(settings)
sweep_summary = replays.replay_summary()
st.caption(
    t(
        "tune.grid.size",
        settings=counted(len(ratios) * len(keeps), "setting", language),
        ratios=len(ratios),
        keeps=len(keeps),
        min_target=f"{settings.min_target_context_ratio:g}",
        summary=sweep_summary,
    )
)
if sweep_summary == "offline":
    st.caption(t("tune.offline_sweep"))
with st.spinner(t("tune.sweeping", settings=counted(len(ratios) * len(keeps), "setting", language))):
    swept = replays.sweep_for(item, settings, sweep_summary, ratios, keeps)

tabs = st.tabs([labels[f"heat.{metric}"] for metric in (*charts.HEATMAPS, "cost")])
for tab, metric in zip(tabs, charts.HEATMAPS, strict=False):
    tab.plotly_chart(charts.heatmap_figure(swept, metric, labels=labels), key=f"tune_heat_{metric}")
bills = assess_sweep(
    swept, price.price
)  # every setting's bill at the chosen price (the recommendation's own)
unit = "usd" if price.price is not None else "tokens"
tabs[-1].plotly_chart(
    charts.cost_heatmap(swept, bills, labels=labels, amount=lambda v: price_picker.amount(v, unit)),
    key="tune_heat_cost",
)

# -- the recommendation and the downloads: a headroom move reruns only this part ----------------------


@st.fragment
def recommendation_and_downloads() -> None:
    run_marker()  # a fragment's rerun skips the entry script's marker
    st.subheader(t("tune.recommendation"))
    headroom = st.slider(
        t("tune.headroom"),
        min_value=0.0,
        max_value=0.5,
        step=0.01,
        key=keys.W_HEADROOM,
        persist_state=keys.PERSIST,
        help=t("tune.headroom_help"),
    )
    current = (
        settings.trigger_context_ratio,
        settings.keep_recent_messages,
        settings.min_target_context_ratio,
    )
    recommendation = recommend(swept, headroom=float(headroom), price=price.price, current=current)
    chosen = recommendation.setting
    st.plotly_chart(charts.tradeoff_figure(swept, chosen, labels=labels), key="tune_tradeoff")
    blocker = loading.compaction_blocker(item)
    if blocker is not None:  # no ratio can help: say why in one sentence instead of advising one
        st.warning(loading.blocker_sentence(blocker))
    else:
        (st.warning if chosen is None else st.success)(recommendation_verdict(recommendation, language))
        sentences = recommendation_sentences(recommendation, language)
        st.markdown("\n".join(f"- {plain(sentence)}" for sentence in sentences))
    if chosen is not None:
        target = with_outcome(settings, chosen)
        applied = target == settings
        if st.button(
            t("tune.apply"), type="primary", disabled=applied, key=keys.page_widget("tune", "apply")
        ):
            session.queue_settings(target)
            st.rerun()  # the whole app: the sidebar shows the setting now
        if applied:
            st.caption(t("tune.applied"))
    downloads(recommendation)


# -- downloads ------------------------------------------------------------------------------------
# Both files are made only when clicked (Streamlit runs the function then): the report inlines plotly.js.
stem = safe_file_name(conversation.name or item.label).rsplit(".", 1)[0] or "run"
title = t("tune.report_title", name=item.label)


def sweep_csv() -> str:
    return tables.sweep_frame(swept).to_csv(index=False)


def downloads(recommendation: Recommendation) -> None:
    """The sweep as CSV and the report as HTML, each made only when its button is clicked."""

    def report_html() -> str:
        kept = score_replay(conversation, simulation)  # what each compaction kept; scored only when clicked
        return report.build_report(
            simulation, swept, recommendation, title=title, language=language, kept=kept
        )

    st.subheader(t("tune.downloads"))
    row = st.container(horizontal=True)
    row.download_button(
        t("tune.download_csv"),
        data=sweep_csv,
        file_name=f"{stem}-sweep.csv",
        mime="text/csv",
        on_click="ignore",
        key=keys.page_widget("tune", "download_csv"),
    )
    row.download_button(
        t("tune.download_report"),
        data=report_html,
        file_name=f"{stem}-report.html",
        mime="text/html",
        on_click="ignore",
        key=keys.page_widget("tune", "download_report"),
    )


recommendation_and_downloads()
