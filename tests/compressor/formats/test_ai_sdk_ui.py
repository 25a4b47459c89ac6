"""Vercel AI SDK ``UIMessage[]``: each assistant message split into its steps as ``convertToModelMessages`` splits
it, tool parts as calls and results, UI-only parts left out; v4's ``tool-invocation`` parts alike.

The fixture ``tests/fixtures/formats/ai_sdk/ui-messages-v5.json`` was built by hand from vercel/ai's
``ui-messages.ts`` (its README names the commits); the conversation is invented.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

UI = FIXTURES / "formats" / "ai_sdk" / "ui-messages-v5.json"


@pytest.fixture(scope="module")
def chat() -> Conversation:
    return load_conversation(fixture(UI))


def loaded(messages: Any) -> Conversation:
    return load_conversation(json.dumps(messages), name="chat.json")


class TestUIMessages:
    def test_each_step_is_one_call_and_its_results(self, chat: Conversation) -> None:
        assert chat.source_format == "ai-sdk-ui"
        assert [m.role for m in chat.system] == ["system"]
        assert [m.role for m in chat.messages] == [
            "user", "assistant", "tool", "assistant", "tool", "tool", "assistant", "user", "assistant",
        ]  # fmt: skip
        assert count_messages(chat).to_dict()["unmatched_tool_calls"] == 0

    def test_tool_parts_name_their_tool_and_results_follow_their_state(self, chat: Conversation) -> None:
        calls = [(c.id, c.name) for m in chat.messages for c in m.tool_calls or ()]
        assert calls == [
            ("call_gd71", "searchGuides"),
            ("call_st02", "checkStock"),
            ("call_wx03", "mcp_weather"),
        ]
        assert json.loads(chat.messages[2].content)["matches"][0]["slug"] == "early-blight"  # an object: JSON
        assert chat.messages[4].content == "12 in stock at 9.95 EUR"  # a string: as it is
        assert chat.messages[5].content == "MCP server 'weather' is not connected"  # output-error: its text

    def test_reasoning_goes_with_its_step_and_ui_parts_are_left_out(self, chat: Conversation) -> None:
        first = chat.messages[1]
        assert first.model_extra is not None and first.model_extra["reasoning_content"].startswith(
            "Concentric"
        )
        skipped = next(r for r in chat.readings if r.code == "lines_skipped")
        assert "'source-url'" in skipped.detail and "'data-suggestions'" in skipped.detail

    def test_the_users_image_is_sent_by_its_url(self, chat: Conversation) -> None:
        image = chat.messages[0].content[1]
        assert image == {
            "type": "image_url",
            "image_url": {"url": "https://uploads.example-seeds.nl/c/5f1e/leaf.jpg"},
        }

    def test_a_stored_chat_object_reads_the_same(self, chat: Conversation) -> None:
        stored = {"id": "chat_1", "messages": json.loads(fixture(UI).read_text())}
        assert loaded(stored).messages == chat.messages


class TestParts:
    def test_ai_sdk_4_tool_invocations(self) -> None:
        invocation = {
            "state": "result",
            "step": 0,
            "toolCallId": "c1",
            "toolName": "time",
            "args": {},
            "result": "noon",
        }
        messages = [
            {"id": "1", "role": "user", "content": "time?", "parts": [{"type": "text", "text": "time?"}]},
            {"id": "2", "role": "assistant", "content": "It is noon.", "parts": [
                {"type": "step-start"}, {"type": "tool-invocation", "toolInvocation": invocation},
                {"type": "step-start"}, {"type": "text", "text": "It is noon."}]},
        ]  # fmt: skip
        run = loaded(messages)
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]
        assert run.messages[2].content == '"noon"'  # AI SDK 4 sent JSON.stringify(result)

    def test_a_call_still_running_gets_a_stand_in_and_one_being_written_is_left_out(self) -> None:
        messages = [
            {"id": "1", "role": "user", "parts": [{"type": "text", "text": "go"}]},
            {"id": "2", "role": "assistant", "parts": [
                {"type": "tool-run", "toolCallId": "c1", "state": "input-available", "input": {"cmd": "ls"}},
                {"type": "tool-run", "toolCallId": "c2", "state": "input-streaming", "input": {"cm": 1}}]},
        ]  # fmt: skip
        run = loaded(messages)
        assert [c.id for c in run.messages[1].tool_calls or ()] == ["c1"]
        assert run.messages[2].tool_call_id == "c1" and any(
            r.code == "results_filled_in" for r in run.readings
        )

    def test_a_denied_call_is_answered_with_the_reason(self) -> None:
        denied = {"type": "tool-rm", "toolCallId": "c1", "state": "output-denied", "input": {}, "approval": {"id": "a", "approved": False, "reason": "not today"}}  # fmt: skip
        run = loaded([{"id": "1", "role": "user", "parts": [{"type": "text", "text": "rm"}]}, {"id": "2", "role": "assistant", "parts": [denied]}])  # fmt: skip
        assert run.messages[2].content == "not today"

    def test_a_chat_of_user_messages_only_is_ui_messages_not_a_gemini_history(self) -> None:
        """A chat saved before any reply has only ``{id, role: user, parts}``: Gemini's ``Content`` shape too, but
        Gemini's parts never carry a ``type`` (read as gemini-history before)."""
        asked = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Why is the build red?"}]}]
        image = {"type": "file", "mediaType": "image/png", "url": "https://ci.example/shot.png"}
        asked.append({"id": "u2", "role": "user", "parts": [{"type": "text", "text": "The log:"}, image]})
        run = loaded(asked)
        assert run.source_format == "ai-sdk-ui"
        assert [m.role for m in run.messages] == ["user", "user"]
        assert run.messages[0].content == "Why is the build red?"
        assert loaded(asked[:1]).source_format == "ai-sdk-ui"

    def test_chat_lists_with_content_keep_their_format(self) -> None:
        openai = [{"role": "user", "content": "hi", "parts": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": "yo"}]  # fmt: skip
        assert loaded(openai).source_format == "openai"


class TestBadInput:
    @pytest.mark.parametrize(
        ("messages", "words"),
        [
            ([{"id": "1", "role": "user", "parts": [{"type": "text", "text": 5}]}, {"id": "2", "role": "assistant", "parts": []}], r"\[0\]\.parts\[0\]\.text.*must be a non-empty string"),
            ([{"id": "1", "role": "assistant", "parts": [{"type": "tool-x", "toolCallId": "", "state": "output-available"}]}], r"\[0\]\.parts\[0\]\.toolCallId"),
            ([{"id": "1", "role": "user", "parts": [{"type": "text", "text": "a"}]}, {"id": "2", "role": "user", "parts": [7]}], r"\[1\]\.parts\[0\].*a part"),
        ],
    )  # fmt: skip
    def test_a_wrong_shape_is_one_line_naming_the_part(self, messages: list[Any], words: str) -> None:
        with pytest.raises(ConversationFormatError, match=words) as caught:
            loaded(messages)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("chat.json")
