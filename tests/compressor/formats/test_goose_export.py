"""``goose session export`` (JSON): the session Goose exports, its messages read as its session files and database
are, its own fields as the conversation's name and metadata.

The fixture ``tests/fixtures/formats/goose/session-export-20251108_3.json`` was written by hand from block/goose
(its README names the files and commits); the session is invented.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import EXIT_BAD_INPUT, EXIT_OK, main
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.goose import USAGE_KEYS
from compressor.messages import Conversation
from tests.compressor.formats.test_goose import SESSION
from tests.conftest import FIXTURES, fixture

EXPORT = FIXTURES / "formats" / "goose" / "session-export-20251108_3.json"


def exported() -> dict[str, Any]:
    session: dict[str, Any] = json.loads(fixture(EXPORT).read_text())
    return session


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(fixture(EXPORT))


def loaded(session: dict[str, Any]) -> Conversation:
    return load_conversation(json.dumps(session), name="export.json")


class TestExport:
    def test_the_conversation_is_read_as_goose_sends_it(self, run: Conversation) -> None:
        assert run.source_format == "goose" and run.name == "Nightly backup upload fails"
        assert [m.role for m in run.messages] == [
            "user", "assistant", "tool", "assistant", "tool", "assistant", "user", "assistant", "tool",
            "assistant", "tool", "assistant",
        ]  # fmt: skip
        calls = [c.id for m in run.messages for c in m.tool_calls or ()]
        assert [m.tool_call_id for m in run.messages if m.role == "tool"] == calls

    def test_the_sessions_facts_and_nested_usage_are_metadata(self, run: Conversation) -> None:
        assert run.metadata["session_id"] == "20251108_3" and run.metadata["working_dir"] == "/home/ops"
        assert run.metadata["model"] == "gpt-4o" and run.metadata["context_window"] == 128_000
        assert run.metadata["session_usage"] == {
            "total_tokens": 4806, "input_tokens": 4710, "output_tokens": 96,
            "accumulated_total_tokens": 22086, "accumulated_input_tokens": 21344, "accumulated_output_tokens": 742,
        }  # fmt: skip
        assert all(m.reported_total_tokens is None for m in run.messages)

    def test_an_older_export_with_flat_counts_reads_the_same(self, run: Conversation) -> None:
        session = exported()
        usage, accumulated = session.pop("usage"), session.pop("accumulated_usage")
        flat = {key: usage[key] for key in ("total_tokens", "input_tokens", "output_tokens")}
        flat |= {
            f"accumulated_{key}": accumulated[key]
            for key in ("total_tokens", "input_tokens", "output_tokens")
        }
        older = loaded({**session, **flat})
        assert older.messages == run.messages
        assert older.metadata["session_usage"] == run.metadata["session_usage"]
        assert set(flat) == set(USAGE_KEYS)

    def test_a_session_file_and_its_export_hold_the_same_messages(self) -> None:
        """The session file's header and messages, exported: what Goose's export of that session would hold."""
        header, *messages = [json.loads(line) for line in fixture(SESSION).read_text().splitlines()]
        session = {"id": "20250918_143012", "name": header["description"], **header}
        session |= {"conversation": messages, "message_count": len(messages)}
        assert loaded(session).messages == load_conversation(fixture(SESSION)).messages

    def test_inspect_prints_a_decision(self) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(fixture(EXPORT))], out=out, err=err) == EXIT_OK, err.getvalue()
        assert any(line.strip().startswith("decision") for line in out.getvalue().splitlines())


class TestBadInput:
    @pytest.mark.parametrize(
        ("change", "words"),
        [
            ({"conversation": None}, r"conversation: is null: the session was exported without its messages"),
            ({"conversation": "text"}, r"conversation: expected the session's messages \(a JSON list\)"),
            ({"id": 7}, r"id: must be a string, got number 7"),
            ({"usage": [1]}, r"usage: expected token usage"),
            ({"conversation": [{"role": "robot", "created": 1, "content": []}]}, r"conversation\[0\]\.role"),
        ],
    )
    def test_a_wrong_field_is_one_line_naming_it(self, change: dict[str, Any], words: str) -> None:
        with pytest.raises(ConversationFormatError, match=words) as caught:
            loaded({**exported(), **change})
        assert "\n" not in str(caught.value) and str(caught.value).startswith("export.json")

    def test_the_cli_says_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "export.json"
        path.write_text(json.dumps({**exported(), "conversation": None}))
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], out=out, err=err) == EXIT_BAD_INPUT
        assert len(err.getvalue().splitlines()) == 1 and err.getvalue().startswith("compaction-lab: ")
