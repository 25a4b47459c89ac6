"""Cursor's older chats in a workspace's ``state.vscdb`` (``ItemTable``), read from a database Cursor wrote.

The fixture is a trimmed real database (tests/fixtures/formats/cursor/README.md). Before this reader it was refused
as "an SQLite database holding no conversation in a format I know".
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.messages import Conversation

DATABASE = (
    Path(__file__).resolve().parents[2] / "fixtures" / "formats" / "cursor" / "workspace-2024.state.vscdb"
)


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory) -> list[Conversation]:
    copy = tmp_path_factory.mktemp("cursor") / "state.vscdb"
    copy.write_bytes(DATABASE.read_bytes())
    return load_conversations(copy)


class TestTheWorkspaceDatabase:
    def test_chat_tabs_then_composers_each_a_conversation(self, chats: list[Conversation]) -> None:
        assert [c.name for c in chats[:2]] == [
            "Resolving Module Not Found Error in Code",
            "Running a Local Python Server via CLI",
        ]
        assert [len(c.messages) for c in chats] == [6, 2, 2, 4]
        assert {c.source_format for c in chats} == {"cursor"}

    def test_requests_and_replies_alternate_and_the_unsent_draft_is_left_out(
        self, chats: list[Conversation]
    ) -> None:
        tab = chats[0]
        assert [m.role for m in tab.messages] == ["user", "assistant"] * 3
        assert all(isinstance(m.content, str) and m.content.strip() for m in tab.messages)
        skipped = {r.code: r.detail for r in tab.readings}["events_skipped"]
        assert skipped == "empty user bubbles ×1"

    def test_a_reply_names_its_model(self, chats: list[Conversation]) -> None:
        assert chats[0].metadata["model"] == "claude-3.5-sonnet"
        assert "model" not in chats[2].metadata  # a composer's bubbles name none

    def test_a_workspace_database_without_chats_says_so_in_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "state.vscdb"
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
            db.execute("INSERT INTO ItemTable VALUES ('composer.composerData', '{\"allComposers\": []}')")
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(path)
        assert str(caught.value) == f"{path}: is a Cursor workspace database with no chat that has messages"
