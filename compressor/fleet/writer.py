"""The catalog's one writer: a build's results buffered as JSON lines and written as batches of shards.

Invariant: one writer per catalog folder at a time (a POSIX record lock, dropped by the system when the process
dies); a batch's shards are renamed into place with ``files`` last (``COMMIT_ORDER``), so a reader sees a
batch whole or not at all, and the views of ``catalog.duckdb`` are made again when the writer closes.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from .catalog import (
    COMMIT_ORDER,
    DATABASE,
    KEPT_SUFFIX,
    VIEWS,
    Catalog,
    CatalogError,
    all_rows,
    replace_into,
    write_shard,
)
from .rows import SCHEMAS, line
from .work import FileResult


class Writer:
    """A build's writing side: results are buffered as JSON lines and written as one batch of shards."""

    def __init__(self, catalog: Catalog, seq: int) -> None:
        self.catalog = catalog
        self.seq = seq
        self._connection: duckdb.DuckDBPyConnection | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._reset()

    def close(self) -> None:
        try:
            self.wait()
        finally:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _reset(self) -> None:
        self.lines: dict[str, list[str]] = {dataset: [] for dataset in SCHEMAS}
        self.kept: list[tuple[str, bytes]] = []
        self.pending_files = 0
        self.pending_bytes = 0

    def add(self, result: FileResult, *, runs: int | None = None) -> None:
        """A processed file: its record, and (read this time) its runs, messages, kept JSON and outcomes;
        ``runs`` for a file whose content the catalog holds already (only its record is new)."""
        count = len(result.runs) if runs is None else runs
        self.lines["files"].append(
            line(
                "files",
                path=result.path,
                size=result.size,
                mtime_ns=result.mtime_ns,
                hash=result.hash,
                counter=result.counter,
                runs=count,
                error=result.error,
            )
            + "\n"
        )
        for run in result.runs:
            for dataset, text in run.lines.items():
                self.lines[dataset].append(text)
            self.kept.append((run.row.run_id, run.kept))
        self.pending_files += 1
        self.pending_bytes += result.kept_bytes

    def add_lines(self, dataset: str, text: str) -> None:
        """Rows made elsewhere (a sweep's outcomes), as JSON lines."""
        self.lines[dataset].append(text)
        self.pending_bytes += len(text)

    @property
    def empty(self) -> bool:
        return not self.kept and not any(self.lines.values())

    def flush(self, *, wait: bool = True) -> None:
        """Write the buffered batch (``files`` last, as its commit) and start the next one; with ``wait=False`` the
        batch is written on a thread while the next one fills (the workers never wait for the disk), one batch at
        a time and in order: the next flush waits for it first."""
        self.wait()
        if self.empty:
            return
        batch = (self.seq, self.lines, self.kept)
        self.seq += 1
        self._reset()
        if wait:
            self._write(*batch)
            return
        self._thread = threading.Thread(
            target=self._background, args=batch, name="catalog-writer", daemon=True
        )
        self._thread.start()

    def wait(self) -> None:
        """Until the batch being written is written; its error, if it had one, is raised here."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        error, self._error = self._error, None
        if error is not None:
            raise error

    def _background(self, seq: int, lines: dict[str, list[str]], kept: list[tuple[str, bytes]]) -> None:
        try:
            self._write(seq, lines, kept)
        except BaseException as error:  # handed to the build's thread by wait()
            self._error = error

    def _write(self, seq: int, lines: dict[str, list[str]], kept: list[tuple[str, bytes]]) -> None:
        root = self.catalog.root
        if kept:
            offset, index = 0, []
            temp = root / "kept" / f".part-{seq:08d}.{os.getpid()}.bin.tmp"
            with open(temp, "wb") as handle:
                for run_id, blob in kept:
                    handle.write(blob)
                    index.append(line("kept", run_id=run_id, offset=offset, length=len(blob)) + "\n")
                    offset += len(blob)
            replace_into(temp, root / "kept" / f"part-{seq:08d}{KEPT_SUFFIX}")
            lines["kept"].extend(index)
        if self._connection is None:
            self._connection = duckdb.connect()
            # one thread: the cores belong to the workers, and the batch is written while they work
            self._connection.execute("SET threads TO 1")
        for dataset in COMMIT_ORDER:
            if lines[dataset]:
                write_shard(root / dataset, seq, dataset, "".join(lines[dataset]), self._connection)


#: Builds of this process, by catalog folder: POSIX locks do not keep two threads of one process apart.
_WRITERS: set[Path] = set()
_WRITERS_LOCK = threading.Lock()


@contextmanager
def writing(catalog: Catalog) -> Iterator[Writer]:
    """The one writer of a catalog: holds the build lock, removes killed builds' temps, flushes on the way out.

    The lock is a POSIX record lock (``lockf``): the system drops it when the process dies, kill -9 included,
    and, unlike ``flock``, a worker process forked during the build does not inherit it.
    """
    busy = CatalogError(f"{catalog.root}: another build is writing this catalog; try again when it ends")
    with _WRITERS_LOCK:
        if catalog.root in _WRITERS:
            raise busy
        _WRITERS.add(catalog.root)
    try:
        try:
            handle = open(catalog.root / ".lock", "a+")  # noqa: SIM115 - held for the whole build
        except OSError as error:
            raise CatalogError(
                f"{catalog.root}: cannot write the catalog: {error.strerror or error}"
            ) from None
        with handle:
            try:
                fcntl.lockf(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise busy from None
            for dataset in SCHEMAS:  # under the lock no other writer runs: every temp is a killed build's
                for path in (catalog.root / dataset).glob(".part-*.tmp"):
                    path.unlink(missing_ok=True)
            seq = 1 + max((number for dataset in SCHEMAS for number, _ in catalog.shards(dataset)), default=0)
            writer = Writer(catalog, seq)
            try:
                yield writer
            finally:
                try:
                    writer.flush()
                finally:
                    writer.close()
                write_database(catalog)
    finally:
        with _WRITERS_LOCK:
            _WRITERS.discard(catalog.root)


def write_database(catalog: Catalog) -> None:
    """``catalog.duckdb``: the views, for a DuckDB client opened on the folder; skipped while one holds it open."""
    path = catalog.root / DATABASE
    try:
        connection = duckdb.connect(str(path))
    except duckdb.Error as error:
        if "lock" in str(error).lower():
            return
        # Derived data only: a database a killed build left unreadable is made again from the shards.
        for leftover in (path, path.with_name(DATABASE + ".wal")):
            leftover.unlink(missing_ok=True)
        connection = duckdb.connect(str(path))
    try:
        for dataset in SCHEMAS:
            connection.execute(f"CREATE OR REPLACE VIEW {dataset}_all AS {all_rows(catalog.root, dataset)}")
        for name, body in VIEWS:
            connection.execute(f"CREATE OR REPLACE VIEW {name} AS {body}")
    finally:
        connection.close()
