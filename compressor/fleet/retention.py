"""What a fleet's setting keeps (retention), and the catalogued runs read back a batch at a time to score it.

Invariant: a run's retention is ``work.retention_of`` on the run rebuilt from the catalog, or, with a summary size
model and the sweep's own compactions at hand, the same figure from them: the summaries' share of the spans.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

from ..replay import SummaryModel
from .catalog import Catalog, counter_column
from .executors import Executor
from .figures import OutcomeTable, nearest_rank
from .values import FleetGrid, FleetRetention, RetentionSource, RunRow, SettingKey
from .work import RetentionTask, retention_of

#: Runs fetched from the catalog per query when their kept JSON is needed.
KEPT_BATCH = 128
#: What one run's compactions under one setting summarised: (span tokens, summary tokens).
Summarised = tuple[int, int]


def kept_batches(
    catalog: Catalog, runs: Sequence[RunRow], todo: Sequence[int], counter: str
) -> Iterator[tuple[int, bytes, tuple[int, ...] | None]]:
    """``(run, kept conversation, counts under counter)`` for the runs ``todo``, fetched a batch at a time."""
    column = counter_column(counter)
    for begin in range(0, len(todo), KEPT_BATCH):
        batch = todo[begin : begin + KEPT_BATCH]
        ids = [runs[run].run_id for run in batch]
        kept = catalog.kept(ids)
        with catalog.reading() as connection:
            counted = connection.execute(
                f"SELECT run_id, seq, list({column} ORDER BY part = 'context', position) FROM messages "
                f"WHERE run_id IN (SELECT unnest(?::VARCHAR[])) AND {column} IS NOT NULL GROUP BY run_id, seq "
                "ORDER BY seq",
                [ids],
            ).fetchall()
        counts = {run_id: tuple(values) for run_id, _, values in counted}  # the newest batch's counts win
        for run in batch:
            yield run, kept[runs[run].run_id], counts.get(runs[run].run_id)


def fleet_retention(
    catalog: Catalog,
    runs: Sequence[RunRow],
    table: OutcomeTable,
    grid: FleetGrid,
    setting: SettingKey,
    executor: Executor,
    cancel: threading.Event | None = None,
    summarised: Sequence[Summarised | None] | None = None,
) -> FleetRetention:
    """What ``setting``'s compactions keep, over the runs it compacts (see ``FleetRetention``).

    With a summary size model, each run's share is what its compactions summarised (``summarised``: per run,
    under ``setting``, as the sweep played them), else each run is simulated again from the catalog.
    """
    at, width = table.settings.index(setting), len(table.settings)
    todo = [run for run in range(table.runs) if table.compactions[run * width + at] > 0]
    if not todo:
        return FleetRetention(source="no_compaction", runs=0)
    offline = SummaryModel.parse(grid.summary).kind == "offline"
    source: RetentionSource = "measured" if offline else "summary_size"
    values: list[float]
    if not offline and summarised is not None and all(summarised[run] is not None for run in todo):
        # retention_of's figure, from the same compactions: the summaries' share of the spans they replaced
        shares = [_share(summarised[run]) for run in todo]
        values = [value for value in shares if value is not None]
    else:
        tasks = (
            RetentionTask(
                run_id=runs[run].run_id,
                kept=kept,
                counts=counts,
                context_max=runs[run].context_max,
                grid=grid,
                setting=setting,
            )
            for run, kept, counts in kept_batches(catalog, runs, todo, grid.counter)
        )
        values = [value for _, (_, value) in executor.map(retention_of, tasks, cancel) if value is not None]
    if not values:
        return FleetRetention(source=source, runs=0)
    return FleetRetention(
        source=source,
        runs=len(values),
        mean=round(sum(values) / len(values), 4),
        p50=nearest_rank(values, 0.5),
        low=nearest_rank(values, 0.05),
    )


def _share(summarised: Summarised | None) -> float | None:
    if summarised is None:
        return None
    spans, summaries = summarised
    return round(summaries / spans, 4) if spans else None
