"""Codex CLI ``codex exec --json`` output: a conversation per thread, a stand-in request per turn, every tool item one
call and its result, in the order the items first appeared."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.formats.codex_exec import NO_RESULT
from compressor.messages import Conversation
from tests.conftest import FIXTURES

SAMPLE = FIXTURES / "formats" / "codex_exec" / "exec-fix-test.jsonl"
THREAD = "019b2f4e-7a10-7c31-9e2d-5b8c41f0a6d2"


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(SAMPLE)


def events(*lines: dict[str, Any]) -> list[Conversation]:
    return load_conversations("\n".join(json.dumps(line) for line in lines) + "\n", name="run.jsonl")


def command(item_id: str, status: str, output: str = "", exit_code: int | None = None) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "command_execution",
        "command": "bash -lc ls",
        "aggregated_output": output,
        "exit_code": exit_code,
        "status": status,
    }


class TestSample:
    def test_read_as_codex_exec(self, run: Conversation) -> None:
        assert run.source_format == "codex-exec"
        assert run.metadata["session_id"] == THREAD and run.metadata["agent"] == "codex"
        assert [u["output_tokens"] for u in run.metadata["turn_usage"]] == [611, 958]

    def test_each_turn_opens_with_a_stand_in_for_its_prompt(self, run: Conversation) -> None:
        users = [(i, m) for i, m in enumerate(run.messages) if m.role == "user"]
        assert [i for i, _ in users] == [0, 12]
        assert all(m.content == "" and m.is_real_user for _, m in users)
        readings = {r.code: r for r in run.readings}
        assert readings["prompts_not_recorded"].count == 2
        assert "headless output does not print them" in describe_reading(readings["prompts_not_recorded"])

    def test_counts(self, run: Conversation) -> None:
        assert count_messages(run).to_dict() == {
            "real_user": 2,
            "internal_user": 0,
            "assistant": 10,
            "tool": 8,
            "tool_calls": 8,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_tool_items_are_calls_with_their_results(self, run: Conversation) -> None:
        calls = [(call.name, json.loads(call.arguments)) for m in run.messages for call in m.tool_calls or ()]
        assert [name for name, _ in calls] == [
            "command_execution",
            "command_execution",
            "todo_list",  # first seen before the file change, read in its last state
            "file_change",
            "command_execution",
            "web_search",
            "docs.lookup",
            "docs.lookup",
        ]
        assert calls[0][1] == {"command": "bash -lc 'pytest -q'"}
        assert [item["completed"] for item in calls[2][1]["items"]] == [True, True]
        assert calls[3][1] == {"changes": [{"path": "tests/test_sum.py", "kind": "update"}]}
        results = {m.tool_call_id: m for m in run.messages if m.role == "tool"}
        failed = results["item_1"]
        assert "1 failed, 2 passed" in failed.text and failed.model_extra == {
            "status": "failed",
            "exit_code": 1,
        }
        assert results["item_10"].text.startswith("math.fsum(iterable)")
        assert results["item_11"].text == "no entry for statistics.fsum"

    def test_an_agent_message_before_a_call_is_the_same_turn(self, run: Conversation) -> None:
        turn = run.messages[3]
        assert turn.text.startswith("`test_total` expects 6") and [c.id for c in turn.tool_calls or ()] == [
            "item_3"
        ]

    def test_reasoning_and_error_notices_are_left_out_with_a_reading(self, run: Conversation) -> None:
        skipped = next(r for r in run.readings if r.code == "lines_skipped")
        assert (
            skipped.count == 3
            and "reasoning summaries ×2" in skipped.detail
            and "error notices ×1" in skipped.detail
        )
        assert not any("Finding the failing test" in m.text for m in run.messages)


class TestEdges:
    def test_a_log_that_ends_mid_command_keeps_the_call_paired(self) -> None:
        (run,) = events(
            {"type": "thread.started", "thread_id": "t"},
            {"type": "turn.started"},
            {"type": "item.started", "item": command("item_0", "in_progress")},
        )
        assert [m.role for m in run.messages] == ["user", "assistant", "tool"]
        assert run.messages[2].text == NO_RESULT
        assert any(r.code == "results_filled_in" for r in run.readings)

    def test_two_threads_are_two_runs(self) -> None:
        turn = [
            {"type": "turn.started"},
            {"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": "hi"}},
        ]
        runs = events(
            {"type": "thread.started", "thread_id": "a"},
            *turn,
            {"type": "thread.started", "thread_id": "b"},
            *turn,
        )
        assert [r.name for r in runs] == ["run #0 (thread a)", "run #1 (thread b)"]
        assert [r.metadata["session_id"] for r in runs] == ["a", "b"]

    def test_a_failed_turn_and_a_stream_error_are_noted_not_read_as_messages(self) -> None:
        (run,) = events(
            {"type": "thread.started", "thread_id": "t"},
            {"type": "turn.started"},
            {"type": "item.completed", "item": command("item_0", "completed", "ok\n", 0)},
            {"type": "error", "message": "stream disconnected"},
            {"type": "turn.failed", "error": {"message": "rate limited"}},
        )
        assert [m.role for m in run.messages] == ["user", "assistant", "tool"]
        assert run.metadata["error"] == "rate limited"

    def test_a_bad_item_is_one_line_naming_it(self) -> None:
        with pytest.raises(ConversationFormatError) as caught:
            events(
                {"type": "thread.started", "thread_id": "t"},
                {"type": "turn.started"},
                {"type": "item.completed", "item": {**command("item_0", "completed"), "command": ["ls"]}},
            )
        message = str(caught.value)
        assert (
            "\n" not in message
            and "line 3" in message
            and "command" in message
            and "must be a string" in message
        )
