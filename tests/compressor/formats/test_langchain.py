"""LangChain message histories: messages_to_dict lists and the serialised ``lc`` form, roles from the message type,
LangChain's tool calls and usage_metadata kept as openJiuwen reads them."""

from __future__ import annotations

import json

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.messages import Conversation
from tests.conftest import FIXTURES

FOLDER = FIXTURES / "formats" / "langchain"
HISTORY = FOLDER / "file-chat-history.json"
SERIALISED = FOLDER / "langsmith-messages.json"


@pytest.fixture(scope="module")
def history() -> Conversation:
    return load_conversation(HISTORY)


class TestFileChatHistory:
    def test_roles_come_from_the_message_types(self, history: Conversation) -> None:
        assert history.source_format == "langchain"
        assert [m.role for m in history.system] == ["system"]
        assert [m.role for m in history.messages] == [
            "user", "assistant", "tool", "assistant", "tool", "system", "assistant", "tool", "assistant", "user",
        ]  # fmt: skip
        assert count_messages(history).to_dict()["unmatched_tool_calls"] == 0

    def test_langchains_tool_calls_and_the_providers(self, history: Conversation) -> None:
        calls = [
            (c.id, c.name, json.loads(c.arguments)) for m in history.messages for c in m.tool_calls or ()
        ]
        assert calls == [
            ("call_Xq1", "get_booking", {"flight": "AB123"}),
            ("toolu_01", "search_flights", {"route": "AMS-LIS", "after": "17:00"}),
            ("call_Zr9", "hold_seat", {"flight": "AB127"}),  # only in additional_kwargs, OpenAI's form
        ]

    def test_a_tool_use_block_is_not_counted_twice(self, history: Conversation) -> None:
        blocks = history.messages[3].content
        assert isinstance(blocks, list) and [part["type"] for part in blocks] == ["text"]

    def test_usage_is_the_window_openjiuwen_reads(self, history: Conversation) -> None:
        first = history.messages[1]
        assert first.usage_metadata is not None and first.reported_total_tokens == 433
        analysis = analyze(history, context_max=128_000)
        assert analysis.to_dict()["total_source"] == "usage"

    def test_a_remove_message_is_left_out_with_a_reading(self, history: Conversation) -> None:
        skipped = next(r for r in history.readings if r.code == "lines_skipped")
        assert skipped.count == 1 and "remove messages" in skipped.detail
        assert history.metadata["model"] == "gpt-4o-2024-08-06"


class TestSerialised:
    def test_the_lc_constructor_form_inside_messages(self) -> None:
        run = load_conversation(SERIALISED)
        assert run.source_format == "langchain"
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]
        assert run.messages[-1].reported_total_tokens == 172
        assert run.messages[2].tool_call_id == "call_1" and run.messages[2].model_extra == {
            "status": "success"
        }

    def test_jsonl_of_dicts(self) -> None:
        lines = "\n".join(json.dumps(m) for m in json.loads(HISTORY.read_text())) + "\n"
        run = load_conversation(lines, name="history.jsonl")
        assert run.messages == load_conversation(HISTORY).messages


class TestBadInput:
    def test_a_chat_message_with_an_unknown_role_names_it(self) -> None:
        bad = [
            {"type": "human", "data": {"content": "hi"}},
            {"type": "chat", "data": {"content": "x", "role": "narrator"}},
        ]
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation(json.dumps(bad), name="h.json")
        message = str(caught.value)
        assert "\n" not in message and "[1]" in message and "narrator" in message

    def test_content_of_the_wrong_type_names_the_field(self) -> None:
        bad = [{"type": "human", "data": {"content": 7}}]
        with pytest.raises(ConversationFormatError, match=r"content.*must be a string or a list, got number"):
            load_conversation(json.dumps(bad), name="h.json")

    @pytest.mark.parametrize(
        ("field", "value", "words"),
        [
            ("id", [1], r"\[1\]\.data\.tool_calls\[0\]\.id: must be a string or null, got list"),
            ("name", {"a": 1}, r"\[1\]\.data\.tool_calls\[0\]\.name: must be a non-empty string"),
        ],
    )
    def test_a_tool_call_of_the_wrong_shape_is_one_line(self, field: str, value: object, words: str) -> None:
        """Found by mutating the LangChain-written fixture: a list as a call id was a TypeError (unhashable)."""
        call = {"name": "stock", "args": {}, "id": "c1", field: value}
        bad = [
            {"type": "human", "data": {"content": "hi"}},
            {"type": "ai", "data": {"content": "", "tool_calls": [call]}},
        ]
        with pytest.raises(ConversationFormatError, match=words) as caught:
            load_conversation(json.dumps(bad), name="h.json")
        assert "\n" not in str(caught.value)


class TestSummarizationMiddleware:
    """A LangChain agent's own compaction (``SummarizationMiddleware``), in files LangChain wrote: before, its
    summary was read as a real request and no compaction was recorded."""

    @pytest.mark.parametrize("name", ["agent-summarized.json", "agent-summarized-dumpd.json"])
    def test_the_summary_is_internal_and_the_recorded_compaction(self, name: str) -> None:
        run = load_conversation(FOLDER / name)
        assert [(m.role, m.internal) for m in run.messages] == [
            ("user", True),
            ("user", False),
            ("assistant", False),
            ("tool", False),
            ("assistant", False),
        ]
        (compaction,) = run.recorded_compactions
        assert compaction.index == 0
        assert compaction.summary == "The user asked about A-1 (4 units) and B-2 (sold out)."
        assert str(run.messages[0].content).startswith("Here is a summary of the conversation to date:")

    def test_usage_after_an_opening_summary_measured_the_window_shown(self) -> None:
        run = load_conversation(FOLDER / "agent-summarized.json")
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"] == [140 + 15, 175 + 8]
        assert "usage_after_compaction_stale" not in {r.code for r in run.readings}
