"""The data model (SPEC §1): accepted shapes, kept fields, equality and serialisation."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from compressor.messages import Conversation, Message, ToolCall, ToolDef
from compressor.tokens import get_counter


class TestToolCall:
    def test_openai_and_flat_forms_are_the_same_call(self) -> None:
        nested = ToolCall.model_validate(
            {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        )
        flat = ToolCall.model_validate({"id": "c", "type": "function", "name": "bash", "arguments": "{}"})
        assert nested.openai() == flat.openai()

    def test_object_arguments_become_json_text(self) -> None:
        call = ToolCall.model_validate({"id": "c", "name": "read_file", "arguments": {"path": "文件.py"}})
        assert call.arguments == '{"path": "文件.py"}'
        assert call.parsed_arguments() == {"path": "文件.py"}

    @pytest.mark.parametrize(
        "data", [{"name": "x"}, {"id": "c"}, {"id": "", "name": "x"}, {"id": "c", "function": 3}]
    )
    def test_a_call_needs_an_id_and_a_name(self, data: dict[str, object]) -> None:
        with pytest.raises(ValidationError):
            ToolCall.model_validate(data)


class TestMessage:
    def test_roles_are_closed(self) -> None:
        with pytest.raises(ValidationError):
            Message(role="robot", content="x")  # type: ignore[arg-type]

    def test_a_tool_result_needs_its_call_id(self) -> None:
        with pytest.raises(ValidationError, match="tool_call_id"):
            Message(role="tool", content="ok")

    def test_only_assistants_call_tools(self) -> None:
        with pytest.raises(ValidationError, match="only assistant"):
            Message(role="user", content="x", tool_calls=[{"id": "c", "name": "bash"}])

    def test_usage_must_be_a_number(self) -> None:
        with pytest.raises(ValidationError, match="total_tokens"):
            Message(role="assistant", content="x", usage_metadata={"total_tokens": "many"})

    def test_null_content_is_empty_text(self) -> None:
        assert Message(role="assistant", content=None).text == ""  # type: ignore[arg-type]

    def test_equality_ignores_the_token_cache(self) -> None:
        a, b = Message(role="user", content="same"), Message(role="user", content="same")
        get_counter("string_length").message_tokens(a)
        assert a == b and a != Message(role="user", content="other")

    def test_round_trip_keeps_unknown_fields_on_messages_and_calls(self) -> None:
        data = {
            "role": "assistant",
            "content": "",
            "finish_reason": "tool_calls",
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "bash", "arguments": "{}"},
                    "response_item_id": "r1",
                }
            ],
        }
        out = Message.model_validate(data).to_openjiuwen()
        assert out["finish_reason"] == "tool_calls"
        assert out["tool_calls"] == [data["tool_calls"][0]]
        assert Message.model_validate(out) == Message.model_validate(data)

    def test_the_request_shape_sends_only_standard_fields(self) -> None:
        message = Message(role="tool", content="ok", tool_call_id="c", metadata={"x": 1}, extra_field=2)  # type: ignore[call-arg]
        assert message.to_openai() == {"role": "tool", "content": "ok", "tool_call_id": "c"}


class TestConversation:
    def test_leading_system_messages_are_the_system_part(self) -> None:
        conversation = Conversation.from_messages(
            [
                {"role": "system", "content": "a"},
                {"role": "user", "content": "b"},
                {"role": "system", "content": "c"},
            ],
            [{"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}],
        )
        assert [m.content for m in conversation.system] == ["a"]
        assert [m.role for m in conversation.messages] == ["user", "system"]
        assert conversation.tools == [ToolDef(name="grep", parameters={"type": "object"})]

    def test_system_holds_only_system_messages(self) -> None:
        with pytest.raises(ValidationError):
            Conversation(system=[Message(role="user", content="x")])


class TestCopiesKeepNoStaleCache:
    """A derived cache never outlives the data it was computed from, copies included (ARCHITECTURE rules)."""

    def run(self) -> Conversation:
        return Conversation.from_messages(
            [
                {"role": "user", "content": "fix the failing test"},
                {"role": "assistant", "content": "looking " * 40},
                {"role": "user", "content": "and then the docs"},
                {"role": "assistant", "content": "done " * 10},
            ]
        )

    @pytest.mark.parametrize("cut", [1, 2, 3])
    def test_a_copy_with_fewer_messages_analyses_like_a_fresh_conversation(self, cut: int) -> None:
        from compressor.analysis import analyze

        original = self.run()
        analyze(original)  # fills the original's caches
        copied = original.model_copy(update={"messages": original.messages[:cut]})
        fresh = Conversation(messages=original.messages[:cut])
        assert analyze(copied).total_tokens == analyze(fresh).total_tokens
        assert analyze(copied).segment_tokens == analyze(fresh).segment_tokens

    def test_the_original_keeps_its_numbers_after_a_copy_is_analysed(self) -> None:
        from compressor.analysis import analyze

        original = self.run()
        before = analyze(original).total_tokens
        analyze(original.model_copy(update={"messages": original.messages[:1]}))
        assert analyze(original).total_tokens == before

    @pytest.mark.parametrize("deep", [False, True])
    def test_a_message_copied_with_other_content_is_counted_again(self, deep: bool) -> None:
        counter = get_counter("cl100k_base")
        long = Message(role="assistant", content="word " * 200)
        counter.message_tokens_many([long])  # caches the long message's count on it
        short = long.model_copy(update={"content": "word"}, deep=deep)
        assert counter.message_tokens_many([short]) == counter.message_tokens_many(
            [Message(role="assistant", content="word")]
        )

    def test_deep_and_shallow_copies_start_with_empty_caches(self) -> None:
        import copy

        from compressor.tokens import profile

        original = self.run()
        profile(original)
        for copied in (copy.copy(original), copy.deepcopy(original), original.model_copy()):
            assert copied._profiles == {} and copied == original
