"""OpenHands evaluation output: one run per line, messages as OpenHands' ConversationMemory builds them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.messages import Conversation
from tests.conftest import TRANSCRIPTS, fixture

SAMPLE = TRANSCRIPTS / "openhands-eval-output.jsonl"


@pytest.fixture(scope="module")
def runs() -> list[Conversation]:
    return load_conversations(fixture(SAMPLE))


def records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines()]


def event(**fields: Any) -> dict[str, Any]:
    return {"id": 0, "timestamp": "2025-04-30T16:32:54", **fields}


def reply(
    call_id: str, name: str, arguments: dict[str, Any], *, response: str, prompt: int = 100
) -> dict[str, Any]:
    return {
        "function_name": name,
        "tool_call_id": call_id,
        "model_response": {
            "id": response,
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "thinking aloud",
                        "tool_calls": [
                            {
                                "index": 1,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)},
                            }
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": 10, "total_tokens": prompt + 10},
        },
        "total_calls_in_response": 1,
    }


class TestEvalSample:
    def test_three_runs_of_49_70_103_events(self, runs: list[Conversation]) -> None:
        assert [len(record["history"]) for record in records()] == [49, 70, 103]
        assert [run.metadata["events"] for run in runs] == [49, 70, 103]
        assert [run.metadata["instance_id"] for run in runs] == [
            "ponylang__ponyc-4595",
            "ponylang__ponyc-4593",
            "ponylang__ponyc-4588",
        ]
        assert {run.source_format for run in runs} == {"openhands"}

    def test_counts_per_run(self, runs: list[Conversation]) -> None:
        counts = [count_messages(run).to_dict() for run in runs]
        assert counts == [
            {
                "real_user": 1,
                "internal_user": 0,
                "assistant": 23,
                "tool": 22,
                "tool_calls": 22,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
            {
                "real_user": 1,
                "internal_user": 1,
                "assistant": 33,
                "tool": 32,
                "tool_calls": 32,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
            {
                "real_user": 1,
                "internal_user": 1,
                "assistant": 49,
                "tool": 49,
                "tool_calls": 49,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
        ]
        assert [len(run.system) for run in runs] == [1, 1, 1]
        assert [len(run.tools) for run in runs] == [4, 4, 4]

    def test_the_instruction_is_the_one_real_request(self, runs: list[Conversation]) -> None:
        for run, record in zip(runs, records(), strict=True):
            assert run.messages[0].role == "user" and run.messages[0].is_real_user
            assert run.messages[0].content == record["instruction"]

    def test_calls_carry_the_models_own_ids_and_arguments(self, runs: list[Conversation]) -> None:
        first = runs[0].messages[1]
        assert first.role == "assistant" and first.tool_calls is not None
        assert first.tool_calls[0].id == "toolu_01"
        assert json.loads(first.tool_calls[0].arguments) == {
            "command": "ls -l /workspace/ponylang__ponyc__0.1"
        }
        assert runs[0].messages[2].tool_call_id == "toolu_01" and runs[0].messages[2].name == "execute_bash"

    def test_usage_of_each_reply_is_its_window(self, runs: list[Conversation]) -> None:
        first = runs[0].messages[1]
        assert first.usage_metadata == {"input_tokens": 5920, "output_tokens": 128, "total_tokens": 6048}

    def test_finish_is_plain_assistant_text(self, runs: list[Conversation]) -> None:
        last = runs[0].messages[-1]
        assert last.role == "assistant" and not last.tool_calls
        assert (last.model_extra or {})["finish_call"]["task_completed"] == "partial"

    def test_an_error_without_tool_metadata_is_an_internal_turn(self, runs: list[Conversation]) -> None:
        internal = [m for m in runs[1].messages if m.is_internal]
        assert len(internal) == 1 and internal[0].internal
        assert "Parameter 'command' is expected" in internal[0].text

    def test_record_fields_and_readings(self, runs: list[Conversation]) -> None:
        meta = runs[0].metadata
        assert meta["model"] == "openai/openrouter-llama-4-maverick"
        assert meta["agent_class"] == "CodeActAgent" and meta["condenser_config"] == {"type": "noop"}
        assert "error" in runs[2].metadata and "maximum iteration" in runs[2].metadata["error"]
        assert [describe_reading(r) for r in runs[0].readings] == [
            "2 events that are not conversation turns were skipped (recall ×2)",
            "the file names the model: openai/openrouter-llama-4-maverick",
        ]
        assert runs[0].recorded_compactions == []


class TestEventStreams:
    def test_parallel_calls_of_one_reply_wait_for_both_results(self) -> None:
        first = reply("c1", "execute_bash", {"command": "ls"}, response="r1")
        both = first["model_response"]["choices"][0]["message"]["tool_calls"]
        both.append({"id": "c2", "type": "function", "function": {"name": "execute_bash", "arguments": "{}"}})
        history = [
            event(id=1, source="user", action="message", args={"content": "go"}),
            event(id=2, source="agent", action="run", tool_call_metadata=first, args={}),
            event(
                id=3,
                source="agent",
                action="run",
                tool_call_metadata={**first, "tool_call_id": "c2"},
                args={},
            ),
            event(id=4, source="agent", observation="run", cause=2, content="a", tool_call_metadata=first),
            event(
                id=5,
                source="agent",
                observation="run",
                cause=3,
                content="b",
                tool_call_metadata={**first, "tool_call_id": "c2"},
            ),
        ]
        run = load_conversation(history)
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "tool"]
        assert run.messages[1].call_ids == ("c1", "c2")
        assert count_messages(run).unmatched_tool_calls == 0

    def test_a_condensation_is_a_recorded_compaction(self) -> None:
        history = [
            event(id=1, source="user", action="message", args={"content": "go"}),
            event(
                id=2,
                source="agent",
                action="run",
                tool_call_metadata=reply("c1", "execute_bash", {}, response="r1", prompt=9000),
                args={},
            ),
            event(
                id=3,
                source="agent",
                observation="run",
                cause=2,
                content="out",
                tool_call_metadata=reply("c1", "execute_bash", {}, response="r1"),
            ),
            event(
                id=4,
                source="agent",
                action="condensation",
                args={
                    "forgotten_events_start_id": 2,
                    "forgotten_events_end_id": 3,
                    "summary": "did ls",
                    "summary_offset": 1,
                },
            ),
        ]
        run = load_conversation({"instance_id": "x", "history": history})
        (compaction,) = run.recorded_compactions
        assert run.messages[compaction.index].content == "did ls" and run.messages[compaction.index].internal
        assert compaction.source == "openhands" and compaction.tokens_before == 9010

    def test_prompt_based_actions_get_a_call_their_observation_answers(self) -> None:
        history = [
            event(id=1, source="user", action="message", args={"content": "go"}),
            event(id=7, source="agent", action="run", args={"command": "ls", "thought": "look"}),
            event(id=8, source="agent", observation="run", cause=7, content="file.txt"),
        ]
        run = load_conversation(history, name="trajectory.json")
        assert run.messages[1].call_ids == ("openhands-7",)
        assert run.messages[2].tool_call_id == "openhands-7"
        assert count_messages(run).unmatched_tool_calls == 0


class TestBrokenInput:
    def test_a_torn_last_line_reads_the_whole_runs(self, tmp_path: Path) -> None:
        text = SAMPLE.read_text()
        torn = tmp_path / "output.jsonl"
        torn.write_text(text[: len(text) - 5000])
        runs = load_conversations(torn)
        assert len(runs) == 2
        assert any(reading.code == "truncated_tail" for reading in runs[-1].readings)

    def test_a_wrong_choices_type_names_the_field(self) -> None:
        bad = reply("c1", "execute_bash", {}, response="r1")
        bad["model_response"]["choices"] = "nope"
        history = [
            event(id=1, source="user", action="message", args={"content": "go"}),
            event(id=2, source="agent", action="run", tool_call_metadata=bad, args={}),
        ]
        with pytest.raises(ConversationFormatError) as raised:
            load_conversation({"history": history}, name="output.json")
        assert str(raised.value) == (
            "output.json: history[1].tool_call_metadata.model_response.choices: expected choices (a JSON list), got string"
        )


class TestEarlyEvalOutput:
    def test_action_observation_pairs(self) -> None:
        history = [
            [
                {"source": "user", "action": "message", "args": {"content": "fix it"}, "message": "fix it"},
                {"source": "user", "observation": "null", "content": "", "extras": {}},
            ],
            [
                {"source": "agent", "action": "run", "args": {"command": "ls", "thought": "look first"}},
                {"source": "agent", "observation": "run", "content": "setup.py", "extras": {"exit_code": 0}},
            ],
            [
                {"source": "agent", "action": "finish", "args": {"outputs": {}, "thought": "done"}},
                {"source": "agent", "observation": "null", "content": "", "extras": {}},
            ],
        ]
        run = load_conversation({"instance_id": "old-1", "instruction": "fix it", "history": history})
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]
        assert (
            run.messages[1].call_ids == ("openhands-pair1",)
            and run.messages[2].tool_call_id == "openhands-pair1"
        )
        assert count_messages(run).unmatched_tool_calls == 0 and count_messages(run).real_user == 1


class TestRoles:
    def test_the_eval_harness_fake_user_reply_is_internal(self) -> None:
        nudge = (
            "Please continue working on the task on whatever approach you think is suitable.\n"
            "IMPORTANT: YOU SHOULD NEVER ASK FOR HUMAN HELP.\n"
        )
        history = [
            event(id=1, source="user", action="message", args={"content": "fix the bug"}),
            event(
                id=2,
                source="agent",
                action="message",
                args={"content": "Which file?", "wait_for_response": True},
            ),
            event(id=3, source="user", action="message", args={"content": nudge}),
        ]
        run = load_conversation(history)
        assert [m.is_real_user for m in run.messages] == [True, False, False]
        assert run.messages[2].internal


def _replied(event: dict[str, Any]) -> bool:
    response = (event.get("tool_call_metadata") or {}).get("model_response") or {}
    return bool(response.get("choices"))


def test_a_tool_call_that_is_not_an_object_is_one_line() -> None:
    """Found by mutating the sample: a number among a model response's tool_calls was a TypeError."""
    text = fixture(TRANSCRIPTS / "openhands-eval-output.jsonl").read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    event = next(e for e in lines[0]["history"] if _replied(e))
    event["tool_call_metadata"]["model_response"]["choices"][0]["message"]["tool_calls"] = [1]
    mutated = "".join(json.dumps(line) + "\n" for line in lines)
    where = r"line 1: history\[\d+\]\.tool_call_metadata\.model_response"
    with pytest.raises(ConversationFormatError, match=where) as caught:
        load_conversations(mutated, name="output.jsonl")
    assert "expected a tool call" in str(caught.value)
