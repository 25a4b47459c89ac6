"""Charts draw exactly the numbers they are given: checked on fig.data and fig.layout, never on pixels."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from compressor.analysis import analyze
from compressor.breakdown import BeforeAfter
from compressor.dumps import index_dumps
from compressor.messages import Conversation, Message
from compressor.replay import CompactionEvent
from dashboard import charts, tables
from tests.dashboard.conftest import OPENJIUWEN_DUMPS, demo_analysis


def traces(fig: go.Figure, kind: str = "bar") -> dict[str, Any]:
    return {trace.meta: trace for trace in fig.data if trace.type == kind}


def named_shapes(fig: go.Figure) -> dict[str, Any]:
    return {shape.name: shape for shape in fig.layout.shapes}


class TestSpanBars:
    def test_one_trace_per_segment_holding_every_message(self) -> None:
        analysis = demo_analysis()
        frame = tables.span_frame(analysis)
        fig = charts.span_bars(frame)
        bars = traces(fig)
        assert set(bars) == {"system", "prefix", "compress"}
        assert sum(len(trace.x) for trace in bars.values()) == len(frame)
        assert sum(bars["compress"].x) == sum(analysis.profile.tokens[slice(*analysis.span.compress)])
        assert all(trace.orientation == "h" for trace in bars.values())

    def test_bar_lengths_are_the_message_tokens_in_order(self) -> None:
        frame = tables.span_frame(demo_analysis())
        fig = charts.span_bars(frame)
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
        fig = charts.span_bars(tables.span_frame(analysis))
        markers = traces(fig, "scatter")
        assert list(markers["last_user"].y) == [0]
        assert list(markers["internal"].y) == [2]

    def test_the_tool_boundary_extension_is_shaded(self) -> None:
        analysis = demo_analysis(keep_recent_messages=2)
        assert analysis.keep_moved_by_tool_boundary
        frame = tables.span_frame(analysis)
        fig = charts.span_bars(
            frame, tail_start=analysis.span.tail[0], naive_tail_start=analysis.naive_tail_start
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
            tail_start=analysis.span.tail[0],
            naive_tail_start=analysis.naive_tail_start,
        )
        assert "tool_boundary" not in named_shapes(fig)

    def test_labels_are_passed_in(self) -> None:
        fig = charts.span_bars(tables.span_frame(demo_analysis()), labels={"compress": "待压缩"})
        assert traces(fig)["compress"].name == "待压缩"


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
        fig = charts.span_bars(frame)
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


class TestWindowGauge:
    def test_bars_and_lines_carry_the_decision_numbers(self) -> None:
        analysis = demo_analysis()
        decision = analysis.decision
        assert decision.target_tokens is not None
        fig = charts.window_gauge(
            total_tokens=analysis.total_tokens,
            context_max=analysis.context_max,
            threshold=analysis.threshold,
            span_tokens=decision.target_tokens,
            min_target_tokens=analysis.min_target_tokens,
            hit=decision.hit,
        )
        assert list(fig.data[0].x) == [analysis.total_tokens, decision.target_tokens]
        shapes = named_shapes(fig)
        assert shapes["threshold"].x0 == shapes["threshold"].x1 == 12_800
        assert shapes["min_target"].x0 == 1_600
        assert shapes["context_max"].x0 == 16_000
        assert fig.layout.xaxis.range[1] >= 16_000

    def test_the_axis_grows_when_the_window_overflows(self) -> None:
        fig = charts.window_gauge(
            total_tokens=30_000,
            context_max=16_000,
            threshold=12_800,
            span_tokens=100,
            min_target_tokens=1_600,
            hit=True,
        )
        assert fig.layout.xaxis.range[1] >= 30_000


class TestBeforeAfter:
    def test_one_trace_per_part_with_zero_where_it_is_missing(self) -> None:
        fig = charts.before_after(
            [("prefix", 68), ("compressed", 13_000), ("tail", 0)],
            [("prefix", 68), ("memory", 1_700), ("reinjection", 1_900), ("tail", 0)],
        )
        bars = traces(fig)
        assert list(bars) == ["prefix", "compressed", "tail", "memory", "reinjection"]
        assert list(bars["compressed"].x) == [13_000, 0]
        assert list(bars["memory"].x) == [0, 1_700]
        assert list(bars["reinjection"].x) == [0, 1_900]
        assert fig.layout.barmode == "stack"


def event(prefix: int, compress: int, tail: int, memory: int, reinjection: int) -> CompactionEvent:
    """A compacted replay event with the given part sizes (before and after as the benefit check reads them)."""
    before = prefix + compress + tail - 6
    after = prefix + memory + reinjection + tail - 6
    return CompactionEvent(
        index=7, status="compacted", context_tokens=before, span=(2, 9, 3), compress_tokens=compress,
        summary_tokens=memory - 200, memory_tokens=memory, reinjection_tokens=reinjection, reinjected_files=(),
        request_tokens=before + 1_500, calls=1, tokens_before=before, tokens_after=after,
        prefix_tokens=prefix, tail_tokens=tail,
    )


class TestCompactionParts:
    def test_prefix_and_tail_are_kept_on_both_sides(self) -> None:
        parts = BeforeAfter.of(event(68, 13_000, 2_500, 1_700, 900))
        assert parts.before == (("prefix", 68), ("compressed", 13_000), ("memory", 0), ("reinjection", 0), ("tail", 2_500))
        assert parts.after == (("prefix", 68), ("memory", 1_700), ("reinjection", 900), ("tail", 2_500))

    def test_the_bars_end_with_the_protected_tail(self) -> None:
        parts = BeforeAfter.of(event(68, 13_000, 2_500, 1_700, 900))
        fig = charts.before_after(parts.before, parts.after)
        bars = traces(fig)
        assert list(bars) == ["prefix", "compressed", "memory", "reinjection", "tail"]
        assert list(bars["prefix"].x) == [68, 68]
        assert list(bars["tail"].x) == [2_500, 2_500]
        assert list(bars["compressed"].x) == [13_000, 0]
        assert list(bars["memory"].x) == [0, 1_700]
        assert (bars["prefix"].name, bars["tail"].name) == ("preserved prefix", "protected tail")
        assert bars["prefix"].marker.color == charts.COLORS["prefix"]
        assert bars["tail"].marker.color == charts.COLORS["tail"]


class TestDumpCharts:
    def frame(self) -> pd.DataFrame:
        return tables.dump_frame(index_dumps(OPENJIUWEN_DUMPS).dumps)

    def test_reduction_histogram(self) -> None:
        frame = self.frame()
        fig = charts.reduction_histogram(frame)
        assert sorted(fig.data[0].x) == sorted(frame["reduction_ratio"].tolist())

    def test_before_vs_after_with_the_no_change_diagonal(self) -> None:
        frame = self.frame()
        fig = charts.before_vs_after(frame)
        assert list(fig.data[0].x) == frame["tokens_before"].astype(float).tolist()
        assert list(fig.data[0].y) == frame["tokens_after"].astype(float).tolist()
        diagonal = named_shapes(fig)["diagonal"]
        assert diagonal.x1 == diagonal.y1 == frame["tokens_before"].max()

    def test_over_time_in_time_order(self) -> None:
        frame = self.frame()
        fig = charts.over_time(frame)
        lines = traces(fig, "scatter")
        assert set(lines) == {"tokens_before", "tokens_after"}
        ordered = frame.sort_values("time")
        assert list(lines["tokens_after"].y) == ordered["tokens_after"].astype(float).tolist()
