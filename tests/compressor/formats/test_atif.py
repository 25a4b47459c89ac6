"""ATIF trajectories and openJiuwen's own: steps, observations answering calls, usage per agent step."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "atif"


def trajectory() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(fixture(HERE / "trajectory.json").read_text())
    return data


class TestAtif:
    def test_counts_and_pairs(self) -> None:
        run = load_conversation(HERE / "trajectory.json")
        assert run.source_format == "atif" and len(run.system) == 1
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 0,
            "assistant": 3,
            "tool": 3,
            "tool_calls": 3,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_parallel_calls_then_their_results(self) -> None:
        run = load_conversation(HERE / "trajectory.json")
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        assert run.messages[1].call_ids == ("call_write_1", "call_ls_2")
        assert json.loads(run.messages[1].tool_calls[0].arguments) == {
            "command": "printf 'Hello, world!' > hello.txt"
        }
        assert (
            run.messages[1].model_extra["reasoning_content"] == "Two independent actions: write, then verify."
        )

    def test_a_result_without_call_id_answers_a_call_made_for_it(self) -> None:
        run = load_conversation(HERE / "trajectory.json")
        assert run.messages[4].call_ids == ("atif-4-0",)
        assert run.messages[5].tool_call_id == "atif-4-0" and run.messages[5].content.startswith(
            "Hello, world!"
        )
        assert {r.code: r.count for r in run.readings}["tool_calls_from_text"] == 1

    def test_usage_is_prompt_plus_completion(self) -> None:
        run = load_conversation(HERE / "trajectory.json")
        assert run.messages[1].usage_metadata == {
            "input_tokens": 1520,
            "output_tokens": 80,
            "total_tokens": 1600,
            "cached_tokens": 1200,
        }
        assert run.messages[-1].reported_total_tokens == 1740

    def test_metadata(self) -> None:
        meta = load_conversation(HERE / "trajectory.json").metadata
        assert meta["agent"] == "terminus-2" and meta["model"] == "anthropic/claude-sonnet-4-5"
        assert meta["session_id"] == "tbench-hello-world-7c1e" and meta["final_metrics"]["total_steps"] == 5

    def test_an_unknown_source_names_the_step(self) -> None:
        data = trajectory()
        data["steps"][2]["source"] = "robot"
        with pytest.raises(ConversationFormatError) as raised:
            load_conversation(json.dumps(data), name="trajectory.json")
        assert str(raised.value) == (
            "trajectory.json: steps[2].source: unknown source 'robot' (expected system, user or agent)"
        )

    def test_a_wrong_results_type_names_the_field(self) -> None:
        data = trajectory()
        data["steps"][2]["observation"]["results"] = "ok"
        with pytest.raises(ConversationFormatError) as raised:
            load_conversation(json.dumps(data), name="trajectory.json")
        assert str(raised.value) == (
            "trajectory.json: steps[2].observation.results: expected results (a JSON list), got string"
        )

    def test_a_truncated_file_is_one_line(self) -> None:
        text = (HERE / "trajectory.json").read_text()
        with pytest.raises(ConversationFormatError, match=r"trajectory\.json: not valid JSON"):
            load_conversation(text[:-200], name="trajectory.json")


class TestOpenJiuwenTrajectory:
    def test_roles_string_arguments_and_input_tokens(self) -> None:
        run = load_conversation(HERE / "openjiuwen-trajectory.json")
        assert run.source_format == "openjiuwen-trajectory"
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 1,
            "assistant": 3,
            "tool": 2,
            "tool_calls": 2,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert run.messages[1].tool_calls[0].parsed_arguments() == {"file_path": "config.py"}
        assert run.messages[1].usage_metadata["total_tokens"] == 2135

    def test_its_memory_block_is_a_recorded_compaction(self) -> None:
        run = load_conversation(HERE / "openjiuwen-trajectory.json")
        (compaction,) = run.recorded_compactions
        assert run.messages[compaction.index].is_internal
        assert compaction.summary.startswith("1. Active Task: rename the config loader.")
        assert compaction.tokens_before == 2135


class TestTerminusResults:
    """Terminus-2 writes tool calls with ids and their terminal output without ``source_call_id``
    (harbor tests/golden/terminus_2/*.trajectory.json)."""

    def steps(self, calls: int, results: int) -> dict[str, Any]:
        return {
            "schema_version": "ATIF-v1.5",
            "session_id": "s",
            "agent": {"name": "terminus-2", "version": "2"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "make hello.txt"},
                {
                    "step_id": 2,
                    "source": "agent",
                    "message": "Plan: run it",
                    "tool_calls": [
                        {
                            "tool_call_id": f"call_0_{i}",
                            "function_name": "bash_command",
                            "arguments": {"keystrokes": f"cmd{i}\n"},
                        }
                        for i in range(calls)
                    ],
                    "observation": {"results": [{"content": f"out{i}"} for i in range(results)]},
                    "metrics": {"prompt_tokens": 682, "completion_tokens": 60},
                },
            ],
        }

    def test_an_unnamed_result_answers_the_steps_call(self) -> None:
        run = load_conversation(self.steps(1, 1))
        assert run.messages[1].call_ids == ("call_0_0",) and run.messages[2].tool_call_id == "call_0_0"
        assert count_messages(run).unmatched_tool_calls == 0 and run.messages[1].reported_total_tokens == 742

    def test_one_output_for_a_batch_answers_the_last_call(self) -> None:
        run = load_conversation(self.steps(3, 1))
        assert [(m.tool_call_id, m.content) for m in run.messages[2:]] == [
            ("call_0_0", ""),
            ("call_0_1", ""),
            ("call_0_2", "out0"),
        ]
        assert count_messages(run).unmatched_tool_calls == 0
        assert {r.code: r.count for r in run.readings}["batched_tool_results"] == 2


class TestTerminusSummarization:
    """Harbor's own Terminus 2 trajectories around its context summarization. Before, the summarization record was
    read as a system message plus an internal turn holding its subagent refs, the handoff as a real request, and
    no compaction was recorded; the continuation file's summary and handoff were real requests too."""

    def test_the_record_is_left_out_and_the_handoff_is_the_recorded_compaction(self) -> None:
        run = load_conversation(fixture(HERE / "terminus-context-summarization.trajectory.json"))
        assert [m.role for m in run.messages] == ["user"] + ["assistant", "tool"] * 3 + ["user"] + [
            "assistant",
            "tool",
        ] * 4
        assert count_messages(run).to_dict()["real_user"] == 1 and run.messages[7].internal
        (compaction,) = run.recorded_compactions
        assert compaction.index == 7 and compaction.tokens_before == 820 + 50
        assert compaction.summary.startswith("Here are the answers the other agent provided.")
        assert not any("subagent_trajectory_ref" in str(m.content) for m in run.messages)
        assert {r.code: r.detail for r in run.readings}[
            "events_skipped"
        ] == "context summarization records ×1"

    def test_usage_after_it_measured_the_compacted_window(self) -> None:
        run = load_conversation(fixture(HERE / "terminus-context-summarization.trajectory.json"))
        assert {r.code: r.count for r in run.readings}["usage_after_compaction_stale"] == 4
        assert [m.reported_total_tokens for m in run.messages[:7] if m.role == "assistant"] == [742, 800, 870]

    def test_a_continuation_opens_with_the_window_it_kept(self) -> None:
        run = load_conversation(fixture(HERE / "terminus-linear-history.trajectory.cont-1.json"))
        assert [(m.role, m.internal) for m in run.messages[:4]] == [
            ("user", False),
            ("user", True),
            ("assistant", False),
            ("user", True),
        ]
        (compaction,) = run.recorded_compactions
        assert compaction.index == 1 and "**Summary from Previous Agent:**" in compaction.summary
        # no reply precedes the summary: the usage after it measured this very window and stays
        assert "usage_after_compaction_stale" not in {r.code for r in run.readings}
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"][1:] == [
            2120,
            890,
            890,
            880,
        ]

    def test_a_subagent_ref_that_is_no_summarization_stays_as_it_was(self) -> None:
        data = trajectory()
        ref = {"session_id": "s2", "trajectory_path": "sub.json"}
        data["steps"].append(
            {
                "step_id": 99,
                "source": "system",
                "message": "Delegated.",
                "observation": {"results": [{"subagent_trajectory_ref": [ref]}]},
            }
        )
        run = load_conversation(json.dumps(data), name="t.json")
        assert not run.recorded_compactions and run.messages[-1].internal


class TestMutatedIds:
    """Found by mutating the fixture: a call id or a result's source_call_id that is a list was a TypeError."""

    def test_a_source_call_id_that_is_not_a_string_is_one_line(self) -> None:
        data = trajectory()
        step = next(s for s in data["steps"] if (s.get("observation") or {}).get("results"))
        step["observation"]["results"][0]["source_call_id"] = []
        with pytest.raises(ConversationFormatError, match=r"source_call_id: must be a string when given"):
            load_conversation(json.dumps(data), name="t.json")

    def test_a_tool_call_id_that_is_not_a_string_is_one_line(self) -> None:
        data = trajectory()
        step = next(s for s in data["steps"] if s.get("tool_calls"))
        step["tool_calls"][0]["tool_call_id"] = [1]
        with pytest.raises(ConversationFormatError, match=r"tool_call_id: must be a string") as caught:
            load_conversation(json.dumps(data), name="t.json")
        assert "\n" not in str(caught.value)
