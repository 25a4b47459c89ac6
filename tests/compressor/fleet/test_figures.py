"""Fleet figures and the fleet recommendation, on hand-made tables: nearest-rank spreads, the cheapest setting
that keeps the headroom on the chosen share, its reasons, and the runs it hurts, worst first."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from compressor.fleet import OutcomeTable, RunRow, nearest_rank, recommend_fleet, setting_figures

SETTINGS = ((0.5, 0, 0.1), (0.8, 0, 0.1))


def row(number: int) -> RunRow:
    return RunRow(
        run_id=f"r{number}",
        path=f"/runs/{number}.json",
        conversation=0,
        name=f"run {number}",
        format="openjiuwen",
        agent="openjiuwen",
        model=None,
        size=1,
        mtime_ns=0,
        hash="h",
        messages=10,
        context_tokens=1,
        system_tokens=0,
        tools_tokens=0,
        window_tokens=1,
        window_source="counted",
        steps=10,
        recorded_compactions=0,
        context_max=1000,
        context_max_source="explicit",
    )


def table(cells: list[list[tuple[int, int, int, int]]], flagged: int = 0) -> OutcomeTable:
    """cells[run][setting] = (compactions, peak tokens, calls over capacity, tokens); capacity 1000 each, no
    price (so costs are tokens)."""
    built = OutcomeTable.empty(SETTINGS)
    for run in cells:
        built.add_run(1000, [(*cell, math.nan, flagged) for cell in run])
    return built


class TestNearestRank:
    @pytest.mark.parametrize(
        ("values", "share", "expected"),
        [
            ([], 0.5, 0.0),
            ([7], 0.95, 7),
            ([1, 2, 3, 4], 0.5, 2),
            ([1, 2, 3, 4], 0.95, 4),
            ([5, 1, 3], 0.5, 3),
            (list(range(1, 101)), 0.95, 95),
        ],
    )
    def test_every_figure_is_one_runs(self, values: list[float], share: float, expected: float) -> None:
        assert nearest_rank(values, share) == expected


class TestFigures:
    def test_each_setting_over_the_runs(self) -> None:
        cells = [
            [(2, 850, 0, 100), (1, 950, 0, 80)],
            [(0, 400, 0, 50), (0, 400, 0, 50)],
            [(3, 1200, 2, 90), (0, 1300, 4, 70)],
        ]
        low, high = setting_figures(table(cells), headroom=0.1)
        assert (low.runs, low.compacting, low.overflowing, low.keeping_headroom, low.tokens) == (
            3,
            2,
            1,
            2,
            240,
        )
        assert (low.compactions.p50, low.compactions.max) == (2, 3)
        assert (low.peak_utilisation.p50, low.peak_utilisation.max) == (0.85, 1.2)
        assert (high.compacting, high.keeping_headroom, high.tokens) == (1, 1, 200)
        assert high.to_dict()["loop_flags"] == 0 and high.to_dict()["retention_source"] == "not_measured"


class TestRecommendation:
    def test_the_cheapest_setting_reaching_the_share(self) -> None:
        cells = [[(2, 850, 0, 100), (1, 850, 0, 80)], [(0, 400, 0, 50), (0, 400, 0, 50)]]
        built = table(cells)
        runs = [row(0), row(1)]
        pick = recommend_fleet(built, runs, setting_figures(built, 0.1), headroom=0.1, share=0.95)
        assert pick.setting == (0.8, 0, 0.1)
        assert pick.codes == ("reaches_share", "qualifying", "cheapest_tokens")
        assert pick.unit == "tokens"
        assert pick.reasons[2].values == {
            "cost": 130.0,
            "tokens": 130,
            "runner_up_cost": 150.0,
            "runner_up_tokens": 150,
        }
        assert pick.hurt == ()

    def test_a_lower_share_lets_a_cheaper_setting_through_and_names_the_run_it_hurts(self) -> None:
        cells = [[(2, 850, 0, 100), (1, 950, 0, 80)], [(0, 400, 0, 50), (0, 400, 0, 50)]]
        built = table(cells)
        runs = [row(0), row(1)]
        strict = recommend_fleet(built, runs, setting_figures(built, 0.1), headroom=0.1, share=0.95)
        assert strict.setting == (0.5, 0, 0.1)
        loose = recommend_fleet(built, runs, setting_figures(built, 0.1), headroom=0.1, share=0.5)
        assert loose.setting == (0.8, 0, 0.1)
        [hurt] = loose.hurt
        assert hurt.key == "/runs/0.json#0"
        assert [h.code for h in hurt.reasons] == ["over_headroom"]
        assert hurt.reasons[0].values == {"peak_utilisation": 0.95, "limit": 0.9}

    def test_none_reaching_the_share_names_the_best(self) -> None:
        cells = [[(0, 1200, 3, 10), (0, 1100, 1, 10)]]
        built = table(cells)
        pick = recommend_fleet(built, [row(0)], setting_figures(built, 0.1), headroom=0.1, share=0.95)
        assert pick.setting is None and pick.codes == ("none_reach_share",)

    def test_hurt_runs_worst_first(self) -> None:
        cells = [
            [(0, 500, 0, 10), (0, 500, 0, 20)],  # dearer than its own best
            [(0, 1500, 5, 10), (0, 1500, 5, 10)],  # overflows
            [(0, 950, 0, 10), (0, 950, 0, 10)],  # over the headroom
        ] + [[(0, 100, 0, 5), (0, 100, 0, 5)]] * 40
        built = table(cells)
        runs = [replace(row(n), path=f"/runs/{n:02d}.json") for n in range(len(cells))]
        pick = recommend_fleet(built, runs, setting_figures(built, 0.1), headroom=0.1, share=0.9)
        assert pick.setting == (0.5, 0, 0.1) or pick.setting == (0.8, 0, 0.1)
        order = [h.key for h in pick.hurt]
        assert order[:2] == ["/runs/01.json#0", "/runs/02.json#0"]
        assert [h.code for h in pick.hurt[0].reasons] == ["overflows", "over_headroom"]

    def test_usd_when_every_run_has_a_price_and_loop_flags_counted(self) -> None:
        built = OutcomeTable.empty(SETTINGS)
        built.add_run(1000, [(1, 500, 0, 100, 0.5, 2), (0, 500, 0, 90, 0.4, 0)])
        built.add_run(1000, [(1, 500, 0, 100, 0.25, 0), (0, 500, 0, 90, 0.75, 0)])
        low, high = setting_figures(built, 0.1)
        assert (built.unit, low.unit, low.cost, high.cost) == ("usd", "usd", 0.75, 1.15)
        assert (low.loop_flags, high.loop_flags) == (1, 0)
        pick = recommend_fleet(built, [row(0), row(1)], (low, high), headroom=0.1, share=0.95)
        assert pick.setting == (0.5, 0, 0.1) and pick.codes == (
            "reaches_share",
            "qualifying",
            "cheapest_price",
            "loop_flagged",
        )
        built.add_run(1000, [(0, 1, 0, 5, math.nan, 0), (0, 1, 0, 5, math.nan, 0)])  # a run without a price
        assert built.unit == "tokens"

    def test_no_runs(self) -> None:
        built = table([])
        assert recommend_fleet(built, [], setting_figures(built, 0.1), headroom=0.1, share=0.95).codes == (
            "no_runs",
        )
