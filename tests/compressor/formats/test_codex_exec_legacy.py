"""Older ``codex exec --json`` output: a config summary, the prompt, then ``{"id", "msg": EventMsg}`` events.

Built from openai/codex: ``codex-rs/exec/src/event_processor_with_json_output.rs`` at 2a75cbae (the config summary
as one flat object, ``{"prompt": …}``, then ``serde_json::to_string(&event)`` for every event except the
``*_delta`` ones, ``task_complete`` and ``shutdown_complete``) and the ``Event`` / ``EventMsg`` payloads of
``codex-rs/core/src/protocol.rs`` at 94a994c2 (flat ``token_count``, ``exec_command_end {stdout, stderr,
exit_code}``, ``mcp_tool_call_* {invocation}`` with serde's ``{"Ok": CallToolResult}``); the later fields of
``codex-rs/protocol/src/protocol.rs`` (``token_count {info: {last_token_usage, model_context_window}}``,
``user_message {message, kind}``, ``task_started {model_context_window}``, ``formatted_output``) are built into
the lines below. The run in the fixture (tests/fixtures/formats/codex_exec/exec-legacy-csv-header.jsonl) is invented.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.formats.codex_exec_legacy import NO_RESULT, PLAN_RESULT
from compressor.messages import Conversation
from tests.conftest import FIXTURES

SAMPLE = FIXTURES / "formats" / "codex_exec" / "exec-legacy-csv-header.jsonl"
SUMMARY = {
    "workdir": "/w",
    "model": "gpt-5",
    "provider": "openai",
    "approval": "never",
    "sandbox": "read-only",
}


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(SAMPLE)


def lines(*values: dict[str, Any]) -> list[Conversation]:
    return load_conversations("\n".join(json.dumps(value) for value in values) + "\n", name="run.jsonl")


def event(msg: dict[str, Any], sub: str = "1") -> dict[str, Any]:
    return {"id": sub, "msg": msg}


class TestSample:
    def test_read_as_the_older_stream(self, run: Conversation) -> None:
        assert run.source_format == "codex-exec-legacy"
        assert run.metadata == {
            "agent": "codex",
            "model": "codex-mini-latest",
            "cwd": "/home/dev/ledger",
            "model_provider": "openai",
            "session_id": "5f2c8e41-7b3a-4d09-9e6f-1a2b3c4d5e6f",
        }

    def test_the_printed_prompt_is_the_request(self, run: Conversation) -> None:
        first = run.messages[0]
        assert first.is_real_user and first.text.startswith("The CSV export in ledger/export.py")
        assert not any(r.code == "prompts_not_recorded" for r in run.readings)

    def test_one_assistant_message_per_model_call_with_its_usage(self, run: Conversation) -> None:
        assistants = [m for m in run.messages if m.role == "assistant"]
        assert [m.reported_total_tokens for m in assistants] == [5298, 5607, 5942, 6082, 6151]
        assert [[c.name for c in m.tool_calls or ()] for m in assistants] == [
            ["shell"],
            ["apply_patch"],
            ["update_plan", "shell"],  # two calls of one response: one token_count after both ran
            ["tracker.close_issue"],
            [],
        ]
        assert assistants[1].text.startswith("`export` never calls `writeheader()`")
        assert assistants[0].usage_metadata == {
            "input_tokens": 5210,
            "cached_input_tokens": 0,
            "output_tokens": 88,
            "reasoning_output_tokens": 64,
            "total_tokens": 5298,
        }

    def test_every_call_has_its_result_after_its_message(self, run: Conversation) -> None:
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 0,
            "assistant": 5,
            "tool": 5,
            "tool_calls": 5,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        results = {m.tool_call_id: m for m in run.messages if m.role == "tool"}
        assert results["call_Ks1"].text.startswith("import csv") and results["call_Ks1"].model_extra == {
            "exit_code": 0
        }
        assert results["call_Pt2"].text.startswith("Success. Updated the following files")
        assert results["update_plan#1"].text == PLAN_RESULT
        assert results["call_Mc4"].text == "Issue 412 closed."

    def test_arguments_are_what_the_events_name(self, run: Conversation) -> None:
        calls = {c.id: c for m in run.messages for c in m.tool_calls or ()}
        assert calls["call_Ks1"].parsed_arguments() == {
            "command": ["bash", "-lc", "sed -n 1,40p ledger/export.py"]
        }
        assert list(calls["call_Pt2"].parsed_arguments()["changes"]) == ["/home/dev/ledger/ledger/export.py"]
        assert calls["update_plan#1"].parsed_arguments()["plan"][0] == {
            "step": "Add writeheader()",
            "status": "completed",
        }
        assert calls["call_Mc4"].parsed_arguments() == {
            "id": 412,
            "comment": "Header row restored in ledger/export.py.",
        }

    def test_what_is_not_a_turn_is_counted(self, run: Conversation) -> None:
        (skipped,) = [r for r in run.readings if r.code == "lines_skipped"]
        assert skipped.count == 5
        assert "reasoning summaries ×1" in skipped.detail and "background_event events ×1" in skipped.detail
        assert not any("Locating the export code" in m.text for m in run.messages)


class TestLaterFields:
    def test_usage_in_info_last_token_usage_and_the_window(self) -> None:
        (run,) = lines(
            SUMMARY,
            {"prompt": "list files"},
            event({"type": "task_started", "model_context_window": 272000}),
            event({"type": "agent_message", "message": "Here they are."}),
            event(
                {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940},
                        "last_token_usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940},
                        "model_context_window": 272000,
                    },
                }
            ),
        )
        assert run.messages[-1].reported_total_tokens == 940
        assert run.metadata["context_window"] == 272000 and run.metadata["model"] == "gpt-5"

    def test_user_messages_copy_the_prompt_or_carry_injected_context(self) -> None:
        (run,) = lines(
            SUMMARY,
            {"prompt": "fix it"},
            event({"type": "task_started"}),
            event(
                {
                    "type": "user_message",
                    "message": "<user_instructions>Be brief.</user_instructions>",
                    "kind": "user_instructions",
                }
            ),
            event({"type": "user_message", "message": "fix it", "kind": "plain"}),
            event({"type": "agent_message", "message": "Done."}),
        )
        assert [(m.role, m.is_real_user, m.text) for m in run.messages] == [
            ("user", True, "fix it"),
            ("user", False, "<user_instructions>Be brief.</user_instructions>"),
            ("assistant", False, "Done."),
        ]
        (skipped,) = [r for r in run.readings if r.code == "lines_skipped"]
        assert "user_message copies of the prompt ×1" in skipped.detail

    def test_formatted_output_is_what_the_model_was_sent(self) -> None:
        (run,) = lines(
            SUMMARY,
            {"prompt": "ls"},
            event({"type": "exec_command_begin", "call_id": "c1", "command": ["ls"], "cwd": "/w"}),
            event(
                {
                    "type": "exec_command_end",
                    "call_id": "c1",
                    "stdout": "a\nb\n",
                    "stderr": "",
                    "aggregated_output": "a\nb\n",
                    "exit_code": 0,
                    "duration": {"secs": 0, "nanos": 5000000},
                    "formatted_output": "Exit code: 0\nOutput:\na\nb\n",
                }
            ),
        )
        assert run.messages[-1].text == "Exit code: 0\nOutput:\na\nb\n"

    def test_a_flat_mcp_begin_and_an_error_result(self) -> None:
        (run,) = lines(
            SUMMARY,
            {"prompt": "weather"},
            event(
                {
                    "type": "mcp_tool_call_begin",
                    "call_id": "m1",
                    "server": "wx",
                    "tool": "now",
                    "arguments": {"city": "Oslo"},
                }
            ),
            event({"type": "mcp_tool_call_end", "call_id": "m1", "result": {"Err": "timed out"}}),
        )
        (call,) = run.messages[1].tool_calls or ()
        assert (call.name, call.parsed_arguments(), run.messages[2].text) == (
            "wx.now",
            {"city": "Oslo"},
            "timed out",
        )


class TestRunsAndPrompts:
    def test_without_a_prompt_an_empty_request_stands_for_it(self) -> None:
        (run,) = lines(event({"type": "task_started"}), event({"type": "agent_message", "message": "Hi."}))
        assert (run.messages[0].content, run.messages[0].is_real_user) == ("", True)
        assert next(r for r in run.readings if r.code == "prompts_not_recorded").count == 1

    def test_each_config_summary_starts_a_run(self) -> None:
        one = [SUMMARY, {"prompt": "a"}, event({"type": "agent_message", "message": "A."})]
        two = [SUMMARY, {"prompt": "b"}, event({"type": "agent_message", "message": "B."})]
        runs = lines(*one, *two)
        assert [r.name for r in runs] == ["run #0", "run #1"]
        assert [r.messages[0].text for r in runs] == ["a", "b"]

    def test_a_call_the_output_ends_on_gets_a_stand_in_result(self) -> None:
        (run,) = lines(
            SUMMARY,
            {"prompt": "ls"},
            event({"type": "exec_command_begin", "call_id": "c1", "command": ["ls"], "cwd": "/w"}),
        )
        assert run.messages[-1].text == NO_RESULT

    def test_without_usage_events_a_result_the_model_answers_ends_its_call(self) -> None:
        (run,) = lines(
            SUMMARY,
            {"prompt": "ls"},
            event({"type": "exec_command_begin", "call_id": "c1", "command": ["ls"], "cwd": "/w"}),
            event(
                {"type": "exec_command_end", "call_id": "c1", "stdout": "a\n", "stderr": "", "exit_code": 0}
            ),
            event({"type": "agent_message", "message": "One file."}),
        )
        assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]


class TestBadInput:
    def test_a_non_string_message_names_the_field(self) -> None:
        with pytest.raises(
            ConversationFormatError, match=r"run\.jsonl: line 3: msg\.message: must be a string"
        ):
            lines(SUMMARY, {"prompt": "x"}, event({"type": "agent_message", "message": 5}))

    def test_a_bad_token_count_names_the_field(self) -> None:
        with pytest.raises(ConversationFormatError, match=r"line 4: msg\.input_tokens: must be a number"):
            lines(
                SUMMARY,
                {"prompt": "x"},
                event({"type": "agent_message", "message": "y"}),
                event({"type": "token_count", "input_tokens": "many", "output_tokens": 1, "total_tokens": 2}),
            )

    def test_the_current_stream_is_not_taken_for_the_older_one(self) -> None:
        current = FIXTURES / "formats" / "codex_exec" / "exec-fix-test.jsonl"
        assert load_conversation(current).source_format == "codex-exec"
