"""Token counters (SPEC §5) and the window total (SPEC §6)."""

from __future__ import annotations

import json

import pytest

from compressor.errors import ConfigError
from compressor.image_tokens import UNKNOWN_SIZE_TOKENS
from compressor.messages import Conversation, Message, ToolDef
from compressor.tokens import (
    LIST_OVERHEAD,
    get_counter,
    load_encoding,
    profile,
    window_total,
)


class TestEncodings:
    @pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
    def test_bundled_encoding_matches_known_token_ids(self, name: str) -> None:
        encoding = load_encoding(name)
        # "hello world" is two tokens in both encodings; ids are the published ones.
        expected = {"cl100k_base": [15339, 1917], "o200k_base": [24912, 2375]}[name]
        assert encoding.encode("hello world") == expected

    def test_special_tokens_are_counted_as_text(self) -> None:
        counter = get_counter("cl100k_base")
        assert counter.tok("<|endoftext|>") > 1

    def test_unknown_counter_is_a_config_error(self) -> None:
        with pytest.raises(ConfigError, match="unknown token counter"):
            get_counter("gpt2")


class TestMessagePricing:
    def test_plain_message_wraps_role_and_text(self) -> None:
        counter = get_counter("cl100k_base")
        message = Message(role="user", content="fix the failing test")
        assert counter.message_tokens(message) == counter.tok("<|start|>user\nfix the failing test<|end|>")

    def test_list_overhead_is_added_once_per_list(self) -> None:
        counter = get_counter("cl100k_base")
        a, b = Message(role="user", content="a"), Message(role="assistant", content="b")
        assert counter.count([]) == 0
        assert counter.count([a]) == counter.message_tokens(a) + LIST_OVERHEAD
        assert counter.count([a, b]) == counter.message_tokens(a) + counter.message_tokens(b) + LIST_OVERHEAD

    def test_tiktoken_prices_tool_calls_in_openai_nested_form(self) -> None:
        counter = get_counter("cl100k_base")
        call = {"id": "c1", "type": "function", "name": "read_file", "arguments": '{"path": "a.py"}'}
        message = Message(role="assistant", content="", tool_calls=[call])
        nested = [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
            }
        ]
        expected = counter.tok("<|start|>assistant\n<|end|>") + counter.tok(
            json.dumps(nested, ensure_ascii=False)
        )
        assert counter.message_tokens(message) == expected

    def test_string_length_prices_flat_tool_calls(self) -> None:
        counter = get_counter("string_length")
        call = {"id": "c1", "type": "function", "name": "grep", "arguments": "{}"}
        message = Message(role="assistant", content="ok", tool_calls=[call])
        flat = [{**call, "index": None, "response_item_id": None}]
        expected = len("<|start|>assistant\nok<|end|>") // 3 + len(json.dumps(flat, ensure_ascii=False)) // 3
        assert counter.message_tokens(message) == expected

    def test_list_content_joins_text_parts_and_prices_other_parts_apart(self) -> None:
        counter = get_counter("cl100k_base")
        parts = [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},  # no readable size
            "plain",
            {"type": "custom", "x": 1},
        ]
        message = Message(role="user", content=parts)
        text_only = counter.tok("<|start|>user\nlook\nplain<|end|>")
        apart = counter.tok('{"type":"custom","x":1}')
        assert counter.message_tokens(message) == text_only + apart + UNKNOWN_SIZE_TOKENS

    def test_tools_are_priced_per_definition_plus_overhead(self) -> None:
        counter = get_counter("string_length")
        tool = ToolDef(name="grep", description="Search", parameters={"type": "object"})
        body = '{"name":"grep","description":"Search","parameters":{"type":"object"}}'
        assert counter.count_tools([]) == 0
        assert (
            counter.count_tools([tool])
            == len(f"<|start|>functions.grep:0\n{body}<|end|>") // 3 + LIST_OVERHEAD
        )

    def test_counts_are_cached_per_counter_on_the_message(self) -> None:
        message = Message(role="user", content="hello")
        get_counter("cl100k_base").message_tokens(message)
        get_counter("string_length").message_tokens(message)
        assert set(message._tokens) == {"cl100k_base", "string_length"}


class TestWindowTotal:
    def test_without_usage_the_window_is_counted(self) -> None:
        counter = get_counter("cl100k_base")
        system = [Message(role="system", content="be brief")]
        context = [Message(role="user", content="hi")]
        tools = [ToolDef(name="grep")]
        total = window_total(system, context, tools, counter)
        assert total.source == "counted"
        assert total.tokens == counter.count([*system, *context]) + counter.count_tools(tools)

    def test_the_last_fresh_usage_anchors_the_total(self) -> None:
        counter = get_counter("cl100k_base")
        context = [
            Message(role="user", content="x" * 30),
            Message(role="assistant", content="a", usage_metadata={"total_tokens": 500}),
            Message(
                role="assistant",
                content="b",
                usage_metadata={"total_tokens": 900},
                metadata={"context_usage_stale": True},
            ),
            Message(role="tool", content="y" * 31, tool_call_id="c"),
        ]
        total = window_total([], context, [], counter)
        assert (total.source, total.usage_index) == ("usage", 1)
        assert total.tokens == 500 + len("b") // 3 + 31 // 3

    def test_zero_usage_is_ignored(self) -> None:
        counter = get_counter("string_length")
        context = [Message(role="assistant", content="a", usage_metadata={"total_tokens": 0})]
        assert window_total([], context, [], counter).source == "counted"


class TestProfile:
    def test_profile_is_built_once_per_counter(self) -> None:
        conversation = Conversation.from_messages([{"role": "user", "content": "hi"}])
        first = profile(conversation, "cl100k_base")
        assert profile(conversation, "cl100k_base") is first
        assert profile(conversation, "string_length") is not first

    def test_count_range_equals_counting_the_slice(self) -> None:
        messages = [{"role": "user", "content": f"message number {i}"} for i in range(6)]
        conversation = Conversation.from_messages(messages)
        counter = get_counter("cl100k_base")
        tokens = profile(conversation, counter)
        for start in range(7):
            for end in range(start, 7):
                assert tokens.count_range(start, end) == counter.count(conversation.messages[start:end])
