"""Demo: the run played back one model call at a time for an audience — the context filling up, the
threshold being crossed, the round's work replaced by one memory block — and a report to take away."""

from __future__ import annotations

import streamlit as st

from compressor.breakdown import BeforeAfter
from compressor.replay import recommend
from compressor.window_parts import of_step
from dashboard import charts, report
from dashboard.components import plain, stop_when_empty
from dashboard.i18n import capacity_text, chart_labels, counted, outcome_words, step_headline
from dashboard.i18n.quality import replay_lines
from dashboard.run_marker import run_marker
from dashboard.sources import safe_file_name
from dashboard.state import conversations, keys, quality, replays, session
from dashboard.state.session import t
from dashboard.window_view import window_summary

language = session.language()
settings = session.settings()
item = conversations.current()

st.title(t("demo.title"))
if item is None:
    stop_when_empty("demo.empty")

with st.spinner(t("tune.replaying")):
    simulation = replays.replay(item, settings)
steps = simulation.steps
st.caption(
    plain(
        t(
            "demo.subtitle",
            name=item.label,
            steps=counted(len(steps), "call", language),
            summary=simulation.summary,
            capacity=capacity_text(simulation.capacity, language),
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
profile = conversations.analysis_for(item, settings)
system_tokens = sum(profile.profile.system_tokens) if profile is not None else 0
tools_tokens = profile.profile.tools_tokens if profile is not None else 0
labels = chart_labels(language)
overview = charts.context_figure(simulation, labels=labels, outcome_text=outcome_words(language))
kept = quality.replay_score(item.conversation, simulation)  # what each compaction kept, beside its savings
kept_lines = replay_lines(kept, simulation.events, language)

# -- playback controls ----------------------------------------------------------------------------
playing = replays.demo_playing()
controls = st.container(horizontal=True)
controls.button(
    t("demo.pause") if playing else t("demo.play"),
    icon=":material/pause:" if playing else ":material/play_arrow:",
    type="primary",
    on_click=replays.toggle_demo,
    args=(len(steps),),
    key=keys.page_widget("demo", "play"),
)
controls.button(
    t("demo.restart"),
    icon=":material/replay:",
    on_click=replays.set_demo_step,
    args=(1,),
    key=keys.page_widget("demo", "restart"),
)


@st.fragment(run_every=replays.DEMO_INTERVAL_SECONDS if playing else None)
def playback() -> None:
    """One step on screen; while playing, each timed rerun of this fragment shows the next one."""
    run_marker()  # a fragment's rerun skips the entry script's marker
    total = len(steps)
    if replays.demo_playing() and not replays.advance_demo(total):
        st.rerun()  # the last step: stop the timer and turn Pause back into Play
    number = replays.demo_step(total)
    if total > 1:
        number = int(
            st.slider(
                t("demo.step"), min_value=1, max_value=total, key=keys.W_DEMO_STEP, persist_state=keys.PERSIST
            )
        )
    step = steps[number - 1]
    event = events.get(step.index)
    what, meaning = step_headline(step, event, simulation, language)
    st.subheader(plain(what), anchor=False)
    st.markdown(f"#### {plain(meaning)}")
    st.caption(t("demo.where", step=number, steps=total, index=step.index, messages=step.messages))
    window_summary(
        of_step(
            step,
            capacity=simulation.context_max,
            min_span=outcome.min_target_tokens,
            system_tokens=system_tokens,
            tools_tokens=tools_tokens,
            usage_hidden_tokens=simulation.hidden_overhead,
        ),
        moment=t("breakdown.at_call", index=step.index),
        key="demo",
    )
    if step.sent_tokens > simulation.context_max:
        st.error(t("demo.over", tokens=step.sent_tokens, capacity=simulation.context_max))
    if event is not None and event.status == "compacted":
        parts = BeforeAfter.of(event)
        st.plotly_chart(
            charts.before_after(parts.before, parts.after, labels=labels), key="demo_before_after"
        )
        st.caption(plain(kept_lines.get(step.index, "")))
    st.plotly_chart(charts.mark_step(overview, step.index, t("demo.now")), key="demo_overview")


playback()

# -- the report -----------------------------------------------------------------------------------
st.divider()
st.subheader(t("demo.export"), anchor=False)
st.caption(t("demo.export_help"))
swept_later = replays.deferred_sweep(item, settings)
headroom = replays.headroom()
title = t("tune.report_title", name=item.label)
stem = safe_file_name(item.conversation.name or item.label).rsplit(".", 1)[0] or "run"


def report_html() -> str:
    """Made when the button is clicked, on Streamlit's download thread: no session value is read here."""
    swept = swept_later()
    return report.build_report(
        simulation, swept, recommend(swept, headroom=headroom), title=title, language=language, kept=kept
    )


st.download_button(
    t("demo.export_button"),
    data=report_html,
    file_name=f"{stem}-report.html",
    mime="text/html",
    on_click="ignore",
    type="primary",
    key=keys.page_widget("demo", "export"),
)
