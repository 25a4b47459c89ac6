"""The catalog: what a fleet read, counted and swept, kept as Parquet shards with a DuckDB database over them.

Layout of a catalog folder (``default_root()``, or ``--catalog DIR``)::

    files/part-N.parquet     one row per file version and counter: path, size, mtime_ns, hash, runs, error
    runs/part-N.parquet      one row per conversation (run_id = hash + number): format, agent, model, counts
    messages/part-N.parquet  one row per message: role class, tokens per counter, tool pairing, reported usage
    kept/part-N.bin          the conversations' JSON (zlib), which a later sweep rebuilds them from, and
    kept/part-N.parquet      where each run's lies in it (run_id, offset, length)
    outcomes/part-N.parquet  one row per run and setting played (and each run's untouched outcome)
    catalog.duckdb           views over the shards (files, runs, messages, kept, outcomes), for any DuckDB client

Invariant: a shard is written beside its place and renamed into it (a reader never sees half a file), and the
``files`` shard of a batch is renamed last, so a build killed at any moment leaves a catalog that opens; rows
are keyed by content (a file's hash), so a batch that never got its ``files`` shard is invisible and harmless,
and the next build processes exactly the files no committed shard names.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from ..errors import CompressorError
from ..tokens import COUNTER_NAMES
from .rows import SCHEMAS

CATALOG_ENV = "COMPACTION_LAB_CATALOG"
DATABASE = "catalog.duckdb"
_SHARD = re.compile(r"^part-(\d+)\.parquet$")

#: What a reading connection may hold before DuckDB spills to disk (the workers hold the rest of the budget).
READ_MEMORY = "256MB"
#: The order a batch is renamed into place: ``files`` last, as the batch's commit.
COMMIT_ORDER: tuple[str, ...] = ("outcomes", "kept", "messages", "runs", "files")
#: Suffix of a batch's kept conversations, beside its ``kept`` index shard.
KEPT_SUFFIX = ".bin"

#: Views a reader queries: the newest version of each file per counter, and its runs joined to it.
VIEWS: tuple[tuple[str, str], ...] = (
    (
        "files",
        "SELECT * FROM files_all QUALIFY row_number() OVER (PARTITION BY path, counter ORDER BY seq DESC) = 1",
    ),
    (
        "runs",
        "SELECT * FROM runs_all QUALIFY row_number() OVER (PARTITION BY run_id, counter ORDER BY seq DESC) = 1",
    ),
    (
        "fleet_runs",
        (
            "SELECT f.path, f.size, f.mtime_ns, r.* EXCLUDE (seq, hash), f.hash FROM files f "
            "JOIN runs r ON r.hash = f.hash AND r.counter = f.counter WHERE f.error IS NULL"
        ),
    ),
    ("messages", "SELECT * FROM messages_all"),
    ("kept", "SELECT * FROM kept_all QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY seq DESC) = 1"),
    (
        "outcomes",
        (
            "SELECT * FROM outcomes_all QUALIFY row_number() OVER "
            "(PARTITION BY run_id, play_key, ratio, keep, min_target ORDER BY seq DESC) = 1"
        ),
    ),
)


class CatalogError(CompressorError):
    """The catalog folder cannot be used (not writable, or being built by another process): one line."""


def default_root(environ: dict[str, str] | None = None) -> Path:
    """``$COMPACTION_LAB_CATALOG``, else ``$XDG_CACHE_HOME/compaction-lab/catalog``, else under ``~/.cache``."""
    env = os.environ if environ is None else environ
    if env.get(CATALOG_ENV):
        return Path(env[CATALOG_ENV]).expanduser()
    cache = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return cache / "compaction-lab" / "catalog"


@dataclass(frozen=True, kw_only=True)
class FileRecord:
    """What the catalog knows of one file under one counter."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    runs: int
    error: str | None


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class Catalog:
    """One catalog folder. Reads go through cursors on one in-memory DuckDB database of views (no lock is ever
    held on ``catalog.duckdb`` by a reader); one build at a time writes, under an advisory lock on ``.lock``."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root).expanduser().absolute() if root is not None else default_root().absolute()
        self._views: duckdb.DuckDBPyConnection | None = None
        self._lock = threading.Lock()
        try:
            for dataset in SCHEMAS:
                (self.root / dataset).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CatalogError(
                f"{self.root}: cannot make the catalog folder: {error.strerror or error}"
            ) from None
        try:
            for (
                dataset
            ) in SCHEMAS:  # an empty shard per dataset, so every view has its columns from the start
                if not any(self.shards(dataset)):
                    write_shard(self.root / dataset, 0, dataset, "")
        except (OSError, duckdb.Error) as error:
            raise CatalogError(
                f"{self.root}: cannot write the catalog: {' '.join(str(error).split())}"
            ) from None

    def shards(self, dataset: str) -> Iterator[tuple[int, Path]]:
        for path in (self.root / dataset).iterdir():
            match = _SHARD.match(path.name)
            if match:
                yield int(match.group(1)), path

    # -- reading ---------------------------------------------------------------------------------

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory connection with the catalog's views (see ``VIEWS``); close it when done. Its memory is
        bounded (``READ_MEMORY``, spilling into the catalog's ``spill`` folder): left to DuckDB's default, the pages
        it keeps grew the fleet's peak by ~14 KB a run."""
        connection = duckdb.connect(
            config={"memory_limit": READ_MEMORY, "temp_directory": str(self.root / "spill")}
        )
        for dataset in SCHEMAS:
            connection.execute(f"CREATE VIEW {dataset}_all AS {all_rows(self.root, dataset)}")
        for name, body in VIEWS:
            connection.execute(f"CREATE VIEW {name} AS {body}")
        return connection

    @contextmanager
    def reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor on this catalog's one in-memory database of views (made on first use: binding the views
        costs more than most queries); each cursor is its own connection (temp tables, threads), and the views
        read the shards as they are at each query."""
        with self._lock:
            if self._views is None:
                self._views = self.connect()
            connection = self._views.cursor()
        try:
            yield connection
        finally:
            connection.close()

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        with self.reading() as connection:
            return connection.execute(sql, params).fetchall()

    def kept(self, run_ids: Sequence[str]) -> dict[str, bytes]:
        """Each run's kept conversation (zlib-compressed JSON), read from its batch's ``.bin``."""
        rows = self.query(
            'SELECT run_id, seq, "offset", length FROM kept WHERE run_id IN (SELECT unnest(?::VARCHAR[])) '
            'ORDER BY seq, "offset"',
            [list(run_ids)],
        )
        found: dict[str, bytes] = {}
        handles: dict[int, Any] = {}
        try:
            for run_id, seq, offset, length in rows:
                if seq not in handles:
                    handles[seq] = open(self.root / "kept" / f"part-{seq:08d}{KEPT_SUFFIX}", "rb")  # noqa: SIM115
                handle = handles[seq]
                handle.seek(offset)
                found[run_id] = handle.read(length)
        finally:
            for handle in handles.values():
                handle.close()
        return found

    def known(self, paths: Sequence[str], counter: str) -> dict[str, FileRecord]:
        """The newest record of each of ``paths`` under ``counter``."""
        if not paths:
            return {}
        rows = self.query(
            "SELECT path, size, mtime_ns, hash, runs, error FROM files WHERE counter = ? AND path IN "
            "(SELECT unnest(?::VARCHAR[]))",
            [counter, list(paths)],
        )
        return {
            row[0]: FileRecord(
                path=row[0], size=row[1], mtime_ns=row[2], hash=row[3], runs=row[4], error=row[5]
            )
            for row in rows
        }


def all_rows(root: Path, dataset: str) -> str:
    """Every shard of ``dataset``, with every column of its schema (NULL in shards written before it existed)."""
    glob = _sql_text(str(root / dataset / "part-*.parquet"))
    schema = ", ".join(f"NULL::{kind} AS {name}" for name, kind in SCHEMAS[dataset].items())
    return (
        f"SELECT * FROM read_parquet({glob}, union_by_name=true) UNION ALL BY NAME (SELECT {schema} LIMIT 0)"
    )


def _columns(dataset: str) -> str:
    return (
        "{"
        + ", ".join(f"'{name}': '{kind}'" for name, kind in SCHEMAS[dataset].items() if name != "seq")
        + "}"
    )


def replace_into(temp: Path, final: Path) -> None:
    with open(temp, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temp, final)


def write_shard(
    folder: Path, seq: int, dataset: str, lines: str, connection: duckdb.DuckDBPyConnection | None = None
) -> Path:
    """One dataset's rows (JSON lines) as ``part-<seq>.parquet``, written beside it and renamed into place
    (``connection``: a writer's own, since opening one costs more than writing a small shard)."""
    final = folder / f"part-{seq:08d}.parquet"
    temp = folder / f".part-{seq:08d}.{os.getpid()}.tmp"
    source = folder / f".part-{seq:08d}.{os.getpid()}.rows.tmp"
    schema = SCHEMAS[dataset]
    own = connection is None
    connection = duckdb.connect() if connection is None else connection
    try:
        if lines:
            source.write_text(lines, encoding="utf-8")
            rows = (
                f"SELECT {seq}::BIGINT AS seq, * FROM read_json({_sql_text(str(source))}, "
                f"format='newline_delimited', columns={_columns(dataset)}, maximum_object_size=1073741824)"
            )
        else:  # the schema alone
            rows = (
                "SELECT " + ", ".join(f"NULL::{kind} AS {name}" for name, kind in schema.items()) + " LIMIT 0"
            )
        connection.execute(f"COPY ({rows}) TO {_sql_text(str(temp))} (FORMAT PARQUET, COMPRESSION ZSTD)")
    finally:
        if own:
            connection.close()
        source.unlink(missing_ok=True)
    replace_into(temp, final)
    return final


def counter_column(counter: str) -> str:
    if counter not in COUNTER_NAMES:
        raise CatalogError(f"counter: unknown {counter!r}")
    return f"tokens_{counter}"
