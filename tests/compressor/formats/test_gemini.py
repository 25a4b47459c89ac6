"""Gemini CLI session files: JSONL replayed as the CLI replays it (updates, rewinds, checkpoints), the older JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "gemini"
META = {"sessionId": "s-1", "projectHash": "p-1", "startTime": "2026-03-02T14:05:00.000Z"}


@pytest.fixture(scope="module")
def session() -> Conversation:
    return load_conversation(fixture(HERE / "session-2026-03-02T14-05-5a6b7c8d.jsonl"))


@pytest.fixture(scope="module")
def legacy() -> Conversation:
    return load_conversation(fixture(HERE / "session-2025-09-18T10-12-7c1e2d3f.json"))


def jsonl(*records: dict[str, Any]) -> Conversation:
    return load_conversation("\n".join(json.dumps(r) for r in [META, *records]) + "\n", name="session.jsonl")


def user(i: str, text: str) -> dict[str, Any]:
    return {"id": i, "timestamp": "t", "type": "user", "content": [{"text": text}]}


def gemini(i: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"id": i, "timestamp": "t", "type": "gemini", "content": text, **fields}


class TestSessionJsonl:
    def test_counts(self, session: Conversation) -> None:
        assert session.source_format == "gemini-cli"
        assert count_messages(session).to_dict() == {
            "real_user": 3,
            "internal_user": 2,
            "assistant": 9,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_the_real_requests(self, session: Conversation) -> None:
        assert [m.content for m in session.messages if m.is_real_user] == [
            "Why does `npm test` fail on the date helpers?",
            "Add a test for the leap-day case.",
            "Commit it.",
        ]
        assert [m.text.split("\n")[0] for m in session.messages if m.is_internal] == [
            "<session_context>",
            "<state_snapshot>",
        ]

    def test_a_record_written_again_replaces_itself_in_place(self, session: Conversation) -> None:
        reply = session.messages[
            3
        ]  # written three times: text, then tokens, then tool calls with their result
        assert reply.content == "I'll read the date helper and its test first."
        assert reply.reported_total_tokens == 8307
        assert reply.usage_metadata == {"input_tokens": 8123, "output_tokens": 64, "total_tokens": 8307}
        assert (reply.model_extra or {})["reasoning_content"] == (
            "**Reading the failing test** The failure mentions an off-by-one day."
        )
        assert [call.id for call in reply.tool_calls or ()] == ["read_file-1772460301000-a1b2c3"]
        assert session.messages[4].text.startswith("export function toISODate")
        assert (session.messages[4].model_extra or {})["status"] == "success"

    def test_a_rewound_prompt_and_its_reply_are_gone(self, session: Conversation) -> None:
        assert not any("two-digit years" in m.text for m in session.messages)

    def test_a_tool_response_sent_back_as_a_user_record_is_the_result(self, session: Conversation) -> None:
        call, result = session.messages[9], session.messages[10]
        assert (
            call.content == "Adding a leap-day test."
            and (call.model_extra or {})["reasoning_content"] == "Adding the test."
        )
        assert call.tool_calls is not None and result.tool_call_id == call.tool_calls[0].id
        assert [m.tool_call_id for m in session.messages].count(
            result.tool_call_id
        ) == 1  # not also from toolCalls

    def test_the_compression_checkpoint_keeps_the_run_whole(self, session: Conversation) -> None:
        (compaction,) = session.recorded_compactions
        assert (compaction.source, compaction.index, compaction.tokens_before, compaction.tokens_after) == (
            "gemini-cli",
            12,
            9247,
            None,
        )
        assert compaction.summary.startswith("<state_snapshot>")
        assert session.messages[13].content == "Got it. Thanks for the additional context!"
        assert session.messages[14].content == "Commit it."

    def test_metadata_and_readings(self, session: Conversation) -> None:
        assert session.metadata["session_id"] == "5a6b7c8d-2f41-4e0a-9c3b-7d1e8f902a11"
        assert session.metadata["model"] == "gemini-2.5-pro"
        assert [describe_reading(r) for r in session.readings] == [
            "2 user turns were written by the agent's harness and were read as internal",
            "1 compaction the agent made itself is recorded in the file",
            "5 lines that are not part of the conversation were skipped (messages removed by $rewindTo ×2, info "
            "records (CLI notices) ×2, CLI commands (never sent to the model) ×1)",
            "the file names the model: gemini-2.5-pro",
            "2 usage reports after the agent's first own compaction measured the compacted window; they are read "
            "as stale for the whole run shown here",
        ]


class TestLegacyJson:
    def test_counts(self, legacy: Conversation) -> None:
        assert count_messages(legacy).to_dict() == {
            "real_user": 2,
            "internal_user": 0,
            "assistant": 3,
            "tool": 3,
            "tool_calls": 3,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_inline_results_follow_their_call(self, legacy: Conversation) -> None:
        assert [m.role for m in legacy.messages[:4]] == ["user", "assistant", "tool", "tool"]
        assert legacy.messages[2].text.startswith('Found 3 matches for pattern "TODO"')
        assert legacy.messages[1].reported_total_tokens == 6100

    def test_a_cancelled_call_without_a_result_gets_a_stand_in(self, legacy: Conversation) -> None:
        assert legacy.messages[-1].content == "(no result was recorded for this call)"
        assert describe_reading(legacy.readings[0]) == (
            '1 tool call has no result in the file and was given the result "(no result was recorded for this call)"'
        )


class TestReplay:
    def test_a_rewind_to_an_unknown_id_clears_everything_before_it(self) -> None:
        run = jsonl(user("a", "first"), {"$rewindTo": "nope"}, user("b", "second"))
        assert [m.content for m in run.messages] == ["second"]

    def test_a_plain_checkpoint_replaces_the_list(self) -> None:
        a, b = user("a", "kept"), user("b", "rolled back")
        run = jsonl(a, b, {"$set": {"messages": [a]}}, gemini("c", "ok"))
        assert [m.content for m in run.messages] == ["kept", "ok"]
        assert [(r.code, r.detail) for r in run.readings] == [
            ("lines_skipped", "messages a $set checkpoint left out ×1")
        ]

    def test_hook_context_is_internal(self) -> None:
        run = jsonl(user("a", "<hook_context>lint ran</hook_context>"), user("b", "go"))
        assert [m.internal for m in run.messages] == [True, False]


class TestBadInput:
    @pytest.mark.parametrize(
        ("record", "problem"),
        [
            (
                gemini("g", "x", toolCalls={"id": "c"}),
                "line 2: toolCalls: expected tool calls (a JSON list), got object",
            ),
            (gemini("g", "x", toolCalls=[{"id": "c"}]), "line 2: toolCalls[0]: missing name"),
            (
                gemini("g", "x", tokens={"input": "lots"}),
                "line 2: tokens.input: must be a number, got string",
            ),
            (gemini("g", 5), "line 2: content: must be text or a list of parts, got number"),
            (gemini("g", [{"functionCall": {"args": {}}}]), "line 2: content[0].functionCall: missing name"),
        ],
    )
    def test_one_line_naming_the_field(self, record: dict[str, Any], problem: str) -> None:
        with pytest.raises(ConversationFormatError) as error:
            jsonl(record)
        assert str(error.value) == f"session.jsonl: {problem}"


REAL = HERE / "session-2025-10-11T13-00-2d9ea14f.json"


class TestRealSession:
    """A session Gemini CLI itself recorded (whole-file JSON, gemini-2.5-pro), not built from its types."""

    def test_it_reads_as_recorded(self) -> None:
        run = load_conversation(REAL)
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 0,
            "assistant": 13,
            "tool": 0,
            "tool_calls": 0,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert run.metadata["model"] == "gemini-2.5-pro"
        assert run.metadata["session_id"] == "2d9ea14f-1e4e-44f6-8bf5-7a7819cb1cd9"

    def test_all_zero_tokens_are_no_usage(self) -> None:
        run = load_conversation(REAL)
        totals = [(m.usage_metadata or {}).get("total_tokens") for m in run.messages if m.role == "assistant"]
        # four replies were recorded with every count 0: no window is claimed for them
        assert totals[:2] == [8882, 18420]
        assert totals[2:6] == [None] * 4
        assert totals[6:] == [20245, 20357, 20961, 20945, 22709, 22891, 23166]


REAL_JSONL = HERE / "session-2026-04-23T12-52-0ab84937.jsonl"


class TestRealJsonlSession:
    """A JSONL session Gemini CLI itself recorded (gemini-3.1-pro-preview): /init, a continue prompt, an edit."""

    def test_it_reads_as_recorded(self) -> None:
        run = load_conversation(REAL_JSONL)
        assert count_messages(run).to_dict() == {
            "real_user": 2,  # /init's prompt (what the command sends) and a typed request
            "internal_user": 1,
            "assistant": 6,
            "tool": 12,
            "tool_calls": 12,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        totals = [(m.usage_metadata or {}).get("total_tokens") for m in run.messages if m.role == "assistant"]
        assert totals == [14397, 29813, 39728, 41426, 40559, 40956]
        assert run.metadata["model"] == "gemini-3.1-pro-preview"

    def test_the_continue_prompt_the_cli_sends_itself_is_internal(self) -> None:
        run = load_conversation(REAL_JSONL)
        (internal,) = [m for m in run.messages if m.role == "user" and m.internal]
        assert internal.text == "System: Please continue."
