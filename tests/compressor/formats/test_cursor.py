"""Cursor agent chats: the ``cursorDiskKV`` table of Cursor's ``globalStorage/state.vscdb``.

Cursor publishes no schema. The databases here are built with sqlite3 from what independent public parsers agree on:
- kenn-io/agentsview ``internal/parser/cursor_vscdb.go`` at 93d3212: keys ``composerData:<id>`` and
  ``bubbleId:<id>:<bubble>``, bubbles in ``fullConversationHeadersOnly`` order, ``type`` 1 user / 2 assistant,
  ``toolFormerData {name, toolCallId, status, params, result}`` (params and result JSON text); opened read-only,
  "Cursor already runs in WAL";
- wakatime/wakatime-cli ``pkg/ai/cursor.go`` at 8cd96b2: ``toolFormerData {status, name, params, rawArgs, result}``,
  ``tokenCount {inputTokens, outputTokens}`` counted per request;
- michaeldhood/chatrxiv ``docs/cursor/storage-reference.md`` at d28513a: the tables as ``sqlite_master`` shows them
  (``key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB``), ``composerData`` fields (``name``, ``createdAt`` ms,
  ``modelConfig.modelName``, ``isAgentic``, ``unifiedMode``, the inline ``conversation`` of older chats), bubble
  fields (``thinking {text}``, ``tokenCount``);
- wiggitywhitney/mcp-commit-story ``docs/cursor-chat-discovery.md`` at 07a4c91: a message's content is ``text``
  (user), ``thinking.text`` or ``toolFormerData`` (AI), in header order;
- ndokutovich/claude-code-history-viewer ``src-tauri/src/commands/cursor.rs`` at 19b21ee: ``tokenCount`` and
  ``toolFormerData`` on bubbles.
The chats themselves are invented.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.formats.cursor import NO_RESULT
from compressor.formats.places import find_sessions
from compressor.messages import Conversation

SCHEMA = """
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
"""
FIX, ASK = "5c1f0b7e-fix", "0a2d9e41-ask"
REQUEST = "parseDate drops the timezone. Fix it and run the tests."


def tool(call_id: str, name: str, status: str, **fields: Any) -> dict[str, Any]:
    return {"tool": 15, "name": name, "toolCallId": call_id, "status": status, **fields}


# (bubble id, the bubble) in the order the chat's headers list them.
BUBBLES: list[tuple[str, dict[str, Any] | None]] = [
    ("b01", {"type": 1, "text": REQUEST, "tokenCount": {"inputTokens": 0, "outputTokens": 0}}),
    ("b02", {"type": 2, "text": "", "thinking": {"text": "Find parseDate first."}}),
    ("b03", {"type": 2, "text": "Looking for the parser."}),
    ("b04", {"type": 2, "text": "", "tokenCount": {"inputTokens": 9200, "outputTokens": 140},
             "toolFormerData": tool("toolu_01", "codebase_search", "completed", rawArgs='{"query": "parseDate"}',
                                    params='{"query": "parseDate", "targetDirectories": []}',
                                    result='{"codeResults": [{"path": "src/date.ts"}]}')}),
    ("b05", {"type": 2, "toolFormerData": tool("toolu_02", "edit_file", "completed",
                                               params='{"relativeWorkspacePath": "src/date.ts"}', result='{"diff": "+tz"}')}),
    ("b06", {"type": 2, "toolFormerData": tool("toolu_03", "run_terminal_cmd", "cancelled",
                                               rawArgs='{"command": "npm test"}', userDecision="rejected")}),
    ("b07", {"type": 2, "text": "parseDate keeps the offset now; the test run was cancelled.",
             "tokenCount": {"inputTokens": 12000, "outputTokens": 300}}),
    ("gone", None),  # listed by the chat, never written
    ("b08", {"type": 1, "text": "Run it again, please."}),
    ("b09", {"type": 2, "toolFormerData": tool("toolu_04", "run_terminal_cmd", "error", rawArgs='{"command": "npm test"}',
                                               result='{"output": "1 failing", "exitCode": 1}')}),
    ("b10", {"type": 2, "text": ""}),
    ("b11", {"type": 2, "text": "One test still fails: it expects UTC.",
             "conversationSummary": json.dumps({"summary": "Fixed parseDate.", "truncationLastBubbleIdInclusive": "b07"})}),
]  # fmt: skip
FIX_CHAT = {
    "_v": 10,
    "composerId": FIX,
    "name": "Fix the date parser",
    "createdAt": 1766691308486,
    "lastUpdatedAt": 1766692125731,
    "status": "completed",
    "isAgentic": True,
    "unifiedMode": "agent",
    "modelConfig": {"modelName": "claude-4.5-sonnet", "maxMode": False},
    "fullConversationHeadersOnly": [
        {"bubbleId": bubble_id, "type": (bubble or {}).get("type", 2)} for bubble_id, bubble in BUBBLES
    ],
    "conversationMap": {},
}
# An older chat: its bubbles inline, no name, the default model.
ASK_CHAT: dict[str, Any] = {
    "composerId": ASK,
    "createdAt": 1750000000000,
    "modelConfig": {"modelName": "default"},
    "conversation": [
        {"type": 1, "bubbleId": "a1", "text": "What does this regex match?"},
        {"type": 2, "bubbleId": "a2", "text": "Dates like 2024-01-31."},
    ],
}
EMPTY_CHAT = {"composerId": "7f00-empty", "createdAt": 1766000000000, "fullConversationHeadersOnly": []}


def put(db: sqlite3.Connection, key: str, value: Any, *, blob: bool = False) -> None:
    text = json.dumps(value)
    db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (key, text.encode() if blob else text))


def database(path: Path) -> Path:
    """A global state.vscdb holding the two chats, an empty one and a setting."""
    with closing(sqlite3.connect(path)) as db, db:  # closed: its log is checkpointed and removed
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(SCHEMA)
        db.execute("INSERT INTO ItemTable VALUES ('workbench.colorTheme', 'Dark')")
        for key, chat in ((FIX, FIX_CHAT), (ASK, ASK_CHAT), ("7f00-empty", EMPTY_CHAT)):
            put(db, f"composerData:{key}", chat)
        for position, (bubble_id, bubble) in enumerate(BUBBLES):
            if bubble is not None:  # values are BLOBs: some written as bytes, as VS Code's storage may
                put(
                    db,
                    f"bubbleId:{FIX}:{bubble_id}",
                    {"_v": 3, "bubbleId": bubble_id, **bubble},
                    blob=position % 2 == 0,
                )
        db.execute(
            "INSERT INTO cursorDiskKV VALUES (?, 'null')", (f"bubbleId:{FIX}:b12",)
        )  # an unlisted null row
    return path


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory) -> list[Conversation]:
    return load_conversations(database(tmp_path_factory.mktemp("cursor") / "state.vscdb"))


@pytest.fixture(scope="module")
def fix(chats: list[Conversation]) -> Conversation:
    return chats[1]


def roles(conversation: Conversation) -> list[str]:
    return [("real " if m.is_real_user else "internal " if m.is_internal else "") + m.role for m in conversation.messages]  # fmt: skip


def load_error(source: Any) -> str:
    with pytest.raises(ConversationFormatError) as caught:
        load_conversations(source)
    return str(caught.value)


class TestChat:
    def test_bubbles_in_header_order_one_call_an_assistant_message(self, fix: Conversation) -> None:
        assert fix.source_format == "cursor" and fix.name == "Fix the date parser"
        assert roles(fix) == [
            "real user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant",
            "real user", "assistant", "tool", "assistant",
        ]  # fmt: skip
        assert [m.call_ids for m in fix.messages if m.tool_calls] == [
            ("toolu_01",),
            ("toolu_02",),
            ("toolu_03",),
            ("toolu_04",),
        ]

    def test_text_and_thinking_go_with_the_call_after_them(self, fix: Conversation) -> None:
        search = fix.messages[1]
        assert search.content == "Looking for the parser."
        assert (search.model_extra or {})["reasoning_content"] == "Find parseDate first."
        assert search.tool_calls[0].arguments == '{"query": "parseDate"}'  # type: ignore[index]  # rawArgs first
        assert fix.messages[3].tool_calls[0].parsed_arguments() == {"relativeWorkspacePath": "src/date.ts"}  # type: ignore[index]
        assert fix.messages[7].content == "parseDate keeps the offset now; the test run was cancelled."

    def test_each_result_follows_its_call(self, fix: Conversation) -> None:
        assert count_messages(fix).to_dict() == {
            "real_user": 2,
            "internal_user": 0,
            "assistant": 6,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        results = {m.tool_call_id: m for m in fix.messages if m.role == "tool"}
        assert json.loads(results["toolu_01"].text) == {"codeResults": [{"path": "src/date.ts"}]}
        assert results["toolu_03"].text == NO_RESULT.format(status="cancelled")  # rejected, never ran
        assert (results["toolu_04"].model_extra or {})["is_error"] is True

    def test_what_was_left_out_is_counted_and_no_summary_is_a_compaction(self, fix: Conversation) -> None:
        readings = {r.code: r for r in fix.readings}
        assert readings["events_skipped"].detail == (
            "Cursor conversation summaries (where they cut the history is not recorded) ×1, "
            "assistant bubbles with nothing said ×1, bubbles the chat lists but the database does not hold ×1"
        )
        assert readings["results_filled_in"].count == 1
        assert fix.recorded_compactions == []

    def test_chat_facts_are_metadata_and_tokens_are_no_window(self, fix: Conversation) -> None:
        assert fix.metadata == {
            "agent": "cursor",
            "composer_id": FIX,
            "model": "claude-4.5-sonnet",
            "created_at": 1766691308486,
            "updated_at": 1766692125731,
            "mode": "agent",
            "is_agentic": True,
            "session_usage": {"input_tokens": 21200, "output_tokens": 440},
        }
        assert not any(m.usage_metadata for m in fix.messages)


class TestSeveralChats:
    def test_one_conversation_a_chat_with_bubbles_oldest_first(self, chats: list[Conversation]) -> None:
        assert [(c.name, c.metadata["composer_id"]) for c in chats] == [
            (ASK, ASK),
            ("Fix the date parser", FIX),
        ]

    def test_an_older_chat_keeps_its_bubbles_inline(self, chats: list[Conversation]) -> None:
        ask = chats[0]
        assert roles(ask) == ["real user", "assistant"] and ask.messages[1].text == "Dates like 2024-01-31."
        assert "model" not in ask.metadata  # "default" names no model


class TestReadOnly:
    def test_the_database_is_only_read_and_nothing_appears_beside_it(self, tmp_path: Path) -> None:
        path = database(tmp_path / "state.vscdb")
        before = hashlib.sha256(path.read_bytes()).hexdigest()
        load_conversations(path)
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["state.vscdb"]

    def test_a_running_cursors_newest_bubble_in_the_log_is_read_and_left_as_it_is(
        self, tmp_path: Path
    ) -> None:
        path = database(tmp_path / "state.vscdb")
        log = tmp_path / "state.vscdb-wal"
        writer = sqlite3.connect(path)  # Cursor open: its newest writes are only in state.vscdb-wal
        try:
            chat = {
                **ASK_CHAT,
                "conversation": [*ASK_CHAT["conversation"], {"type": 1, "text": "And times?"}],
            }
            put(writer, f"composerData:{ASK}", chat)
            writer.commit()
            before = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (path, log)]
            ask = load_conversations(path)[0]
            assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in (path, log)] == before
        finally:
            writer.close()
        assert ask.messages[-1].text == "And times?" and ask.messages[-1].is_real_user

    def test_an_upload_reads_like_the_file(self, tmp_path: Path, chats: list[Conversation]) -> None:
        data = database(tmp_path / "state.vscdb").read_bytes()
        assert load_conversations(data, name="state.vscdb") == chats


class TestBadInput:
    def test_a_bubble_that_is_not_json_names_its_key(self, tmp_path: Path) -> None:
        path = database(tmp_path / "state.vscdb")
        with closing(sqlite3.connect(path)) as db, db:
            db.execute(
                "UPDATE cursorDiskKV SET value = '{\"type\": ' WHERE key = ?", (f"bubbleId:{FIX}:b03",)
            )
        assert load_error(path) == f"{path}: cursorDiskKV[bubbleId:{FIX}:b03]: not valid JSON"

    def test_a_chat_that_is_no_object_names_its_key(self, tmp_path: Path) -> None:
        path = database(tmp_path / "state.vscdb")
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE cursorDiskKV SET value = '[1]' WHERE key = ?", (f"composerData:{ASK}",))
        assert load_error(path).startswith(f"{path}: cursorDiskKV[composerData:{ASK}]: expected a chat")

    def test_a_workspace_database_says_where_the_chats_are(self, tmp_path: Path) -> None:
        path = tmp_path / "state.vscdb"
        with closing(sqlite3.connect(path)) as db, db:
            db.executescript(SCHEMA)  # a workspace's cursorDiskKV is empty; its ItemTable lists chat ids only
            db.execute(
                "INSERT INTO ItemTable VALUES ('composer.composerData', ?)",
                (json.dumps({"allComposers": []}),),
            )
        message = load_error(path)
        assert message.startswith(f"{path}: is a Cursor state database with no chat that has messages")
        assert "globalStorage/state.vscdb" in message and "\n" not in message

    def test_a_vs_code_database_without_cursor_chats_is_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "state.vscdb"
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        message = load_error(path)
        assert (
            message.startswith(f"{path}: is an SQLite database holding no conversation")
            and "cursor-vscdb" in message
        )


class TestStandardPlace:
    def test_the_global_state_database_is_listed_once_and_reads(self, tmp_path: Path) -> None:
        folder = tmp_path / "home" / ".config/Cursor/User/globalStorage"
        folder.mkdir(parents=True)
        db = database(folder / "state.vscdb")
        (folder / "storage.json").write_text("{}")  # Cursor's other files there are no chats
        found = find_sessions(tmp_path / "home", environ={})
        assert [(s.agent, s.path) for s in found] == [("cursor", db)]
        assert [c.metadata["composer_id"] for c in load_conversations(found[0].path)] == [ASK, FIX]
