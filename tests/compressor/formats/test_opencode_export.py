"""What ``opencode export`` prints: one session read as the storage reader reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from tests.conftest import FIXTURES

EXPORT = FIXTURES / "formats" / "opencode_export" / "exported-session.json"


class TestExport:
    def test_a_real_export_reads_as_its_session(self) -> None:
        run = load_conversation(EXPORT)
        assert run.source_format == "opencode"
        assert run.name == "E2E Title"
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "FIXTURE_USER_QUESTION"),
            ("assistant", "FIXTURE_ASSISTANT_REPLY"),
        ]
        assert run.metadata["session_id"] == "ses_ff120d4fcffePucbs4CihQBmC2"
        assert run.metadata["model"] == "test/test-model"

    def test_steps_tools_and_usage_as_in_storage(self, tmp_path: Path) -> None:
        data = json.loads(EXPORT.read_text())
        parts = data["messages"][1]["parts"]
        tool = {
            "type": "tool",
            "tool": "read",
            "callID": "call_1",
            "state": {"status": "completed", "input": {"filePath": "a.txt"}, "output": "hello"},
        }
        parts.insert(1, tool)
        parts[-1]["tokens"] = {"input": 90, "output": 10, "reasoning": 0, "cache": {"read": 900, "write": 0}}
        path = tmp_path / "export.json"
        path.write_text(json.dumps(data))
        run = load_conversation(path)
        assert [m.role for m in run.messages] == ["user", "assistant", "tool"]
        assert run.messages[1].call_ids == ("call_1",)
        assert run.messages[2].text == "hello"
        assert (run.messages[1].usage_metadata or {})["total_tokens"] == 1000

    def test_a_part_that_is_not_an_object_is_named(self, tmp_path: Path) -> None:
        data = json.loads(EXPORT.read_text())
        data["messages"][1]["parts"][1] = "FIXTURE_ASSISTANT_REPLY"
        path = tmp_path / "export.json"
        path.write_text(json.dumps(data))
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(path)
        assert str(raised.value) == (
            f"{path}: messages[1].parts[1]: expected a part (a JSON object), got string"
        )
