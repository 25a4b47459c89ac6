"""OpenAI Chat Completions requests: shapes the API added after function tools (see the fixture's README)."""

from __future__ import annotations

from pathlib import Path

from compressor.analysis import run_model_of
from compressor.formats import load_conversations

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "formats" / "openai_chat"


class TestCustomTools:
    """A custom tool's call carries free text (``custom.input``), not JSON arguments; it is still a call."""

    def test_the_custom_call_is_a_call_answered_by_its_result(self) -> None:
        [conversation] = load_conversations(FIXTURES / "custom-tool-request.json")
        assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "tool", "assistant"]
        custom, function = conversation.messages[1].tool_calls
        assert (custom.id, custom.name, custom.arguments) == ("call_7Xq2c9", "code_exec", "print(7 * 191)")
        assert (function.name, function.arguments) == ("now", "{}")
        assert [m.tool_call_id for m in conversation.messages[2:4]] == ["call_7Xq2c9", "call_8Ya3d0"]

    def test_the_custom_tool_is_defined_and_the_developer_message_is_the_system_part(self) -> None:
        [conversation] = load_conversations(FIXTURES / "custom-tool-request.json")
        assert [(t.name, t.description) for t in conversation.tools] == [
            ("code_exec", "Executes arbitrary Python code"),
            ("now", ""),
        ]
        assert [m.role for m in conversation.system] == ["system"]
        assert run_model_of(conversation) == "gpt-5"
