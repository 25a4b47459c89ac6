"""SQLite session stores in a fleet: a database in WAL mode is keyed by the database and its write-ahead log
together, so a write that reached only the ``-wal`` is catalogued again (the database file alone is unchanged)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from compressor.fleet import Catalog, InlineExecutor, build_catalog, discover, run_fleet
from compressor.fleet.work import file_hash
from compressor.formats import load_conversations
from compressor.formats.places import find_sessions
from compressor.formats.tallies import database_tally
from tests.compressor.formats.test_agents_sqlite import SCHEMA
from tests.compressor.formats.test_opencode import STORAGE, migrate
from tests.conftest import fixture

from .runs import GRID

SESSION = "user_123"
ITEMS = (
    {"role": "user", "content": "What's the weather in Tokyo?"},
    {"role": "assistant", "type": "message", "content": [{"type": "output_text", "text": "Sunny, 22C."}]},
)
ADDED = {"role": "user", "content": "And tomorrow, in Osaka? Please say it in Fahrenheit too."}


def add(connection: sqlite3.Connection, item: Mapping[str, object]) -> None:
    connection.execute(
        "INSERT INTO agent_messages (session_id, message_data) VALUES (?, ?)", (SESSION, json.dumps(item))
    )
    connection.commit()


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """An Agents SDK session database in WAL mode, with the writer's connection held open (as the agent holds
    it), so nothing is checkpointed into the database file."""
    (tmp_path / "runs").mkdir()
    connection = sqlite3.connect(tmp_path / "runs" / "agents.db")
    assert connection.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    connection.execute("PRAGMA wal_autocheckpoint=0")
    for statement in SCHEMA:
        connection.execute(statement.format(sessions="agent_sessions", messages="agent_messages"))
    connection.execute("INSERT INTO agent_sessions (session_id) VALUES (?)", (SESSION,))
    for item in ITEMS:
        add(connection, item)
    yield connection
    connection.close()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class TestWriteAheadLog:
    def test_a_message_only_in_the_log_is_catalogued_on_the_next_build(
        self, writer: sqlite3.Connection, tmp_path: Path
    ) -> None:
        database = tmp_path / "runs" / "agents.db"
        catalog = Catalog(tmp_path / "catalog")
        inputs, _ = discover([tmp_path / "runs"])
        assert build_catalog(catalog, inputs, GRID, InlineExecutor()).processed == 1
        own = (database.stat().st_size, database.stat().st_mtime_ns, sha(database))
        add(writer, ADDED)
        # The bug this guards against: the database file itself did not change at all.
        assert (database.stat().st_size, database.stat().st_mtime_ns, sha(database)) == own
        assert database.with_name("agents.db-wal").stat().st_size > 0
        inputs, _ = discover([tmp_path / "runs"])
        again = build_catalog(catalog, inputs, GRID, InlineExecutor())
        assert (again.processed, again.reused) == (1, 0)
        fleet = run_fleet([tmp_path / "runs"], GRID, catalog, InlineExecutor())
        assert fleet.counts.processed == 0
        (conversation,) = load_conversations(database)
        assert conversation.messages[-1].text == ADDED["content"]
        (run,) = fleet.runs
        assert run.messages == len(conversation.messages) == len(ITEMS) + 1
        texts = catalog.query(
            "SELECT chars FROM messages WHERE run_id = ? ORDER BY part DESC, position", [run.run_id]
        )
        assert texts[-1] == (len(ADDED["content"]),)
        assert len(texts) == len(conversation.system) + len(conversation.messages)

    def test_the_key_is_the_database_and_its_log_together(
        self, writer: sqlite3.Connection, tmp_path: Path
    ) -> None:
        database = tmp_path / "runs" / "agents.db"
        log = database.with_name("agents.db-wal")
        (entry,) = discover([database])[0]
        assert (entry.size, entry.mtime_ns) == (
            database.stat().st_size + log.stat().st_size,
            max(database.stat().st_mtime_ns, log.stat().st_mtime_ns),
        )
        assert file_hash(str(database)) != sha(database)
        writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert log.stat().st_size == 0  # checkpointed: the content is the database's alone, as its hash
        assert file_hash(str(database)) == sha(database)
        assert database_tally(database)[0] == database.stat().st_size

    def test_a_database_without_a_log_is_keyed_by_itself(self, tmp_path: Path) -> None:
        database = migrate(fixture(STORAGE), tmp_path / "opencode.db")
        (entry,) = discover([database])[0]
        assert (entry.size, entry.mtime_ns) == (database.stat().st_size, database.stat().st_mtime_ns)
        assert file_hash(str(database)) == sha(database)


class TestSessionListing:
    def test_the_listed_store_and_the_fleets_input_have_the_same_size(self, tmp_path: Path) -> None:
        (tmp_path / ".local/share/opencode").mkdir(parents=True)
        database = migrate(fixture(STORAGE), tmp_path / ".local/share/opencode/opencode.db")
        connection = sqlite3.connect(database)
        try:
            assert connection.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
            connection.execute("PRAGMA wal_autocheckpoint=0")
            connection.execute("CREATE TABLE later (note TEXT)")
            connection.execute("INSERT INTO later VALUES ('only in the log')")
            connection.commit()
            (listed,) = find_sessions(tmp_path, environ={})
            (entry,) = discover([], standard=True, home=tmp_path, environ={})[0]
            log = database.with_name("opencode.db-wal")
            assert listed.size == entry.size == database.stat().st_size + log.stat().st_size
            assert listed.modified.timestamp() == pytest.approx(entry.mtime_ns / 1e9, abs=1e-3)
        finally:
            connection.close()
