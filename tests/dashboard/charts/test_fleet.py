"""The Fleet page's figures: every heatmap scaled from 0 (also when every cell is 0), shares written as every page
writes them, and the per-run histograms with whole-run counts from 0 on an axis named in the page's language."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compressor.fleet import Catalog, Fleet, FleetGrid, InlineExecutor, run_fleet
from dashboard.charts import fleet as render
from tests.dashboard.conftest import DEMO

LABELS = {
    "title": "{metric} ({target})",
    "hover": "%{z}",
    "pick": "pick",
    **{f"metric.{metric}": metric for metric in render.HEAT_METRICS},
}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    runs = tmp_path_factory.mktemp("runs")
    shutil.copy(DEMO, runs / DEMO.name)
    grid = FleetGrid(ratios=(0.5, 0.8), keeps=(0, 2), min_targets=(0.1,), context_max=16_000)
    return run_fleet([runs], grid, Catalog(tmp_path_factory.mktemp("catalog")), InlineExecutor())


@pytest.fixture(scope="module")
def empty(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    folder = tmp_path_factory.mktemp("no-runs")
    (folder / "notes.json").write_text('{"not": "a conversation"}', encoding="utf-8")
    grid = FleetGrid(ratios=(0.5, 0.8), keeps=(0,), min_targets=(0.1,))
    return run_fleet([Path(folder)], grid, Catalog(tmp_path_factory.mktemp("catalog")), InlineExecutor())


class TestHeatmap:
    @pytest.mark.parametrize("metric", list(render.HEAT_METRICS))
    def test_every_scale_starts_at_zero(self, fleet: Fleet, empty: Fleet, metric: str) -> None:
        for swept in (fleet, empty):
            heat = render.fleet_heatmap(swept, metric, labels=LABELS).data[0]
            assert heat.zmin == 0 and heat.zmax > 0, (metric, heat.zmax)

    def test_shares_are_written_with_one_decimal(self, fleet: Fleet) -> None:
        heat = render.fleet_heatmap(fleet, "headroom_share", labels=LABELS).data[0]
        cells = [cell for row in heat.text for cell in row if cell != "–"]
        assert cells and all(cell.endswith("%") and "." in cell for cell in cells), cells


class TestDistribution:
    def test_a_few_runs_get_whole_counts_from_zero_on_the_named_axis(self, fleet: Fleet) -> None:
        peaks, compactions = render.picked_values(fleet)
        assert len(compactions) == 1
        figure = render.distribution(compactions, title="t", axis="Compactions", runs="运行数")
        assert figure.layout.yaxis.title.text == "运行数"
        assert figure.layout.yaxis.rangemode == "tozero" and figure.layout.yaxis.dtick == 1
        assert figure.layout.xaxis.rangemode == "nonnegative"
        shares = render.distribution(peaks, title="t", axis="Peak", runs="runs", percent=True)
        assert shares.layout.xaxis.tickformat == ".0%" and shares.layout.yaxis.dtick == 1

    def test_many_runs_leave_the_ticks_to_plotly(self) -> None:
        figure = render.distribution([1] * 40, title="t", axis="Compactions", runs="runs")
        assert figure.layout.yaxis.dtick is None and figure.layout.yaxis.tickformat == ",d"

    def test_few_distinct_counts_get_a_tick_per_count_on_the_x_axis(self) -> None:
        figure = render.distribution([0] * 240, title="t", axis="Compactions", runs="runs")
        assert figure.layout.xaxis.dtick == 1 and figure.layout.xaxis.tickformat == ",d"
        shares = render.distribution([0.1, 0.2], title="t", axis="Peak", runs="runs", percent=True)
        assert shares.layout.xaxis.dtick is None

    def test_one_count_for_every_run_is_one_bar_among_three_counts(self) -> None:
        # every run at 0 compactions: a bar one count wide, not one bin stretched over the whole plot
        figure = render.distribution([0] * 240, title="t", axis="Compactions", runs="runs")
        assert figure.data[0].xbins.size == 1 and figure.data[0].xbins.start == -0.5
        assert figure.layout.xaxis.range == (-0.5, 2.5)
        spread = render.distribution([0, 1, 1, 5], title="t", axis="Compactions", runs="runs")
        assert spread.layout.xaxis.range == (-0.5, 5.5)


class TestTables:
    def test_a_missing_model_is_a_dash_and_a_share_a_percentage(self, fleet: Fleet) -> None:
        headers = {
            "name": "Run",
            "model": "Model",
            "peak_utilisation": "Peak utilisation",
            "messages": "Messages",
        }
        rows = [run.to_dict() for run in fleet.runs]
        frame = render.runs_frame([{**rows[0], "model": None, "peak_utilisation": 0.172}], headers)
        assert frame.to_dict("records") == [
            {
                "Run": rows[0]["name"],
                "Model": "—",
                "Peak utilisation": "17.2%",
                "Messages": rows[0]["messages"],
            }
        ]

    def test_every_settings_share_is_a_percentage(self, fleet: Fleet) -> None:
        headers = {name: name for name in render.SETTING_COLUMNS}
        frame = render.settings_frame(fleet, headers)
        for column in ("compacting_share", "peak_p50", "peak_p95", "headroom_share"):
            assert all(str(value).endswith("%") for value in frame[column]), column
        assert "None" not in {str(value) for value in frame.to_numpy().ravel()}
