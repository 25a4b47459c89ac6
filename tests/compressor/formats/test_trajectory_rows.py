"""Agent-run datasets a row a run, the messages in a ``trajectory`` column: before this reader such rows were refused
("no column holds a conversation in a format I know (columns: trajectory_id, instance_id, repo, trajectory, …)").

Fixtures (tests/fixtures/formats/parquet/README.md), written with DuckDB in the columns and types the dataset cards
list in their ``dataset_info``: nebius/SWE-rebench-openhands-trajectories (OpenHands chat messages with tool calls,
``tools``, ``resolved``) and nebius/SWE-agent-trajectories (``{role: system|user|ai, text, mask, …}`` turns,
``model_name``, ``target``), togethercomputer/CoderForge-Preview (``messages`` and ``tools`` as JSON text); the texts
are ours.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

HERE = FIXTURES / "formats" / "parquet"
OPENHANDS = HERE / "swe-rebench-openhands-trajectories.parquet"
SWE_AGENT = HERE / "swe-agent-trajectories.parquet"
CODERFORGE = HERE / "coderforge-preview.parquet"
SWE_ZERO = HERE / "swe-zero-openhands-trajectories.parquet"
SWE_SMITH_XML = HERE / "swe-smith-trajectories-xml.parquet"


def rows(path: Path) -> list[dict[str, Any]]:
    """The file's rows as Python values, as DuckDB gives them (nulls included)."""
    with duckdb.connect() as connection:
        result = connection.execute(f"SELECT * FROM read_parquet('{fixture(path)}')")
        columns = [column[0] for column in result.description]
        return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def jsonl(values: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(value) + "\n" for value in values)


def dumped(conversations: list[Conversation]) -> list[dict[str, Any]]:
    return [conversation.model_dump(exclude={"name"}) for conversation in conversations]


class TestOpenHandsRows:
    def test_each_row_is_a_run_named_by_its_instance(self) -> None:
        runs = load_conversations(fixture(OPENHANDS))
        assert [run.name for run in runs] == [
            "swe-rebench-openhands-trajectories #0 (PyPSA__linopy-79)",
            "swe-rebench-openhands-trajectories #1 (PlasmaFAIR__sdf-xarray-24)",
        ]
        assert {run.source_format for run in runs} == {"trajectory-rows"}

    def test_calls_are_answered_by_their_results(self) -> None:
        run = load_conversations(fixture(OPENHANDS))[0]
        assert run.system[0].content.startswith("You are OpenHands agent")
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant", "tool"]
        call = run.messages[1].tool_calls[0]
        assert (call.id, call.name, json.loads(call.arguments)["command"].startswith("grep")) == (
            "call_01",
            "execute_bash",
            True,
        )
        assert run.messages[2].tool_call_id == "call_01"
        counts = count_messages(run)
        assert (counts.real_user, counts.tool_calls, counts.unmatched_tool_calls) == (1, 2, 0)

    def test_a_later_user_turn_is_the_harness(self) -> None:
        run = load_conversations(fixture(OPENHANDS))[1]
        counts = count_messages(run)
        assert (counts.real_user, counts.internal_user) == (1, 1)
        assert {r.code: r.count for r in run.readings}["internal_user_turns"] == 1

    def test_a_null_field_is_one_the_message_does_not_have(self) -> None:
        run = load_conversations(fixture(OPENHANDS))[1]
        assert rows(OPENHANDS)[1]["trajectory"][4]["tool_calls"] is None  # a struct holds every field
        assert run.messages[3].role == "assistant" and not run.messages[3].tool_calls

    def test_tools_keep_their_schema(self) -> None:
        run = load_conversations(fixture(OPENHANDS))[0]
        assert [tool.name for tool in run.tools] == ["execute_bash", "finish"]
        assert run.tools[0].parameters["required"] == ["command"]  # kept as JSON text in the row

    def test_the_run_fields_are_its_metadata(self) -> None:
        first, second = load_conversations(fixture(OPENHANDS))
        assert first.metadata == {
            "instance_id": "PyPSA__linopy-79",
            "trajectory_id": "chatcmpl-0001",
            "repo": "PyPSA/linopy",
            "exit_status": "submit",
            "resolved": 1,
        }
        assert (second.metadata["resolved"], second.metadata["pred_passes_gen_tests"]) == (0, 1.0)
        assert "model_patch" not in first.metadata

    def test_the_same_rows_as_jsonl_read_the_same(self) -> None:
        as_jsonl = load_conversations(jsonl(rows(OPENHANDS)), name="rows.jsonl")
        assert dumped(as_jsonl) == dumped(load_conversations(fixture(OPENHANDS)))


class TestResultsWithoutCallIds:
    """Real SWE-Zero rows keep only content, role and tool_calls on a message (the fixture's README)."""

    def test_each_result_answers_the_oldest_call_waiting(self) -> None:
        (run,) = load_conversations(fixture(SWE_ZERO))
        assert "tool_call_id" not in rows(SWE_ZERO)[0]["trajectory"][3]
        calls = [call.id for m in run.messages for call in m.tool_calls or ()]
        results = [m.tool_call_id for m in run.messages if m.role == "tool"]
        assert results == calls[:3]  # the closing finish call has no result, as the run ended with it
        assert {r.code: r.count for r in run.readings}["tool_results_paired_by_order"] == 3
        counts = count_messages(run)
        assert (counts.unmatched_tool_results, counts.unmatched_tool_calls) == (0, 1)

    def test_a_result_with_no_call_waiting_is_one_line(self) -> None:
        values = rows(SWE_ZERO)
        values[0]["trajectory"].insert(2, {"content": "stray", "role": "tool", "tool_calls": None})
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(jsonl(values), name="rows.jsonl")
        assert str(caught.value) == "rows.jsonl: line 1: trajectory[2]: tool message without tool_call_id"

    def test_results_with_ids_are_not_paired_again(self) -> None:
        run = load_conversations(fixture(OPENHANDS))[0]
        assert "tool_results_paired_by_order" not in {r.code for r in run.readings}


class TestActionsWrittenAsText:
    """SWE-smith's xml and ticks rows: SWE-agent without function calling, as the real rows the fixture's README names."""

    def test_an_observation_answers_the_action_before_it(self) -> None:
        (run,) = load_conversations(fixture(SWE_SMITH_XML))
        assert run.name == "swe-smith-trajectories-xml #0 (arrow-py__arrow.1d70d009.lm_rewrite__nuzjfyur)"
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        assert [call.name for m in run.messages for call in m.tool_calls or ()] == ["bash", "submit"]
        assert run.messages[2].tool_call_id == run.messages[1].tool_calls[0].id
        assert "<function=bash>" in run.messages[1].content  # the action stays in the text; the call is empty
        assert run.messages[1].tool_calls[0].arguments == "{}"
        counts = count_messages(run)
        assert (counts.real_user, counts.internal_user, counts.unmatched_tool_calls) == (1, 0, 0)
        readings = {r.code: r.count for r in run.readings}
        assert readings["tool_calls_from_text"] == readings["tool_results_from_user_text"] == 2
        assert (run.metadata["model"], run.metadata["resolved"]) == ("claude-3-7-sonnet-20250219", True)

    def test_a_fenced_action_is_named_by_its_command(self) -> None:
        values = rows(SWE_SMITH_XML)
        messages = json.loads(values[0]["messages"])
        messages[2]["content"] = "Let me look.\n\n```\ngrep -n '__format__' -r /testbed/arrow\n```"
        values[0]["messages"] = json.dumps(messages)
        (run,) = load_conversations(jsonl(values), name="rows.jsonl")
        assert run.messages[1].tool_calls[0].name == "grep"

    def test_a_messages_list_of_a_run_row_is_read_alike(self) -> None:
        """SWE-smith's first upload kept ``messages`` as a list of {content, role} (its card's dataset_info)."""
        values = rows(SWE_SMITH_XML)
        values[0]["messages"] = json.loads(values[0]["messages"])
        (run,) = load_conversations(jsonl(values), name="rows.jsonl")
        assert dumped([run]) == dumped(load_conversations(fixture(SWE_SMITH_XML)))

    def test_a_messages_list_without_a_run_id_is_a_plain_conversation(self) -> None:
        line = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
        (run,) = load_conversations(jsonl([line]), name="rows.jsonl")
        assert run.source_format == "jsonl" and run.name == "rows #0"

    def test_anthropic_content_blocks_are_unfolded(self) -> None:
        """A run's messages saved in Anthropic's form (tool_use / tool_result blocks) read as any file of them does."""
        messages = [
            {"role": "user", "content": "List the files."},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}],
            },
        ]
        (run,) = load_conversations(jsonl([{"instance_id": "x-1", "messages": messages}]), name="rows.jsonl")
        assert [m.role for m in run.messages] == ["user", "assistant", "tool"]
        assert run.messages[2].tool_call_id == "toolu_1"

    def test_a_user_turn_that_is_no_observation_stays_the_harness(self) -> None:
        values = rows(SWE_SMITH_XML)
        messages = json.loads(values[0]["messages"])
        messages[3]["content"] = (
            "Your last output did not use any tool calls. Please make sure it includes one."
        )
        values[0]["messages"] = json.dumps(messages)
        (run,) = load_conversations(jsonl(values), name="rows.jsonl")
        assert count_messages(run).internal_user == 1 and not run.messages[1].tool_calls


class TestSweAgentRows:
    def test_ai_turns_are_replies_and_their_commands_calls(self) -> None:
        (run,) = load_conversations(fixture(SWE_AGENT))
        assert run.name == "swe-agent-trajectories #0 (numfmt__numfmt-12)"
        assert rows(SWE_AGENT)[0]["trajectory"][0]["text"] is None  # as real rows hold the system prompt
        assert run.system[0].content.startswith("SETTING: You are an autonomous programmer")
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        assert [call.name for m in run.messages for call in m.tool_calls or ()] == ["search_dir", "open"]
        assert (
            run.messages[1].content == "Let me find where floats are formatted."
        )  # the command left the text
        assert run.messages[2].tool_call_id == run.messages[1].tool_calls[0].id
        counts = count_messages(run)
        assert (counts.real_user, counts.internal_user, counts.unmatched_tool_calls) == (1, 0, 0)

    def test_the_model_and_outcome_are_metadata(self) -> None:
        (run,) = load_conversations(fixture(SWE_AGENT))
        assert run.metadata == {
            "agent": "swe-agent",
            "model": "swe-agent-llama-70b",
            "instance_id": "numfmt__numfmt-12",
            "exit_status": "submitted",
            "target": False,
        }
        assert run.source_format == "trajectory-rows"

    def test_the_same_rows_as_jsonl_read_the_same(self) -> None:
        as_jsonl = load_conversations(jsonl(rows(SWE_AGENT)), name="rows.jsonl")
        assert dumped(as_jsonl) == dumped(load_conversations(fixture(SWE_AGENT)))


class TestJsonTextColumns:
    """togethercomputer/CoderForge-Preview keeps ``messages`` and ``tools`` as JSON text (its card: ``dtype: string``)."""

    def test_messages_kept_as_json_text_are_read(self) -> None:
        (run,) = load_conversations(fixture(CODERFORGE))
        assert run.name == "coderforge-preview #0 (0b01001001__spectree-64_run1)"
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant", "tool"]
        assert [tool.name for tool in run.tools] == ["execute_bash", "finish"]
        assert run.metadata == {
            "trajectory_id": "0b01001001__spectree-64_run1",
            "reward": 1.0,
            "finish_reason": "tool_calls",
        }
        assert count_messages(run).unmatched_tool_calls == 0

    def test_the_text_stays_a_string_until_the_reader_decodes_it(self) -> None:
        assert isinstance(rows(CODERFORGE)[0]["messages"], str)
        as_jsonl = load_conversations(jsonl(rows(CODERFORGE)), name="rows.jsonl")
        assert dumped(as_jsonl) == dumped(load_conversations(fixture(CODERFORGE)))

    def test_text_that_is_not_json_names_its_row(self) -> None:
        values = rows(CODERFORGE) * 2
        values[1] = {**values[1], "messages": values[1]["messages"][:-5]}
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(jsonl(values), name="rows.jsonl")
        assert str(caught.value).startswith("rows.jsonl: line 2: messages: is not JSON text (")

    def test_tools_text_that_is_not_json_names_it(self) -> None:
        values = [{**rows(CODERFORGE)[0], "tools": "[{oops"}]
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(jsonl(values), name="rows.jsonl")
        assert str(caught.value) == "rows.jsonl: line 1: tools: is not JSON text holding tool definitions"


class TestBadRows:
    def refusal(self, values: list[dict[str, Any]]) -> str:
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(jsonl(values), name="rows.jsonl")
        return str(caught.value)

    def test_an_unknown_role_names_its_row_and_message(self) -> None:
        values = rows(OPENHANDS)
        values[1]["trajectory"][2]["role"] = "robot"
        assert self.refusal(values) == (
            "rows.jsonl: line 2: trajectory[2].role: unknown role 'robot' (expected system, user, assistant or tool)"
        )

    def test_an_unknown_turn_role_names_it(self) -> None:
        values = rows(SWE_AGENT)
        values[0]["trajectory"][2]["role"] = "assistant"
        assert self.refusal(values) == (
            "rows.jsonl: line 1: trajectory[2].role: unknown role 'assistant' (expected system, user or ai)"
        )

    def test_a_row_without_a_trajectory_like_the_first_is_named(self) -> None:
        values = rows(OPENHANDS)
        values[1]["trajectory"] = "not a list"
        assert self.refusal(values) == (
            "rows.jsonl: line 2: trajectory: expected a list of messages like the first row's"
        )

    def test_in_parquet_the_row_is_named_as_a_row(self, tmp_path: Path) -> None:
        values = rows(OPENHANDS)
        values[1]["trajectory"][2]["role"] = "robot"
        source = tmp_path / "rows.jsonl"
        source.write_text(jsonl(values))
        path = tmp_path / "rows.parquet"
        with duckdb.connect() as connection:
            connection.execute(f"COPY (SELECT * FROM read_json('{source}')) TO '{path}' (FORMAT parquet)")
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(path)
        assert str(caught.value) == (
            f"{path}: row 2: trajectory[2].role: unknown role 'robot' (expected system, user, assistant or tool)"
        )
