"""OpenCode sessions from the JSON storage folder and from opencode.db: steps, tool parts, compaction parts."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

STORAGE = FIXTURES / "formats" / "opencode" / "storage"

# The tables of packages/opencode/src/session/session.sql.ts (columns the reader does not use left out).
SCHEMA = """
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,
  directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
"""


def migrate(storage: Path, database: Path) -> Path:
    """The storage folder as opencode.db, the way storage/json-migration.ts moves it (ids out of ``data``)."""
    with sqlite3.connect(database) as db:
        db.executescript(SCHEMA)
        for path in sorted((storage / "session").glob("*/*.json")):
            info = json.loads(path.read_text())
            db.execute(
                "INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?,NULL,NULL)",
                (
                    path.stem,
                    path.parent.name,
                    info.get("parentID"),
                    info["slug"],
                    info["directory"],
                    info["title"],
                    info["version"],
                    info["time"]["created"],
                    info["time"]["updated"],
                ),
            )
        sessions = {}
        for path in sorted((storage / "message").glob("*/*.json")):
            info = json.loads(path.read_text())
            sessions[path.stem] = path.parent.name
            data = {k: v for k, v in info.items() if k not in ("id", "sessionID")}
            created = info["time"]["created"]
            db.execute(
                "INSERT INTO message VALUES (?,?,?,?,?)",
                (path.stem, path.parent.name, created, created, json.dumps(data)),
            )
        for path in sorted((storage / "part").glob("*/*.json")):
            part = json.loads(path.read_text())
            data = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
            db.execute(
                "INSERT INTO part VALUES (?,?,?,?,?,?)",
                (path.stem, path.parent.name, sessions[path.parent.name], 0, 0, json.dumps(data)),
            )
    return database


@pytest.fixture(scope="module")
def sessions() -> list[Conversation]:
    return load_conversations(fixture(STORAGE))


@pytest.fixture(scope="module")
def from_db(tmp_path_factory: pytest.TempPathFactory) -> list[Conversation]:
    return load_conversations(migrate(STORAGE, tmp_path_factory.mktemp("db") / "opencode.db"))


class TestStorageFolder:
    def test_one_conversation_per_session_oldest_first(self, sessions: list[Conversation]) -> None:
        assert [s.name for s in sessions] == [
            "Fix the failing date test",
            "Find date helpers (@explore subagent)",
        ]
        assert {s.source_format for s in sessions} == {"opencode"}
        assert sessions[1].metadata["parentID"] == sessions[0].metadata["session_id"]

    def test_counts(self, sessions: list[Conversation]) -> None:
        assert count_messages(sessions[0]).to_dict() == {
            "real_user": 2,
            "internal_user": 2,
            "assistant": 5,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_an_assistant_message_is_split_into_its_model_calls(self, sessions: list[Conversation]) -> None:
        roles = [m.role for m in sessions[0].messages[:7]]
        assert roles == ["user", "assistant", "tool", "assistant", "tool", "tool", "assistant"]
        assert sessions[0].messages[3].call_ids == ("toolu_01B", "toolu_01C")
        assert sessions[0].messages[1].model_extra is not None
        assert sessions[0].messages[1].model_extra["reasoning_content"].startswith("The user wants")

    def test_each_call_has_its_step_finish_usage(self, sessions: list[Conversation]) -> None:
        usage = [m.usage_metadata for m in sessions[0].messages[:7] if m.role == "assistant"]
        assert [u["total_tokens"] for u in usage if u] == [
            2 + 180 + 11800 + 2400,
            3 + 220 + 14200 + 900,
            1 + 60 + 15100 + 300,
        ]

    def test_tool_states_become_results(self, sessions: list[Conversation]) -> None:
        results = {m.tool_call_id: m.text for m in sessions[0].messages if m.role == "tool"}
        assert results["toolu_01C"] == "oldString not found in content"
        assert results["toolu_02A"] == "[Tool execution was interrupted]"
        assert results["toolu_01B"].startswith("src/date.test.ts:")  # pruned later, read as first sent

    def test_the_compaction_request_and_its_summary(self, sessions: list[Conversation]) -> None:
        (compaction,) = sessions[0].recorded_compactions
        request, summary = sessions[0].messages[compaction.index - 1 : compaction.index + 1]
        assert request.content == "What did we do so far?" and request.internal
        assert summary.role == "assistant" and compaction.summary == summary.text
        assert compaction.summary.startswith("## Goal") and compaction.tokens_before == 15461
        assert compaction.source == "opencode"

    def test_synthetic_turns_are_internal_typed_ones_are_requests(self, sessions: list[Conversation]) -> None:
        users = [m for m in sessions[0].messages if m.role == "user"]
        assert [m.is_real_user for m in users] == [True, False, False, True]
        assert users[2].text.startswith("Continue if you have next steps")
        assert "Called the Read tool" in users[0].text  # synthetic parts of a typed message stay in it

    def test_readings(self, sessions: list[Conversation]) -> None:
        assert [describe_reading(r) for r in sessions[0].readings] == [
            "2 user turns were written by the agent's harness and were read as internal",
            "1 compaction the agent made itself is recorded in the file",
            "1 event that is not a conversation turn was skipped (errored assistant message ×1)",
            "the file names the model: anthropic/claude-sonnet-4-5-20250929",
            "1 tool result the agent later cleared from its context is read as first sent",
            "1 usage report after the agent's first own compaction measured the compacted window; it is read as "
            "stale for the whole run shown here",
        ]

    def test_the_data_folder_above_storage_reads_too(self, tmp_path: Path) -> None:
        shutil.copytree(STORAGE, tmp_path / "opencode" / "storage")
        assert len(load_conversations(tmp_path / "opencode")) == 2


class TestDatabase:
    def test_the_database_reads_as_the_folder(
        self, sessions: list[Conversation], from_db: list[Conversation]
    ) -> None:
        assert [c.name for c in from_db] == [c.name for c in sessions]
        for db_session, folder_session in zip(from_db, sessions, strict=True):
            assert [m.to_openjiuwen() for m in db_session.messages] == [
                m.to_openjiuwen() for m in folder_session.messages
            ]
            assert db_session.recorded_compactions == folder_session.recorded_compactions

    def test_an_uploaded_database_reads_from_its_bytes(self, tmp_path: Path) -> None:
        data = migrate(STORAGE, tmp_path / "opencode.db").read_bytes()
        assert len(load_conversations(data, name="opencode.db")) == 2

    def test_the_database_file_is_not_written(self, tmp_path: Path) -> None:
        path = migrate(STORAGE, tmp_path / "opencode.db")
        before = path.read_bytes()
        load_conversations(path)
        assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["opencode.db"]

    def test_a_bad_data_column_names_the_row(self, tmp_path: Path) -> None:
        path = migrate(STORAGE, tmp_path / "opencode.db")
        with sqlite3.connect(path) as db:
            (message_id,) = db.execute("SELECT id FROM message ORDER BY id LIMIT 1").fetchone()
            db.execute("UPDATE message SET data = '{\"role\": ' WHERE id = ?", (message_id,))
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(path)
        assert str(raised.value) == f"{path}: message[{message_id}].data: not valid JSON"


class TestBrokenFolder:
    def test_a_truncated_part_file_names_it(self, tmp_path: Path) -> None:
        storage = tmp_path / "storage"
        shutil.copytree(STORAGE, storage)
        part = sorted((storage / "part").glob("*/*.json"))[0]
        part.write_text(part.read_text()[:30])
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(storage)
        assert f"part/{part.parent.name}/{part.name}: not valid JSON" in str(raised.value)

    def test_a_wrong_state_type_names_the_part(self, tmp_path: Path) -> None:
        storage = tmp_path / "storage"
        shutil.copytree(STORAGE, storage)
        part = next(p for p in sorted((storage / "part").glob("*/*.json")) if '"tool"' in p.read_text())
        data = json.loads(part.read_text())
        data["state"] = "done"
        part.write_text(json.dumps(data))
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(storage)
        assert str(raised.value).endswith(
            f"part/{part.parent.name}/{part.name}.state: expected a tool state (a JSON object), got string"
        )


INTERRUPTED = FIXTURES / "formats" / "opencode_interrupted" / "storage"


class TestInterruptedTool:
    """A tool cut off by an abort, as anomalyco/opencode writes and sends it since PR #21598 (message-v2.ts at
    007a9409bafea06d6b9084ff1f6d1fe9f5e3a803, ``toModelMessagesEffect``; the processor's cleanup marks a running
    part ``error`` "Tool execution aborted" with ``metadata.interrupted`` beside the output it had streamed)."""

    def test_the_output_it_had_written_is_its_result(self) -> None:
        (conversation,) = load_conversations(fixture(INTERRUPTED))
        result = conversation.messages[-1]
        assert result.role == "tool" and result.tool_call_id == "toolu_01Hq8ZkV3mT7pW2xN5cR9yLd"
        assert result.content.startswith(
            "..F.....F\nFAILED tests/integration/test_sync.py::test_retry_after_timeout"
        )
        assert "Tool execution aborted" not in result.content

    def test_an_error_not_marked_interrupted_stays_its_error(self, sessions: list[Conversation]) -> None:
        results = [m.text for c in sessions for m in c.messages if m.role == "tool"]
        assert "oldString not found in content" in results  # the stored failed edit
