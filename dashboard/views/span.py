"""Span & trigger: the conversation as openJiuwen splits it, the window total against its thresholds,
and the decision in plain words with the exact numbers."""

from __future__ import annotations

import streamlit as st

from compressor.analysis import Analysis
from compressor.window_parts import of_analysis
from dashboard import charts, tables
from dashboard.components import flag_message_secrets, plain, show_message, stop_when_empty, table
from dashboard.follow import follow_panel
from dashboard.i18n import chart_labels, counted, note_names, role_names, segment_names
from dashboard.i18n.terms import span_ranges
from dashboard.run_marker import run_marker
from dashboard.state import conversations, keys, session, views
from dashboard.state.session import t
from dashboard.window_view import decision_banner, no_model_conditions, window_summary

language = session.language()
settings = session.settings()
item = conversations.current()
found = conversations.analysis_for(item, settings)

st.title(t("span.title"))
if item is None or found is None:
    stop_when_empty("span.empty")
analysis: Analysis = found  # known from here on, in the functions below too

conversation = analysis.conversation
decision = analysis.decision
st.caption(
    plain(
        t(
            "span.subtitle",
            name=item.label,
            format=conversation.source_format,
            messages=len(conversation.messages),
            system=len(conversation.system),
            tools=len(conversation.tools),
        )
    )
)
flag_message_secrets(*conversations.message_secrets(item))
follow_panel(item, "span")

# -- the decision and the window ------------------------------------------------------------------
decision_banner(decision, conditions=no_model_conditions(analysis.config.model_configured))
if analysis.total_source == "usage":
    usage = analysis.profile.total
    source = t(
        "span.total_usage",
        index=usage.usage_index,
        reported=usage.reported_tokens,
        total=analysis.total_tokens,
    )
else:
    source = t("span.total_counted", counter=t(f"counter.{analysis.counter}"), total=analysis.total_tokens)
count = len(conversation.messages)
moment = t("breakdown.now", index=max(count - 1, 0), messages=counted(count, "message", language))
window_summary(of_analysis(analysis), moment=moment, key="span", source=source)
labels = chart_labels(language)

# -- the spans ------------------------------------------------------------------------------------
st.subheader(t("span.spans"))
span = analysis.span
st.text(span_ranges(span, language))
if span.unanchored[1] > span.unanchored[0]:
    st.warning(t("span.unanchored", start=span.unanchored[0], end=span.unanchored[1]))
if analysis.last_user_index >= 0:
    st.caption(t("span.last_user", index=analysis.last_user_index))
if analysis.keep_moved_by_tool_boundary:
    st.info(
        t(
            "span.tool_boundary",
            keep=analysis.keep_requested,
            naive=analysis.naive_tail_start,
            start=span.tail[0],
            effective=analysis.effective_keep,
        )
    )

# The bars and the table depend on the span, not on the trigger: a trigger move reuses them.
shape = (item.key, span, analysis.naive_tail_start, analysis.counter, language)
frame = views.kept(("span_frame", *shape), conversation, lambda: tables.span_frame(analysis))
if len(frame) > charts.MAX_BARS:
    st.caption(t("span.grouped", bars=charts.MAX_BARS, messages=len(frame)))
bars = views.kept(
    ("span_bars", *shape),
    conversation,
    lambda: charts.span_bars(
        frame, tail_start=span.tail[0], naive_tail_start=analysis.naive_tail_start, labels=labels
    ),
)
st.plotly_chart(bars, key="span_bars")

# -- the messages ---------------------------------------------------------------------------------
st.subheader(t("span.messages"))
table(
    views.kept(
        ("span_table", *shape),
        conversation,
        lambda: tables.message_table(
            frame, segment_names(language), note_names(language), role_names(language)
        ),
    ),
    hide_index=True,
    column_config={"preview": st.column_config.TextColumn(width="large")},
    height=min(35 * (len(frame) + 1) + 3, 420),
)
if conversation.system:
    with st.expander(t("span.system_messages", count=len(conversation.system))):
        for number, message in enumerate(conversation.system, start=1):
            show_message(message, t("span.system_heading", number=number))


@st.fragment
def message_viewer() -> None:
    """One context message in full; picking another reruns only this."""
    run_marker()  # a fragment's rerun skips the entry script's marker
    index = st.number_input(
        t("span.pick", last=len(conversation.messages) - 1),
        min_value=0,
        max_value=len(conversation.messages) - 1,
        value=max(analysis.last_user_index, 0),
        step=1,
        key=keys.page_widget("span", "message"),
    )
    row = analysis.per_message[int(index)]
    show_message(
        conversation.messages[int(index)],
        t(
            "span.message_heading",
            index=row.index,
            role=row.role,
            tokens=row.tokens,
            segment=segment_names(language)[row.segment],
        ),
    )


if conversation.messages:
    message_viewer()
