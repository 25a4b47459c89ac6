"""Anthropic Messages API files recorded by the SDK's own tests: how a request and a saved transcript read.

The fixtures are real exchanges (tests/fixtures/formats/anthropic/README.md names them); each test pins what the
file means as the API defines it: calls paired with results, usage as the reply's window, the model it names.
"""

from __future__ import annotations

import json
from pathlib import Path

from compressor.analysis import run_model_of
from compressor.formats import load_conversations

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "formats" / "anthropic"
TRANSCRIPT = FIXTURES / "sdk-tool-runner-transcript.json"
REQUEST = FIXTURES / "sdk-code-execution-request.json"


class TestSavedReplies:
    """Replies kept as the API returned them (``type: message``) are Anthropic messages, not Responses items."""

    def test_reads_as_anthropic_with_the_call_answered(self) -> None:
        [conversation] = load_conversations(TRANSCRIPT)
        assert conversation.source_format == "anthropic"
        assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "assistant"]
        call = conversation.messages[1].tool_calls[0]
        assert (call.name, json.loads(call.arguments)) == (
            "get_weather",
            {"location": "San Francisco, CA", "units": "f"},
        )
        assert conversation.messages[2].tool_call_id == call.id

    def test_each_reply_carries_its_usage_and_the_model_it_names(self) -> None:
        [conversation] = load_conversations(TRANSCRIPT)
        usages = [m.usage_metadata for m in conversation.messages if m.role == "assistant"]
        assert [(u["input_tokens"], u["output_tokens"]) for u in usages] == [(656, 74), (760, 63)]
        assert run_model_of(conversation) == "claude-haiku-4-5-20251001"


class TestRecordedRequest:
    """A request body the SDK sent: programmatic tool calling under a server-run code execution."""

    def test_the_tool_use_the_code_made_is_answered_and_the_server_call_stays_in_view(self) -> None:
        [conversation] = load_conversations(REQUEST)
        user, assistant, result = conversation.messages
        assert [call.name for call in assistant.tool_calls] == ["get_weather"]
        assert result.role == "tool" and result.tool_call_id == assistant.tool_calls[0].id
        # The model reads its own server_tool_use block back: it stays in the content, priced, not a call.
        assert [part["type"] for part in assistant.content] == ["text", "server_tool_use"]
        assert user.content.startswith("What is the weather in SF")

    def test_the_request_names_its_model_and_tools(self) -> None:
        [conversation] = load_conversations(REQUEST)
        assert run_model_of(conversation) == "claude-opus-4-5"
        assert [tool.name for tool in conversation.tools] == ["get_weather"]
