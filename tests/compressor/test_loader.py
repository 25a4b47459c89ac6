"""The loader: a format it does not know names what it tried; a session still being written reads up to its
last whole record."""

from __future__ import annotations

from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.formats.registry import READERS


class TestUnknownFormats:
    def test_the_error_lists_every_format_tried(self, tmp_path: Path) -> None:
        path = tmp_path / "steps.jsonl"
        path.write_text('{"step_index": 1, "source": "USER"}\n{"step_index": 2, "source": "MODEL"}\n')
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(path)
        message = str(caught.value)
        assert "\n" not in message
        assert "JSONL of objects with keys step_index, source" in message
        assert "formats tried: " + ", ".join(reader.name for reader in READERS) in message

    def test_an_object_names_its_keys(self) -> None:
        with pytest.raises(
            ConversationFormatError, match=r"an object with keys title, items; formats tried: "
        ):
            load_conversations({"title": "x", "items": []}, name="odd.json")


class TestFilesBeingWritten:
    def test_a_torn_last_line_is_left_out_with_a_note(self, tmp_path: Path) -> None:
        path = tmp_path / "live.jsonl"
        path.write_text(
            '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n{"role": "us'
        )
        (conversation,) = load_conversations(path)
        assert [m.role for m in conversation.messages] == ["user", "assistant"]
        assert [r.code for r in conversation.readings] == ["truncated_tail"]
        assert path.read_text().endswith('{"role": "us')  # the input is untouched

    def test_a_broken_line_in_the_middle_is_still_an_error(self, tmp_path: Path) -> None:
        path = tmp_path / "broken.jsonl"
        path.write_text(
            '{"role": "user", "content": "hi"}\n{"role": "assi\n{"role": "user", "content": "x"}\n'
        )
        with pytest.raises(ConversationFormatError, match="line 2: not valid JSON"):
            load_conversations(path)

    def test_a_torn_only_line_is_an_error(self, tmp_path: Path) -> None:
        path = tmp_path / "start.jsonl"
        path.write_text('{"role": "us')
        with pytest.raises(ConversationFormatError):
            load_conversations(path)

    def test_a_whole_file_has_no_note(self, tmp_path: Path) -> None:
        path = tmp_path / "done.jsonl"
        path.write_text('{"role": "user", "content": "hi"}\n')
        (conversation,) = load_conversations(path)
        assert conversation.readings == []


class TestUsageAfterTheAgentsOwnCompaction:
    def test_is_marked_stale_with_a_note(self) -> None:
        from compressor.formats.loader import _settled
        from compressor.messages import Conversation, RecordedCompaction

        run = Conversation.from_messages(
            [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "a", "usage_metadata": {"total_tokens": 90_000}},
                {"role": "user", "content": "summary of the work so far", "internal": True},
                {"role": "assistant", "content": "b", "usage_metadata": {"total_tokens": 12_000}},
                {"role": "assistant", "content": "c", "usage_metadata": {"total_tokens": 13_000}},
            ],
            recorded_compactions=[
                RecordedCompaction(index=2, source="test", summary="summary of the work so far")
            ],
        )
        settled = _settled(run)
        assert [m.reported_total_tokens for m in settled.messages] == [None, 90_000, None, None, None]
        assert [(r.code, r.count) for r in settled.readings] == [("usage_after_compaction_stale", 2)]
        assert run.messages[3].reported_total_tokens == 12_000  # the input value is untouched

    def test_a_run_that_opens_with_its_compaction_is_returned_as_is(self) -> None:
        # The file holds only the compacted history: the usage after it measured the window shown here.
        from compressor.formats.loader import _settled
        from compressor.messages import Conversation, RecordedCompaction

        run = Conversation.from_messages(
            [
                {"role": "assistant", "content": "summary of the work so far"},
                {"role": "user", "content": "go on"},
                {"role": "assistant", "content": "b", "usage_metadata": {"total_tokens": 12_000}},
            ],
            recorded_compactions=[
                RecordedCompaction(index=0, source="test", summary="summary of the work so far")
            ],
        )
        assert _settled(run) is run

    def test_a_run_without_recorded_compactions_is_returned_as_is(self) -> None:
        from compressor.formats.loader import _settled
        from compressor.messages import Conversation

        run = Conversation.from_messages(
            [{"role": "assistant", "content": "a", "usage_metadata": {"total_tokens": 5}}]
        )
        assert _settled(run) is run


class TestAnOpenedStore:
    def test_is_read_as_it_is_as_its_path_would_be(self, tmp_path: Path) -> None:
        from compressor.formats.stores import open_store
        from tests.compressor.formats.test_goose import database

        path = database(tmp_path / "sessions.db")
        store = open_store(path, "sessions.db")
        assert store is not None and store.kind == "sqlite"
        assert load_conversations(store) == load_conversations(path, name="sessions.db")

    def test_a_store_no_reader_takes_is_one_line_naming_it(self, tmp_path: Path) -> None:
        import sqlite3
        from contextlib import closing

        from compressor.formats.stores import open_store

        path = tmp_path / "other.db"
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE t (x)")
        store = open_store(path, "other.db")
        assert store is not None
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(store)
        assert str(raised.value).startswith("other.db: ")
