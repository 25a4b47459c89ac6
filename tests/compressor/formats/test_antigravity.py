"""Google Antigravity trajectories: planner steps and the result steps that follow them, in order; the harness's
SYSTEM steps internal; a CHECKPOINT with a summary recorded as Antigravity's own compaction."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.antigravity import NO_RESULT
from compressor.messages import Conversation
from tests.conftest import FIXTURES

TRANSCRIPT = FIXTURES / "formats" / "antigravity" / "transcript_full.jsonl"


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(TRANSCRIPT)


def steps(*items: dict[str, Any]) -> bytes:
    return "\n".join(json.dumps({"step_index": i, **item}) for i, item in enumerate(items)).encode()


def read(*items: dict[str, Any]) -> Conversation:
    return load_conversation(steps(*items), name="transcript_full.jsonl")


ASK = {"source": "USER_EXPLICIT", "type": "USER_INPUT", "content": "<USER_REQUEST>\ngo\n</USER_REQUEST>"}


class TestTranscript:
    def test_counts(self, run: Conversation) -> None:
        assert run.source_format == "antigravity" and run.metadata == {"agent": "antigravity"}
        assert count_messages(run).to_dict() == {
            "real_user": 2,
            "internal_user": 5,
            "assistant": 8,
            "tool": 9,
            "tool_calls": 9,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_result_steps_answer_the_calls_in_order(self, run: Conversation) -> None:
        reply, first, second = run.messages[5:8]
        assert [c.name for c in reply.tool_calls or ()] == ["view_file", "grep_search"]
        assert (first.tool_call_id, first.name, (first.model_extra or {})["step_type"]) == (
            "agy_5_0",
            "view_file",
            "VIEW_FILE",
        )
        assert (second.tool_call_id, second.name) == ("agy_5_1", "grep_search")

    def test_arguments_are_the_model_s_args(self, run: Conversation) -> None:
        (call,) = run.messages[3].tool_calls or ()
        assert call.parsed_arguments() == {
            "DirectoryPath": "/home/dev/svc",
            "toolAction": "Listing project root",
            "toolSummary": "List project root",
        }
        assert (run.messages[3].model_extra or {})["reasoning_content"].startswith("**Locating the handler**")

    def test_an_error_step_is_the_failed_call_s_result(self, run: Conversation) -> None:
        error = run.messages[16]
        assert (
            error.role == "tool"
            and error.name == "write_to_file"
            and error.text.startswith("Error: file already")
        )

    def test_the_checkpoint_is_a_recorded_compaction(self, run: Conversation) -> None:
        (compaction,) = run.recorded_compactions
        carrier = run.messages[compaction.index]
        assert carrier.internal and (carrier.model_extra or {})["step_type"] == "CHECKPOINT"
        assert compaction.source == "antigravity" and compaction.summary.startswith("{{ CHECKPOINT 1 }}")
        assert (compaction.tokens_before, compaction.tokens_after) == (None, None)

    def test_only_user_input_is_a_request(self, run: Conversation) -> None:
        assert [(m.model_extra or {})["step_type"] for m in run.messages if m.is_real_user] == [
            "USER_INPUT"
        ] * 2
        assert [(m.model_extra or {})["step_type"] for m in run.messages if m.is_internal] == [
            "CONVERSATION_HISTORY",
            "EPHEMERAL_MESSAGE",
            "CHECKPOINT",
            "EPHEMERAL_MESSAGE",
            "SYSTEM_MESSAGE",
        ]

    def test_the_latest_request_anchors_a_compressible_span(self, run: Conversation) -> None:
        analysis = analyze(run)
        assert run.messages[analysis.last_user_index].text.startswith("<USER_REQUEST>\nAlso add a test")
        assert analysis.span.has_compressible and analysis.total_source == "counted"

    def test_a_step_written_twice_counts_once_in_its_last_version(self, run: Conversation) -> None:
        assert [m.model_extra["step_index"] for m in run.messages if m.model_extra].count(3) == 1
        assert (run.messages[3].model_extra or {})["status"] == "DONE"

    def test_readings(self, run: Conversation) -> None:
        assert [(r.code, r.count, r.detail) for r in run.readings] == [
            ("lines_skipped", 2, "a step written again ×1, an empty EPHEMERAL_MESSAGE step ×1"),
            ("internal_user_turns", 5, ""),
            ("recorded_compactions", 1, ""),
        ]


class TestSteps:
    def test_an_empty_planner_step_is_a_streaming_placeholder(self) -> None:
        run = read(ASK, {"source": "MODEL", "type": "PLANNER_RESPONSE", "content": ""})
        assert [m.role for m in run.messages] == ["user"]

    def test_a_checkpoint_marker_without_a_summary_is_not_a_compaction(self) -> None:
        run = read(ASK, {"source": "SYSTEM", "type": "CHECKPOINT", "content": "{{ CHECKPOINT 0 }}"})
        assert run.recorded_compactions == [] and len(run.messages) == 1

    def test_a_result_with_no_call_waiting_is_a_notice(self) -> None:
        run = read(
            ASK, {"source": "MODEL", "type": "GENERIC", "content": "Task t-1 is running in the background"}
        )
        assert run.messages[1].internal and run.messages[1].role == "user"

    def test_a_call_written_on_its_result_step_is_still_a_call(self) -> None:
        run = read(
            ASK,
            {
                "source": "MODEL",
                "type": "RUN_COMMAND",
                "content": "ok",
                "tool_calls": [{"name": "run_command", "args": {"CommandLine": "ls"}}],
            },
        )
        assert [m.role for m in run.messages] == ["user", "assistant", "tool"]
        assert count_messages(run).unmatched_tool_calls == 0

    def test_a_call_the_file_never_answers_gets_a_stand_in(self) -> None:
        run = read(
            ASK, {"source": "MODEL", "type": "PLANNER_RESPONSE", "tool_calls": [{"name": "run_command"}]}
        )
        assert run.messages[-1].content == NO_RESULT
        assert [r.code for r in run.readings] == ["results_filled_in"]

    def test_usage_on_a_planner_step_is_that_call_s_window(self) -> None:
        planner = {"source": "MODEL", "type": "PLANNER_RESPONSE", "content": "hi", "input_tokens": 100}
        run = read(ASK, {**planner, "cache_read_tokens": 9000, "output_tokens": 20})
        assert (run.messages[1].usage_metadata or {})["total_tokens"] == 9120

    def test_protobuf_style_names_are_read_too(self) -> None:
        run = read(
            {
                "source": "CORTEX_STEP_SOURCE_USER_EXPLICIT",
                "type": "CORTEX_STEP_TYPE_USER_INPUT",
                "content": "go",
            },
            {
                "source": "CORTEX_STEP_SOURCE_SYSTEM",
                "type": "CORTEX_STEP_TYPE_EPHEMERAL_MESSAGE",
                "content": "note",
            },
        )
        assert [m.is_real_user for m in run.messages] == [True, False]


class TestBadInput:
    def test_tool_calls_that_are_not_a_list_name_the_field(self) -> None:
        with pytest.raises(
            ConversationFormatError, match=r"t\.jsonl: line 2: tool_calls: expected tool calls"
        ):
            load_conversation(
                steps(ASK, {"source": "MODEL", "type": "PLANNER_RESPONSE", "tool_calls": {}}), name="t.jsonl"
            )

    def test_a_call_without_a_name_names_it(self) -> None:
        bad = {"source": "MODEL", "type": "PLANNER_RESPONSE", "tool_calls": [{"args": {}}]}
        with pytest.raises(ConversationFormatError, match=r"line 2: tool_calls\[0\]: tool call missing name"):
            load_conversation(steps(ASK, bad), name="t.jsonl")

    def test_content_that_is_not_text_names_the_field(self) -> None:
        bad = {"source": "MODEL", "type": "PLANNER_RESPONSE", "content": ["x"]}
        with pytest.raises(ConversationFormatError, match=r"line 2: content: must be a string, got list"):
            load_conversation(steps(ASK, bad), name="t.jsonl")

    def test_a_torn_last_line_reads_up_to_the_last_whole_one(self) -> None:
        text = TRANSCRIPT.read_text()
        conversation = load_conversation(text[:-40].encode(), name="transcript_full.jsonl")
        assert conversation.readings[-1].code == "truncated_tail"
        assert conversation.messages[-1].role == "user"
