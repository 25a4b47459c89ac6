"""The message bars draw exactly the tokens they are given: checked on fig.data and fig.layout, never on pixels."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from compressor.analysis import analyze
from compressor.messages import Conversation, Message
from dashboard import charts, tables
from dashboard.i18n import chart_labels
from tests.dashboard.conftest import demo_analysis

LABELS = chart_labels("en")


def traces(fig: go.Figure, kind: str = "bar") -> dict[str, Any]:
    return {trace.meta: trace for trace in fig.data if trace.type == kind}


def named_shapes(fig: go.Figure) -> dict[str, Any]:
    return {shape.name: shape for shape in fig.layout.shapes}


class TestSpanBars:
    def test_one_trace_per_segment_holding_every_message(self) -> None:
        analysis = demo_analysis()
        frame = tables.span_frame(analysis)
        fig = charts.span_bars(frame, labels=LABELS)
        bars = traces(fig)
        assert set(bars) == {"system", "prefix", "compress"}
        assert sum(len(trace.x) for trace in bars.values()) == len(frame)
        assert sum(bars["compress"].x) == sum(analysis.profile.tokens[slice(*analysis.span.compress)])
        assert all(trace.orientation == "h" for trace in bars.values())

    def test_bar_lengths_are_the_message_tokens_in_order(self) -> None:
        frame = tables.span_frame(demo_analysis())
        fig = charts.span_bars(frame, labels=LABELS)
        drawn = sorted(
            (y, x) for trace in traces(fig).values() for x, y in zip(trace.x, trace.y, strict=True)
        )
        assert [x for _, x in drawn] == frame["tokens"].tolist()

    def test_last_user_and_internal_messages_are_marked(self) -> None:
        messages = [
            Message(role="user", content="fix it"),
            Message(role="assistant", content="ok"),
            Message(role="user", content="<system-reminder>be brief</system-reminder>"),
            Message(role="assistant", content="done"),
        ]
        analysis = analyze(Conversation.from_messages(messages), context_max=1000)
        fig = charts.span_bars(tables.span_frame(analysis), labels=LABELS)
        markers = traces(fig, "scatter")
        assert list(markers["last_user"].y) == [0]
        assert list(markers["internal"].y) == [2]

    def test_the_tool_boundary_extension_is_shaded(self) -> None:
        analysis = demo_analysis(keep_recent_messages=2)
        assert analysis.keep_moved_by_tool_boundary
        frame = tables.span_frame(analysis)
        fig = charts.span_bars(
            frame, labels=LABELS, tail_start=analysis.span.tail[0], naive_tail_start=analysis.naive_tail_start
        )
        shaded = named_shapes(fig)["tool_boundary"]
        system = len(analysis.conversation.system)
        assert (shaded.y0, shaded.y1) == (
            system + analysis.span.tail[0] - 0.5,
            system + analysis.naive_tail_start - 1 + 0.5,
        )

    def test_no_shading_when_the_boundary_did_not_move(self) -> None:
        analysis = demo_analysis(keep_recent_messages=1)
        assert not analysis.keep_moved_by_tool_boundary
        fig = charts.span_bars(
            tables.span_frame(analysis),
            labels=LABELS,
            tail_start=analysis.span.tail[0],
            naive_tail_start=analysis.naive_tail_start,
        )
        assert "tool_boundary" not in named_shapes(fig)

    def test_labels_are_passed_in(self) -> None:
        fig = charts.span_bars(tables.span_frame(demo_analysis()), labels=chart_labels("zh"))
        assert traces(fig)["compress"].name == "待压缩片段"  # the same name as the window bar's span
        assert fig.layout.yaxis.title.text == "消息"
        assert fig.layout.yaxis.ticktext[0] == "系统 1"  # a system row is named in the chart's language
        assert traces(fig)["system"].customdata[0][0] == "系统 1"


class TestLongConversations:
    def frame(self, count: int) -> pd.DataFrame:
        segments = ["prefix"] * 10 + ["compress"] * (count - 20) + ["tail"] * 10
        return pd.DataFrame(
            {
                "position": range(count),
                "index": pd.array(range(count), dtype="Int64"),
                "label": [f"#{i}" for i in range(count)],
                "role": ["user"] + ["assistant"] * (count - 1),
                "tokens": [i % 7 + 1 for i in range(count)],
                "segment": segments,
                "internal": [i == 5000 for i in range(count)],
                "last_user": [i == 0 for i in range(count)],
                "preview": [""] * count,
            }
        )

    def test_ten_thousand_messages_are_grouped_into_few_bars_keeping_every_token(self) -> None:
        frame = self.frame(10_000)
        fig = charts.span_bars(frame, labels=LABELS)
        bars = traces(fig)
        assert len(fig.data) == 5  # three segments and two marker series, never a trace per message
        drawn = sum(len(trace.x) for trace in bars.values())
        assert drawn <= charts.MAX_BARS + 3
        assert sum(sum(trace.x) for trace in bars.values()) == frame["tokens"].sum()
        for segment in ("prefix", "compress", "tail"):
            assert sum(bars[segment].x) == frame.loc[frame["segment"] == segment, "tokens"].sum()

    def test_groups_never_cross_a_segment_change(self) -> None:
        frame = self.frame(1000)
        groups = charts.group_bars(frame, max_bars=10)
        for bar in groups:
            assert frame["segment"][bar.first : bar.last + 1].nunique() == 1
        assert groups[0].label == "#0–#9"
