"""A fleet: build the catalog, take every run's outcomes for the grid from it (playing only the settings it
does not hold, from the kept runs), and add them up into each setting's figures and the recommendation.

Invariant: every outcome is ``replay.sweep`` on the run (from the file, or rebuilt from the catalog with its
counts) or, for a setting whose threshold lies above the run's untouched peak, that untouched outcome with
the setting's own numbers — which is what ``sweep`` returns there; files are never read again for a sweep.
"""

from __future__ import annotations

import math
import threading
import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from ..replay import Outcome
from ..trigger import min_target_for, threshold_for
from ..windows import resolve_context_max
from .build import FLUSH_BYTES, Progress, ProgressFn, build_catalog
from .catalog import Catalog
from .executors import Executor
from .figures import Cell, OutcomeTable, recommend_fleet, setting_figures
from .inputs import discover
from .plays import cell
from .retention import Summarised, fleet_retention, kept_batches
from .values import (
    Bill,
    Broken,
    Fleet,
    FleetGrid,
    RunRow,
    SettingKey,
    outcome_from_json,
)
from .work import SweepTask, SweptCells, sweep_cells
from .writer import writing


def fleet_runs(catalog: Catalog, paths: Sequence[str], grid: FleetGrid) -> tuple[list[RunRow], list[Broken]]:
    """The catalogued runs of ``paths`` (sorted by file, then conversation) and the files that failed."""
    with catalog.reading() as connection:
        connection.execute("CREATE TEMP TABLE wanted AS SELECT unnest(?::VARCHAR[]) AS path", [list(paths)])
        runs = connection.execute(
            "SELECT run_id, path, conversation, name, format, agent, model, size, mtime_ns, hash, messages, "
            "context_tokens, system_tokens, tools_tokens, window_tokens, window_source, steps, recorded_compactions, "
            "recorded_window "
            "FROM fleet_runs JOIN wanted USING (path) WHERE counter = ? ORDER BY path, conversation",
            [grid.counter],
        ).fetchall()
        failed = connection.execute(
            "SELECT path, error FROM files JOIN wanted USING (path) WHERE counter = ? AND error IS NOT NULL "
            "ORDER BY path",
            [grid.counter],
        ).fetchall()
    rows = []
    for row in runs:
        capacity = resolve_context_max(grid.context_max, grid.model, run_model=row[6], run_window=row[18])
        rows.append(
            RunRow(
                run_id=row[0],
                path=row[1],
                conversation=row[2],
                name=row[3],
                format=row[4],
                agent=row[5],
                model=row[6],
                recorded_window=row[18],
                size=row[7],
                mtime_ns=row[8],
                hash=row[9],
                messages=row[10],
                context_tokens=row[11],
                system_tokens=row[12],
                tools_tokens=row[13],
                window_tokens=row[14],
                window_source=row[15],
                steps=row[16],
                recorded_compactions=row[17],
                context_max=capacity.tokens,
                context_max_source=capacity.source,
            )
        )
    return rows, [Broken(path, error) for path, error in failed]


def from_template(template: Outcome, setting: SettingKey) -> Outcome:
    """The untouched outcome under another setting that makes no attempt either: only the setting's own numbers
    differ (``replay``'s player reads a setting only through its threshold and min target)."""
    ratio, keep, target = setting
    return replace(
        template,
        trigger_context_ratio=ratio,
        keep_recent_messages=keep,
        min_target_context_ratio=target,
        threshold=threshold_for(template.context_max, ratio),
        min_target_tokens=min_target_for(template.context_max, target),
    )


class Collected:
    """The grid's numbers per run as they are found (catalog, template, or played), then the table."""

    def __init__(self, runs: Sequence[RunRow], grid: FleetGrid) -> None:
        self.runs, self.grid = runs, grid
        self.settings = grid.settings
        self.position = {setting: at for at, setting in enumerate(self.settings)}
        # Cells, which are found (a byte each) and what their compactions summarised in flat arrays: dicts of tuples
        # per run held ~30 KB a run of a 100-setting grid in the parent, so the fleet's peak grew with its size.
        self.width = len(self.settings)
        self.cells = OutcomeTable.sized(self.settings, [row.context_max for row in runs])
        self.known = bytearray(len(runs) * self.width)
        zeros = bytes(8 * len(self.known))
        self.spans, self.summaries = array("q", zeros), array("q", zeros)
        #: the cells whose catalog row predates the summarised numbers
        self.unsummarised: set[tuple[int, int]] = set()
        #: per run, its untouched outcome and bill (None: every setting as high as any touches the run)
        self.templates: dict[int, tuple[Outcome, Bill] | None] = {}

    def summarised_at(self, at: int) -> list[Summarised | None]:
        """Per run, what its compactions under setting ``at`` summarised (None: not known)."""
        cells = range(at, len(self.known), self.width)
        return [
            None if (run, at) in self.unsummarised else (self.spans[cell], self.summaries[cell])
            for run, cell in enumerate(cells)
        ]

    def put(self, run: int, at: int, numbers: Cell) -> None:
        self.cells.put(run * self.width + at, numbers)
        self.known[run * self.width + at] = 1

    def summarise(self, run: int, at: int, span: int, summary: int) -> None:
        self.spans[run * self.width + at], self.summaries[run * self.width + at] = span, summary

    def has(self, run: int, at: int) -> bool:
        return self.known[run * self.width + at] == 1

    def missing(self, run: int) -> tuple[SettingKey, ...]:
        base = run * self.width
        return tuple(s for at, s in enumerate(self.settings) if not self.known[base + at])

    def table(self) -> OutcomeTable:
        if 0 in self.known:
            raise RuntimeError("the fleet's table is asked for before every run has every setting")
        return self.cells


def _from_catalog(catalog: Catalog, collected: Collected) -> None:
    """Every outcome and template the catalog holds for these runs under this grid's play keys."""
    grid, runs = collected.grid, collected.runs
    index = {(row.run_id, grid.play_key(row.context_max)): run for run, row in enumerate(runs)}
    templates = {(row.run_id, grid.template_key(row.context_max)): run for run, row in enumerate(runs)}
    wanted = [*index, *templates]
    with catalog.reading() as connection:
        connection.execute(
            "CREATE TEMP TABLE wanted AS SELECT unnest(?::VARCHAR[]) AS run_id, unnest(?::VARCHAR[]) AS play_key",
            [[w[0] for w in wanted], [w[1] for w in wanted]],
        )
        # a template's outcome JSON only: a played setting's cell is in its columns
        rows = connection.execute(
            "SELECT run_id, play_key, ratio, keep, min_target, compactions, peak_tokens, steps_over_capacity, "
            "tokens, cost, flagged, CASE WHEN keep = -1 THEN outcome END, span_tokens, summary_tokens "
            "FROM outcomes JOIN wanted USING (run_id, play_key)"
        ).fetchall()
    position = collected.position
    for row in rows:
        run_id, play_key, ratio, keep, target, compactions, peak, over, tokens, cost, flagged = row[:11]
        if keep == -1 and (run_id, play_key) in templates:
            text = row[11]
            bill = Bill(tokens=tokens, cost=cost, flagged=0, span_tokens=0, summary_tokens=0)
            collected.templates[templates[(run_id, play_key)]] = (
                (outcome_from_json(text), bill) if text else None
            )
            continue
        at = position.get((ratio, keep, target))
        run = index.get((run_id, play_key))
        if at is not None and run is not None:
            money = cost if cost is not None else math.nan
            collected.put(run, at, (compactions, peak, over, tokens, money, flagged))
            if row[12] is None or row[13] is None:
                collected.unsummarised.add((run, at))
            elif row[12]:
                collected.summarise(run, at, row[12], row[13])


def _fill_untouched(collected: Collected) -> None:
    """A setting whose threshold lies above the run's untouched peak makes no attempt: the untouched cell (every
    number of a cell is the untouched outcome's there, see ``from_template``)."""
    limits: dict[int, list[int]] = {}  # each setting's threshold, per capacity
    for run, untouched in collected.templates.items():
        if untouched is None:
            continue
        template, bill = untouched
        untouched_cell = cell(template, bill)
        thresholds = limits.get(template.context_max)
        if thresholds is None:
            thresholds = limits[template.context_max] = [
                threshold_for(template.context_max, setting[0]) for setting in collected.settings
            ]
        for at, threshold in enumerate(thresholds):
            if not collected.has(run, at) and template.peak_tokens < threshold:
                collected.put(run, at, untouched_cell)


def _sweep_tasks(catalog: Catalog, collected: Collected, todo: Sequence[int]) -> Iterator[SweepTask]:
    """The runs still missing settings, each with its kept JSON and counts."""
    for run, kept, counts in kept_batches(catalog, collected.runs, todo, collected.grid.counter):
        row = collected.runs[run]
        yield SweepTask(
            run_id=row.run_id,
            kept=kept,
            counts=counts,
            context_max=row.context_max,
            grid=collected.grid,
            settings=collected.missing(run),
            template=run not in collected.templates,
        )


def sweep_fleet(
    catalog: Catalog,
    runs: Sequence[RunRow],
    grid: FleetGrid,
    executor: Executor,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> tuple[OutcomeTable, int]:
    """Every run's numbers for every setting of the grid, and how many runs had settings played."""
    collected, swept = _sweep(catalog, runs, grid, executor, progress=progress, cancel=cancel)
    return (collected.table() if collected is not None else OutcomeTable.empty(grid.settings)), swept


def _sweep(
    catalog: Catalog,
    runs: Sequence[RunRow],
    grid: FleetGrid,
    executor: Executor,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> tuple[Collected | None, int]:
    """``sweep_fleet``'s numbers as collected (None when cancelled before every run had them)."""
    began = time.monotonic()
    collected = Collected(runs, grid)
    _from_catalog(catalog, collected)
    _fill_untouched(collected)
    todo = [run for run in range(len(runs)) if collected.missing(run)]
    # Longest first (steps times settings to play), so the last task to finish is a short one: no core idles.
    todo.sort(key=lambda run: -runs[run].steps * len(collected.missing(run)))
    position = {row.run_id: run for run, row in enumerate(runs)}
    if todo:
        with writing(catalog) as writer:
            results = executor.map(sweep_cells, _sweep_tasks(catalog, collected, todo), cancel)
            for done, (_, result) in enumerate(results, start=1):
                run = position[result.run_id]
                _take(collected, run, result)
                writer.add_lines("outcomes", result.lines)  # the worker wrote the rows (and the template's)
                if writer.pending_bytes >= FLUSH_BYTES:  # memory stays flat however many runs are swept
                    writer.flush(wait=False)
                if progress is not None:
                    progress(
                        Progress(phase="sweep", total=len(todo), done=done, elapsed=time.monotonic() - began)
                    )
    if cancel is not None and cancel.is_set() and any(collected.missing(run) for run in todo):
        return None, len(todo)
    return collected, len(todo)


def _take(collected: Collected, run: int, result: SweptCells) -> None:
    for setting, numbers, (span, summary) in zip(
        result.settings, result.cells, result.summarised, strict=True
    ):
        at = collected.position[setting]
        collected.put(run, at, numbers)
        if span is not None and summary is not None:
            if span:
                collected.summarise(run, at, span, summary)
        else:
            collected.unsummarised.add((run, at))


def picked_outcomes(
    catalog: Catalog, runs: Sequence[RunRow], grid: FleetGrid, setting: SettingKey
) -> list[Outcome | None]:
    """Each run's outcome under ``setting`` (from the catalog, else its untouched outcome moved to it)."""
    ratio, keep, target = setting
    keys = [grid.play_key(row.context_max) for row in runs]
    untouched = [grid.template_key(row.context_max) for row in runs]
    with catalog.reading() as connection:
        connection.execute(
            "CREATE TEMP TABLE wanted AS SELECT unnest(?::VARCHAR[]) AS run_id, unnest(?::VARCHAR[]) AS play_key",
            [[row.run_id for row in runs] * 2, keys + untouched],
        )
        rows = connection.execute(
            "SELECT run_id, play_key, ratio, keep, min_target, outcome FROM outcomes JOIN wanted USING (run_id, play_key) "
            "WHERE (ratio = ? AND keep = ? AND min_target = ?) OR keep = -1",
            [ratio, keep, target],
        ).fetchall()
    played = {(r[0], r[1]): outcome_from_json(r[5]) for r in rows if r[3] != -1 and r[5]}
    templates = {(r[0], r[1]): outcome_from_json(r[5]) for r in rows if r[3] == -1 and r[5]}
    out: list[Outcome | None] = []
    for row, key, template_key in zip(runs, keys, untouched, strict=True):
        found = played.get((row.run_id, key))
        if found is None and (row.run_id, template_key) in templates:
            found = from_template(templates[(row.run_id, template_key)], setting)
        out.append(found)
    return out


def run_fleet(
    paths: Sequence[str | Path],
    grid: FleetGrid,
    catalog: Catalog,
    executor: Executor,
    *,
    standard: bool = False,
    home: Path | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> Fleet:
    """The whole fleet: catalogue what changed, sweep the grid over every run, figures and recommendation."""
    inputs, unlisted = discover(paths, standard=standard, home=home)
    counts = build_catalog(catalog, inputs, grid, executor, progress=progress, cancel=cancel)
    runs, failed = fleet_runs(catalog, [entry.path for entry in inputs], grid)
    broken = tuple(sorted([*unlisted, *failed], key=lambda b: b.path))
    collected: Collected | None = None
    if counts.cancelled:
        table, swept = OutcomeTable.empty(grid.settings), 0
        runs = []
    else:
        collected, swept = _sweep(catalog, runs, grid, executor, progress=progress, cancel=cancel)
        table = collected.table() if collected is not None else OutcomeTable.empty(grid.settings)
        if table.runs != len(runs):  # cancelled while sweeping
            runs, counts = [], replace(counts, cancelled=True)
    figures = setting_figures(table, grid.headroom)
    recommendation = recommend_fleet(table, runs, figures, headroom=grid.headroom, share=grid.share)
    picked: list[Outcome | None] = []
    retention = None
    if recommendation.setting is not None:
        picked = picked_outcomes(catalog, runs, grid, recommendation.setting)
        at = table.settings.index(recommendation.setting)
        summarised = collected.summarised_at(at) if collected is not None else None
        retention = fleet_retention(
            catalog, runs, table, grid, recommendation.setting, executor, cancel, summarised
        )
        figures = tuple(
            replace(f, retention=retention.mean, retention_source=retention.source)
            if f.setting == recommendation.setting
            else f
            for f in figures
        )
    if progress is not None:
        progress(Progress(phase="done", total=len(runs), done=len(runs)))
    return Fleet(
        grid=grid,
        runs=tuple(runs),
        broken=broken,
        settings=figures,
        recommendation=recommendation,
        counts=replace(counts, runs=len(runs), swept=swept, broken=len(broken)),
        catalog=str(catalog.root),
        picked=tuple(picked),
        retention=retention,
    )
