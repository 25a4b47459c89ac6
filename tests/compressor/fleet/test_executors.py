"""Executors: this process, a pool of local processes and a real Dask LocalCluster give identical fleets; a
cancelled map stops early; a wrong setting is one line."""

from __future__ import annotations

import io
import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from distributed import LocalCluster

from compressor.cli.main import main
from compressor.errors import ConfigError
from compressor.fleet import (
    EXECUTORS,
    Catalog,
    DaskExecutor,
    Fleet,
    InlineExecutor,
    ProcessExecutor,
    make_executor,
    run_fleet,
)

from .runs import GRID, TAU_BENCH_5, write_fleet


def tables(fleet: Fleet) -> dict[str, Any]:
    """What must not depend on where the work ran: every table of the fleet (not the catalog's folder)."""
    document = fleet.to_dict()
    return {key: document[key] for key in ("runs", "broken", "settings", "recommendation")}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("fleet") / "runs"
    write_fleet(runs, 8)
    shutil.copy(TAU_BENCH_5, runs / "tau.json")
    (runs / "broken.json").write_text("[{", encoding="utf-8")
    return runs


@pytest.fixture(scope="module")
def inline(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    return run_fleet([folder], GRID, Catalog(tmp_path_factory.mktemp("inline")), InlineExecutor())


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    # In-process workers (threads): a real scheduler and workers, without paying for spawned interpreters.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as running:
        yield running


class TestIdenticalTables:
    def test_a_process_pool_gives_the_inline_fleet(self, folder: Path, inline: Fleet, tmp_path: Path) -> None:
        executor = ProcessExecutor(2)
        try:
            fleet = run_fleet([folder], GRID, Catalog(tmp_path / "catalog"), executor)
        finally:
            executor.close()
        assert tables(fleet) == tables(inline)
        assert fleet.counts.processed == inline.counts.processed == 10

    def test_a_dask_local_cluster_gives_the_inline_fleet(
        self, folder: Path, inline: Fleet, cluster: LocalCluster, tmp_path: Path
    ) -> None:
        executor = make_executor(scheduler=cluster.scheduler_address)
        assert isinstance(executor, DaskExecutor) and executor.workers == 2
        try:
            fleet = run_fleet([folder], GRID, Catalog(tmp_path / "catalog"), executor)
            assert tables(fleet) == tables(inline)
            again = run_fleet(
                [folder], replace(GRID, ratios=(0.6, 0.8)), Catalog(tmp_path / "catalog"), executor
            )
            assert (
                again.counts.processed == 0 and again.counts.swept > 0
            )  # played on the cluster from the catalog
        finally:
            executor.close()

    def test_a_catalog_built_by_one_executor_is_swept_the_same_by_another(
        self, folder: Path, inline: Fleet, tmp_path: Path
    ) -> None:
        catalog = Catalog(tmp_path / "catalog")
        run_fleet([folder], replace(GRID, ratios=(0.6,)), catalog, InlineExecutor())
        executor = ProcessExecutor(2)
        try:
            fleet = run_fleet([folder], GRID, catalog, executor)
        finally:
            executor.close()
        assert fleet.counts.processed == 0
        assert tables(fleet) == tables(inline)


class TestMapping:
    def test_a_cancelled_map_stops_early(self) -> None:
        cancel = threading.Event()
        seen = []
        for position, value in InlineExecutor().map(lambda n: n * 2, range(100), cancel):
            seen.append((position, value))
            cancel.set()
        assert seen == [(0, 0)]

    def test_the_pool_yields_every_position_once(self) -> None:
        executor = ProcessExecutor(2)
        try:
            got = sorted(executor.map(abs, range(-30, 0)))
        finally:
            executor.close()
        assert got == [(i, abs(n)) for i, n in enumerate(range(-30, 0))]

    def test_the_registry_and_its_choices(self) -> None:
        assert list(EXECUTORS) == ["inline", "processes", "dask"]
        assert isinstance(make_executor(jobs=1), InlineExecutor)
        with pytest.raises(ConfigError, match="--jobs"):
            make_executor(jobs=0)


class TestCommandLine:
    def test_scheduler_runs_the_cli_fleet_on_the_cluster(
        self, folder: Path, inline: Fleet, cluster: LocalCluster, tmp_path: Path
    ) -> None:
        out, err = io.StringIO(), io.StringIO()
        code = main(
            [
                "fleet",
                str(folder),
                "--catalog",
                str(tmp_path / "c"),
                "--scheduler",
                cluster.scheduler_address,
                "--ratios",
                ",".join(map(str, GRID.ratios)),
                "--keeps",
                ",".join(map(str, GRID.keeps)),
                "--context-max",
                str(GRID.context_max),
                "--json",
            ],
            out=out,
            err=err,
        )
        assert code == 0, err.getvalue()
        document = json.loads(out.getvalue())
        assert {key: document[key] for key in ("runs", "broken", "settings")} == {
            key: tables(inline)[key] for key in ("runs", "broken", "settings")
        }
        assert document["recommendation"] == {**tables(inline)["recommendation"]}
