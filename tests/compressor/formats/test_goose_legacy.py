"""Goose's oldest session files: ``~/.config/goose/sessions/<name>.jsonl``, one Message a line with no metadata line,
as Goose wrote them before its move to the XDG folders (block/goose PR #1153, February 2025; the metadata line came in
March with PR #1453). Goose reads a first line that is no metadata as a message (``session/legacy.rs`` at decaa9d),
and so does this reader.

The fixture ``tests/fixtures/formats/goose/k7Qm2xTb.jsonl`` was written by hand (its README names the sources); the
session is invented.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.places import find_sessions, left_out
from compressor.messages import Conversation
from tests.compressor.formats.test_goose import SESSION, database
from tests.conftest import FIXTURES, fixture

LEGACY = FIXTURES / "formats" / "goose" / "k7Qm2xTb.jsonl"


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(fixture(LEGACY))


class TestMessagesOnlyFile:
    def test_every_line_is_a_message_read_as_goose_sends_it(self, run: Conversation) -> None:
        assert run.source_format == "goose" and run.name == "k7Qm2xTb"
        assert [m.role for m in run.messages] == [
            "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant",
        ]  # fmt: skip
        assert count_messages(run).to_dict()["unmatched_tool_calls"] == 0
        assert [c.name for m in run.messages for c in m.tool_calls or ()] == [
            "developer__shell", "developer__text_editor", "developer__text_editor",
        ]  # fmt: skip

    def test_the_copy_of_a_result_meant_for_the_user_is_not_sent(self, run: Conversation) -> None:
        assert run.messages[2].content.count("FAILED tests/test_dates.py") == 1

    def test_the_session_is_named_by_its_file_and_its_first_request_is_real(self, run: Conversation) -> None:
        assert run.metadata["session_id"] == "k7Qm2xTb"
        assert [m.internal for m in run.messages if m.role == "user"] == [False]

    def test_the_same_messages_after_a_metadata_line_read_the_same(
        self, run: Conversation, tmp_path: Path
    ) -> None:
        header = {"description": "week start", "message_count": 8, "working_dir": "/home/dev/cal"}
        path = tmp_path / "k7Qm2xTb.jsonl"
        path.write_text(json.dumps(header) + "\n" + fixture(LEGACY).read_text())
        assert load_conversation(path).messages == run.messages

    def test_an_id_goose_wrote_as_null_is_no_different(self, run: Conversation, tmp_path: Path) -> None:
        lines = [{"id": None, **json.loads(line)} for line in fixture(LEGACY).read_text().splitlines()]
        path = tmp_path / "k7Qm2xTb.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        assert load_conversation(path).messages == run.messages

    def test_a_line_with_keys_goose_never_writes_is_not_taken_for_goose(self, tmp_path: Path) -> None:
        path = tmp_path / "chat.jsonl"
        lines = [{"role": "user", "created": 1, "content": [{"type": "text", "text": "hi"}], "model": "x"}]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        try:
            read = load_conversation(path).source_format
        except ConversationFormatError:
            read = "refused"
        assert read != "goose"


class TestOlderPlace:
    def test_the_config_folder_is_a_standard_place_of_goose(self, tmp_path: Path) -> None:
        folder = tmp_path / "home" / ".config/goose/sessions"
        folder.mkdir(parents=True)
        shutil.copyfile(fixture(LEGACY), folder / LEGACY.name)
        found = find_sessions(tmp_path / "home", environ={})
        assert [(s.agent, s.path) for s in found] == [("goose", folder / LEGACY.name)]
        assert not left_out(folder / LEGACY.name)

    def test_it_is_listed_beside_the_newer_database_whose_imports_are_not(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        older, newer = home / ".config/goose/sessions", home / ".local/share/goose/sessions"
        older.mkdir(parents=True)
        newer.mkdir(parents=True)
        shutil.copyfile(fixture(LEGACY), older / LEGACY.name)
        db = database(newer / "sessions.db")
        shutil.copyfile(fixture(SESSION), newer / SESSION.name)  # imported into the db, left behind
        found = {(s.agent, s.path) for s in find_sessions(home, environ={})}
        assert found == {("goose", older / LEGACY.name), ("goose", db)}
        assert left_out(newer / SESSION.name) and not left_out(older / LEGACY.name)
