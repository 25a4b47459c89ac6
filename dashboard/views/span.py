"""Span & trigger: the conversation as openJiuwen splits it, the window total against its thresholds,
and the decision in plain words with the exact numbers."""

from __future__ import annotations

import streamlit as st

from dashboard import charts, tables
from dashboard.components import flag_message_secrets, plain, show_message, stop_when_empty, table
from dashboard.i18n import capacity_text, chart_labels, explain, note_names, segment_names
from dashboard.state import conversations, keys, session
from dashboard.state.session import t

language = session.language()
settings = session.settings()
item = conversations.current()
analysis = conversations.analysis_for(item, settings)

st.title(t("span.title"))
if item is None or analysis is None:
    stop_when_empty("span.empty")

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
if not analysis.config.model_configured:
    st.warning(t("span.no_model"))
flag_message_secrets(*conversations.message_secrets(item))

# -- the decision ---------------------------------------------------------------------------------
(st.success if decision.hit else st.info)(explain(decision, language))
if analysis.total_source == "usage":
    usage = analysis.profile.total
    st.caption(
        t(
            "span.total_usage",
            index=usage.usage_index,
            reported=usage.reported_tokens,
            total=analysis.total_tokens,
        )
    )
else:
    st.caption(t("span.total_counted", counter=t(f"counter.{analysis.counter}"), total=analysis.total_tokens))

columns = st.columns(5)
columns[0].metric(
    t("metric.total"), f"{analysis.total_tokens:,}", help=t(f"metric.total_{analysis.total_source}")
)
columns[1].metric(t("metric.threshold"), f"{analysis.threshold:,}", help=t("metric.threshold_help"))
columns[2].metric(
    t("metric.context_max"), f"{analysis.context_max:,}", help=capacity_text(analysis.capacity, language)
)
span_tokens = (
    decision.target_tokens if decision.target_tokens is not None else analysis.segment_tokens["compress"]
)
columns[3].metric(t("metric.span_tokens"), f"{span_tokens:,}")
columns[4].metric(t("metric.min_target"), f"{analysis.min_target_tokens:,}", help=t("metric.min_target_help"))

labels = chart_labels(language)
st.plotly_chart(
    charts.window_gauge(
        total_tokens=analysis.total_tokens,
        context_max=analysis.context_max,
        threshold=analysis.threshold,
        span_tokens=span_tokens,
        min_target_tokens=analysis.min_target_tokens,
        hit=decision.hit,
        labels=labels,
    ),
)

# -- the spans ------------------------------------------------------------------------------------
st.subheader(t("span.spans"))
span = analysis.span
st.text(
    t(
        "span.ranges",
        prefix=f"[{span.prefix[0]}, {span.prefix[1]})",
        compress=f"[{span.compress[0]}, {span.compress[1]})",
        tail=f"[{span.tail[0]}, {span.tail[1]})",
        counts=" / ".join(str(count) for count in span.counts),
    )
)
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

frame = tables.span_frame(analysis)
if len(frame) > charts.MAX_BARS:
    st.caption(t("span.grouped", bars=charts.MAX_BARS, messages=len(frame)))
st.plotly_chart(
    charts.span_bars(
        frame,
        tail_start=span.tail[0],
        naive_tail_start=analysis.naive_tail_start,
        labels=labels,
    ),
)

# -- the messages ---------------------------------------------------------------------------------
st.subheader(t("span.messages"))
table(
    tables.message_table(frame, segment_names(language), note_names(language)),
    hide_index=True,
    column_config={"preview": st.column_config.TextColumn(width="large")},
)
if conversation.system:
    with st.expander(t("span.system_messages", count=len(conversation.system))):
        for number, message in enumerate(conversation.system, start=1):
            show_message(message, t("span.system_heading", number=number))
if conversation.messages:
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
