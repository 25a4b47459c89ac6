"""Engram exports of Claude Code sessions: blocks merged into messages, tool results paired by ``tool_id``, and
Claude Code's own compactions (its continuation summaries) recorded."""

from __future__ import annotations

import json

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.claude_turns import NO_RESULT
from compressor.messages import Conversation
from tests.conftest import FIXTURES, TRANSCRIPTS

SAMPLE = TRANSCRIPTS / "engram-claude-code-diffusion.jsonl"
EDGES = FIXTURES / "formats" / "engram" / "edge-cases.jsonl"


@pytest.fixture(scope="module")
def sample() -> Conversation:
    return load_conversation(SAMPLE)


@pytest.fixture(scope="module")
def edges() -> Conversation:
    return load_conversation(EDGES)


class TestSample:
    def test_counts(self, sample: Conversation) -> None:
        assert sample.source_format == "engram"
        assert len(sample.messages) == 1027 and sample.system == []
        assert count_messages(sample).to_dict() == {
            "real_user": 28,
            "internal_user": 29,
            "assistant": 500,
            "tool": 470,
            "tool_calls": 470,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_three_compactions_claude_code_made(self, sample: Conversation) -> None:
        compactions = sample.recorded_compactions
        assert [c.index for c in compactions] == [300, 685, 879]
        for compaction in compactions:
            summary = sample.messages[compaction.index]
            assert summary.internal and compaction.source == "claude-code"
            assert compaction.summary.startswith(
                "This session is being continued from a previous conversation"
            )
            assert compaction.tokens_before is None  # an Engram export keeps no compact_boundary numbers

    def test_the_call_each_compaction_cut_off_gets_a_stand_in_result(self, sample: Conversation) -> None:
        for compaction in sample.recorded_compactions:
            cut, stand_in = sample.messages[compaction.index - 2 : compaction.index]
            assert cut.role == "assistant" and stand_in.tool_call_id == cut.call_ids[-1]
            assert stand_in.content == NO_RESULT

    def test_harness_turns_are_internal(self, sample: Conversation) -> None:
        openings = sorted({m.text.split()[0][:24] for m in sample.messages if m.is_internal})
        assert openings == [
            "<command-name>/model</co",
            "<local-command-caveat>Ca",
            "<local-command-stdout>Se",
            "<task-notification>",
            "Base",
            "This",
            "[Request",
        ]

    def test_slash_commands_the_model_answered_are_requests(self, sample: Conversation) -> None:
        commands = [
            m.text for m in sample.messages if m.is_real_user and m.text.startswith("<command-message>")
        ]
        assert [c.split("<command-name>")[1].split("<")[0] for c in commands] == ["/plan", "/plan", "/build"]

    def test_the_latest_request_anchors_a_compressible_span(self, sample: Conversation) -> None:
        analysis = analyze(sample)
        assert sample.messages[analysis.last_user_index].text == "lets kill this"
        assert analysis.span.has_compressible

    def test_blocks_of_one_reply_are_one_message(self, sample: Conversation) -> None:
        first_reply = sample.messages[1]
        assert first_reply.role == "assistant" and first_reply.call_ids == ("toolu_01G6jvszZ86TqQ3GfkvJ4KSg",)
        assert (first_reply.model_extra or {})["reasoning_content"].startswith(
            "The user created a new GitHub repo"
        )

    def test_readings(self, sample: Conversation) -> None:
        assert [(r.code, r.count) for r in sample.readings] == [
            ("internal_user_turns", 29),
            ("recorded_compactions", 3),
            ("results_filled_in", 3),
        ]


class TestEdgeCases:
    def test_roles_and_pairing(self, edges: Conversation) -> None:
        assert [m.role for m in edges.messages] == [
            "user", "assistant", "tool", "tool", "user", "assistant", "tool", "user",
            "assistant", "tool", "user", "user", "assistant", "tool", "assistant",
        ]  # fmt: skip
        assert count_messages(edges).unmatched_tool_calls == count_messages(edges).unmatched_tool_results == 0

    def test_parallel_calls_share_one_reply_and_results_carry_the_tool_name(
        self, edges: Conversation
    ) -> None:
        reply, read, bash = edges.messages[1:4]
        assert [c.name for c in reply.tool_calls or ()] == ["Read", "Bash"]
        assert (read.name, bash.name) == ("Read", "Bash")

    def test_outputs_that_are_lists_or_objects_become_text(self, edges: Conversation) -> None:
        read, bash = edges.messages[2:4]
        assert isinstance(read.content, str) and read.content.startswith("     1→name: ci")
        assert (
            json.loads(str(bash.content))["exit_code"] == 1 and (bash.model_extra or {})["is_error"] is True
        )

    def test_an_image_with_the_same_timestamp_joins_the_user_turn(self, edges: Conversation) -> None:
        turn = edges.messages[4]
        assert [part["type"] for part in turn.content if isinstance(part, dict)] == ["text", "image"]
        assert turn.is_real_user

    def test_other_roles_are_skipped_with_a_reading(self, edges: Conversation) -> None:
        (skipped,) = [r for r in edges.readings if r.code == "lines_skipped"]
        assert (skipped.count, skipped.detail) == (1, "role system ×1")


class TestOtherLineShapes:
    def test_text_content_and_block_lists_are_read_as_blocks(self) -> None:
        lines = [
            {"timestamp": "t1", "role": "user", "content": "fix the build"},
            {
                "timestamp": "t2",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Running it."},
                    {"type": "tool_use", "tool_name": "Bash", "tool_id": "b1", "input": {"command": "make"}},
                ],
            },
            {
                "timestamp": "t3",
                "role": "tool",
                "content": {"type": "tool_result", "tool_id": "b1", "output": "ok"},
            },
            {
                "timestamp": "t4",
                "role": "user",
                "content": [{"type": "text", "text": "thanks"}, {"type": "text", "text": "now push"}],
            },
        ]
        conversation = load_conversation(
            "\n".join(json.dumps(line) for line in lines).encode(), name="e.jsonl"
        )
        assert [m.role for m in conversation.messages] == ["user", "assistant", "tool", "user"]
        assert conversation.messages[-1].text == "thanks\nnow push"
        assert count_messages(conversation).real_user == 2


class TestBadInput:
    def test_a_tool_use_without_its_id_names_the_line(self) -> None:
        line = {"role": "assistant", "content": {"type": "tool_use", "tool_name": "Bash", "input": {}}}
        with pytest.raises(
            ConversationFormatError, match=r"e\.jsonl: line 1: content: tool_use block missing tool_id"
        ):
            load_conversation(json.dumps(line).encode(), name="e.jsonl")

    def test_a_text_that_is_not_a_string_names_the_field(self) -> None:
        lines = [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "assistant", "content": {"type": "text", "text": ["no"]}},
        ]
        text = "\n".join(json.dumps(line) for line in lines)
        with pytest.raises(
            ConversationFormatError, match=r"line 2: content\.text: must be a string, got list"
        ):
            load_conversation(text.encode(), name="e.jsonl")

    def test_a_tool_line_holds_a_tool_result(self) -> None:
        lines = [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "tool", "content": {"type": "text", "text": "?"}},
        ]
        text = "\n".join(json.dumps(line) for line in lines)
        with pytest.raises(
            ConversationFormatError, match=r"line 2: content\.type: a tool line holds a tool_result"
        ):
            load_conversation(text.encode(), name="e.jsonl")

    def test_a_torn_last_line_reads_up_to_the_last_whole_one(self) -> None:
        text = EDGES.read_text()
        torn = text[: len(text) - 30]
        conversation = load_conversation(torn.encode(), name="e.jsonl")
        assert conversation.readings[-1].code == "truncated_tail"
        assert conversation.messages[-1].role == "tool"
