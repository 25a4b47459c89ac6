"""Gemini API chat histories (``/chat save`` checkpoints of Gemini CLI and Qwen Code): Content turns as messages."""

from __future__ import annotations

from typing import Any

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

CHECKPOINT = FIXTURES / "formats" / "gemini" / "checkpoint-readme.json"


@pytest.fixture(scope="module")
def saved() -> Conversation:
    return load_conversation(fixture(CHECKPOINT))


def turn(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


class TestCheckpoint:
    def test_counts(self, saved: Conversation) -> None:
        assert saved.source_format == "gemini-history"
        assert count_messages(saved).to_dict() == {
            "real_user": 2,
            "internal_user": 1,
            "assistant": 3,
            "tool": 2,
            "tool_calls": 2,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_parallel_calls_and_their_responses(self, saved: Conversation) -> None:
        calls = saved.messages[3]
        assert (calls.model_extra or {})["reasoning_content"] == "Two quick checks."
        assert [c.name for c in calls.tool_calls or ()] == ["run_shell_command", "read_file"]
        assert [(m.tool_call_id, m.name) for m in saved.messages[4:6]] == [
            ("run_shell_command-1778241301-1a", "run_shell_command"),
            ("read_file-1778241301-2b", "read_file"),
        ]

    def test_the_environment_context_is_internal(self, saved: Conversation) -> None:
        assert saved.messages[0].internal and saved.messages[2].is_real_user


class TestHistory:
    def test_the_older_bare_list(self) -> None:
        run = load_conversation(
            [
                turn("user", {"text": "This is the Qwen Code. We are setting up the context for our chat."}),
                turn("user", {"text": "list files"}),
                turn("model", {"functionCall": {"name": "ls", "args": {}}}),
                turn("user", {"functionResponse": {"name": "ls", "response": {"output": "a b"}}}),
                turn("user", {"text": "<state_snapshot>done: listed files</state_snapshot>"}),
                turn("model", {"text": "Got it. Thanks for the additional context!"}),
            ]
        )
        assert [(m.role, m.internal) for m in run.messages] == [
            ("user", True),
            ("user", False),
            ("assistant", False),
            ("tool", False),
            ("user", True),
            ("assistant", False),
        ]
        assert run.messages[3].tool_call_id == run.messages[2].call_ids[0]
        assert [c.index for c in run.recorded_compactions] == [4]

    def test_parts_with_a_type_are_no_gemini_content(self) -> None:
        typed = [{"role": "user", "parts": [{"type": "text", "text": "a"}]}]
        assert load_conversation(typed).source_format != "gemini-history"
        assert load_conversation([turn("user", {"text": "a"})]).source_format == "gemini-history"

    def test_a_bad_part(self) -> None:
        with pytest.raises(ConversationFormatError) as error:
            load_conversation({"history": [turn("user", {"text": "a"}), {"role": "model", "parts": [3]}]})
        assert (
            str(error.value)
            == "<value>: history[1].parts[0]: a part must be an object or a string, got number"
        )
