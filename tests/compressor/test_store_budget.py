"""An SQLite store is bounded by the rows it reads, not by its file's size: a big database whose conversations are
small opens (Cursor's state.vscdb is often 1-2 GB, mostly other tables), rows past the budget give one line.

The budget is lowered here (``stores.MAX_FILE_BYTES``) so that a test database can cross it in a few hundred KB;
the code path is the one a 200 MB budget takes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations, stores
from tests.compressor.formats.test_agents_sqlite import database

BUDGET = 256 * 1024


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stores, "MAX_FILE_BYTES", BUDGET)


def pad(path: Path, size: int) -> None:
    """A table no reader reads, making the file ``size`` bytes or more (as Cursor's other tables do)."""
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE other (key TEXT, value BLOB)")
    chunk = b"\x00" * 65_536
    for number in range(size // len(chunk) + 1):
        connection.execute("INSERT INTO other VALUES (?, ?)", (f"blob {number}", chunk))
    connection.commit()
    connection.close()


def test_a_database_bigger_than_the_budget_opens_when_its_conversations_are_small(tmp_path: Path) -> None:
    path = database(tmp_path / "agents.db")
    small = load_conversations(path)
    pad(path, 4 * BUDGET)
    assert path.stat().st_size > 4 * BUDGET
    assert load_conversations(path) == small


def test_rows_past_the_budget_are_one_line_naming_the_file(tmp_path: Path) -> None:
    path = database(tmp_path / "agents.db")
    connection = sqlite3.connect(path)
    text = '{"role": "user", "content": "' + "x" * 60_000 + '"}'
    for _ in range(BUDGET // len(text) + 2):
        connection.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('big', ?)", (text,))
    connection.commit()
    connection.close()
    before = path.read_bytes()
    with pytest.raises(ConversationFormatError) as raised:
        load_conversations(path)
    message = str(raised.value)
    assert message.startswith(str(path)), message
    assert "holds over 0.25 MB of rows to read; refusing to read on" in message
    assert "\n" not in message
    assert path.read_bytes() == before
