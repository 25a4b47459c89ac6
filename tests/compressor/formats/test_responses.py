"""OpenAI Responses items — a raw ``input`` array or a request body — read by the parser Codex rollouts share."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.responses import CODEX_RULES, SUMMARY_PREFIX, is_typed_item
from compressor.messages import Conversation
from compressor.tokens import get_counter
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "responses"


@pytest.fixture(scope="module")
def items() -> Conversation:
    return load_conversation(fixture(HERE / "input.json"))


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


class TestInputArray:
    def test_counts(self, items: Conversation) -> None:
        assert items.source_format == "openai-responses"
        assert count_messages(items).to_dict() == {
            "real_user": 3,
            "internal_user": 0,
            "assistant": 5,
            "tool": 3,
            "tool_calls": 3,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_the_developer_message_is_the_system_prompt(self, items: Conversation) -> None:
        assert [m.role for m in items.system] == ["system"]
        assert items.system[0].content.startswith("You are a support agent")

    def test_an_image_part_is_priced_as_an_image(self, items: Conversation) -> None:
        first = items.messages[0]
        assert first.content == [
            {"type": "text", "text": "Where is my order 4471? The tracking page shows this:"},
            {
                "type": "image_url",
                "image_url": {"url": "https://example.com/uploads/tracking-4471.png", "detail": "low"},
            },
        ]
        assert first.image_count == 1

    def test_reasoning_joins_the_call_it_led_to(self, items: Conversation) -> None:
        call = items.messages[1]
        assert (
            call.content == ""
            and (call.model_extra or {})["reasoning_content"] == "Look the order up before answering."
        )
        assert call.tool_calls is not None and json.loads(call.tool_calls[0].arguments) == {
            "order_id": "4471"
        }

    def test_content_item_outputs_and_server_side_calls(self, items: Conversation) -> None:
        assert items.messages[6].content == "Address changes are closed once an order has shipped."
        search = items.messages[7]
        assert isinstance(search.content, list) and search.content[0]["type"] == "web_search_call"
        assert search.content[1] == {"type": "text", "text": search.content[1]["text"]}
        assert not search.tool_calls  # no output item ever answers a server-side call

    def test_an_orphan_output_is_left_out_and_a_lone_call_is_aborted(self, items: Conversation) -> None:
        assert all(m.tool_call_id != "call_stale0" for m in items.messages)
        assert items.messages[-1].tool_call_id == "call_u7i8o9" and items.messages[-1].content == "aborted"
        assert [describe_reading(r) for r in items.readings] == [
            '1 tool call has no result in the file and was given the result "aborted", as Codex gives a call '
            "that has none",
            "1 line that is not part of the conversation was skipped (tool results that answer no call ×1)",
        ]


class TestRequestBody:
    def test_instructions_model_and_function_tools(self) -> None:
        body = load_conversation(fixture(HERE / "request.json"))
        assert body.system[0].content == "Answer in one sentence."
        assert [m.role for m in body.messages] == ["user", "assistant", "user"]
        assert [tool.name for tool in body.tools] == [
            "search"
        ]  # the built-in web search tool has no function
        assert body.metadata == {"model": "gpt-4.1-mini"}


class TestCodexRules:
    @pytest.mark.parametrize(
        ("text", "kind"),
        [
            ("# agents.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>", "internal"),
            ("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>", "internal"),
            ("<user_instructions>\nbe brief\n</user_instructions>", "internal"),
            ("<turn_aborted>\ninterrupted\n</turn_aborted>", "internal"),
            ("<environment_context> what does this tag mean?", "request"),  # Codex needs the closing tag too
            ("please read AGENTS.md", "request"),
        ],
    )
    def test_injected_context(self, text: str, kind: str) -> None:
        assert CODEX_RULES.kind(text.lower()) == kind

    def test_case_does_not_matter(self) -> None:
        run = load_conversation(
            [user("<ENVIRONMENT_CONTEXT><cwd>/w</cwd></ENVIRONMENT_CONTEXT>"), user("go")]
        )
        assert [m.internal for m in run.messages] == [True, False]

    def test_a_summary_message_is_a_recorded_compaction(self) -> None:
        run = load_conversation([user("fix it"), user(SUMMARY_PREFIX + "\nwhat was done"), user("go on")])
        (compaction,) = run.recorded_compactions
        assert (compaction.index, compaction.source) == (1, "openai-responses")
        assert run.messages[1].internal and compaction.summary.endswith("what was done")


class TestDetection:
    def test_a_chat_completions_list_stays_with_the_chat_reader(self) -> None:
        chat = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "yo"}]},
        ]
        assert not any(map(is_typed_item, chat))
        assert load_conversation(chat).source_format == "openai"

    def test_easy_input_messages_among_typed_items(self) -> None:
        run = load_conversation(
            [
                {"role": "user", "content": "hi"},
                {"type": "function_call", "call_id": "c", "name": "ls", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c", "output": "a b"},
            ]
        )
        assert run.source_format == "openai-responses"
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "hi"),
            ("assistant", ""),
            ("tool", "a b"),
        ]


class TestBadInput:
    @pytest.mark.parametrize(
        ("value", "problem"),
        [
            ([user("a"), {"type": "function_call_output", "output": "x"}], "<value>: [1]: missing call_id"),
            (
                [user("a"), {"type": "function_call", "call_id": 3, "name": "ls"}],
                "<value>: [1].call_id: must be a string, got number 3",
            ),
            (
                [user("a"), {"type": "message", "role": "user", "content": 5}],
                "<value>: [1].content: must be a string or a list of content parts, got number",
            ),
            (
                [{"type": "message", "role": "user", "content": [7]}],
                "<value>: [0].content[0]: expected a content part (a JSON object), got number",
            ),
        ],
    )
    def test_one_line_naming_the_field(self, value: Any, problem: str) -> None:
        with pytest.raises(ConversationFormatError) as error:
            load_conversation(value)
        assert str(error.value) == problem


class TestMutatedShapes:
    """Found by mutating the fixtures: an item whose type is a list, or a request whose tools are a number, was a
    TypeError out of the reader."""

    def test_an_item_type_that_is_not_a_string_is_one_line(self) -> None:
        items = json.loads(fixture(HERE / "input.json").read_text())
        items[1]["type"] = ["message"]
        with pytest.raises(ConversationFormatError, match=r"\[1\]\.type: must be a string, got list"):
            load_conversation(json.dumps(items), name="i.json")

    def test_tools_that_are_not_a_list_are_no_tools(self) -> None:
        body = json.loads(fixture(HERE / "request.json").read_text())
        body["tools"] = 1.5
        assert load_conversation(json.dumps(body), name="r.json").tools == []


AUDIO_URL = "data:audio/wav;base64," + "UklGRiQAAABXQVZFZm10IBAAAAABAAEA" * 200


class TestAudioParts:
    """An audio part's data is never counted as text: newer Codex's ``ContentItem::InputAudio { audio_url }``
    (``{type: input_audio, audio_url: <data URL>}``, codex-rs/protocol models.rs) and Chat Completions'
    ``{type: input_audio, input_audio: {data, format}}``; the Responses API prices no audio input, so the data is
    left out with a reading. Items built from those shapes."""

    def loaded(self, *items: dict[str, Any]) -> Conversation:
        return load_conversation(json.dumps(list(items)), name="items.json")

    def test_a_spoken_request_keeps_its_part_without_the_data_url(self) -> None:
        heard = {"type": "input_audio", "audio_url": AUDIO_URL}
        asked = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hear this"}, heard],
        }
        run = self.loaded(asked)
        assert run.messages[0].content == [{"type": "text", "text": "hear this"}, {"type": "input_audio"}]
        skipped = next(r for r in run.readings if r.code == "lines_skipped")
        assert "audio data in content parts" in skipped.detail

    def test_audio_a_tool_returns_is_left_out_of_its_result(self) -> None:
        call = {"type": "function_call", "call_id": "c1", "name": "record", "arguments": "{}"}
        nested = {"type": "input_audio", "input_audio": {"data": AUDIO_URL[22:], "format": "wav"}}
        output = {"type": "function_call_output", "call_id": "c1", "output": [nested]}
        run = self.loaded(user("record it"), call, output)
        assert run.messages[-1].content == [{"type": "input_audio", "input_audio": {"format": "wav"}}]
        assert get_counter().message_tokens(run.messages[-1]) < 50  # the data alone is thousands

    def test_an_audio_url_that_is_no_data_url_stays(self) -> None:
        link = {"type": "input_audio", "audio_url": "https://example.com/a.wav"}
        run = self.loaded({"type": "message", "role": "user", "content": [link]})
        assert run.messages[0].content == [link]
