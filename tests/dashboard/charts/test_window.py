"""The window gauge and the before/after bars draw the decision's and the compaction's own numbers."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from compressor.breakdown import BeforeAfter
from compressor.replay import CompactionEvent
from dashboard import charts
from dashboard.i18n import chart_labels
from tests.dashboard.conftest import demo_analysis

LABELS = chart_labels("en")


def traces(fig: go.Figure) -> dict[str, Any]:
    return {trace.meta: trace for trace in fig.data if trace.type == "bar"}


def named_shapes(fig: go.Figure) -> dict[str, Any]:
    return {shape.name: shape for shape in fig.layout.shapes}


def gauge(**changes: Any) -> go.Figure:
    values: dict[str, Any] = {
        "total_tokens": 30_000,
        "context_max": 16_000,
        "threshold": 12_800,
        "span_tokens": 100,
        "min_target_tokens": 1_600,
        "hit": True,
        "labels": LABELS,
    }
    return charts.window_gauge(**{**values, **changes})


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
            labels=LABELS,
        )
        assert list(fig.data[0].x) == [analysis.total_tokens, decision.target_tokens]
        shapes = named_shapes(fig)
        assert shapes["threshold"].x0 == shapes["threshold"].x1 == 12_800
        assert shapes["min_target"].x0 == 1_600
        assert shapes["context_max"].x0 == 16_000
        assert fig.layout.xaxis.range[1] >= 16_000

    def test_the_axis_grows_when_the_window_overflows(self) -> None:
        assert gauge().layout.xaxis.range[1] >= 30_000

    def test_the_window_bar_turns_the_thresholds_red_exactly_when_the_trigger_fires(self) -> None:
        assert gauge(hit=True).data[0].marker.color[0] == charts.PALETTE["threshold_reached"]
        assert gauge(hit=False).data[0].marker.color[0] == charts.PALETTE["window"]

    def test_labels_are_passed_in(self) -> None:
        fig = gauge(labels=chart_labels("zh"))
        assert list(fig.data[0].y) == ["窗口总量", "待压缩片段"]
        assert {annotation.text for annotation in fig.layout.annotations} >= {"阈值 12,800"}


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
