"""OpenAI Agents SDK SQLiteSession databases: one conversation per session, opened read-only, path or upload."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

ROWS = FIXTURES / "formats" / "agents_sqlite" / "rows.json"
# The SDK's schema, as SQLiteSession._create_schema_for_connection writes it.
SCHEMA = (
    "CREATE TABLE {sessions} (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,"
    " updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)",
    "CREATE TABLE {messages} (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT"
    " NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, FOREIGN KEY (session_id) REFERENCES {sessions}"
    " (session_id) ON DELETE CASCADE)",
    "CREATE INDEX idx_{messages}_session_id ON {messages} (session_id, id)",
)


def database(path: Path, *, sessions: str = "agent_sessions", messages: str = "agent_messages") -> Path:
    connection = sqlite3.connect(path)
    for statement in SCHEMA:
        connection.execute(statement.format(sessions=sessions, messages=messages))
    for row in json.loads(fixture(ROWS).read_text()):
        data = row["message_data"]
        connection.execute(f"INSERT OR IGNORE INTO {sessions} (session_id) VALUES (?)", (row["session_id"],))
        connection.execute(
            f"INSERT INTO {messages} (session_id, message_data) VALUES (?, ?)",
            (row["session_id"], data if isinstance(data, str) else json.dumps(data)),
        )
    connection.commit()
    connection.close()
    return path


@pytest.fixture
def sessions(tmp_path: Path) -> list[Conversation]:
    return load_conversations(database(tmp_path / "agents.db"))


class TestSessions:
    def test_one_conversation_per_session_in_row_order(self, sessions: list[Conversation]) -> None:
        assert [c.name for c in sessions] == [
            "agents #0 (session user_123)",
            "agents #1 (session support-ticket-88)",
        ]
        assert {c.source_format for c in sessions} == {"openai-agents-sqlite"}
        assert [c.metadata for c in sessions] == [
            {"agent": "openai-agents", "session_id": "user_123"},
            {"agent": "openai-agents", "session_id": "support-ticket-88"},
        ]

    def test_counts(self, sessions: list[Conversation]) -> None:
        assert [count_messages(c).to_dict() for c in sessions] == [
            {
                "real_user": 1,
                "internal_user": 0,
                "assistant": 2,
                "tool": 1,
                "tool_calls": 1,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
            {
                "real_user": 2,
                "internal_user": 1,
                "assistant": 3,
                "tool": 1,
                "tool_calls": 1,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
        ]

    def test_a_handoff_is_a_call_and_its_output(self, sessions: list[Conversation]) -> None:
        handoff = sessions[1].messages[1]
        assert handoff.tool_calls is not None and handoff.tool_calls[0].name == "transfer_to_refund_agent"
        assert sessions[1].messages[2].content == '{"assistant": "Refund Agent"}'

    def test_a_compaction_item_is_a_recorded_compaction(self, sessions: list[Conversation]) -> None:
        (compaction,) = sessions[1].recorded_compactions
        assert (compaction.index, compaction.summary, compaction.source) == (4, "", "openai-agents-sqlite")
        assert [describe_reading(r) for r in sessions[1].readings] == [
            "1 user turn was written by the agent's harness and was read as internal",
            "1 compaction the agent made itself is recorded in the file",
            "1 recorded compaction keeps its summary encrypted (only the provider can read it)",
            "1 line that is not part of the conversation was skipped (rows that are not JSON)",
        ]

    def test_an_upload_reads_like_the_file(self, tmp_path: Path) -> None:
        path = database(tmp_path / "agents.db")
        uploaded = load_conversations(path.read_bytes(), name="agents.db")
        assert [c.messages for c in uploaded] == [c.messages for c in load_conversations(path)]

    def test_the_database_is_only_read(self, tmp_path: Path) -> None:
        path = database(tmp_path / "agents.db")
        before = (path.read_bytes(), sorted(p.name for p in tmp_path.iterdir()))
        load_conversations(path)
        assert (path.read_bytes(), sorted(p.name for p in tmp_path.iterdir())) == before

    def test_renamed_tables_are_found_by_their_columns(self, tmp_path: Path) -> None:
        path = database(tmp_path / "custom.db", sessions="chat_sessions", messages="chat_items")
        assert len(load_conversations(path)) == 2


class TestBadInput:
    def test_a_database_of_something_else(self, tmp_path: Path) -> None:
        path = tmp_path / "other.db"
        connection = sqlite3.connect(path)
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.commit()
        connection.close()
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        assert str(error.value).startswith(
            f"{path}: is an SQLite database holding no conversation in a format I know"
        )

    def test_a_session_with_no_readable_rows(self, tmp_path: Path) -> None:
        path = tmp_path / "empty.db"
        connection = sqlite3.connect(path)
        for statement in SCHEMA:
            connection.execute(statement.format(sessions="agent_sessions", messages="agent_messages"))
        connection.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('s', 'not json')")
        connection.commit()
        connection.close()
        with pytest.raises(ConversationFormatError) as error:
            load_conversations(path)
        assert str(error.value) == f"{path}: session s: holds no messages"
