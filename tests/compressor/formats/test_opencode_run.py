"""OpenCode's headless output (``opencode run --format json``): steps, tool parts, usage; the prompt stood in for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from tests.conftest import FIXTURES

RUN = FIXTURES / "formats" / "opencode_run" / "run-format-json.jsonl"


def _events() -> list[dict[str, object]]:
    return [json.loads(line) for line in RUN.read_text().splitlines()]


def _write(tmp_path: Path, events: list[dict[str, object]]) -> Path:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return path


class TestRun:
    def test_each_step_is_one_model_call_with_its_tools_answered(self) -> None:
        run = load_conversation(RUN)
        assert run.source_format == "opencode-run"
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "tool", "assistant"]
        assert run.messages[1].call_ids == (
            "call_00_ET_TZxYVSgG65xbQXy2xoET3952",
            "call_01_Hq2sVbT8uYkLmN0pQ4rS6tU8vW",
        )
        assert [m.tool_call_id for m in run.messages[2:4]] == list(run.messages[1].call_ids)
        assert run.messages[3].text == "File not found: /home/dev/ledger/tests/test_since_old.py"
        assert count_messages(run).to_dict()["unmatched_tool_calls"] == 0

    def test_step_finish_tokens_are_each_calls_window(self) -> None:
        run = load_conversation(RUN)
        totals = [(m.usage_metadata or {}).get("total_tokens") for m in run.messages if m.role == "assistant"]
        assert totals == [13325, 13684]

    def test_reasoning_stays_beside_its_reply(self) -> None:
        run = load_conversation(RUN)
        assert (run.messages[1].model_extra or {}).get("reasoning_content") == (
            "The tests are under tests/; run them first."
        )

    def test_an_empty_request_stands_for_the_prompt_it_does_not_print(self) -> None:
        run = load_conversation(RUN)
        assert run.messages[0].text == ""
        assert run.messages[0].metadata == {
            "stands_for": "the prompt opencode run was given (not in its output)"
        }
        assert [r.code for r in run.readings] == ["prompts_not_recorded"]
        assert run.metadata == {"agent": "opencode", "session_id": "ses_0a1b2c3d4ffeQx7LmN2pR4sT6u"}


class TestEdges:
    def test_an_error_event_is_skipped_and_counted(self, tmp_path: Path) -> None:
        error = {
            "type": "error",
            "timestamp": 1,
            "sessionID": "ses_0a1b2c3d4ffeQx7LmN2pR4sT6u",
            "error": {"name": "APIError", "data": {"message": "overloaded"}},
        }
        run = load_conversation(_write(tmp_path, [*_events(), error]))
        assert len(run.messages) == 5
        (skipped,) = [r for r in run.readings if r.code == "events_skipped"]
        assert skipped.detail == "error events ×1"

    def test_two_sessions_are_two_conversations(self, tmp_path: Path) -> None:
        other = [
            {**event, "sessionID": "ses_other", "part": {**event["part"], "messageID": "msg_other"}}  # type: ignore[dict-item]
            for event in _events()[-3:]
        ]
        runs = load_conversations(_write(tmp_path, [*_events(), *other]))
        assert [r.metadata["session_id"] for r in runs] == ["ses_0a1b2c3d4ffeQx7LmN2pR4sT6u", "ses_other"]
        assert [len(r.messages) for r in runs] == [5, 2]

    def test_a_part_that_is_not_an_object_names_its_line(self, tmp_path: Path) -> None:
        events = _events()
        events.append({**events[0], "part": "step-start"})
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(_write(tmp_path, events))
        assert str(raised.value).startswith(f"{tmp_path / 'run.jsonl'}: line 9")
