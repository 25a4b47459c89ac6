"""mini-SWE-agent trajectories: the messages the model saw, results paired with their commands, the ``exit`` record
left out, usage from each reply's recorded completion. Before this reader, every such file was refused with
"unknown role 'exit'"."""

from __future__ import annotations

import json

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "mini_swe_agent"
REAL = HERE / "astropy__astropy-12907.traj.json"
TEXT = HERE / "text-mode.traj.json"


class TestToolCallingRun:
    def test_calls_and_results_pair_and_the_exit_record_is_left_out(self) -> None:
        run = load_conversation(fixture(REAL))
        assert run.source_format == "mini-swe-agent" and len(run.system) == 1
        assert [m.role for m in run.messages] == ["user"] + ["assistant", "tool"] * 4
        counts = count_messages(run)
        assert (counts.real_user, counts.tool_calls, counts.unmatched_tool_calls) == (1, 4, 0)
        assert {r.code: r.detail for r in run.readings}["events_skipped"] == "exit records ×1"

    def test_usage_and_model_come_from_each_recorded_completion(self) -> None:
        run = load_conversation(fixture(REAL))
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"] == [
            1689 + 76,
            1852,
            5126,
            5550,
        ]
        assert (run.messages[1].usage_metadata or {})["cached_tokens"] == 1664
        assert run.metadata["model"] == "deepseek-v4-flash" and run.metadata["exit_status"] == "Submitted"


class TestTextRun:
    def test_each_observation_answers_the_command_before_it(self) -> None:
        run = load_conversation(fixture(TEXT))
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        assert run.messages[2].tool_call_id == run.messages[1].tool_calls[0].id
        assert str(run.messages[4].content).startswith("<returncode>0</returncode>")
        assert {r.code: r.count for r in run.readings}["tool_calls_from_text"] == 3
        assert count_messages(run).real_user == 1

    def test_a_user_turn_that_answers_no_command_is_the_harness(self) -> None:
        data = json.loads(fixture(TEXT).read_text())
        notice = {"role": "user", "content": "Please always provide EXACTLY ONE action."}
        data["messages"].insert(3, notice)
        run = load_conversation(json.dumps(data), name="t.traj.json")
        assert [(m.role, m.internal) for m in run.messages[:4]] == [
            ("user", False),
            ("assistant", False),
            ("user", True),
            ("tool", False),
        ]


class TestBadInput:
    def test_an_unknown_role_names_the_message(self) -> None:
        data = json.loads(fixture(TEXT).read_text())
        data["messages"][2]["role"] = "robot"
        with pytest.raises(
            ConversationFormatError, match=r"t\.traj\.json: messages\[2\]\.role: unknown role 'robot'"
        ):
            load_conversation(json.dumps(data), name="t.traj.json")
