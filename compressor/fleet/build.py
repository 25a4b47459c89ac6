"""Building the catalog: every input that is new or changed is read, counted and swept once, by an executor;
the rest are taken from the catalog as they are.

Invariant: a file whose size and mtime are the catalog's is not opened; one whose hash is the catalog's is
hashed but not read again; results are written in batches as they come (bounded memory, and a killed build
keeps every batch it wrote); ``cancel`` stops the build between results, keeping what was written.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from .catalog import Catalog, FileRecord
from .executors import Executor
from .inputs import Input
from .values import BuildCounts, FleetGrid
from .work import FileResult, FileTask, process_file
from .writer import writing

Phase = Literal["build", "sweep", "done"]
#: A batch is written after this many files, this much kept data or this many seconds, whichever comes first.
#: Each batch costs its shards' fixed overhead (a DuckDB COPY per dataset, ~3 ms each, in the parent, on the cores
#: the workers use): 64 files a batch spent 0.43 s of CPU writing 1,000 runs, 256 spend 0.23 s.
FLUSH_FILES = 256
FLUSH_BYTES = 16 << 20
FLUSH_SECONDS = 2.0


@dataclass(frozen=True, kw_only=True)
class Progress:
    """Where a build or a sweep is: counts, bytes and the time so far (the ETA is a straight line on bytes)."""

    phase: Phase
    total: int  # files to process (build) or runs to sweep (sweep)
    done: int
    processed: int = 0
    reused: int = 0
    broken: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    elapsed: float = 0.0

    @property
    def fraction(self) -> float:
        if self.bytes_total:
            return min(self.bytes_done / self.bytes_total, 1.0)
        return self.done / self.total if self.total else 1.0

    @property
    def eta_seconds(self) -> float | None:
        fraction = self.fraction
        if fraction <= 0.0 or fraction >= 1.0:
            return None if fraction <= 0.0 else 0.0
        return self.elapsed * (1.0 - fraction) / fraction


ProgressFn = Callable[[Progress], None]


def _current(entry: Input, record: FileRecord | None) -> bool:
    return record is not None and record.size == entry.size and record.mtime_ns == entry.mtime_ns


def build_catalog(
    catalog: Catalog,
    inputs: Sequence[Input],
    grid: FleetGrid,
    executor: Executor,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> BuildCounts:
    """Bring the catalog up to date for ``inputs`` under ``grid.counter`` (the grid's outcomes written too)."""
    began = time.monotonic()
    known = catalog.known([entry.path for entry in inputs], grid.counter)
    stale = [entry for entry in inputs if not _current(entry, known.get(entry.path))]
    reused = len(inputs) - len(stale)
    broken = sum(1 for entry in inputs if _current(entry, known.get(entry.path)) and known[entry.path].error)
    # Largest first, so the last task to finish is a small one and no core idles at the end.
    stale.sort(key=lambda entry: (-entry.size, entry.path))
    tasks = [
        FileTask(
            path=e.path,
            size=e.size,
            mtime_ns=e.mtime_ns,
            agent=e.agent,
            known_hash=known[e.path].hash if e.path in known else None,
            grid=grid,
        )
        for e in stale
    ]
    total_bytes = sum(entry.size for entry in stale)
    processed = done_bytes = 0

    def report(done: int) -> None:
        if progress is not None:
            progress(
                Progress(
                    phase="build",
                    total=len(tasks),
                    done=done,
                    processed=processed,
                    reused=reused,
                    broken=broken,
                    bytes_total=total_bytes,
                    bytes_done=done_bytes,
                    elapsed=time.monotonic() - began,
                )
            )

    report(0)
    done = 0
    if tasks:
        with writing(catalog) as writer:
            flushed = time.monotonic()
            for _, result in executor.map(process_file, tasks, cancel):
                done += 1
                done_bytes += result.size
                if result.unchanged:
                    reused += 1
                    record = known[result.path]
                    writer.add(
                        FileResult(
                            path=result.path,
                            size=result.size,
                            mtime_ns=result.mtime_ns,
                            hash=result.hash,
                            counter=result.counter,
                            error=record.error,
                        ),
                        runs=record.runs,
                    )
                    broken += 1 if record.error else 0
                else:
                    writer.add(result)
                    processed += 1
                    broken += 1 if result.error else 0
                if (
                    writer.pending_files >= FLUSH_FILES
                    or writer.pending_bytes >= FLUSH_BYTES
                    or time.monotonic() - flushed >= FLUSH_SECONDS
                ):
                    writer.flush(wait=False)
                    flushed = time.monotonic()
                report(done)
    cancelled = cancel is not None and cancel.is_set() and done < len(tasks)
    return BuildCounts(
        files=len(inputs), processed=processed, reused=reused, broken=broken, cancelled=cancelled
    )
