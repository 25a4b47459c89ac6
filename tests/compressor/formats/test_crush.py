"""Crush sessions: the ``crush.db`` store of a project, read as Crush's agent sends it to a model.

No public Crush database was found, so the databases are built here with Python's sqlite3 from charmbracelet/crush at
37f36e9 (2026-08-21): the tables of ``internal/db/migrations/20250424200609_initial.sql`` (3a929ff for the folder:
its triggers fill ``message_count``) and the columns ``20250515105448_add_summary_message_id.sql``,
``20250627000000_add_provider_to_messages.sql``, ``20250810000000_add_is_summary_message.sql`` and
``20250812000000_add_todos_to_sessions.sql`` add; rows as ``internal/db/sql/messages.sql`` inserts them
(``created_at`` in seconds) with parts as ``internal/message/message.go`` (b82d7d0) ``marshalParts`` writes them
(``[{"type", "data"}]``, the structs of ``internal/message/content.go`` at 5e1cd7e: ``binary`` without JSON tags,
its ``Data`` base64; a non-assistant message gets a ``finish`` part ``stop`` on creation); what a model is sent
follows ``internal/agent/agent.go`` (9efc08c: ``preparePrompt``, ``getSessionMessages``, ``Summarize``, the
continuation request queued after a summary). The session itself (a flaky retry test) is invented.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.cli import EXIT_BAD_INPUT, main
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.formats.crush import ATTACHED, INTERRUPTED, MEDIA_FAILED
from compressor.messages import Conversation

# The initial migration, then the columns later migrations add (read_files and the indexes left out).
INITIAL = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
  prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
  completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
  cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0), updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE, UNIQUE(path, session_id, version));
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
  parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  finished_at INTEGER, FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE);
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages
BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
"""
LATER = """
ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;
ALTER TABLE messages ADD COLUMN provider TEXT;
ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE sessions ADD COLUMN todos TEXT;
"""
MAIN, TASK = "0b6e3f7c-main", "msg-07$$call_task"
REQUEST = "The retry test in internal/backoff fails one run in ten. Find out why."
SUMMARY = "## Summary\nThe retry test fails because the jitter source is unseeded; the fix is in backoff.go."
CONTINUE = (
    f"The previous session was interrupted because it got too long, the initial user request was: `{REQUEST}`"
)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()


def part(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def stop() -> dict[str, Any]:
    return part("finish", reason="stop", time=0)


def finish(reason: str) -> dict[str, Any]:
    return part("finish", reason=reason, time=1766000000)


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return part("tool_call", id=call_id, name=name, input=json.dumps(arguments), provider_executed=False, finished=True)  # fmt: skip


def result(call_id: str, name: str, content: str, **extra: Any) -> dict[str, Any]:
    fields = {"data": "", "mime_type": "", "metadata": "", "is_error": False, **extra}
    return part("tool_result", tool_call_id=call_id, name=name, content=content, **fields)


def text_file(path: str, body: str) -> dict[str, Any]:
    return part("binary", Path=path, MIMEType="text/plain", Data=base64.b64encode(body.encode()).decode())


# (id, role, parts, created_at, extra columns): one main session, as Crush's agent writes it.
MAIN_ROWS: list[tuple[str, str, list[dict[str, Any]], int, dict[str, Any]]] = [
    ("msg-01", "user", [part("text", text=f"  {REQUEST}\n"), text_file("notes.txt", "seen on CI only"), stop()], 100, {}),
    ("msg-02", "assistant", [part("reasoning", thinking="Look at the test first.", signature="sig"), part("text", text="Reading the test."),
                             call("call_1", "view", {"file_path": "internal/backoff/retry_test.go"}), finish("tool_use")], 100, {}),
    ("msg-03", "tool", [result("call_1", "view", "<file>\n1|func TestRetry(t *testing.T) {\n</file>"), stop()], 100, {}),
    ("msg-04", "assistant", [call("call_2", "bash", {"command": "go test ./internal/backoff -count=20"}),
                             call("call_3", "grep", {"pattern": "rand.New"}), finish("tool_use")], 101, {}),
    ("msg-05", "tool", [result("call_2", "bash", "exit status 1: --- FAIL: TestRetry", is_error=True), stop()], 102, {}),
    ("msg-06", "tool", [result("call_9", "grep", "backoff.go:40"), stop()], 102, {}),
    ("msg-07", "assistant", [finish("canceled")], 103, {}),
    ("msg-08", "user", [part("shell_command", command="git status --short", output="\x1b[32mM\x1b[0m backoff.go", exit_code=0), stop()], 104, {}),
    ("msg-09", "assistant", [part("reasoning", thinking="Sum it up."), part("text", text=f"{SUMMARY}\n"), finish("end_turn")], 105, {"is_summary_message": 1}),
    ("msg-10", "user", [part("text", text=CONTINUE), stop()], 106, {}),
    ("msg-11", "assistant", [part("text", text="Seeding the source."), call("call_4", "edit", {"file_path": "backoff.go"}), finish("tool_use")], 106, {}),
    ("msg-12", "tool", [result("call_4", "edit", "", data=PNG, mime_type="image/png"), stop()], 106, {}),
    ("msg-13", "assistant", [part("text", text="Fixed: the jitter source is seeded now."), finish("end_turn")], 107, {}),
    ("msg-14", "user", [part("text", text="Does this screenshot look right?"), part("image_url", url="https://x/y.png"),
                        part("binary", Path="shot.png", MIMEType="image/png", Data=PNG), stop()], 108, {}),
    ("msg-15", "assistant", [part("text", text="Yes: twenty green runs."), finish("end_turn")], 108, {}),
]  # fmt: skip
# A sub-agent's session (the agent tool's), with a summary that failed and so never became its start.
TASK_ROWS: list[tuple[str, str, list[dict[str, Any]], int, dict[str, Any]]] = [
    ("msg-20", "user", [part("text", text="Find where the jitter is computed."), stop()], 101, {}),
    ("msg-21", "assistant", [part("text", text="In backoff.go, line 40."), finish("end_turn")], 101, {}),
    ("msg-22", "assistant", [part("text", text="Partial summ"), part("finish", reason="error", time=1, message="Summarization Error")], 102,
     {"is_summary_message": 1}),
]  # fmt: skip


def insert(db: sqlite3.Connection, session_id: str, rows: list[tuple[str, str, list[dict[str, Any]], int, dict[str, Any]]]) -> None:  # fmt: skip
    for message_id, role, parts, created, extra in rows:
        model = (
            {"model": "claude-sonnet-4-5", "provider": "anthropic"} if role == "assistant" else {"model": ""}
        )
        values = {"id": message_id, "session_id": session_id, "role": role, "parts": json.dumps(parts),
                  "created_at": created, "updated_at": created, **model, **extra}  # fmt: skip
        db.execute(
            f"INSERT INTO messages ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            list(values.values()),
        )


def database(path: Path) -> Path:
    """crush.db with the main session, its sub-agent's session and a session with no messages."""
    with closing(sqlite3.connect(path)) as db, db:  # closed: its log is checkpointed and removed
        db.execute("PRAGMA journal_mode = WAL")  # as Crush opens it (internal/db/connect.go pragmas)
        db.executescript(INITIAL + LATER)
        db.execute(
            "INSERT INTO sessions (id, title, prompt_tokens, completion_tokens, cost, summary_message_id,"
            " updated_at, created_at) VALUES (?, 'Flaky retry test', 41200, 950, 0.4821, 'msg-09', 108, 100)",
            (MAIN,),
        )
        db.execute(
            "INSERT INTO sessions (id, parent_session_id, title, prompt_tokens, completion_tokens, cost,"
            " updated_at, created_at) VALUES (?, ?, 'Find the jitter', 3100, 80, 0.012, 102, 101)",
            (TASK, MAIN),
        )
        db.execute(
            "INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('empty', 'New Session', 1, 1)"
        )
        insert(db, MAIN, MAIN_ROWS)
        insert(db, TASK, TASK_ROWS)
    return path


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> list[Conversation]:
    return load_conversations(database(tmp_path_factory.mktemp("crush") / "crush.db"))


@pytest.fixture(scope="module")
def run(sessions: list[Conversation]) -> Conversation:
    return sessions[0]


def roles(conversation: Conversation) -> list[str]:
    return [("real " if m.is_real_user else "internal " if m.is_internal else "") + m.role for m in conversation.messages]  # fmt: skip


def ids(conversation: Conversation) -> list[str]:
    return [str((m.model_extra or {}).get("id", m.tool_call_id)) for m in conversation.messages]


def load_error(source: Any) -> str:
    with pytest.raises(ConversationFormatError) as caught:
        load_conversations(source)
    return str(caught.value)


class TestMainSession:
    def test_every_message_in_order_as_crush_sends_it(self, run: Conversation) -> None:
        assert run.source_format == "crush" and run.name == "Flaky retry test"
        assert roles(run) == [
            "real user", "assistant", "tool", "assistant", "tool", "tool", "internal user",
            "internal user", "internal user", "assistant", "tool", "assistant", "real user", "assistant",
        ]  # fmt: skip
        # the cancelled reply (msg-07) is left out; same-second rows keep the order they were written in
        assert ids(run) == [
            "msg-01", "msg-02", "call_1", "msg-04", "call_3", "call_2", "msg-08", "msg-09", "msg-10", "msg-11",
            "call_4", "msg-13", "msg-14", "msg-15",
        ]  # fmt: skip

    def test_a_request_is_its_text_trimmed_then_its_text_attachments(self, run: Conversation) -> None:
        assert run.messages[0].content == (
            f"{REQUEST}{ATTACHED}<file path='notes.txt'>\n\nseen on CI only\n</file>\n"
        )

    def test_a_reply_carries_its_reasoning_and_calls(self, run: Conversation) -> None:
        reply = run.messages[1]
        assert reply.content == "Reading the test." and reply.call_ids == ("call_1",)
        assert (reply.model_extra or {})["reasoning_content"] == "Look at the test first."
        assert reply.tool_calls[0].name == "view"  # type: ignore[index]
        assert reply.tool_calls[0].parsed_arguments() == {"file_path": "internal/backoff/retry_test.go"}  # type: ignore[index]

    def test_every_call_is_answered_once_after_it(self, run: Conversation) -> None:
        assert count_messages(run).to_dict() == {
            "real_user": 2,
            "internal_user": 3,
            "assistant": 5,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        results = {m.tool_call_id: m for m in run.messages if m.role == "tool"}
        assert results["call_2"].text == "exit status 1: --- FAIL: TestRetry"
        assert (results["call_2"].model_extra or {})["is_error"] is True
        # call_3 never got a result: Crush answers it with its own error, right after the call
        assert results["call_3"].text == INTERRUPTED and run.messages[4].tool_call_id == "call_3"
        assert results["call_4"].image_count == 1  # a media result sends its data
        assert "call_9" not in results  # a result to no call is dropped, as preparePrompt drops it

    def test_the_summary_is_a_recorded_compaction_sent_as_a_user_message(self, run: Conversation) -> None:
        (compaction,) = run.recorded_compactions
        summary = run.messages[compaction.index]
        assert (summary.role, summary.internal, summary.content) == ("user", True, SUMMARY)
        assert (compaction.source, compaction.summary) == ("crush", SUMMARY)
        assert ids(run)[compaction.index] == "msg-09"

    def test_harness_turns_are_internal_and_requests_real(self, run: Conversation) -> None:
        shell, _, queued = run.messages[6:9]
        assert (
            shell.text == "$ git status --short\nM backoff.go\n(exit code 0)"
        )  # ANSI stripped, as Crush does
        assert queued.text == CONTINUE and queued.internal
        users = [m for m in run.messages if m.is_real_user]
        assert users[0].text.startswith(REQUEST)
        assert users[1].content[0] == {"type": "text", "text": "Does this screenshot look right?"}
        assert users[1].image_count == 1  # the binary image; an image_url part is never sent

    def test_session_facts_are_metadata(self, run: Conversation) -> None:
        assert run.metadata == {
            "agent": "crush",
            "session_id": MAIN,
            "title": "Flaky retry test",
            "session_usage": {"prompt_tokens": 41200, "completion_tokens": 950},
            "total_cost_usd": 0.4821,
            "model": "claude-sonnet-4-5",
            "provider": "anthropic",
        }
        assert not any(m.usage_metadata for m in run.messages)  # Crush keeps no usage per message

    def test_readings_say_what_was_left_out_and_filled_in(self, run: Conversation) -> None:
        readings = {r.code: r for r in run.readings}
        assert readings["recorded_compactions"].count == 1
        assert readings["results_filled_in"].count == 1
        assert readings["events_skipped"].detail == (
            "assistant messages with nothing sent (cancelled or failed) ×1, tool results to no call ×1"
        )
        assert readings["model_from_file"].detail == "claude-sonnet-4-5"


class TestSeveralSessions:
    def test_one_conversation_a_session_with_messages_oldest_first(
        self, sessions: list[Conversation]
    ) -> None:
        assert [(c.name, c.metadata["session_id"]) for c in sessions] == [
            ("Flaky retry test", MAIN),
            ("Find the jitter", TASK),
        ]
        assert sessions[1].metadata["parent_session_id"] == MAIN

    def test_a_failed_summary_stays_a_reply_and_is_no_compaction(self, sessions: list[Conversation]) -> None:
        task = sessions[1]
        assert roles(task) == ["real user", "assistant", "assistant"]
        assert task.messages[2].text == "Partial summ" and task.recorded_compactions == []

    def test_an_older_database_names_its_summary_only_in_the_session(self, tmp_path: Path) -> None:
        path = tmp_path / "crush.db"
        with closing(sqlite3.connect(path)) as db, db:
            db.executescript(INITIAL + "ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;")
            db.execute("INSERT INTO sessions (id, title, summary_message_id, updated_at, created_at) VALUES ('s', '', 'm2', 0, 0)")  # fmt: skip
            for message_id, role, text in (("m1", "user", "Tidy the README."), ("m2", "assistant", "Earlier: tidying."), ("m3", "user", "Go on.")):  # fmt: skip
                db.execute(
                    "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at)"
                    " VALUES (?, 's', ?, ?, '', 0, 0)",
                    (message_id, role, json.dumps([part("text", text=text), finish("end_turn")])),
                )
        (old,) = load_conversations(path)
        assert old.name == "s" and roles(old) == ["real user", "internal user", "real user"]
        assert [c.index for c in old.recorded_compactions] == [1] and "model" not in old.metadata


class TestReadOnly:
    def test_the_database_is_only_read_and_nothing_appears_beside_it(self, tmp_path: Path) -> None:
        path = database(tmp_path / "crush.db")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["crush.db"]  # WAL mode, its log checkpointed
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        load_conversations(path)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["crush.db"]

    def test_a_running_crushs_newest_rows_in_the_log_are_read_and_left_as_they_are(
        self, tmp_path: Path
    ) -> None:
        path = database(tmp_path / "crush.db")
        log = tmp_path / "crush.db-wal"
        writer = sqlite3.connect(path)  # Crush still running: its newest row is only in crush.db-wal
        try:
            insert(writer, TASK, [("msg-23", "user", [part("text", text="And the cap?"), stop()], 103, {})])
            writer.commit()
            before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (path, log)]
            assert log.stat().st_size > 0
            task = load_conversations(path)[1]
            assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in (path, log)] == before
        finally:
            writer.close()
        assert task.messages[-1].text == "And the cap?" and task.messages[-1].is_real_user

    def test_an_upload_reads_like_the_file(self, tmp_path: Path, sessions: list[Conversation]) -> None:
        data = database(tmp_path / "crush.db").read_bytes()
        assert load_conversations(data, name="crush.db") == sessions


class TestBadInput:
    def test_a_row_whose_parts_are_not_json_names_the_row(self, tmp_path: Path) -> None:
        path = database(tmp_path / "crush.db")
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE messages SET parts = '[{\"type\": ' WHERE id = 'msg-03'")
        assert load_error(path) == f"{path}: messages row msg-03.parts: not valid JSON"

    def test_a_part_crush_cannot_read_names_its_field(self, tmp_path: Path) -> None:
        path = database(tmp_path / "crush.db")
        with closing(sqlite3.connect(path)) as db, db:
            db.execute(
                "UPDATE messages SET parts = ? WHERE id = 'msg-02'", (json.dumps([part("tool_use", id="x")]),)
            )
            db.execute(
                "UPDATE messages SET parts = ? WHERE id = 'msg-13'", (json.dumps([part("text", text=7)]),)
            )
        assert (
            load_error(path)
            == f"{path}: messages row msg-02.parts[0].type: unknown Crush part type 'tool_use'"
        )
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE messages SET parts = '[]' WHERE id = 'msg-02'")
        assert (
            load_error(path)
            == f"{path}: messages row msg-13.parts[0].data.text: must be a string, got number 7"
        )

    def test_hostile_session_numbers_still_load(self, tmp_path: Path) -> None:
        path = database(tmp_path / "crush.db")
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("PRAGMA ignore_check_constraints = ON")
            db.execute("UPDATE sessions SET prompt_tokens = 'many', completion_tokens = 1e400, cost = 1e400")
        run = load_conversations(path)[0]
        assert "session_usage" not in run.metadata and "total_cost_usd" not in run.metadata

    def test_a_corrupt_database_is_one_line_naming_the_file(self, tmp_path: Path) -> None:
        path = database(tmp_path / "crush.db")
        data = path.read_bytes()
        path.write_bytes(data[:100] + b"\xff" * (len(data) - 100))
        assert load_error(path) == f"{path}: cannot read the database (database disk image is malformed)"

    def test_an_unrelated_sqlite_file_is_one_line_naming_the_file(self, tmp_path: Path) -> None:
        path = tmp_path / "notes.db"
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE messages (id TEXT, session_id TEXT, body TEXT)")
            db.execute("CREATE TABLE sessions (id TEXT)")
        message = load_error(path)
        assert (
            message.startswith(f"{path}: is an SQLite database holding no conversation")
            and "crush-db" in message
        )

    def test_a_database_with_no_messages(self, tmp_path: Path) -> None:
        path = tmp_path / "crush.db"
        with closing(sqlite3.connect(path)) as db, db:
            db.executescript(INITIAL + LATER)
        assert load_error(path) == f"{path}: is a Crush database with no session that has messages"

    def test_the_cli_says_one_line_and_keeps_going(self, tmp_path: Path) -> None:
        path = database(tmp_path / "crush.db")
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE messages SET parts = '{oops' WHERE id = 'msg-01'")
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], out=out, err=err) == EXIT_BAD_INPUT
        assert len(err.getvalue().splitlines()) == 1 and "Traceback" not in err.getvalue()
        assert err.getvalue().startswith("compaction-lab: ") and str(path) in err.getvalue()


def test_a_media_result_that_is_not_base64_says_so(tmp_path: Path) -> None:
    path = database(tmp_path / "crush.db")
    with closing(sqlite3.connect(path)) as db, db:
        parts = [result("call_4", "edit", "", data="not base64!", mime_type="image/png"), stop()]
        db.execute("UPDATE messages SET parts = ? WHERE id = 'msg-12'", (json.dumps(parts),))
    run = load_conversations(path)[0]
    assert next(m for m in run.messages if m.tool_call_id == "call_4").content == MEDIA_FAILED
