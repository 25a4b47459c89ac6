"""The catalog, as a specification: its rows are what analyze() and simulate() say of each run, a second build
reads only what changed, bad files are listed and the rest catalogued, and no reader ever sees half a shard."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from compressor.analysis import analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.fleet import (
    BuildCounts,
    Catalog,
    CatalogError,
    InlineExecutor,
    build_catalog,
    default_root,
    discover,
    run_fleet,
)
from compressor.fleet.retention import fleet_retention
from compressor.fleet.sweeps import sweep_fleet
from compressor.fleet.values import outcome_from_json
from compressor.fleet.writer import writing
from compressor.formats import load_conversations
from compressor.replay import assess_simulation, simulate
from compressor.tokens import get_counter
from tests.conftest import FIXTURES

from .runs import CONTEXT_MAX, GRID, TAU_BENCH_5, write_fleet, write_run


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    write_fleet(runs)
    shutil.copy(TAU_BENCH_5, runs / "tau.json")
    return runs


def build(catalog: Catalog, folder: Path) -> BuildCounts:
    inputs, _ = discover([folder])
    return build_catalog(catalog, inputs, GRID, InlineExecutor())


class TestRowsAreTheLibrarysNumbers:
    def test_each_run_row_is_analyze_of_the_run(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        fleet = run_fleet([folder], GRID, catalog, InlineExecutor())
        assert len(fleet.runs) == 6 + 5  # six files of one run, one file of five
        for row in fleet.runs:
            conversation = load_conversations(Path(row.path))[row.conversation]
            analysis = analyze(conversation, context_max=CONTEXT_MAX)
            assert row.messages == len(conversation.messages)
            assert row.context_tokens == analysis.profile.context_tokens
            assert row.window_tokens == analysis.total_tokens
            assert row.window_source == analysis.total_source
            assert row.system_tokens == sum(analysis.profile.system_tokens)
            assert row.steps == sum(1 for m in conversation.messages if m.role == "assistant")
            assert row.format == conversation.source_format
            assert row.context_max == CONTEXT_MAX

    def test_each_outcome_row_is_simulate_of_the_run(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        fleet = run_fleet([folder], GRID, catalog, InlineExecutor())
        rows = catalog.query("SELECT run_id, ratio, keep, min_target, outcome FROM outcomes WHERE keep >= 0")
        stored = {(r[0], r[1], r[2], r[3]): outcome_from_json(r[4]) for r in rows}
        compacting = 0
        for row in fleet.runs:
            conversation = load_conversations(Path(row.path))[row.conversation]
            for ratio, keep, target in GRID.settings:
                config = CurrentRoundCompressorConfig(
                    trigger_context_ratio=ratio, keep_recent_messages=keep, min_target_context_ratio=target
                )
                expected = simulate(
                    conversation, config, context_max=CONTEXT_MAX, summary=GRID.summary
                ).outcome
                assert stored[(row.run_id, ratio, keep, target)] == expected
                compacting += expected.compactions > 0
        assert compacting  # the grid does compact some runs: the equality is not only of untouched runs

    def test_a_warm_sweep_of_a_new_grid_is_simulate_of_each_run(self, folder: Path, tmp_path: Path) -> None:
        """The fast path: runs rebuilt from the catalog with their counts, and settings above a run's untouched
        peak filled from its template, give simulate()'s numbers on the file for every cell."""
        catalog = Catalog(tmp_path / "catalog")
        run_fleet([folder], GRID, catalog, InlineExecutor())
        grid = replace(GRID, ratios=(0.55, 0.75, 0.95), keeps=(1, 4), min_targets=(0.05, 0.2))
        fleet = run_fleet([folder], grid, catalog, InlineExecutor())
        assert fleet.counts.processed == 0 and fleet.counts.swept > 0  # nothing read again, settings played
        table, swept = sweep_fleet(catalog, list(fleet.runs), grid, InlineExecutor())
        assert swept == 0  # the second time every cell is the catalog's
        width, compacting = len(grid.settings), 0
        for run, row in enumerate(fleet.runs):
            conversation = load_conversations(Path(row.path))[row.conversation]
            for at, (ratio, keep, target) in enumerate(grid.settings):
                config = CurrentRoundCompressorConfig(
                    trigger_context_ratio=ratio, keep_recent_messages=keep, min_target_context_ratio=target
                )
                simulation = simulate(conversation, config, context_max=CONTEXT_MAX, summary=grid.summary)
                assessed = assess_simulation(simulation, None)
                cell = run * width + at
                assert table.compactions[cell] == simulation.outcome.compactions
                assert table.peaks[cell] == simulation.outcome.peak_tokens
                assert table.over[cell] == simulation.outcome.steps_over_capacity
                assert table.tokens[cell] == assessed.tokens
                assert table.flagged[cell] == assessed.loops.flagged
                compacting += simulation.outcome.compactions > 0
        assert 0 < compacting < len(fleet.runs) * width  # both played and untouched cells were checked

    def test_each_message_row_has_its_count_role_class_and_pairing(
        self, folder: Path, tmp_path: Path
    ) -> None:
        catalog = Catalog(tmp_path / "catalog")
        fleet = run_fleet([folder], GRID, catalog, InlineExecutor())
        counter = get_counter("cl100k_base")
        run = next(r for r in fleet.runs if r.path.endswith("run-003.json"))
        rows = catalog.query(
            "SELECT role, role_class, tokens_cl100k_base, tokens_o200k_base, tool_call_id, paired_position "
            "FROM messages WHERE run_id = ? AND part = 'context' ORDER BY position",
            [run.run_id],
        )
        conversation = load_conversations(Path(run.path))[0]
        assert len(rows) == len(conversation.messages)
        callers = {call: i for i, m in enumerate(conversation.messages) for call in m.call_ids}
        for message, (role, role_class, tokens, other, call_id, paired) in zip(
            conversation.messages, rows, strict=True
        ):
            assert role == message.role
            assert tokens == counter.message_tokens(message)
            assert other is None  # only the fleet's counter is counted
            expected_class = {
                "user": "request" if message.is_real_user else "internal",
                "tool": "tool_output",
            }
            assert role_class == expected_class.get(message.role, message.role)
            assert call_id == message.tool_call_id
            assert paired == (callers[message.tool_call_id] if message.role == "tool" else -1)


class TestIncremental:
    def test_a_second_build_reads_nothing(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        first = build(catalog, folder)
        second = build(catalog, folder)
        assert (first.processed, first.reused) == (7, 0)
        assert (second.processed, second.reused) == (0, 7)

    def test_only_changed_and_new_files_are_processed_again(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        build(catalog, folder)
        write_run(folder / "run-000.json", 40, 99)  # changed content
        write_run(folder / "later" / "new.json", 20, 100)  # a new file
        touched = folder / "run-002.json"
        os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))  # same bytes
        again = build(catalog, folder)
        assert (again.files, again.processed, again.reused) == (8, 2, 6)
        fleet = run_fleet([folder], GRID, catalog, InlineExecutor())
        assert fleet.counts.processed == 0  # the touched file's new mtime was recorded with its old hash
        changed = next(r for r in fleet.runs if r.path.endswith("run-000.json"))
        assert changed.messages == len(load_conversations(folder / "run-000.json")[0].messages)

    def test_a_changed_counter_counts_again_and_keeps_the_other(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        build(catalog, folder)
        inputs, _ = discover([folder])
        other = build_catalog(catalog, inputs, replace(GRID, counter="o200k_base"), InlineExecutor())
        assert other.processed == 7
        assert build(catalog, folder).processed == 0

    def test_a_new_grid_is_played_from_the_catalog_once(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        run_fleet([folder], GRID, catalog, InlineExecutor())
        wider = replace(GRID, ratios=(0.55, 0.65, 0.75), keeps=(1, 5))
        first = run_fleet([folder], wider, catalog, InlineExecutor())
        again = run_fleet([folder], wider, catalog, InlineExecutor())
        assert (first.counts.processed, again.counts.processed) == (0, 0)
        assert first.counts.swept > 0 and again.counts.swept == 0
        assert again.to_dict()["settings"] == first.to_dict()["settings"]
        assert again.picked == first.picked


class TestBadInput:
    def test_a_corrupt_file_is_listed_and_the_rest_catalogued(self, folder: Path, tmp_path: Path) -> None:
        (folder / "broken.json").write_text(
            '{"messages": [{"role": "user", "content": "cut', encoding="utf-8"
        )
        (folder / "notes.jsonl").write_text("not json at all\n", encoding="utf-8")
        fleet = run_fleet([folder], GRID, Catalog(tmp_path / "catalog"), InlineExecutor())
        assert len(fleet.runs) == 11
        assert [Path(b.path).name for b in fleet.broken] == ["broken.json", "notes.jsonl"]
        for broken in fleet.broken:
            assert "\n" not in broken.error and broken.error
        assert fleet.counts.broken == 2
        assert fleet.recommendation.setting is not None

    def test_a_broken_file_is_not_read_again_until_it_changes(self, folder: Path, tmp_path: Path) -> None:
        (folder / "broken.json").write_text("[1, 2", encoding="utf-8")
        catalog = Catalog(tmp_path / "catalog")
        build(catalog, folder)
        again = build(catalog, folder)
        assert (again.processed, again.broken) == (0, 1)

    def test_a_missing_path_is_one_broken_line(self, tmp_path: Path) -> None:
        fleet = run_fleet([tmp_path / "nowhere"], GRID, Catalog(tmp_path / "catalog"), InlineExecutor())
        assert [b.error for b in fleet.broken] == ["no such file or folder"]


class TestAtomicWrites:
    def test_a_killed_builds_temp_is_invisible_and_removed_by_the_next_writer(
        self, folder: Path, tmp_path: Path
    ) -> None:
        catalog = Catalog(tmp_path / "catalog")
        build(catalog, folder)
        half = catalog.root / "runs" / ".part-00000099.12345.tmp"
        half.write_bytes(b"PAR1 half a file")
        assert catalog.query("SELECT count(*) FROM fleet_runs")[0][0] == 11  # readers never glob temps
        write_run(folder / "run-001.json", 30, 7)
        build(catalog, folder)
        assert not half.exists()

    def test_no_temp_is_left_after_a_build(self, folder: Path, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        build(catalog, folder)
        assert [p.name for p in catalog.root.rglob("*.tmp")] == []
        assert (catalog.root / "catalog.duckdb").exists()

    def test_one_writer_at_a_time(self, tmp_path: Path) -> None:
        catalog = Catalog(tmp_path / "catalog")
        with (
            writing(catalog),
            pytest.raises(CatalogError, match="another build"),
            writing(Catalog(catalog.root)),
        ):
            pass


class TestWhere:
    def test_the_default_folder_is_under_the_user_cache(self, tmp_path: Path) -> None:
        assert default_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "compaction-lab" / "catalog"
        assert default_root({"COMPACTION_LAB_CATALOG": str(tmp_path / "c")}) == tmp_path / "c"
        assert default_root({}).parts[-3:] == (".cache", "compaction-lab", "catalog")


class TestRetention:
    def test_the_recommended_settings_retention_is_over_the_runs_it_compacts(
        self, folder: Path, tmp_path: Path
    ) -> None:
        grid = replace(GRID, share=0.5)
        fleet = run_fleet([folder], grid, Catalog(tmp_path / "catalog"), InlineExecutor())
        assert fleet.recommendation.setting is not None and fleet.retention is not None
        compacting = sum(1 for outcome in fleet.picked if outcome is not None and outcome.compactions)
        assert compacting > 0  # the pick compacts some runs of this fleet: there is something to measure
        assert fleet.retention.source == "summary_size"
        assert fleet.retention.runs == compacting
        pick = fleet.figures(fleet.recommendation.setting)
        assert pick is not None and pick.retention == fleet.retention.mean
        assert fleet.to_dict()["recommendation"]["retention"]["runs"] == compacting

    def test_from_the_sweeps_compactions_it_is_each_runs_simulation_again(
        self, folder: Path, tmp_path: Path
    ) -> None:
        grid = replace(GRID, share=0.5)
        catalog = Catalog(tmp_path / "catalog")
        fleet = run_fleet([folder], grid, catalog, InlineExecutor())
        setting = fleet.recommendation.setting
        assert setting is not None and fleet.retention is not None
        runs = list(fleet.runs)
        table, _ = sweep_fleet(catalog, runs, grid, InlineExecutor())
        rows = dict(
            (run_id, (spans, summaries))
            for run_id, spans, summaries in catalog.query(
                "SELECT run_id, span_tokens, summary_tokens FROM outcomes "
                "WHERE ratio = ? AND keep = ? AND min_target = ?",
                list(setting),
            )
        )
        summarised = [rows.get(row.run_id) for row in runs]
        at, width = table.settings.index(setting), len(table.settings)
        compacted = [run for run in range(len(runs)) if table.compactions[run * width + at] > 0]
        assert compacted and all(summarised[run] is not None for run in compacted)  # the fast path is taken
        fast = fleet_retention(catalog, runs, table, grid, setting, InlineExecutor(), summarised=summarised)
        # summarised=None: every run the pick compacts simulated again from its kept JSON (retention_of)
        again = fleet_retention(catalog, runs, table, grid, setting, InlineExecutor())
        assert fast == again == fleet.retention and again.runs > 0

    def test_a_catalog_row_without_what_it_summarised_is_simulated_again(
        self, folder: Path, tmp_path: Path
    ) -> None:
        grid = replace(GRID, share=0.5)
        catalog = Catalog(tmp_path / "catalog")
        fleet = run_fleet([folder], grid, catalog, InlineExecutor())
        assert fleet.recommendation.setting is not None and fleet.retention is not None
        table, _ = sweep_fleet(catalog, list(fleet.runs), grid, InlineExecutor())
        unknown = [None] * len(fleet.runs)  # as rows written before span_tokens and summary_tokens existed
        assert (
            fleet_retention(
                catalog,
                list(fleet.runs),
                table,
                grid,
                fleet.recommendation.setting,
                InlineExecutor(),
                summarised=unknown,
            )
            == fleet.retention
        )


class TestOlderCatalogs:
    def test_outcome_shards_written_before_the_summarised_columns_are_read_and_swept(
        self, folder: Path, tmp_path: Path
    ) -> None:
        grid = replace(GRID, share=0.5)
        catalog = Catalog(tmp_path / "catalog")
        fleet = run_fleet([folder], grid, catalog, InlineExecutor())
        for _, shard in catalog.shards("outcomes"):  # as an older version wrote them
            temp = shard.with_name("old.parquet")
            duckdb.sql(
                f"COPY (SELECT * EXCLUDE (span_tokens, summary_tokens) FROM read_parquet('{shard}')) "
                f"TO '{temp}' (FORMAT PARQUET)"
            )
            temp.replace(shard)
        assert catalog.query("SELECT count(*), count(span_tokens) FROM outcomes")[0][1] == 0
        again = run_fleet([folder], grid, catalog, InlineExecutor())
        assert again.settings == fleet.settings and again.retention == fleet.retention
        assert again.counts.swept == 0  # every outcome came from the catalog


class TestUnusableFolder:
    def test_a_catalog_under_a_file_is_one_line(self, tmp_path: Path) -> None:
        blocker = tmp_path / "file"
        blocker.write_text("not a folder", encoding="utf-8")
        with pytest.raises(CatalogError, match="cannot make the catalog folder"):
            Catalog(blocker / "catalog")


class TestRecordedWindow:
    def test_a_run_recording_its_window_is_swept_in_it_from_the_file_and_from_the_catalog(
        self, tmp_path: Path
    ) -> None:
        # a Codex rollout records model_context_window 272,000 (its model is 400,000 in the table)
        folder = tmp_path / "runs"
        folder.mkdir()
        source = next((FIXTURES / "formats" / "codex").glob("rollout-2025-10-14T09-00-00-*.jsonl"))
        shutil.copy(source, folder / source.name)
        grid = replace(GRID, context_max=None)
        catalog = Catalog(tmp_path / "catalog")
        for fleet in (
            run_fleet([folder], grid, catalog, InlineExecutor()) for _ in range(2)
        ):  # built, then read
            (row,) = fleet.runs
            assert (row.recorded_window, row.context_max, row.context_max_source) == (
                272_000,
                272_000,
                "recorded",
            )
        assert fleet.counts.processed == 0
