"""Cursor's older chats in a workspace's ``state.vscdb`` (``ItemTable``), read from a database Cursor wrote.

The fixture is a trimmed real database (tests/fixtures/formats/cursor/README.md). Before this reader it was refused
as "an SQLite database holding no conversation in a format I know".
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.formats.places import keeps_conversations
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


def copied(path: Path) -> Path:
    path.write_bytes(DATABASE.read_bytes())
    return path


def with_empty_newer_table(path: Path) -> Path:
    """The database as an upgraded Cursor leaves it: its 2024 chats in ItemTable beside an empty ``cursorDiskKV``
    (the newer store's table, which a workspace's database keeps empty: AgentBase ``docs/CURSOR.md``)."""
    copied(path)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    return path


def newer_workspace(path: Path) -> Path:
    """A newer Cursor's workspace database (0.50: pppp606/cursor-efficiency ``docs/vscdbRelation.md``): ItemTable's
    ``composer.composerData`` lists composer ids only, whose chats globalStorage's ``cursorDiskKV`` keeps; its own
    ``cursorDiskKV`` is empty."""
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        db.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        heads = {"allComposers": [{"composerId": "b1d2e3f4", "lastUpdatedAt": 1748736000000}]}
        db.execute("INSERT INTO ItemTable VALUES ('composer.composerData', ?)", (json.dumps(heads),))
    return path


class TestAnUpgradedWorkspaceDatabase:
    def test_its_chats_are_read_beside_an_empty_newer_table(self, tmp_path: Path) -> None:
        # before, the newer store's reader took it and found "no chat that has messages"
        chats = load_conversations(with_empty_newer_table(tmp_path / "state.vscdb"))
        assert [len(c.messages) for c in chats] == [6, 2, 2, 4]

    def test_a_newer_workspace_database_still_says_where_its_chats_are(self, tmp_path: Path) -> None:
        path = newer_workspace(tmp_path / "state.vscdb")
        with pytest.raises(ConversationFormatError, match=r"globalStorage/state\.vscdb"):
            load_conversations(path)


class TestWhetherItKeepsChats:
    """``StoreReader.holds``: asked before a workspace's database is listed among Cursor's sessions."""

    @pytest.mark.parametrize(
        ("make", "keeps"),
        [
            (copied, True),
            (with_empty_newer_table, True),
            (newer_workspace, False),
        ],
        ids=["2024", "upgraded", "newer"],
    )
    def test_only_a_database_with_chats_of_its_own_keeps_them(
        self, tmp_path: Path, make: Callable[[Path], Path], keeps: bool
    ) -> None:
        path = tmp_path / "state.vscdb"
        make(path)
        assert keeps_conversations(path) is keeps
