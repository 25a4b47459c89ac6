"""The Dump review figures draw one point per row of the dump listing."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from compressor.dumps import index_dumps
from dashboard import charts, tables
from dashboard.i18n import chart_labels
from tests.dashboard.conftest import OPENJIUWEN_DUMPS

LABELS = chart_labels("en")


def frame() -> pd.DataFrame:
    return tables.dump_frame(index_dumps(OPENJIUWEN_DUMPS).dumps)


def named_shapes(fig: go.Figure) -> dict[str, Any]:
    return {shape.name: shape for shape in fig.layout.shapes}


class TestDumpCharts:
    def test_reduction_histogram(self) -> None:
        rows = frame()
        fig = charts.reduction_histogram(rows, labels=LABELS)
        assert sorted(fig.data[0].x) == sorted(rows["reduction_ratio"].tolist())

    def test_before_vs_after_with_the_no_change_diagonal(self) -> None:
        rows = frame()
        fig = charts.before_vs_after(rows, labels=LABELS)
        assert list(fig.data[0].x) == rows["tokens_before"].astype(float).tolist()
        assert list(fig.data[0].y) == rows["tokens_after"].astype(float).tolist()
        diagonal = named_shapes(fig)["diagonal"]
        assert diagonal.x1 == diagonal.y1 == rows["tokens_before"].max()

    def test_over_time_in_time_order(self) -> None:
        rows = frame()
        fig = charts.over_time(rows, labels=LABELS)
        lines = {trace.meta: trace for trace in fig.data}
        assert set(lines) == {"tokens_before", "tokens_after"}
        ordered = rows.sort_values("time")
        assert list(lines["tokens_after"].y) == ordered["tokens_after"].astype(float).tolist()

    def test_labels_are_passed_in(self) -> None:
        fig = charts.over_time(frame(), labels=chart_labels("zh"))
        zh = chart_labels("zh")
        assert {trace.name for trace in fig.data} == {zh["tokens_before"], zh["tokens_after"]}
        assert fig.layout.xaxis.title.text == "时间"

    def test_dumps_written_in_one_batch_are_drawn_in_order(self) -> None:
        rows = frame()  # openJiuwen's three samples were written within 0.2 s
        assert tables.time_axis(rows) == "sequence"
        fig = charts.over_time(rows, labels=LABELS, axis="sequence")
        lines = {trace.meta: trace for trace in fig.data}
        assert list(lines["tokens_before"].x) == [1, 2, 3]
        assert fig.layout.xaxis.title.text == LABELS["sequence"]
        assert fig.layout.xaxis.dtick == 1  # whole dump numbers, never 0.5

    def test_count_axes_hold_whole_numbers_from_zero(self) -> None:
        fig = charts.reduction_histogram(frame(), labels=LABELS)
        assert fig.layout.yaxis.tickformat == ",d"
        assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.rangemode == "nonnegative"


class TestCountAxis:
    def test_steps_are_whole_and_few(self) -> None:
        for top in (0, 1, 3, 7, 12, 45, 301, 10_000):
            step = charts.style.nice_step(top)
            assert isinstance(step, int) and step >= 1
            assert top / step <= 6
