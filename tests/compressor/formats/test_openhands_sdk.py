"""OpenHands SDK persistence folders: one event per file, Condensation events recorded as compactions."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from tests.conftest import FIXTURES, fixture

FOLDER = FIXTURES / "formats" / "openhands_sdk" / "conversation"


def events() -> list[dict[str, object]]:
    return [json.loads(path.read_text()) for path in sorted((FOLDER / "events").iterdir())]


class TestConversationFolder:
    def test_counts(self) -> None:
        run = load_conversation(fixture(FOLDER))
        assert run.source_format == "openhands-sdk" and run.name == "conversation"
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 2,
            "assistant": 4,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert len(run.system) == 1 and [tool.name for tool in run.tools] == [
            "execute_bash",
            "str_replace_editor",
        ]

    def test_actions_of_one_response_are_one_assistant_message(self) -> None:
        run = load_conversation(FOLDER)
        first = run.messages[1]
        assert first.call_ids == ("toolu_01", "toolu_02")
        assert [m.tool_call_id for m in run.messages[2:4]] == ["toolu_01", "toolu_02"]

    def test_condensation_is_a_recorded_compaction_with_its_summary(self) -> None:
        run = load_conversation(FOLDER)
        (compaction,) = run.recorded_compactions
        carrier = run.messages[compaction.index]
        assert carrier.internal and carrier.content.startswith("USER_CONTEXT:")
        assert compaction.summary == carrier.content
        assert compaction.tokens_before == 5216  # the window of the reply before it

    def test_usage_comes_from_base_state_by_response_id(self) -> None:
        run = load_conversation(FOLDER)
        assert run.messages[1].usage_metadata == {
            "input_tokens": 5120,
            "output_tokens": 96,
            "total_tokens": 5216,
            "cache_read_tokens": 0,
        }
        assert (run.messages[-1].usage_metadata or {})["total_tokens"] == 3720
        assert run.metadata["model"].endswith("claude-sonnet-4-5-20250929")
        assert run.metadata["session_id"] == "7f0c4a2e-5b1d-4c3e-9a8f-1e2d3c4b5a69"

    def test_rejections_and_agent_errors_answer_their_call(self) -> None:
        run = load_conversation(FOLDER)
        texts = {m.tool_call_id: m.text for m in run.messages if m.role == "tool"}
        assert texts["toolu_03"] == "Action rejected: Please ask before editing tests"
        assert texts["toolu_04"].startswith("Tool 'execute_bash' timed out")

    def test_a_content_filter_nudge_is_internal(self) -> None:
        run = load_conversation(FOLDER)
        nudges = [m for m in run.messages if m.internal and "blocked by the content filter" in m.text]
        assert len(nudges) == 1

    def test_readings(self) -> None:
        codes = {reading.code: reading for reading in load_conversation(FOLDER).readings}
        assert codes["events_skipped"].detail == (
            "CondensationRequest ×1, ConversationStateUpdateEvent ×1, PauseEvent ×1"
        )
        assert codes["recorded_compactions"].count == 1


class TestOtherShapes:
    def test_the_events_folder_alone(self) -> None:
        run = load_conversation(FOLDER / "events")
        assert count_messages(run).tool_calls == 4
        assert run.messages[1].usage_metadata is None  # base_state.json is outside this folder: not read

    def test_a_folder_of_conversations(self, tmp_path: Path) -> None:
        for name in ("one", "two"):
            shutil.copytree(FOLDER, tmp_path / name)
        assert [run.name for run in load_conversations(tmp_path)] == ["one", "two"]

    def test_the_events_as_a_json_array(self) -> None:
        run = load_conversation(json.dumps(events()), name="events.json")
        assert run.source_format == "openhands-sdk" and count_messages(run).tool_calls == 4

    @pytest.mark.parametrize("kind", [[], {}, ["MessageEvent"]])
    def test_a_line_whose_kind_is_a_list_or_object_is_one_line_not_a_traceback(self, kind: object) -> None:
        lines = [{"kind": kind, "source": "user"}, {"role": "user", "content": "hi"}]
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation("".join(json.dumps(line) + "\n" for line in lines), name="odd.jsonl")
        assert "\n" not in str(caught.value)


class TestFolderSafety:
    def test_a_symlink_leaving_the_folder_is_refused(self, tmp_path: Path) -> None:
        folder = tmp_path / "conv"
        shutil.copytree(FOLDER, folder)
        outside = tmp_path / "secret.json"
        outside.write_text("{}")
        os.symlink(outside, folder / "events" / "event-00099-00000000-0000-0000-0000-000000000099.json")
        with pytest.raises(ConversationFormatError, match="symbolic link that leaves the folder"):
            load_conversation(folder)

    def test_only_regular_files_are_read(self, tmp_path: Path) -> None:
        folder = tmp_path / "conv"
        shutil.copytree(FOLDER, folder)
        os.mkfifo(folder / "events" / "event-00098-00000000-0000-0000-0000-000000000098.json")  # never opened
        assert count_messages(load_conversation(folder)).tool_calls == 4

    def test_a_broken_event_file_names_the_file(self, tmp_path: Path) -> None:
        folder = tmp_path / "conv"
        shutil.copytree(FOLDER, folder)
        broken = sorted((folder / "events").iterdir())[3]
        broken.write_text(broken.read_text()[:40])
        with pytest.raises(ConversationFormatError) as raised:
            load_conversation(folder)
        assert f"events/{broken.name}: not valid JSON" in str(raised.value)

    def test_a_wrong_type_names_the_event_file_and_field(self, tmp_path: Path) -> None:
        folder = tmp_path / "conv"
        shutil.copytree(FOLDER, folder)
        path = sorted((folder / "events").iterdir())[1]
        data = json.loads(path.read_text())
        data["llm_message"] = "hello"
        path.write_text(json.dumps(data))
        with pytest.raises(ConversationFormatError) as raised:
            load_conversation(folder)
        assert str(raised.value).endswith(
            f"events/{path.name}.llm_message: expected an LLM message (a JSON object), got string"
        )

    def test_an_unknown_folder_says_what_was_tried(self, tmp_path: Path) -> None:
        (tmp_path / "notes.txt").write_text("hi")
        with pytest.raises(
            ConversationFormatError, match="is a directory holding no conversation in a format I know"
        ):
            load_conversation(tmp_path)

    def test_an_unknown_database_says_what_was_tried(self, tmp_path: Path) -> None:
        path = tmp_path / "other.db"
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE t (x)")
        with pytest.raises(
            ConversationFormatError, match="is an SQLite database holding no conversation in a format I know"
        ):
            load_conversation(path)


CONDENSED = FIXTURES / "formats" / "openhands_sdk" / "condensed-1.58"


class TestWrittenBySdk158:
    """A folder openhands-sdk 1.58.2 persisted itself. Before, it was refused: its tools are ``ToolDefinition`` dumps
    with a ``title`` and no ``name`` ("tools[0]: missing name")."""

    def test_tools_are_named_by_their_title(self) -> None:
        run = load_conversation(fixture(CONDENSED))
        assert [tool.name for tool in run.tools] == ["finish", "think"]
        assert run.tools[0].description.startswith("Signals the completion of the current task")

    def test_the_condensers_summary_is_the_recorded_compaction(self) -> None:
        run = load_conversation(fixture(CONDENSED))
        assert [m.role for m in run.messages] == ["user"] + ["assistant", "tool"] * 4 + ["user"] + [
            "assistant",
            "tool",
        ] * 2
        (compaction,) = run.recorded_compactions
        assert compaction.index == 9 and run.messages[9].internal
        assert compaction.summary.startswith("USER_CONTEXT: wants notes on three fruits.")
        assert compaction.tokens_before == 4193
        assert count_messages(run).unmatched_tool_calls == 0

    def test_usage_is_matched_by_response_id(self) -> None:
        run = load_conversation(fixture(CONDENSED))
        before = [m.reported_total_tokens for m in run.messages[:9] if m.role == "assistant"]
        assert before == [3924, 4014, 4103, 4193]


def eval_output(instance_id: str) -> dict[str, object]:
    """One line of the SDK-era evaluation output.jsonl (OpenHands/benchmarks ``EvalOutput``) around the events and
    the agent LLM's metrics openhands-sdk 1.58.2 wrote."""
    events = [json.loads(path.read_text()) for path in sorted((CONDENSED / "events").iterdir())]
    state = json.loads((CONDENSED / "base_state.json").read_text())
    return {
        "instance_id": instance_id,
        "attempt": 1,
        "test_result": {"git_patch": ""},
        "instruction": "Note down three fruits, one thought each.",
        "metadata": None,
        "history": events,
        "metrics": state["stats"]["usage_to_metrics"]["agent"],
        "error": None,
    }


class TestEvaluationOutput:
    """Before, such a line was refused: 'unrecognised format: JSONL of objects with keys instance_id, attempt, …'."""

    def test_each_line_is_its_run_read_as_its_events_are(self) -> None:
        text = "".join(json.dumps(eval_output(name)) + "\n" for name in ("demo__a-1", "demo__b-2"))
        first, second = load_conversations(text, name="output.jsonl")
        assert (first.name, second.name) == ("output #0 (demo__a-1)", "output #1 (demo__b-2)")
        folder = load_conversation(fixture(CONDENSED))
        assert first.messages == folder.messages and first.recorded_compactions == folder.recorded_compactions
        assert (
            first.metadata["instance_id"] == "demo__a-1" and first.metadata["model"] == "openai/fake-gpt-4o"
        )

    def test_usage_comes_from_the_runs_metrics(self) -> None:
        (run,) = load_conversations(json.dumps(eval_output("demo__a-1")) + "\n", name="output.jsonl")
        assert run.name == "output (demo__a-1)"
        assert [m.reported_total_tokens for m in run.messages[:9] if m.role == "assistant"] == [
            3924,
            4014,
            4103,
            4193,
        ]


@pytest.mark.parametrize("content", [5, {"text": "hi"}])
def test_message_content_of_the_wrong_type_is_one_line(tmp_path: Path, content: object) -> None:
    """Found by mutating the SDK-written folder: a dict as a MessageEvent's content was a TypeError."""
    folder = tmp_path / "conversation"
    shutil.copytree(fixture(CONDENSED), folder)
    event_file = next(path for path in sorted((folder / "events").iterdir()) if "event-00001-" in path.name)
    event = json.loads(event_file.read_text())
    event["llm_message"]["content"] = content
    event_file.write_text(json.dumps(event))
    words = r"llm_message\.content: must be a list of content items"
    with pytest.raises(ConversationFormatError, match=words) as caught:
        load_conversation(folder)
    assert "\n" not in str(caught.value)


class TestReasoning:
    """What a reply reasoned goes back to the model with it (OpenHands/software-agent-sdk
    ``openhands-sdk/openhands/sdk/llm/message.py`` at ddc742b5be87e5a03724e7df40414effd6250eae: ``Message`` holds
    ``reasoning_content``, Anthropic ``thinking_blocks`` {type thinking, thinking, signature} or {type
    redacted_thinking, data}, and ``responses_reasoning_item`` {id, summary: [str], content: [str], encrypted_content};
    ``event/llm_convertible/action.py`` at 17555e4a3a98f64a0eff0b2263e3b5dee974e1bf keeps them on the ``ActionEvent``,
    ``message.py`` at 6fd966181c62b5f8fc2df24920076aac5828fc5b in an agent ``MessageEvent``'s ``llm_message``). Events
    built from those classes; texts ours."""

    def read(self, action: dict[str, object], reply: dict[str, object]) -> list[object]:
        lines = [
            {
                "kind": "MessageEvent",
                "source": "user",
                "llm_message": {"role": "user", "content": [{"type": "text", "text": "Fix the test."}]},
            },
            {
                "kind": "ActionEvent",
                "source": "agent",
                "thought": [],
                "tool_name": "terminal",
                "tool_call_id": "call_1",
                "tool_call": {"id": "call_1", "name": "terminal", "arguments": "{}", "origin": "completion"},
                "llm_response_id": "resp_1",
                **action,
            },
            {
                "kind": "ObservationEvent",
                "source": "environment",
                "tool_name": "terminal",
                "tool_call_id": "call_1",
                "action_id": "a1",
                "observation": {
                    "kind": "TerminalObservation",
                    "content": [{"type": "text", "text": "1 failed"}],
                },
            },
            {
                "kind": "MessageEvent",
                "source": "agent",
                "llm_response_id": "resp_2",
                "llm_message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Fixed."}],
                    **reply,
                },
            },
        ]
        run = load_conversation("".join(json.dumps(line) + "\n" for line in lines), name="events.jsonl")
        return [
            (message.model_extra or {}).get("reasoning_content")
            for message in run.messages
            if message.role == "assistant"
        ]

    def test_a_replys_reasoning_content_is_kept(self) -> None:
        assert self.read(
            {"reasoning_content": "Run the tests."}, {"reasoning_content": "It passes now."}
        ) == [
            "Run the tests.",
            "It passes now.",
        ]

    def test_anthropic_thinking_blocks_are_its_reasoning(self) -> None:
        blocks = [
            {"type": "thinking", "thinking": "Run the tests first.", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
        ]
        assert self.read({"thinking_blocks": blocks}, {"thinking_blocks": blocks[1:]}) == [
            "Run the tests first.",
            None,
        ]

    def test_a_responses_reasoning_item_gives_its_summary_and_text(self) -> None:
        item = {"id": "rs_1", "summary": ["Check the failure."], "content": None, "encrypted_content": "gAAA"}
        assert self.read({"responses_reasoning_item": item}, {"responses_reasoning_item": item}) == [
            "Check the failure.",
            "Check the failure.",
        ]

    def test_the_same_thinking_in_both_fields_is_kept_once(self) -> None:
        both = {
            "reasoning_content": "Run the tests first.",
            "thinking_blocks": [{"type": "thinking", "thinking": "Run the tests first.", "signature": "s"}],
        }
        assert self.read(both, {}) == ["Run the tests first.", None]
