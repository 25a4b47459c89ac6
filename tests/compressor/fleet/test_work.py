"""The per-run work as pure functions: the same task gives the same result, a catalogued run rebuilt from its
kept JSON sweeps number for number as the file it came from (without tokenising again), and the untouched
outcome moved to another setting is what sweep() returns there."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from compressor.config import CurrentRoundCompressorConfig
from compressor.cost import find_price, price_table
from compressor.fleet import FileTask, FleetGrid, SweepTask, process_file, sweep_kept
from compressor.fleet.sweeps import from_template
from compressor.fleet.work import RetentionTask, bill, rebuild, retention_of
from compressor.formats import load_conversations
from compressor.quality import score_replay
from compressor.replay import assess, simulate, sweep
from compressor.tokens import _token_cache
from compressor.trigger import threshold_for
from tests.compressor.test_simulate import generated, messy

from .runs import CONTEXT_MAX, GRID, TAU_BENCH_5, write_run


def task(path: Path, known_hash: str | None = None, grid: FleetGrid = GRID) -> FileTask:
    info = path.stat()
    return FileTask(
        path=str(path), size=info.st_size, mtime_ns=info.st_mtime_ns, known_hash=known_hash, grid=grid
    )


class TestProcessFile:
    def test_the_same_task_gives_the_same_result(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 60, 3)
        first, second = process_file(task(path)), process_file(task(path))
        assert first == second
        assert [r.outcomes for r in first.runs] == [r.outcomes for r in second.runs]

    def test_a_file_holding_several_conversations_gives_a_run_each(self) -> None:
        result = process_file(task(TAU_BENCH_5))
        assert [run.row.conversation for run in result.runs] == [0, 1, 2, 3, 4]
        assert len({run.row.run_id for run in result.runs}) == 5

    def test_a_known_hash_is_not_read_again(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 20, 3)
        first = process_file(task(path))
        again = process_file(task(path, known_hash=first.hash))
        assert again.unchanged and again.runs == () and again.hash == first.hash

    def test_an_unreadable_file_is_one_line(self, tmp_path: Path) -> None:
        gone = process_file(FileTask(path=str(tmp_path / "gone.json"), size=0, mtime_ns=0, grid=GRID))
        assert gone.error is not None and "cannot read the file" in gone.error and "\n" not in gone.error
        bad = tmp_path / "bad.json"
        bad.write_text("{", encoding="utf-8")
        assert process_file(task(bad)).error is not None


class TestSweepKept:
    def test_a_kept_run_sweeps_as_its_file_with_other_settings(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 90, 5)
        run = process_file(task(path)).runs[0]
        counts = run.counts
        settings = tuple((r, k, 0.2) for k in (1, 5) for r in (0.55, 0.65, 0.85))
        again = sweep_kept(
            SweepTask(
                run_id=run.row.run_id,
                kept=run.kept,
                counts=counts,
                context_max=CONTEXT_MAX,
                grid=GRID,
                settings=settings,
                template=True,
            )
        )
        conversation = load_conversations(path)[0]
        expected = sweep(
            conversation,
            ratios=(0.55, 0.65, 0.85),
            keeps=(1, 5),
            min_targets=(0.2,),
            context_max=CONTEXT_MAX,
            summary=GRID.summary,
        )
        assert again.outcomes == expected.outcomes
        assert sum(o.compactions for o in again.outcomes) > 0
        assert again.template == run.template

    def test_the_rebuilt_run_holds_the_counts_before_any_sweep(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 30, 5)
        run = process_file(task(path)).runs[0]
        counts = run.counts
        conversation = rebuild(run.kept, "cl100k_base", counts)
        held = [_token_cache(m).get("cl100k_base") for m in [*conversation.system, *conversation.messages]]
        assert held == list(counts)
        assert conversation == load_conversations(path)[0]

    def test_the_rebuilt_run_has_the_fields_its_reader_set(self) -> None:
        # what a dump or a copy of it writes (exclude_unset) is what the file gave, not every default spelt out
        loaded = load_conversations(TAU_BENCH_5)[0]
        rebuilt = rebuild(process_file(task(TAU_BENCH_5)).runs[0].kept, "cl100k_base", None)
        for before, after in zip(
            [*loaded.system, *loaded.messages], [*rebuilt.system, *rebuilt.messages], strict=True
        ):
            assert after.model_fields_set == before.model_fields_set
        assert rebuilt.model_dump(exclude_unset=True) == loaded.model_dump(exclude_unset=True)

    def test_the_untouched_outcome_moved_to_a_setting_above_its_peak_is_sweeps(self, tmp_path: Path) -> None:
        capacity = 20_000
        grid = replace(GRID, context_max=capacity)
        for number, messages in enumerate((10, 40, 70)):
            path = write_run(tmp_path / f"run-{number}.json", messages, number)
            run = process_file(task(path, grid=grid)).runs[0]
            assert run.template is not None
            conversation = load_conversations(path)[0]
            ratios = tuple(
                r for r in (0.3, 0.5, 0.7, 0.9, 0.95) if threshold_for(capacity, r) > run.template.peak_tokens
            )
            assert ratios
            swept = sweep(
                conversation,
                ratios=ratios,
                keeps=(0, 2),
                min_targets=(0.05, 0.3),
                context_max=capacity,
                summary="ratio:0.2",
            )
            for outcome in swept.outcomes:
                assert from_template(run.template, outcome.key) == outcome


class TestRetention:
    def test_measured_with_offline_summaries_is_quality_s_score(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 60, 5)
        grid = replace(GRID, summary="offline")
        run = process_file(task(path, grid=grid)).runs[0]
        setting = (0.6, 0, 0.1)
        _, measured = retention_of(
            RetentionTask(
                run_id="r",
                kept=run.kept,
                counts=run.counts,
                context_max=CONTEXT_MAX,
                grid=grid,
                setting=setting,
            )
        )
        conversation = load_conversations(path)[0]
        config = CurrentRoundCompressorConfig(trigger_context_ratio=0.6, keep_recent_messages=0)
        simulation = simulate(conversation, config, context_max=CONTEXT_MAX, summary="offline")
        assert simulation.compactions > 0
        assert measured is not None
        assert measured == score_replay(conversation, simulation).to_dict()["overall"]["macro"]

    def test_a_sized_summary_gives_the_size_models_share(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 60, 5)
        run = process_file(task(path)).runs[0]
        _, share = retention_of(
            RetentionTask(
                run_id="r",
                kept=run.kept,
                counts=run.counts,
                context_max=CONTEXT_MAX,
                grid=GRID,
                setting=(0.6, 0, 0.1),
            )
        )
        assert (
            share is not None and 0.09 <= share <= 0.1
        )  # ratio:0.1 of each span, rounded down to whole tokens

    def test_nothing_compacted_has_no_retention(self, tmp_path: Path) -> None:
        path = write_run(tmp_path / "run.json", 8, 5)
        run = process_file(task(path)).runs[0]
        assert retention_of(
            RetentionTask(
                run_id="r",
                kept=run.kept,
                counts=run.counts,
                context_max=CONTEXT_MAX,
                grid=GRID,
                setting=(0.9, 0, 0.1),
            )
        ) == ("r", None)


class TestBill:
    """A cell's bill is ``replay.assess``'s totals and loop flags for the same outcome and attempts."""

    def test_every_setting_of_a_grid_is_billed_as_assess_does(self) -> None:

        price = find_price("gpt-4o", price_table())
        assert price is not None
        flagged = 0
        for conversation, context_max in ((generated(300, 3), 16_000), (messy(2, 220), 2_000)):
            swept = sweep(
                conversation,
                ratios=(0.3, 0.5, 0.7, 0.9),
                keeps=(0, 1, 4),
                min_targets=(0.0, 0.1),
                context_max=context_max,
                summary="ratio:0.1",
            )
            for outcome, attempts in zip(swept.outcomes, swept.attempts, strict=True):
                for priced in (price, None):
                    assessed = assess(outcome, attempts, priced, lines=False)
                    billed = bill(outcome, attempts, priced)
                    assert billed.tokens == assessed.tokens
                    assert billed.cost == (assessed.cost if priced is not None else None)
                    assert billed.flagged == assessed.loops.flagged
                    flagged += billed.flagged
        assert flagged > 0  # the loop flags were exercised
