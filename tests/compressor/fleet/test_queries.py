"""The runs table read from the catalog: the same numbers as the fleet's own, filtered, sorted and cut in SQL."""

from __future__ import annotations

import shutil

import pytest

from compressor.fleet import Catalog, Fleet, InlineExecutor, RunFilter, facets, run_fleet, runs_table

from .runs import GRID, TAU_BENCH_5, write_fleet


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, Fleet]:
    root = tmp_path_factory.mktemp("queries")
    write_fleet(root / "runs", 6)
    shutil.copy(TAU_BENCH_5, root / "runs" / "tau.json")
    catalog = Catalog(root / "catalog")
    return catalog, run_fleet([root / "runs"], GRID, catalog, InlineExecutor())


def test_each_row_is_the_fleets_run_under_the_recommended_setting(built: tuple[Catalog, Fleet]) -> None:
    catalog, fleet = built
    rows, total = runs_table(catalog, fleet, None, RunFilter(limit=1000))
    assert total == len(fleet.runs) == len(rows)
    by_key = {row["key"]: row for row in rows}
    for run, outcome in zip(fleet.runs, fleet.picked, strict=True):
        row = by_key[run.key]
        assert outcome is not None
        assert (row["messages"], row["context_tokens"], row["agent"]) == (
            run.messages,
            run.context_tokens,
            run.agent,
        )
        assert (row["compactions"], row["peak_tokens"], row["steps_over_capacity"]) == (
            outcome.compactions,
            outcome.peak_tokens,
            outcome.steps_over_capacity,
        )


def test_filters_order_and_limit(built: tuple[Catalog, Fleet]) -> None:
    catalog, fleet = built
    rows, total = runs_table(
        catalog, fleet, None, RunFilter(order="context_tokens", descending=False, limit=3)
    )
    assert total == len(fleet.runs) and len(rows) == 3
    assert [r["context_tokens"] for r in rows] == sorted(r.context_tokens for r in fleet.runs)[:3]
    big, count = runs_table(catalog, fleet, None, RunFilter(min_tokens=3_000, limit=1000))
    assert count == sum(1 for r in fleet.runs if r.context_tokens >= 3_000) == len(big)
    compacting, _ = runs_table(catalog, fleet, (0.5, 0, 0.1), RunFilter(min_compactions=1, limit=1000))
    assert compacting and all(r["compactions"] >= 1 for r in compacting)
    agent = facets(fleet)["agents"][0]
    only, _ = runs_table(catalog, fleet, None, RunFilter(agents=(agent,), limit=1000))
    assert {r["agent"] for r in only} == {agent}


def test_an_unknown_order_is_refused(built: tuple[Catalog, Fleet]) -> None:
    catalog, fleet = built
    with pytest.raises(ValueError, match="order"):
        runs_table(catalog, fleet, None, RunFilter(order="size; DROP TABLE files"))
