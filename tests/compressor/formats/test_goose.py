"""Goose sessions: the one-file JSONL of Goose before 1.10 and the ``sessions.db`` store that replaced it.

The fixture ``tests/fixtures/formats/goose/20250918_143012.jsonl`` was written by hand (no public Goose session
file exists) from block/goose: ``crates/goose/src/session/storage.rs`` at e3e6f12 and ``session/legacy.rs`` at
decaa9d (first line the session metadata, then one Message a line), ``conversation/message.rs`` at 6416fe7 and
``conversation/tool_result_serde.rs`` at b5a6949 (content items, ``{status, value|error}``, visibility metadata),
``context_mgmt/mod.rs`` at 331a842 (what a compaction and a tool-pair summary write); what a model is sent follows
``providers/formats/openai/messages.rs`` at e216e6d and ``conversation/mod.rs`` at 08dc478. The databases are
built here with the tables of ``session/session_manager.rs`` at dbec165 (schema 9) and 0164300 (schema 5), and
filled the way Goose's own ``import_legacy_session`` and ``replace_conversation`` fill them.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.cli import EXIT_BAD_INPUT, EXIT_OK, main
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.formats.goose import REQUEST_ERROR, RESULT_ERROR
from compressor.formats.places import find_sessions
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

SESSION = FIXTURES / "formats" / "goose" / "20250918_143012.jsonl"

# session_manager.rs create_schema (schema 9), the eval tables left out.
SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  tenant_id TEXT, user_id TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
  created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER,
  metadata_json TEXT);
INSERT INTO schema_version (version) VALUES (9);
"""
# The schema Goose 1.10 created first (before migrations 3, 4, 5 added metadata_json, name and session_type).
OLD_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER);
"""
AGENT_ONLY = {"userVisible": False, "agentVisible": True}
HISTORY = {"userVisible": True, "agentVisible": False}
ARCHIVED = {"userVisible": False, "agentVisible": False}
REQUEST = "Open an issue for the flaky network test, please."

# A scheduled session compacted at a user turn: that request was archived and carried past the summary.
SCHEDULED: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "Which CI runs failed yesterday?"}], "metadata": HISTORY},
    {"role": "assistant", "content": [{"type": "text", "text": "Three, all on the network test."}], "metadata": HISTORY},
    {"role": "user", "content": [{"type": "text", "text": REQUEST}], "metadata": ARCHIVED},
    {"role": "assistant", "content": [{"type": "conversationCompacted", "msg": "Compacted to fit the window."}],
     "metadata": HISTORY},
    {"role": "user", "content": [{"type": "text", "text": "Earlier: three CI runs failed on the network test."}],
     "metadata": AGENT_ONLY},
    {"role": "assistant", "content": [{"type": "text", "text": "(Compacted; go on.)"}], "metadata": AGENT_ONLY},
    {"role": "user", "content": [{"type": "text", "text": REQUEST}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Opened it as issue 412."}]},
]  # fmt: skip


def session_file() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header, *messages = (json.loads(line) for line in fixture(SESSION).read_text().splitlines())
    return header, messages


def import_session(
    db: sqlite3.Connection,
    session_id: str,
    header: dict[str, Any],
    messages: list[dict[str, Any]],
    **row: Any,
) -> None:
    """One session as Goose's import_legacy_session writes it, its messages as replace_conversation does."""
    values = {
        "id": session_id,
        "name": header.get("name", header.get("description", "")),
        "session_type": "user",
        "working_dir": header["working_dir"],
        "created_at": "2025-09-18 14:30:12",
        "updated_at": "2025-09-18 14:32:00",
        "extension_data": json.dumps(header.get("extension_data", {})),
        **{key: header.get(key) for key in ("total_tokens", "input_tokens", "output_tokens")},
        **{
            f"accumulated_{key}": header.get(f"accumulated_{key}") for key in ("total_tokens", "input_tokens")
        },
        "accumulated_output_tokens": header.get("accumulated_output_tokens"),
        "model_config_json": json.dumps(header["model_config"]) if "model_config" in header else None,
        **row,
    }
    db.execute(
        f"INSERT INTO sessions ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
        list(values.values()),
    )
    for position, message in enumerate(messages):
        db.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                message.get("id", f"msg_{session_id}_{position}"),
                session_id,
                message["role"],
                json.dumps(message["content"]),
                message.get("created", 1758290000 + position),
                json.dumps(message.get("metadata", {"userVisible": True, "agentVisible": True})),
            ),
        )


def database(path: Path) -> Path:
    """sessions.db holding the fixture's session and the scheduled one."""
    header, messages = session_file()
    with closing(sqlite3.connect(path)) as db, db:  # closed: its log is checkpointed and removed
        db.execute("PRAGMA journal_mode = WAL")  # as Goose opens it (SessionStorage::create_pool)
        db.executescript(SCHEMA)
        import_session(db, SESSION.stem, header, messages, provider_name="anthropic")
        import_session(
            db, "20250919_1", {"name": "CI triage", "working_dir": "/home/dev/ci"}, SCHEDULED,
            session_type="scheduled", created_at="2025-09-19 07:00:00", total_tokens=1900,
        )  # fmt: skip
    return path


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(fixture(SESSION))


@pytest.fixture(scope="module")
def from_db(tmp_path_factory: pytest.TempPathFactory) -> list[Conversation]:
    return load_conversations(database(tmp_path_factory.mktemp("goose") / "sessions.db"))


def roles(conversation: Conversation) -> list[str]:
    return [("real " if m.is_real_user else "internal " if m.is_internal else "") + m.role for m in conversation.messages]  # fmt: skip


class TestSessionFile:
    def test_every_message_in_order_as_goose_sends_it(self, run: Conversation) -> None:
        assert run.source_format == "goose" and run.name == "Tide parser drops last row" and not run.system
        assert roles(run) == [
            "real user", "assistant", "tool", "assistant", "tool", "tool", "tool",
            "internal user", "assistant", "internal user",
            "assistant", "tool", "assistant", "real user", "assistant", "assistant", "tool", "internal user", "assistant",
        ]  # fmt: skip

    def test_tool_requests_are_calls_and_responses_answer_them_by_id(self, run: Conversation) -> None:
        calls = [(call.id, call.name) for m in run.messages for call in m.tool_calls or ()]
        assert calls == [
            ("toolu_01", "developer__shell"),
            ("toolu_02", "developer__text_editor"),
            ("toolu_04", "developer__shell"),
            ("toolu_05", "developer__shell"),
        ]
        assert json.loads(run.messages[3].tool_calls[0].arguments)["new_str"] == "range(len(lines))"  # type: ignore[index]
        results = {
            m.tool_call_id: m.text for m in run.messages if m.role == "tool" and m.tool_call_id != "toolu_03"
        }
        assert set(results) == {"toolu_01", "toolu_02", "toolu_04", "toolu_05"}
        assert results["toolu_04"] == "...\n3 passed in 0.41s"

    def test_a_request_goose_could_not_parse_and_its_error_result_read_as_goose_words_them(
        self, run: Conversation
    ) -> None:
        errors = [m.text for m in run.messages if m.tool_call_id == "toolu_03"]
        assert [text.split("-32602")[0] for text in errors] == [REQUEST_ERROR, RESULT_ERROR]
        counts = count_messages(run)
        assert (counts.tool_calls, counts.unmatched_tool_calls, counts.unmatched_tool_results) == (4, 0, 2)

    def test_text_a_tool_meant_for_the_user_alone_never_reaches_the_model(self, run: Conversation) -> None:
        assert "(40 lines shown)" not in run.messages[2].text
        assert run.messages[2].text.startswith("def parse_rows(lines):")

    def test_thinking_is_reasoning_and_images_are_data_urls(self, run: Conversation) -> None:
        assert (run.messages[1].model_extra or {})["reasoning_content"].startswith("An off-by-one")
        assert run.messages[13].image_count == 1
        image = run.messages[13].content[1]
        assert isinstance(image, dict) and image["image_url"]["url"].startswith("data:image/png;base64,iVBOR")

    def test_goose_compaction_is_recorded_and_the_history_before_it_kept(self, run: Conversation) -> None:
        (compaction,) = run.recorded_compactions
        assert compaction.index == 7 and compaction.source == "goose"
        assert compaction.summary == run.messages[7].text and compaction.summary.startswith("So far:")
        assert run.messages[8].text.startswith("(Context compacted")
        assert run.messages[0].text.startswith("Tide tables lose")  # hidden from the agent since, kept

    def test_the_request_carried_past_the_compaction_is_internal_and_says_so(self, run: Conversation) -> None:
        assert run.messages[9].text == run.messages[0].text
        assert run.messages[9].metadata == {
            "repeats": "the latest request, which Goose carries past its compaction"
        }
        assert [i for i, m in enumerate(run.messages) if m.is_real_user] == [0, 13]

    def test_a_tool_pair_summary_is_internal_but_no_compaction(self, run: Conversation) -> None:
        assert run.messages[17].is_internal and run.messages[17].text.startswith(
            "[Historical tool call summary]"
        )
        assert [c.index for c in run.recorded_compactions] == [7]

    def test_ui_only_content_is_left_out_and_counted(self, run: Conversation) -> None:
        assert all("summarising the session" not in m.text for m in run.messages)
        (skipped,) = [r for r in run.readings if r.code == "events_skipped"]
        assert skipped.detail == "redactedThinking content ×1, systemNotification content ×1"

    def test_session_tokens_are_metadata_and_no_message_has_usage(self, run: Conversation) -> None:
        assert run.metadata["session_usage"] == {
            "total_tokens": 6240,
            "input_tokens": 6012,
            "output_tokens": 228,
            "accumulated_total_tokens": 38450,
            "accumulated_input_tokens": 36630,
            "accumulated_output_tokens": 1820,
        }
        assert all(m.usage_metadata is None for m in run.messages)
        assert {key: run.metadata[key] for key in ("agent", "session_id", "model", "context_window")} == {
            "agent": "goose",
            "session_id": "20250918_143012",
            "model": "claude-sonnet-4-5",
            "context_window": 200000,
        }

    def test_inspect_prints_a_decision(self) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(fixture(SESSION))], out=out, err=err) == EXIT_OK
        printed = out.getvalue()
        assert (
            "[goose, 19 context messages" in printed
            and "recorded         goose compaction at message 7" in printed
        )
        assert any(line.strip().startswith("decision") for line in printed.splitlines())


class TestSessionsDatabase:
    def test_the_imported_session_reads_as_its_file(
        self, run: Conversation, from_db: list[Conversation]
    ) -> None:
        imported = from_db[0]
        assert imported.messages == run.messages
        assert imported.recorded_compactions == run.recorded_compactions
        assert imported.metadata["provider"] == "anthropic" and imported.metadata["session_type"] == "user"

    def test_sessions_come_in_creation_order_with_their_own_facts(self, from_db: list[Conversation]) -> None:
        assert [(c.name, c.metadata["session_id"]) for c in from_db] == [
            ("Tide parser drops last row", "20250918_143012"),
            ("CI triage", "20250919_1"),
        ]
        assert from_db[1].metadata["session_type"] == "scheduled"
        assert from_db[1].metadata["session_usage"] == {"total_tokens": 1900}

    def test_an_archived_request_is_left_out_and_its_copy_is_the_real_request(
        self, from_db: list[Conversation]
    ) -> None:
        scheduled = from_db[1]
        assert roles(scheduled) == [
            "real user",
            "assistant",
            "internal user",
            "assistant",
            "real user",
            "assistant",
        ]
        assert [m.text for m in scheduled.messages if m.is_real_user][-1] == REQUEST
        assert [c.index for c in scheduled.recorded_compactions] == [2]
        (skipped,) = [r for r in scheduled.readings if r.code == "events_skipped"]
        assert (
            "messages Goose archived" in skipped.detail
            and "conversationCompacted content ×1" in skipped.detail
        )

    def test_rows_written_in_the_same_second_keep_their_order(self, from_db: list[Conversation]) -> None:
        # every row above got the same CURRENT_TIMESTAMP: the row id decides, as SQLite returns them to Goose
        assert [m.model_extra["id"] for m in from_db[0].messages[:2]] == ["msg_01", "msg_02"]  # type: ignore[index]

    def test_the_database_is_only_read_and_nothing_appears_beside_it(self, tmp_path: Path) -> None:
        path = database(tmp_path / "sessions.db")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]  # WAL mode, its log checkpointed
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        load_conversations(path)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]

    def test_a_running_gooses_newest_rows_in_the_log_are_read(self, tmp_path: Path) -> None:
        path = database(tmp_path / "sessions.db")
        writer = sqlite3.connect(path)  # Goose still running: its newest row is only in sessions.db-wal
        try:
            writer.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, 0)",
                ("20250919_1", "user", json.dumps([{"type": "text", "text": "And close the old one."}])),
            )
            writer.commit()
            assert (tmp_path / "sessions.db-wal").stat().st_size > 0
            scheduled = load_conversations(path)[1]
        finally:
            writer.close()
        assert scheduled.messages[-1].text == "And close the old one." and scheduled.messages[-1].is_real_user

    def test_the_first_schema_and_older_content_forms(self, tmp_path: Path) -> None:
        path = tmp_path / "sessions.db"
        legacy_call = {"status": "success", "value": {"name": "developer__shell", "arguments": "ls -la"}}
        legacy_result = {"status": "success", "value": [{"type": "text", "text": "README.md"}]}
        with sqlite3.connect(path) as db:
            db.executescript(OLD_SCHEMA)
            db.execute(
                "INSERT INTO sessions (id, description, working_dir) VALUES ('s1', 'old run', '/home/dev')"
            )
            for role, content in (
                ("user", [{"type": "text", "text": "List the files."}]),
                ("assistant", [{"type": "toolRequest", "id": "t1", "toolCall": legacy_call}]),
                ("user", [{"type": "toolResponse", "id": "t1", "toolResult": legacy_result}]),
            ):
                db.execute(
                    "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('s1', ?, ?, 0)",
                    (role, json.dumps(content)),
                )
        (old,) = load_conversations(path)
        assert old.name == "old run" and roles(old) == ["real user", "assistant", "tool"]
        assert old.messages[1].tool_calls[0].arguments == '{"value": "ls -la"}'  # type: ignore[index]
        assert old.messages[2].text == "README.md"


def session_lines(tmp_path: Path, *messages: dict[str, Any]) -> Conversation:
    header = {"working_dir": "/home/dev", "description": "forms", "message_count": len(messages)}
    path = tmp_path / "20251001_1.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (header, *messages)) + "\n")
    return load_conversation(path)


def said(role: str, *content: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "created": 1759300000, "content": list(content)}


class TestContentForms:
    def test_thinking_alone_goes_with_the_next_reply_as_goose_sends_it(self, tmp_path: Path) -> None:
        call = {"type": "toolRequest", "id": "c1", "toolCall": {"status": "success", "value": {"name": "ls"}}}
        run = session_lines(
            tmp_path,
            said("user", {"type": "text", "text": "What is here?"}),
            said("assistant", {"type": "thinking", "thinking": "List it first.", "signature": "s"}),
            said("assistant", call),
        )
        assert roles(run) == ["real user", "assistant"]
        assert (run.messages[1].model_extra or {})["reasoning_content"] == "List it first."
        assert run.messages[1].tool_calls[0].arguments == "{}"  # type: ignore[index]

    def test_an_image_in_a_tool_result_follows_it_as_an_internal_user_message(self, tmp_path: Path) -> None:
        shot = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        result = {"status": "success", "value": {"content": [{"type": "text", "text": "saved"}, shot]}}
        run = session_lines(
            tmp_path,
            said("user", {"type": "text", "text": "Take a screenshot."}),
            said("assistant", {"type": "toolRequest", "id": "c1", "toolCall": {"status": "success", "value": {"name": "shot", "arguments": {}}}}),
            said("user", {"type": "toolResponse", "id": "c1", "toolResult": result}),
        )  # fmt: skip
        assert roles(run) == ["real user", "assistant", "tool", "internal user"]
        assert (
            run.messages[2].text
            == "saved This tool result included an image that is uploaded in the next message."
        )
        assert run.messages[3].image_count == 1

    def test_what_goose_takes_out_before_sending_is_left_out_and_counted(self, tmp_path: Path) -> None:
        picked = {"status": "success", "value": {"name": "pick_file", "arguments": {}}}
        answer = {"status": "success", "value": {"content": [{"type": "text", "text": "notes.md"}]}}
        run = session_lines(
            tmp_path,
            said("user", {"type": "text", "text": "Pick a file for me."}),
            said("assistant", {"type": "text", "text": "Opening the picker."}, {"type": "frontendToolRequest", "id": "f1", "toolCall": picked}),
            said("user", {"type": "toolResponse", "id": "f1", "toolResult": answer}),
            said("assistant", {"type": "text", "text": "You picked notes.md."}),
        )  # fmt: skip
        assert roles(run) == ["real user", "assistant", "assistant"] and run.messages[1].tool_calls is None
        (skipped,) = [r for r in run.readings if r.code == "events_skipped"]
        assert skipped.detail == "frontendToolRequest content ×1, tool responses to no request ×1"

    def test_a_type_from_a_newer_goose_is_left_out_and_counted(self, tmp_path: Path) -> None:
        run = session_lines(
            tmp_path,
            said("user", {"type": "text", "text": "Hello"}),
            said("assistant", {"type": "reasoning", "text": "Greet back."}, {"type": "text", "text": "Hi!"}),
            said("assistant", {"type": "hologram", "frames": 3}, {"type": "text", "text": "Anything else?"}),
        )
        assert [m.text for m in run.messages] == ["Hello", "Hi!", "Anything else?"]
        assert (run.messages[1].model_extra or {})["reasoning_content"] == "Greet back."
        (skipped,) = [r for r in run.readings if r.code == "events_skipped"]
        assert skipped.detail == "'hologram' content (a type this reader does not know) ×1"


def load_error(source: Path) -> str:
    with pytest.raises(ConversationFormatError) as caught:
        load_conversations(source)
    return str(caught.value)


class TestBadInput:
    def written(self, tmp_path: Path, change: Any) -> Path:
        header, messages = session_file()
        lines = [json.dumps(header), *(json.dumps(m) for m in messages)]
        lines = change(lines)
        path = tmp_path / "20250918_143012.jsonl"
        path.write_text("\n".join(lines) + "\n")
        return path

    def test_a_corrupt_line_is_one_line_naming_the_file_and_line(self, tmp_path: Path) -> None:
        path = self.written(tmp_path, lambda lines: [*lines[:3], '{"role": "user", "content": [', *lines[4:]])
        message = load_error(path)
        assert message.startswith(f"{path}: line 4: not valid JSON") and "\n" not in message

    def test_content_that_is_not_a_list_names_the_field(self, tmp_path: Path) -> None:
        def change(lines: list[str]) -> list[str]:
            lines[2] = json.dumps({"role": "assistant", "created": 1, "content": "plain text"})
            return lines

        assert load_error(self.written(tmp_path, change)) == (
            f"{tmp_path / '20250918_143012.jsonl'}: line 3: content: expected the message content (a JSON list), "
            "got string"
        )

    def test_a_content_type_that_is_no_string_or_an_odd_tool_status_is_named(self, tmp_path: Path) -> None:
        number = self.written(tmp_path, lambda lines: [line.replace('"toolResponse"', "7") for line in lines])
        assert load_error(number).endswith("line 4: content[0].type: a content type must be a string, got 7")
        status = self.written(
            tmp_path, lambda lines: [line.replace('"status": "error"', '"status": "odd"') for line in lines]
        )
        assert load_error(status).endswith(
            "line 5: content[2].toolCall.status: must be success or error, got 'odd'"
        )

    def test_a_header_alone_holds_no_messages(self, tmp_path: Path) -> None:
        assert load_error(self.written(tmp_path, lambda lines: lines[:1])).endswith(
            "line 1: holds no messages"
        )

    def test_a_row_whose_content_is_not_json(self, tmp_path: Path) -> None:
        path = database(tmp_path / "sessions.db")
        with sqlite3.connect(path) as db:
            db.execute("UPDATE messages SET content_json = '[{\"type\": ' WHERE id = 3")
        assert load_error(path) == f"{path}: messages row 3.content_json: not valid JSON"

    def test_the_cli_says_one_line_and_keeps_going(self, tmp_path: Path) -> None:
        path = self.written(tmp_path, lambda lines: [*lines[:3], "{oops", *lines[4:]])
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], out=out, err=err) == EXIT_BAD_INPUT
        assert len(err.getvalue().splitlines()) == 1 and "Traceback" not in err.getvalue()
        assert err.getvalue().startswith("compaction-lab: ") and str(path) in err.getvalue()


class TestStandardPlace:
    def test_sessions_db_is_listed_once_and_xdg_data_home_moves_it(self, tmp_path: Path) -> None:
        folder = tmp_path / "home" / ".local/share/goose/sessions"
        folder.mkdir(parents=True)
        db = database(folder / "sessions.db")
        shutil.copyfile(
            fixture(SESSION), folder / "20250918_143012.jsonl"
        )  # imported into the db, left behind
        assert [(s.agent, s.path) for s in find_sessions(tmp_path / "home", environ={})] == [("goose", db)]
        moved = tmp_path / "data" / "goose" / "sessions"
        moved.mkdir(parents=True)
        elsewhere = database(moved / "sessions.db")
        found = find_sessions(tmp_path / "home", environ={"XDG_DATA_HOME": str(tmp_path / "data")})
        assert [(s.agent, s.path) for s in found] == [("goose", elsewhere)]

    def test_goose_path_root_holds_the_data_folder_and_is_not_looked_for_unset(self, tmp_path: Path) -> None:
        root = tmp_path / "goose-root"
        (root / "data" / "sessions").mkdir(parents=True)
        db = database(root / "data" / "sessions" / "sessions.db")  # Paths::data_dir() under GOOSE_PATH_ROOT
        (tmp_path / "home").mkdir()
        found = find_sessions(tmp_path / "home", environ={"GOOSE_PATH_ROOT": str(root)})
        assert [(s.agent, s.path) for s in found] == [("goose", db)]
        assert find_sessions(tmp_path / "home", environ={}) == []
