"""Cline CLI 3.x sessions (``<id>.messages.json``): the system prompt, each reply with its window from ``metrics``,
tool results by id (a tool's own result objects as their JSON), the person's ``<user_input>`` a real request.
Before this reader, such a file was read as a bare Anthropic message list: no usage, no system prompt, a
``read_files`` result as Python's repr of its objects."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from compressor.census import count_messages
from compressor.formats import load_conversation
from compressor.formats.places import find_sessions
from tests.conftest import FIXTURES, fixture

SESSION = FIXTURES / "formats" / "cline" / "1796161295367_z8gc0.messages.json"


class TestCliSession:
    def test_roles_and_pairing(self) -> None:
        run = load_conversation(fixture(SESSION))
        assert run.source_format == "cline" and len(run.system) == 1
        assert str(run.system[0].content).startswith("You are Cline, an AI coding agent.")
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        counts = count_messages(run)
        assert (counts.real_user, counts.tool_calls, counts.unmatched_tool_calls) == (1, 2, 0)

    def test_each_replys_metrics_are_its_window(self) -> None:
        run = load_conversation(fixture(SESSION))
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"] == [
            1097 + 17,
            1179 + 17,
            1410 + 17,
        ]
        assert run.metadata["model"] == "fake-gpt-4o" and run.metadata["cline_version"] == "3.0.65"

    def test_a_tools_own_result_objects_are_sent_as_json(self) -> None:
        run = load_conversation(fixture(SESSION))
        assert json.loads(str(run.messages[2].content)) == [
            {"query": "notes.txt", "result": "1 | deploy: Friday", "success": True}
        ]

    def test_the_clis_text_beside_tool_results_is_internal(self) -> None:
        data = json.loads(fixture(SESSION).read_text())
        data["messages"][2]["content"].append({"type": "text", "text": "<mode_notice>act</mode_notice>"})
        run = load_conversation(json.dumps(data), name="s.messages.json")
        assert [(m.role, m.internal) for m in run.messages[2:4]] == [("tool", False), ("user", True)]
        assert count_messages(run).real_user == 1


def test_the_clis_sessions_are_found_in_its_standard_place(tmp_path: Path) -> None:
    folder = tmp_path / ".cline/data/sessions/1796161295367_z8gc0"
    folder.mkdir(parents=True)
    shutil.copyfile(fixture(SESSION), folder / SESSION.name)
    (folder / "1796161295367_z8gc0.json").write_text(json.dumps({"version": 1, "status": "completed"}))
    found = find_sessions(tmp_path, environ={})
    assert [(s.agent, s.path) for s in found] == [("cline", folder / SESSION.name)]
