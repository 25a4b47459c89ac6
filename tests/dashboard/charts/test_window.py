"""The window breakdown bar and the before/after bars draw the analysis's and the compaction's own numbers, and
no two mark labels are drawn on one row when they would touch."""

from __future__ import annotations

import itertools
from typing import Any

import plotly.graph_objects as go
from hypothesis import given
from hypothesis import strategies as st

from compressor.breakdown import BeforeAfter
from compressor.replay import CompactionEvent
from compressor.window_parts import WindowBreakdown, of_analysis
from dashboard import charts
from dashboard.charts.window import LABEL_GAP
from dashboard.i18n import chart_labels
from tests.dashboard.conftest import demo_analysis

LABELS = chart_labels("en")


def traces(fig: go.Figure) -> dict[str, Any]:
    return {trace.meta: trace for trace in fig.data if trace.type == "bar"}


def named_shapes(fig: go.Figure) -> dict[str, Any]:
    return {shape.name: shape for shape in fig.layout.shapes}


def demo_bar(**settings: Any) -> tuple[go.Figure, WindowBreakdown]:
    breakdown = of_analysis(demo_analysis(**settings))
    return charts.window_bar(breakdown, labels=LABELS), breakdown


class TestWindowBar:
    def test_one_trace_per_part_then_the_free_space(self) -> None:
        fig, breakdown = demo_bar(trigger_context_ratio=0.95)
        drawn = {trace.meta: trace.x[0] for trace in fig.data}
        expected = {code: tokens for code, tokens in breakdown.parts if tokens > 0}
        assert drawn == {**expected, "free": breakdown.free_tokens}
        assert sum(drawn.values()) == breakdown.capacity  # the bar is the capacity, part by part

    def test_parts_are_the_segments_colours(self) -> None:
        fig, _ = demo_bar()
        colours = {trace.meta: trace.marker.color for trace in fig.data}
        assert colours["span"] == charts.PALETTE["compress"]
        assert colours["prefix"] == charts.PALETTE["prefix"]
        assert colours["system"] == charts.PALETTE["system"]

    def test_marks_sit_at_the_threshold_the_minimum_span_and_the_capacity(self) -> None:
        fig, breakdown = demo_bar()
        shapes = named_shapes(fig)
        span_start = sum(breakdown.part(code) for code in ("system", "tools", "hidden", "prefix"))
        assert shapes["threshold"].x0 == breakdown.threshold == 12_800
        assert shapes["min_target"].x0 == span_start + breakdown.min_span
        assert shapes["context_max"].x0 == breakdown.capacity == 16_000
        assert shapes["threshold"].line.color == charts.PALETTE["threshold"]

    def test_close_marks_get_rows_of_their_own(self) -> None:
        fig, _ = demo_bar()
        rows = {annotation.name: annotation.y for annotation in fig.layout.annotations}
        assert rows["threshold"] != rows["context_max"]  # 12,800 and 16,000 are close on a 16,000 axis

    def test_the_axis_holds_a_window_over_capacity(self) -> None:
        fig, breakdown = demo_bar()
        over = WindowBreakdown(**{**breakdown.__dict__, "total_tokens": 30_000})
        assert charts.window_bar(over, labels=LABELS).layout.xaxis.range[1] >= 30_000
        assert fig.layout.xaxis.rangemode == "nonnegative"

    def test_labels_are_passed_in(self) -> None:
        breakdown = of_analysis(demo_analysis())
        fig = charts.window_bar(breakdown, labels=chart_labels("zh"))
        assert {trace.name for trace in fig.data} >= {"待压缩片段", "空闲", "系统"}
        assert {annotation.text for annotation in fig.layout.annotations} >= {"阈值 12,800"}


class TestLabelRows:
    @given(st.lists(st.floats(min_value=0, max_value=100_000), min_size=1, max_size=6))
    def test_labels_closer_than_the_gap_never_share_a_row(self, positions: list[float]) -> None:
        upper = max(positions) or 1.0
        rows = charts.label_rows(positions, upper)
        for i, j in itertools.combinations(range(len(positions)), 2):
            if abs(positions[i] - positions[j]) < LABEL_GAP * upper:
                assert rows[i] != rows[j]

    def test_far_labels_share_the_first_row(self) -> None:
        assert charts.label_rows([0, 50, 100], 100) == [0, 0, 0]


def event(prefix: int, compress: int, tail: int, memory: int, reinjection: int) -> CompactionEvent:
    """A compacted replay event with the given part sizes (before and after as the benefit check reads them)."""
    before = prefix + compress + tail - 6
    after = prefix + memory + reinjection + tail - 6
    return CompactionEvent(
        index=7,
        status="compacted",
        context_tokens=before,
        span=(2, 9, 3),
        compress_tokens=compress,
        summary_tokens=memory - 200,
        memory_tokens=memory,
        reinjection_tokens=reinjection,
        reinjected_files=(),
        request_tokens=before + 1_500,
        calls=1,
        tokens_before=before,
        tokens_after=after,
        prefix_tokens=prefix,
        tail_tokens=tail,
    )


class TestBeforeAfter:
    def test_one_trace_per_part_with_zero_where_it_is_missing(self) -> None:
        fig = charts.before_after(
            [("prefix", 68), ("compressed", 13_000), ("tail", 0)],
            [("prefix", 68), ("memory", 1_700), ("reinjection", 1_900), ("tail", 0)],
            labels=LABELS,
        )
        bars = traces(fig)
        assert list(bars) == ["prefix", "compressed", "tail", "memory", "reinjection"]
        assert list(bars["compressed"].x) == [13_000, 0]
        assert list(bars["memory"].x) == [0, 1_700]
        assert list(bars["reinjection"].x) == [0, 1_900]
        assert fig.layout.barmode == "stack"


class TestCompactionParts:
    def test_prefix_and_tail_are_kept_on_both_sides(self) -> None:
        parts = BeforeAfter.of(event(68, 13_000, 2_500, 1_700, 900))
        assert parts.before == (
            ("prefix", 68),
            ("compressed", 13_000),
            ("memory", 0),
            ("reinjection", 0),
            ("tail", 2_500),
        )
        assert parts.after == (("prefix", 68), ("memory", 1_700), ("reinjection", 900), ("tail", 2_500))

    def test_the_bars_end_with_the_protected_tail(self) -> None:
        parts = BeforeAfter.of(event(68, 13_000, 2_500, 1_700, 900))
        fig = charts.before_after(parts.before, parts.after, labels=LABELS)
        bars = traces(fig)
        assert list(bars) == ["prefix", "compressed", "memory", "reinjection", "tail"]
        assert list(bars["prefix"].x) == [68, 68]
        assert list(bars["tail"].x) == [2_500, 2_500]
        assert list(bars["compressed"].x) == [13_000, 0]
        assert list(bars["memory"].x) == [0, 1_700]
        assert (bars["prefix"].name, bars["tail"].name) == ("preserved prefix", "protected tail")
        assert bars["prefix"].marker.color == charts.PALETTE["prefix"]
        assert bars["tail"].marker.color == charts.PALETTE["tail"]
        assert bars["compressed"].marker.color == charts.PALETTE["compress"]  # the span it was, in its colour
