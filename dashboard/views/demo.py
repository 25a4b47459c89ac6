"""Demo: the run played back one model call at a time for an audience — the context filling up, the
threshold being crossed, the round's work replaced by one memory block — and a report to take away."""

from __future__ import annotations

import streamlit as st

from compressor.breakdown import BeforeAfter
from compressor.replay import CompactionEvent, Simulation, Step, recommend, sweep
from dashboard import charts, report, state
from dashboard.components import plain, stop_when_empty
from dashboard.i18n import capacity_text, chart_labels, reason_text, t, trace_names
from dashboard.sources import safe_file_name

settings = state.settings()
item = state.current()

st.title(t("demo.title"))
if item is None:
    stop_when_empty("demo.empty")

with st.spinner(t("tune.replaying")):
    simulation = state.replay(item, settings)
steps = simulation.steps
st.caption(
    plain(
        t(
            "demo.subtitle",
            name=item.label,
            steps=len(steps),
            summary=simulation.summary,
            capacity=capacity_text(simulation.capacity),
        )
    )
)
if not steps:
    st.info(t("demo.no_steps"))
    st.stop()
outcome = simulation.outcome
if outcome.compactions == 0:
    st.info(t("demo.no_compaction", threshold=outcome.threshold, peak=outcome.peak_tokens))

events = {event.index: event for event in simulation.events}
labels = chart_labels()
overview = charts.relabel(
    report.context_figure(simulation),
    names=trace_names(),
    title=t("tune.chart.context"),
    xaxis_title=t("tune.chart.context_x"),
    yaxis_title=labels["tokens"],
)


def headline(step: Step, event: CompactionEvent | None, run: Simulation) -> tuple[str, str]:
    """The step in two plain sentences: what happened, then what it means."""
    if event is not None and event.status == "compacted":
        return (
            t(
                "demo.caption.compacted",
                tokens=step.context_tokens,
                threshold=step.threshold,
                count=event.span[1],
            ),
            t(
                "demo.caption.replaced",
                compress=event.compress_tokens,
                memory=event.memory_tokens,
                before=step.context_tokens,
                after=step.sent_tokens,
            ),
        )
    if event is not None:
        why = t("demo.no_benefit") if event.reason == "no_benefit" else reason_text(event.reason)
        return (
            t("demo.caption.crossed", tokens=step.context_tokens, threshold=step.threshold),
            t("demo.caption.refused", reason=why),
        )
    if step.reason != "below_threshold":
        return (
            t("demo.caption.crossed", tokens=step.context_tokens, threshold=step.threshold),
            t("demo.caption.held", reason=reason_text(step.reason)),
        )
    used = t("demo.caption.used", used=step.context_tokens, capacity=run.context_max)
    if step.uncompacted_tokens != step.context_tokens:
        return used, t("demo.caption.without", uncompacted=step.uncompacted_tokens)
    return used, t(
        "demo.caption.starts", threshold=step.threshold, ratio=f"{run.outcome.trigger_context_ratio:.0%}"
    )


# -- playback controls ----------------------------------------------------------------------------
playing = state.demo_playing()
play, restart, _ = st.columns([1, 1, 4])
play.button(
    t("demo.pause") if playing else t("demo.play"),
    icon=":material/pause:" if playing else ":material/play_arrow:",
    type="primary",
    on_click=state.toggle_demo,
    args=(len(steps),),
    key=state.page_widget("demo", "play"),
)
restart.button(
    t("demo.restart"),
    icon=":material/replay:",
    on_click=state.set_demo_step,
    args=(1,),
    key=state.page_widget("demo", "restart"),
)


@st.fragment(run_every=state.DEMO_INTERVAL_SECONDS if playing else None)
def playback() -> None:
    """One step on screen; while playing, each timed rerun of this fragment shows the next one."""
    total = len(steps)
    if state.demo_playing() and not state.advance_demo(total):
        st.rerun()  # the last step: stop the timer and turn Pause back into Play
    number = state.demo_step(total)
    if total > 1:
        number = int(
            st.slider(
                t("demo.step"),
                min_value=1,
                max_value=total,
                key=state.W_DEMO_STEP,
                persist_state=state.PERSIST,
            )
        )
    step = steps[number - 1]
    event = events.get(step.index)
    what, meaning = headline(step, event, simulation)
    st.subheader(plain(what), anchor=False)
    st.markdown(f"#### {plain(meaning)}")
    st.caption(t("demo.where", step=number, steps=total, index=step.index, messages=step.messages))
    if step.sent_tokens > simulation.context_max:
        st.error(t("demo.over", tokens=step.sent_tokens, capacity=simulation.context_max))
    st.plotly_chart(
        charts.window_gauge(
            total_tokens=step.context_tokens,
            context_max=simulation.context_max,
            threshold=step.threshold,
            span_tokens=step.compress_tokens or 0,
            min_target_tokens=outcome.min_target_tokens,
            hit=step.reason == "reached_threshold",
            labels=labels,
        ),
        key="demo_gauge",
    )
    if event is not None and event.status == "compacted":
        parts = BeforeAfter.of(event)
        st.plotly_chart(charts.before_after(parts.before, parts.after, labels=labels), key="demo_before_after")
    st.plotly_chart(charts.mark_step(overview, step.index, t("demo.now")), key="demo_overview")


playback()

# -- the report -----------------------------------------------------------------------------------
st.divider()
st.subheader(t("demo.export"), anchor=False)
st.caption(t("demo.export_help"))
conversation = item.conversation
ratios, keeps = state.sweep_grid(settings)
sweep_summary = state.replay_summary()
headroom = state.headroom()
title = t("tune.report_title", name=item.label)
stem = safe_file_name(conversation.name or item.label).rsplit(".", 1)[0] or "run"


def report_html() -> str:
    """Made when the button is clicked, on Streamlit's download thread: plain compressor calls only."""
    swept = sweep(
        conversation,
        ratios=ratios,
        keeps=keeps,
        min_targets=[settings.min_target_context_ratio],
        context_max=settings.explicit_context_max,
        model=settings.capacity_model,
        counter=settings.counter,
        summary=sweep_summary,
    )
    return report.build_report(simulation, swept, recommend(swept, headroom=headroom), title=title)


st.download_button(
    t("demo.export_button"),
    data=report_html,
    file_name=f"{stem}-report.html",
    mime="text/html",
    on_click="ignore",
    type="primary",
    key=state.page_widget("demo", "export"),
)
