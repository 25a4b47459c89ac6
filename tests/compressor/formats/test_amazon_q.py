"""Amazon Q Developer CLI conversations: the saved ConversationState (``/save``) and the ``data.sqlite3`` store Q
keeps one conversation a working directory in (Kiro CLI's ``conversations_v2`` beside it).

The saved state is ``tests/fixtures/formats/amazon_q/ledger-split.json`` (its README names the source files). The
databases are built here with Python's sqlite3 from Q's own migrations (aws/amazon-q-developer-cli 15cc8f3,
``crates/chat-cli/src/database/sqlite_migrations/000``-``007``, copied below as they are) and its ``set_entry``
(``INSERT OR REPLACE INTO conversations (key, value)``, the key the working directory); Kiro's ``conversations_v2`` as
the public readers of Kiro databases named in ``formats.amazon_q`` agree on. Every variation of a state is the fixture
changed in the way Q itself would have written it.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.cli import EXIT_OK, main
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.formats.amazon_q import ACKNOWLEDGED, CANCELLED, CONTEXT_START, NOT_SAVED, SUMMARY_PREAMBLE
from compressor.formats.places import find_sessions
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

STATE = FIXTURES / "formats" / "amazon_q" / "ledger-split.json"
MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS migrations (\n    id INTEGER PRIMARY KEY,\n    version INTEGER NOT NULL,\n"
    "    migration_time INTEGER NOT NULL\n);",
    "CREATE TABLE IF NOT EXISTS history (\n    id INTEGER PRIMARY KEY,\n    command TEXT,\n    shell TEXT,\n"
    "    pid INTEGER,\n    session_id TEXT,\n    cwd TEXT,\n    time INTEGER,\n    in_ssh INTEGER,\n"
    "    in_docker INTEGER,\n    hostname TEXT,\n    exit_code INTEGER\n);\n",
    "ALTER TABLE history DROP COLUMN in_ssh;\nALTER TABLE history DROP COLUMN in_docker;\n",
    "ALTER TABLE history RENAME COLUMN time TO start_time;\nALTER TABLE history ADD COLUMN end_time INTEGER;\n"
    "ALTER TABLE history ADD COLUMN duration INTEGER;\n",
    "CREATE TABLE state (\n    key TEXT PRIMARY KEY,\n    value TEXT\n);\n",
    "-- We create a separate auth_kv to ensure the data is not available in all the same\n"
    "-- places that the state is available in\nCREATE TABLE auth_kv (\n    key TEXT PRIMARY KEY,\n    value TEXT\n);\n",
    "ALTER TABLE state RENAME TO state_old;\nCREATE TABLE state (\n    key TEXT PRIMARY KEY,\n    value BLOB\n);\n"
    "INSERT INTO state SELECT key, value FROM state_old;\nDROP TABLE state_old;",
    "CREATE TABLE conversations (\n    key TEXT PRIMARY KEY,\n    value TEXT\n);\n",
)
KIRO_TABLE = """CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id))"""
SECRET = "aoaAAAAAGh-refresh-token-never-read"


def saved() -> dict[str, Any]:
    return copy.deepcopy(json.loads(fixture(STATE).read_text()))


def written(state: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(state, indent=2))
    return path


def database(path: Path, conversations: dict[str, dict[str, Any]], *, kiro: bool = False) -> Path:
    """A data.sqlite3 as Q's ``migrate`` leaves it, a token in auth_kv, and each state under its directory."""
    with closing(sqlite3.connect(path)) as db, db:
        for version, sql in enumerate(MIGRATIONS):
            db.executescript(sql)
            db.execute("INSERT INTO migrations (version, migration_time) VALUES (?, 1760000000)", (version,))
        db.execute("INSERT INTO auth_kv (key, value) VALUES ('codewhisperer:odic:token', ?)", (SECRET,))
        db.execute("INSERT INTO state (key, value) VALUES ('telemetryClientId', '\"7c1f\"')")
        if kiro:
            db.execute(KIRO_TABLE)
        for key, state in conversations.items():
            if kiro:
                values = (key.split("#")[0], state["conversation_id"], json.dumps(state), 1760000000000)
                db.execute(
                    "INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", (*values, values[-1] + 5000)
                )
            else:
                db.execute(
                    "INSERT OR REPLACE INTO conversations (key, value) VALUES (?, ?)",
                    (key, json.dumps(state)),
                )
    return path


def load_error(source: Any) -> str:
    with pytest.raises(ConversationFormatError) as caught:
        load_conversations(source)
    return str(caught.value)


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(fixture(STATE))


class TestSavedState:
    def test_every_turn_in_order_as_q_sends_it(self, run: Conversation) -> None:
        assert run.source_format == "amazon-q" and run.name == "ledger-split"
        roles = [m.role for m in run.messages]
        assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant",
                         "tool", "user", "assistant", "tool", "assistant"]  # fmt: skip
        assert run.system == []

    def test_a_prompt_carries_the_time_and_the_hook_context_q_puts_before_it(self, run: Conversation) -> None:
        first = run.messages[2].text
        assert first.startswith(f"{CONTEXT_START}Current time: Tuesday, 2025-10-14T09:41:07.512+02:00\n")
        assert "branch: fix/split-rounding" in first
        assert first.endswith(
            "--- USER MESSAGE BEGIN ---\n"
            "Now make split keep every cent: the remainder should go to the first parts.--- USER MESSAGE END ---"
        )

    def test_results_pair_with_their_calls_by_tool_use_id(self, run: Conversation) -> None:
        counts = count_messages(run)
        assert (
            counts.tool_calls,
            counts.tool,
            counts.unmatched_tool_calls,
            counts.unmatched_tool_results,
        ) == (4, 4, 0, 0)
        for index, message in enumerate(run.messages):
            if message.role == "tool":
                called = [call.id for call in run.messages[index - 1].tool_calls or ()]
                assert message.tool_call_id in called
        bash = run.messages[6]
        assert bash.text.startswith('{"exit_status":"101","stdout":"running 3 tests')
        (call,) = run.messages[5].tool_calls or []
        assert call.arguments == json.dumps({"command": "cargo test split", "summary": "Run the split tests"})

    def test_a_cancelled_call_keeps_qs_result_and_the_persons_words_follow_as_a_request(
        self, run: Conversation
    ) -> None:
        cancelled, words = run.messages[8], run.messages[9]
        assert cancelled.text == CANCELLED and (cancelled.model_extra or {}).get("is_error") is True
        assert words.role == "user" and not words.internal
        assert words.text.endswith("Don't rewrite the whole file, only change split.--- USER MESSAGE END ---")

    def test_real_user_turns(self, run: Conversation) -> None:
        counts = count_messages(run)
        assert (counts.real_user, counts.internal_user, counts.assistant) == (2, 1, 6)

    def test_the_compact_summary_opens_the_run_and_is_recorded(self, run: Conversation) -> None:
        summary = saved()["latest_summary"][0]
        (compaction,) = run.recorded_compactions
        assert (compaction.index, compaction.source, compaction.summary) == (0, "amazon-q", summary)
        assert run.messages[0].internal
        assert (
            run.messages[0].text == f"{CONTEXT_START}{SUMMARY_PREAMBLE}{summary}\n--- CONTEXT ENTRY END ---"
        )
        assert run.messages[1].text == ACKNOWLEDGED
        assert "recorded_compactions" in {reading.code for reading in run.readings}

    def test_saved_right_after_compact_only_the_summary_is_left(self, tmp_path: Path) -> None:
        # The shape of a public Kiro CLI /save made after /compact: history [], valid_history_range [0, 0].
        state = saved()
        state["history"], state["valid_history_range"] = [], [0, 0]
        run = load_conversation(written(state, tmp_path / "compacted.json"))
        assert [m.role for m in run.messages] == ["user", "assistant"]
        assert run.messages[0].internal and run.messages[1].text == ACKNOWLEDGED
        assert [c.index for c in run.recorded_compactions] == [0]
        assert count_messages(run).real_user == 0

    def test_metadata_and_tools(self, run: Conversation) -> None:
        assert run.metadata == {
            "agent": "amazon-q",
            "conversation_id": "8f4e2b7c-1d3a-4e5f-9b6c-0a7d8e9f1b2c",
            "model": "claude-sonnet-4",
            "context_window": 200000,
            "context_files": ["AmazonQ.md", "AGENTS.md", "README.md", ".amazonq/rules/**/*.md"],
            "profile": "q_cli_default",
            "context_turn_chars": 2281,
            "cwd": "/home/dev/ledger",
        }
        assert [tool.name for tool in run.tools] == [
            "fs_read",
            "execute_bash",
            "fs_write",
            "dummy",
            "git_status",
        ]
        assert run.tools[1].parameters["required"] == ["command"]
        assert all(m.reported_total_tokens is None for m in run.messages)  # Q keeps no usage: windows counted

    def test_the_older_pairs_and_plain_summary_read_alike(self, run: Conversation, tmp_path: Path) -> None:
        state = saved()
        state["history"] = [[entry["user"], entry["assistant"]] for entry in state["history"]]
        state["latest_summary"] = state["latest_summary"][0]
        state["model"], state["model_info"] = "claude-sonnet-4", None  # before model_info (<= v1.13.3)
        older = load_conversation(written(state, tmp_path / "older.json"))
        assert [m.model_dump() for m in older.messages] == [m.model_dump() for m in run.messages]
        assert (
            older.recorded_compactions == run.recorded_compactions
            and older.metadata["model"] == "claude-sonnet-4"
        )


class TestTurnsQWritesItself:
    def test_the_last_replys_calls_get_a_marked_stand_in(self, tmp_path: Path) -> None:
        state = saved()
        state["history"] = state["history"][:2]  # saved when the bash call arrived, before it ran
        run = load_conversation(written(state, tmp_path / "s.json"))
        assert run.messages[-1].role == "tool" and run.messages[-1].text == NOT_SAVED
        assert any(r.code == "results_filled_in" and NOT_SAVED in r.detail for r in run.readings)

    def test_a_pending_next_message_answers_them(self, tmp_path: Path) -> None:
        state = saved()
        state["next_message"] = state["history"][2]["user"]
        state["history"] = state["history"][:2]
        run = load_conversation(written(state, tmp_path / "s.json"))
        assert run.messages[-1].text.startswith('{"exit_status":"101"')
        assert not any(r.code == "results_filled_in" for r in run.readings)

    def test_a_prompt_after_unanswered_calls_cancels_them_as_q_does(self, tmp_path: Path) -> None:
        state = saved()
        state["history"][1]["user"]["content"] = {"Prompt": {"prompt": "Stop, just tell me what you found."}}
        run = load_conversation(written(state, tmp_path / "s.json"))
        assert run.messages[4].role == "tool" and run.messages[4].text == CANCELLED
        assert run.messages[5].role == "user" and not run.messages[5].internal
        assert any(r.code == "results_filled_in" and CANCELLED in r.detail for r in run.readings)

    def test_results_to_no_call_are_sent_as_text(self, tmp_path: Path) -> None:
        state = saved()
        state["latest_summary"], state["history"] = (
            None,
            state["history"][1:],
        )  # history trimmed to a results turn
        run = load_conversation(written(state, tmp_path / "s.json"))
        first = run.messages[0]
        assert first.role == "user" and first.internal and first.text.startswith("pub fn split")
        assert count_messages(run).unmatched_tool_results == 0

    def test_an_image_goes_as_a_data_url(self, tmp_path: Path) -> None:
        state = saved()
        state["history"][0]["user"]["images"] = [{"format": "Png", "source": {"Bytes": [137, 80, 78, 71]}}]
        content = load_conversation(written(state, tmp_path / "s.json")).messages[2].content
        assert isinstance(content, list) and len(content) == 2
        text, image = content
        assert (
            isinstance(text, dict)
            and text["type"] == "text"
            and text["text"].endswith("USER MESSAGE END ---")
        )
        assert isinstance(image, dict) and image["image_url"]["url"] == "data:image/png;base64,iVBORw=="

    def test_the_overflow_notice_is_internal(self, tmp_path: Path) -> None:
        state = saved()
        notice = {"Prompt": {"prompt": "The conversation history has overflowed, clearing state"}}
        state["history"][0]["user"] = {**state["history"][0]["user"], "content": notice, "timestamp": None,
                                       "additional_context": ""}  # fmt: skip
        run = load_conversation(written(state, tmp_path / "s.json"))
        assert run.messages[2].internal and run.messages[2].text == notice["Prompt"]["prompt"]


class TestBadStates:
    def test_an_unknown_content_kind_names_its_field(self, tmp_path: Path) -> None:
        state = saved()
        state["history"][1]["user"]["content"] = {"ToolResults": {}}
        path = written(state, tmp_path / "s.json")
        assert load_error(path) == (
            f"{path}: history[1].user.content: must be one of Prompt, ToolUseResults, CancelledToolUses "
            "(a user message content), got keys ['ToolResults']"
        )

    def test_a_bad_timestamp_names_its_field(self, tmp_path: Path) -> None:
        state = saved()
        state["history"][0]["user"]["timestamp"] = "yesterday"
        path = written(state, tmp_path / "s.json")
        assert (
            load_error(path)
            == f"{path}: history[0].user.timestamp: must be an RFC 3339 timestamp, got 'yesterday'"
        )

    def test_a_plain_message_list_is_not_taken_for_a_state(self) -> None:
        other = load_conversation({"conversation_id": "x", "messages": [{"role": "user", "content": "hi"}]})
        assert other.source_format != "amazon-q"


class TestDatabase:
    def test_one_conversation_a_working_directory_in_the_order_last_written(self, tmp_path: Path) -> None:
        other = saved()
        other["conversation_id"], other["latest_summary"] = "2d9c", None
        path = database(tmp_path / "data.sqlite3", {"/home/dev/ledger": saved(), "/home/dev/notes": other})
        with closing(sqlite3.connect(path)) as db, db:  # Q rewrites the ledger's row after its next reply
            db.execute("INSERT OR REPLACE INTO conversations (key, value) VALUES ('/home/dev/ledger', ?)",
                       (json.dumps(saved()),))  # fmt: skip
        runs = load_conversations(path)
        assert [(r.name, r.metadata["cwd"], r.metadata["agent"]) for r in runs] == [
            ("/home/dev/notes", "/home/dev/notes", "amazon-q"),
            ("/home/dev/ledger", "/home/dev/ledger", "amazon-q"),
        ]
        assert [len(r.recorded_compactions) for r in runs] == [0, 1]
        assert SECRET not in json.dumps([r.model_dump(mode="json") for r in runs])

    def test_kiro_conversations_several_a_directory(self, tmp_path: Path) -> None:
        second = saved()
        second["conversation_id"] = "0b7e"
        states = {"/home/dev/ledger#1": saved(), "/home/dev/ledger#2": second}
        path = database(tmp_path / "data.sqlite3", states, kiro=True)
        with closing(sqlite3.connect(path)) as db, db:  # the same conversation left in Q's table too
            db.execute("INSERT INTO conversations VALUES ('/home/dev/ledger', ?)", (json.dumps(saved()),))
        runs = load_conversations(path)
        assert [(r.name, r.metadata["agent"], r.metadata["cwd"]) for r in runs] == [
            ("8f4e2b7c-1d3a-4e5f-9b6c-0a7d8e9f1b2c", "kiro-cli", "/home/dev/ledger"),
            ("0b7e", "kiro-cli", "/home/dev/ledger"),
        ]

    def test_a_cleared_conversation_is_left_out(self, tmp_path: Path) -> None:
        cleared = saved()
        cleared["history"], cleared["latest_summary"] = [], None
        path = database(tmp_path / "data.sqlite3", {"/a": cleared, "/b": saved()})
        assert [r.name for r in load_conversations(path)] == ["/b"]

    def test_read_only_the_file_unchanged_and_nothing_beside_it(self, tmp_path: Path) -> None:
        path = database(tmp_path / "data.sqlite3", {"/home/dev/ledger": saved()})
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        load_conversations(path)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["data.sqlite3"]

    def test_a_row_that_is_not_json_names_its_key(self, tmp_path: Path) -> None:
        path = database(tmp_path / "data.sqlite3", {"/home/dev/ledger": saved()})
        with closing(sqlite3.connect(path)) as db, db:
            db.execute(
                "UPDATE conversations SET value = '{\"conversation_id\": ' WHERE key = '/home/dev/ledger'"
            )
        assert load_error(path) == f"{path}: conversations row /home/dev/ledger.value: not valid JSON"

    def test_a_database_with_no_conversation(self, tmp_path: Path) -> None:
        path = database(tmp_path / "data.sqlite3", {})
        assert load_error(path) == (
            f"{path}: is an Amazon Q / Kiro CLI database with no conversation that has messages"
        )

    def test_a_corrupt_database_is_one_line_naming_the_file(self, tmp_path: Path) -> None:
        path = database(tmp_path / "data.sqlite3", {"/home/dev/ledger": saved()})
        data = path.read_bytes()
        path.write_bytes(data[:100] + b"\xff" * (len(data) - 100))
        assert load_error(path) == f"{path}: cannot read the database (database disk image is malformed)"

    def test_an_unrelated_sqlite_file_is_one_line_naming_the_file(self, tmp_path: Path) -> None:
        path = tmp_path / "chat.db"
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT)")
        message = load_error(path)
        assert (
            message.startswith(f"{path}: is an SQLite database holding no conversation")
            and "amazon-q-db" in message
        )
        assert len(message.splitlines()) == 1


class TestCommandLine:
    @pytest.mark.parametrize("kind", ["saved", "database"])
    def test_inspect_prints_a_decision(self, kind: str, tmp_path: Path) -> None:
        path = (
            fixture(STATE)
            if kind == "saved"
            else database(tmp_path / "data.sqlite3", {"/home/dev/x": saved()})
        )
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], out=out, err=err) == EXIT_OK, err.getvalue()
        printed = out.getvalue()
        assert "amazon-q" in printed and "amazon-q compaction at message 0" in printed
        assert any(line.strip().startswith("decision") for line in printed.splitlines())


class TestPlaces:
    @pytest.mark.parametrize(
        ("folder", "agent"),
        [
            (".local/share/amazon-q", "amazon-q"),
            ("Library/Application Support/amazon-q", "amazon-q"),
            (".local/share/kiro-cli", "kiro-cli"),
            ("Library/Application Support/kiro-cli", "kiro-cli"),
        ],
    )
    def test_the_data_folders_database_is_found(self, folder: str, agent: str, tmp_path: Path) -> None:
        (tmp_path / folder).mkdir(parents=True)
        db = database(tmp_path / folder / "data.sqlite3", {"/home/dev/ledger": saved()})
        found = find_sessions(tmp_path, environ={})
        assert [(s.agent, s.path) for s in found] == [(agent, db)]
        assert load_conversations(found[0].path)[0].name == "/home/dev/ledger"

    def test_xdg_data_home_moves_it(self, tmp_path: Path) -> None:
        (tmp_path / "data" / "amazon-q").mkdir(parents=True)
        db = database(tmp_path / "data" / "amazon-q" / "data.sqlite3", {"/x": saved()})
        found = find_sessions(tmp_path / "home", environ={"XDG_DATA_HOME": str(tmp_path / "data")})
        assert [(s.agent, s.path) for s in found] == [("amazon-q", db)]


def test_a_row_without_a_history_names_it(tmp_path: Path) -> None:
    state = saved()
    del state["history"]
    path = database(tmp_path / "data.sqlite3", {"/home/dev/ledger": state})
    assert (
        load_error(path)
        == f"{path}: conversations row /home/dev/ledger.value.history: must be a list, got null"
    )


def test_a_tangents_stashed_main_conversation_is_skipped_with_a_reading(tmp_path: Path) -> None:
    state = saved()
    main_history = state["history"][:1]
    state["tangent_state"] = {"main_history": main_history, "main_next_message": None, "main_transcript": [],
                              "main_latest_summary": None, "tangent_start_time": [2025, 287, 7, 44, 2, 0, 0, 0, 0]}  # fmt: skip
    run = load_conversation(written(state, tmp_path / "s.json"))
    assert len(run.messages) == 13  # the tangent is what Q sends; the stashed turns are not read again
    (skipped,) = [r for r in run.readings if r.code == "events_skipped"]
    assert "tangent" in skipped.detail


def test_a_kiro_row_with_only_the_fields_it_needs_reads(tmp_path: Path) -> None:
    full = saved()
    state = {key: full[key] for key in ("conversation_id", "history", "model_info")}
    path = database(tmp_path / "data.sqlite3", {"/home/dev/ledger": state}, kiro=True)
    (run,) = load_conversations(path)
    assert len(run.messages) == 11 and run.tools == [] and run.metadata["model"] == "claude-sonnet-4"
