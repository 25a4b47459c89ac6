"""Claude Code session JSONL: the bundled real session as before, compactions Claude Code made, and its user turns
read as Claude Code means them (the rules the Engram reader shares)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.claude_turns import CLAUDE_CODE_RULES, classify
from compressor.messages import Conversation, Message
from tests.conftest import FIXTURES, TRANSCRIPTS

SESSION = TRANSCRIPTS / "claude-code-session.jsonl"
COMPACTED = FIXTURES / "formats" / "claude_code" / "session-with-compaction.jsonl"


@pytest.fixture(scope="module")
def compacted() -> Conversation:
    return load_conversation(COMPACTED)


class TestBundledSession:
    def test_counts_are_unchanged(self) -> None:
        conversation = load_conversation(SESSION)
        assert count_messages(conversation).to_dict() == {
            "real_user": 1,
            "internal_user": 1,  # the Stop hook's feedback (isMeta), which the model answers
            "assistant": 39,
            "tool": 39,
            "tool_calls": 39,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert conversation.recorded_compactions == []

    def test_the_file_names_the_session_and_the_model(self) -> None:
        conversation = load_conversation(SESSION)
        assert conversation.metadata == {
            "agent": "claude-code",
            "session_id": "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f",
            "model": "claude-opus-4-5-20251101",
        }
        assert [(r.code, r.detail) for r in conversation.readings] == [
            ("internal_user_turns", ""),
            ("model_from_file", "claude-opus-4-5-20251101"),
        ]


class TestCompaction:
    def test_the_summary_after_a_compact_boundary_is_a_recorded_compaction(
        self, compacted: Conversation
    ) -> None:
        (compaction,) = compacted.recorded_compactions
        summary = compacted.messages[compaction.index]
        assert (compaction.source, compaction.tokens_before, compaction.tokens_after) == (
            "claude-code",
            155025,
            None,
        )
        assert summary.role == "user" and summary.internal
        assert compaction.summary == summary.text
        assert compaction.summary.startswith("This session is being continued from a previous conversation")

    def test_the_boundary_metadata_stays_on_the_summary(self, compacted: Conversation) -> None:
        summary = compacted.messages[compacted.recorded_compactions[0].index]
        assert (summary.model_extra or {})["compactMetadata"] == {"trigger": "auto", "preTokens": 155025}

    def test_an_unflagged_summary_of_an_older_session_is_recorded_too(self) -> None:
        lines = [line for line in COMPACTED.read_text().splitlines() if '"compact_boundary"' not in line]
        text = "\n".join(
            line.replace('"isCompactSummary": true', '"isCompactSummary": false') for line in lines
        )
        conversation = load_conversation(text.encode(), name="old.jsonl")
        (compaction,) = conversation.recorded_compactions
        assert compaction.tokens_before is None
        assert conversation.messages[compaction.index].internal


class TestTurns:
    def test_counts(self, compacted: Conversation) -> None:
        assert count_messages(compacted).to_dict() == {
            "real_user": 3,
            "internal_user": 8,
            "assistant": 8,
            "tool": 5,
            "tool_calls": 5,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_only_what_the_person_typed_is_a_request(self, compacted: Conversation) -> None:
        requests = [m.text.split("\n")[0] for m in compacted.messages if m.is_real_user]
        assert requests == [
            "The test in tests/test_math.py fails since yesterday, can you fix it?",
            "<command-message>review</command-message>",
            "Don't run code for that, just tell me: what does mean([]) do now?",
        ]

    def test_what_the_harness_wrote_is_internal(self, compacted: Conversation) -> None:
        internal = [m.text.split("\n")[0][:40] for m in compacted.messages if m.is_internal]
        assert internal == [
            "This session is being continued from a p",
            "<local-command-caveat>Caveat: The messag",  # isMeta
            "<command-name>/model</command-name>",
            "<local-command-stdout>Set model to \x1b[1mo",
            "<task-notification>",
            "Review the changes in calc/stats.py for ",  # isMeta: the custom command's prompt
            "[Request interrupted by user for tool us",
            "<system-reminder>",
        ]

    def test_the_latest_request_anchors_a_compressible_span(self, compacted: Conversation) -> None:
        analysis = analyze(compacted)
        assert compacted.messages[analysis.last_user_index].text.startswith("Don't run code")
        assert analysis.span.has_compressible

    def test_readings(self, compacted: Conversation) -> None:
        assert [(r.code, r.count) for r in compacted.readings] == [
            ("internal_user_turns", 8),
            ("recorded_compactions", 1),
            ("model_from_file", 1),
            ("usage_after_compaction_stale", 6),
        ]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("fix the bug please", "request"),
        ("This session is being continued from a previous conversation that ran out of context.", "internal"),
        ("<task-notification>\n<task-id>b1</task-id>\n</task-notification>", "internal"),
        ("Caveat: The messages below were generated by the user while running local commands.", "internal"),
        ("<local-command-caveat>Caveat: …</local-command-caveat>", "internal"),
        ("<local-command-stdout>Set model</local-command-stdout>", "internal"),
        ("[Request interrupted by user]", "internal"),
        ("[Request interrupted by user for tool use]", "internal"),
        ("Base directory for this skill: /home/u/.claude/skills/plan", "internal"),
        ("<system-reminder>x</system-reminder>\n<system-reminder>y</system-reminder>", "internal"),
        ("<system-reminder>x</system-reminder> and then fix it", "request"),
        ("<bash-input>ls</bash-input>", "internal"),
    ],
)
def test_claude_code_rules(text: str, kind: str) -> None:
    assert CLAUDE_CODE_RULES.kind(text) == kind


def _user(text: str) -> Message:
    return Message(role="user", content=text)


class TestSlashCommands:
    def test_a_command_that_ran_locally_is_internal(self) -> None:
        turns = classify(
            [
                _user("<command-name>/model</command-name>"),
                _user("<local-command-stdout>ok</local-command-stdout>"),
            ]
        )
        assert [m.internal for m in turns.messages] == [True, True]

    def test_a_command_the_model_answers_is_the_request(self) -> None:
        turns = classify(
            [
                _user("<command-message>plan</command-message>\n<command-name>/plan</command-name>"),
                _user("Base directory for this skill: /skills/plan\n\n# Planning"),
                Message(role="assistant", content="planning"),
            ]
        )
        assert [m.internal for m in turns.messages] == [False, True, False]


def _line(kind: str, message: dict[str, Any], uuid: str, **extra: Any) -> str:
    return json.dumps({"type": kind, "uuid": uuid, "message": message, **extra})


class TestBadInput:
    def test_a_torn_last_line_reads_up_to_the_last_whole_one(self) -> None:
        text = COMPACTED.read_text()
        conversation = load_conversation(
            text[: text.rindex("\n", 0, len(text) - 1) + 40].encode(), name="s.jsonl"
        )
        assert "truncated_tail" in [reading.code for reading in conversation.readings]
        assert len(conversation.messages) == len(load_conversation(COMPACTED).messages) - 1

    def test_a_broken_line_in_the_middle_names_its_line(self) -> None:
        lines = COMPACTED.read_text().splitlines()
        lines[3] = lines[3][:50]
        with pytest.raises(ConversationFormatError, match=r"s\.jsonl: line 4: not valid JSON"):
            load_conversation("\n".join(lines).encode(), name="s.jsonl")

    def test_content_of_the_wrong_type_names_the_field(self, tmp_path: Path) -> None:
        text = "\n".join(
            [
                _line("user", {"role": "user", "content": "hi"}, "u1"),
                _line("assistant", {"id": "m", "role": "assistant", "content": 5}, "a1"),
            ]
        )
        with pytest.raises(
            ConversationFormatError, match=r"line 2: message\.content: must be a string or a list"
        ):
            load_conversation(text.encode(), name="s.jsonl")


HEADLESS = FIXTURES / "formats" / "claude_code" / "headless-stream.jsonl"


class TestHeadlessStream:
    """``claude -p --output-format stream-json``: the same message lines after an ``init``, and a ``result``."""

    def test_a_stand_in_opens_the_run_for_the_prompt_it_does_not_print(self) -> None:
        run = load_conversation(HEADLESS)
        first = run.messages[0]
        assert (first.role, first.content, first.is_real_user) == ("user", "", True)
        assert next(r for r in run.readings if r.code == "prompts_not_recorded").count == 1
        assert analyze(run, context_max=200_000).to_dict()["span"]["compress"] == [1, 9]  # anchored on it

    def test_messages_session_result_and_compaction(self) -> None:
        run = load_conversation(HEADLESS)
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 1,
            "assistant": 4,
            "tool": 3,
            "tool_calls": 3,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert run.metadata["session_id"] == "6b1f3c2a-9d4e-4f7a-8b2c-1e5d7a9c3f40"
        assert (
            run.metadata["result"]["total_cost_usd"] == 0.04213 and run.metadata["result"]["num_turns"] == 5
        )
        (compaction,) = run.recorded_compactions
        assert compaction.tokens_before == 15_402  # compact_metadata.pre_tokens

    def test_an_echoed_prompt_needs_no_stand_in(self) -> None:
        lines = HEADLESS.read_text().splitlines()
        prompt = {
            "type": "user",
            "message": {"role": "user", "content": "Fix the date test."},
            "session_id": "s",
        }
        run = load_conversation(
            "\n".join([lines[0], json.dumps(prompt), *lines[1:]]) + "\n", name="run.jsonl"
        )
        assert run.messages[0].text == "Fix the date test."
        assert not any(m.role == "user" and m.content == "" for m in run.messages)
        assert not any(r.code == "prompts_not_recorded" for r in run.readings)

    def test_a_session_file_gets_no_stand_in(self, compacted: Conversation) -> None:
        assert not any(r.code == "prompts_not_recorded" for r in compacted.readings)


ERRORS = FIXTURES / "formats" / "claude_code" / "session-with-api-errors.jsonl"


class TestLinesClaudeCodeWroteItself:
    """Failed calls (``isApiErrorMessage``), ``<synthetic>`` replies and ``isMeta`` turns, read as the model saw them.

    Shapes: Claude Code's ``createAssistantAPIErrorMessage`` / ``createAssistantMessage`` (model ``<synthetic>``,
    all-zero usage, ``stop_reason: "stop_sequence"``) and ``normalizeMessagesForAPI``, which drops the API errors
    from every later request; the fixture is built in that shape (see its README)."""

    def test_a_failed_call_is_no_reply_and_is_counted(self) -> None:
        run = load_conversation(ERRORS)
        assert not any("API Error" in m.text or "Prompt is too long" in m.text for m in run.messages)
        assert next(r for r in run.readings if r.code == "api_errors_left_out").count == 2
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "user",  # the person's retry follows the result the failed call was given
            "assistant",
            "tool",
            "assistant",
            "user",  # "ok", which Claude Code answered itself with "No response requested."
            "user",  # the request whose call failed with "Prompt is too long": the run ends on it
        ]

    def test_every_call_point_left_is_a_reply_the_model_sent_with_its_own_usage(self) -> None:
        run = load_conversation(ERRORS)
        assistants = [m for m in run.messages if m.role == "assistant"]
        assert [m.reported_total_tokens for m in assistants] == [16_079, 16_719, 16_856]
        assert all(m.model_extra and m.model_extra.get("model") != "<synthetic>" for m in assistants)

    def test_a_reply_claude_code_wrote_itself_is_no_call_point_and_is_counted(self) -> None:
        run = load_conversation(ERRORS)
        assert not any("No response requested." in m.text for m in run.messages)
        assert next(r for r in run.readings if r.code == "synthetic_replies_left_out").count == 1
        # not an API error: the two counts stay apart
        assert next(r for r in run.readings if r.code == "api_errors_left_out").count == 2

    def test_a_synthetic_reply_logged_twice_counts_once(self) -> None:
        lines = ERRORS.read_text().splitlines()
        sentinel = next(line for line in lines if "No response requested." in line)
        run = load_conversation("\n".join([*lines, sentinel]) + "\n", name="twice.jsonl")
        assert next(r for r in run.readings if r.code == "synthetic_replies_left_out").count == 1

    def test_a_synthetic_reply_does_not_take_the_headless_prompt_s_place(self) -> None:
        lines = HEADLESS.read_text().splitlines()
        sentinel = {
            "type": "assistant",
            "message": {
                "id": "9b2e4c6a-1d3f-4a5b-8c7d-0e1f2a3b4c5d",
                "model": "<synthetic>",
                "role": "assistant",
                "stop_reason": "stop_sequence",
                "type": "message",
                "usage": {"input_tokens": 0, "output_tokens": 0},
                "content": [{"type": "text", "text": "No response requested."}],
            },
            "parent_tool_use_id": None,
            "session_id": "6b1f3c2a-9d4e-4f7a-8b2c-1e5d7a9c3f40",
            "uuid": "1e2d3c4b-5a69-4877-9685-a4b3c2d1e0f9",
        }
        text = "\n".join([lines[0], json.dumps(sentinel), *lines[1:]]) + "\n"
        run = load_conversation(text, name="run.jsonl")
        assert [m.text for m in run.messages] == [m.text for m in load_conversation(HEADLESS).messages]

    def test_the_model_is_the_one_that_replied_not_synthetic(self) -> None:
        run = load_conversation(ERRORS)
        assert run.metadata["model"] == "claude-sonnet-4-5-20250929"
        assert ("model_from_file", "claude-sonnet-4-5-20250929") in [(r.code, r.detail) for r in run.readings]

    def test_an_error_logged_twice_counts_once(self) -> None:
        lines = ERRORS.read_text().splitlines()
        error = next(line for line in lines if '"isApiErrorMessage": true' in line)
        run = load_conversation("\n".join([*lines, error]) + "\n", name="twice.jsonl")
        assert next(r for r in run.readings if r.code == "api_errors_left_out").count == 2

    def test_without_the_flag_the_same_line_is_claude_code_s_own_reply(self) -> None:
        text = ERRORS.read_text().replace('"isApiErrorMessage": true, "error": "server_error", ', "")
        run = load_conversation(text, name="unflagged.jsonl")
        # the model is still <synthetic>: no call made it
        assert not any(m.text.startswith("API Error: 529") for m in run.messages)
        assert next(r for r in run.readings if r.code == "api_errors_left_out").count == 1  # the other one
        assert next(r for r in run.readings if r.code == "synthetic_replies_left_out").count == 2

    def test_without_the_flag_or_the_synthetic_model_the_line_is_a_reply(self) -> None:
        text = (
            ERRORS.read_text()
            .replace('"isApiErrorMessage": true, "error": "server_error", ', "")
            .replace('"model": "<synthetic>"', '"model": "claude-sonnet-4-5-20250929"', 1)
        )
        run = load_conversation(text, name="unflagged.jsonl")
        assert any(m.role == "assistant" and m.text.startswith("API Error: 529") for m in run.messages)

    def test_a_headless_error_message_is_left_out_too(self) -> None:
        lines = HEADLESS.read_text().splitlines()
        error = {
            "type": "assistant",
            "message": {
                "id": "4f0b7c2e-9a31-4d58-b6e0-1c2d3e4f5a6b",
                "model": "<synthetic>",
                "role": "assistant",
                "stop_reason": "stop_sequence",
                "type": "message",
                "usage": {"input_tokens": 0, "output_tokens": 0},
                "content": [{"type": "text", "text": "API Error: 500 Internal server error"}],
            },
            "parent_tool_use_id": None,
            "session_id": "6b1f3c2a-9d4e-4f7a-8b2c-1e5d7a9c3f40",
            "uuid": "0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a",
            "error": "server_error",
        }
        run = load_conversation(
            "\n".join([*lines[:-1], json.dumps(error), lines[-1]]) + "\n", name="run.jsonl"
        )
        assert [m.text for m in run.messages] == [m.text for m in load_conversation(HEADLESS).messages]
        assert next(r for r in run.readings if r.code == "api_errors_left_out").count == 1

    def test_a_meta_turn_is_internal_whatever_it_says(self) -> None:
        turns = classify(
            [
                _user("fix it"),
                Message(role="user", content="Stop hook feedback:\nCommit first.", isMeta=True),
                Message(role="assistant", content="Committing."),
            ]
        )
        assert [m.internal for m in turns.messages] == [False, True, False]
        assert turns.tally.readings()[0].code == "internal_user_turns"


SUBAGENT = FIXTURES / "formats" / "claude_code" / "subagent-transcript.jsonl"


class TestSubagentTranscript:
    """A subagent's own file (``<session>/subagents/agent-<id>.jsonl``) holds only sidechain lines: it is read."""

    def test_the_sidechain_is_the_conversation(self) -> None:
        run = load_conversation(SUBAGENT)
        assert count_messages(run).to_dict() == {
            "real_user": 1,  # the task the parent agent gave it
            "internal_user": 0,
            "assistant": 3,
            "tool": 2,
            "tool_calls": 2,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert [m.tool_call_id for m in run.messages if m.role == "tool"] == [
            "toolu_01SubGrep000000000000001",
            "toolu_01SubRead000000000000002",
        ]
        assert run.messages[-1].usage_metadata is not None
        assert run.messages[-1].usage_metadata["total_tokens"] == 14148

    def test_the_file_says_whose_subagent_it_is(self) -> None:
        run = load_conversation(SUBAGENT)
        assert run.metadata == {
            "agent": "claude-code",
            "session_id": "37b34ca6-c5d7-47ec-bacd-0ae542bc315d",  # the parent session's id
            "sidechain": True,
            "agent_id": "a48be13e92de1397f",
            "model": "claude-haiku-4-5-20251001",
        }

    def test_sidechain_lines_in_a_main_session_are_still_left_out(self) -> None:
        main = [
            json.dumps(json.loads(line) | {"isSidechain": False})
            for line in SUBAGENT.read_text().splitlines()
        ]
        side = json.dumps(
            {
                "type": "user",
                "isSidechain": True,
                "uuid": "side-1",
                "message": {
                    "role": "user",
                    "content": "a subagent's task, written into the main file (1.0.x)",
                },
            }
        )
        run = load_conversation("\n".join([*main[:1], side, *main[1:]]) + "\n", name="main.jsonl")
        assert len(run.messages) == 6
        assert "sidechain" not in run.metadata


ATTACHMENTS = FIXTURES / "formats" / "claude_code" / "session-2.1-attachments.jsonl"


class TestAttachments:
    """Claude Code 2.1's ``attachment`` lines: what the model was sent for each (``rendered``) is read."""

    def test_rendered_context_is_read_as_internal_turns_where_it_was_sent(self) -> None:
        run = load_conversation(ATTACHMENTS)
        assert [(m.role, m.internal) for m in run.messages[:5]] == [
            ("user", False),  # the typed prompt
            ("user", True),  # environment
            ("user", True),  # the model's identity
            ("user", True),  # the skill listing
            ("assistant", False),
        ]
        assert run.messages[1].text.startswith("<system-reminder>\n# Environment")
        assert (run.messages[2].model_extra or {}).get("attachment") == "model"

    def test_a_message_typed_while_the_model_worked_is_a_request(self) -> None:
        run = load_conversation(ATTACHMENTS)
        queued = run.messages[6]
        assert queued.is_real_user
        assert "Also say which commit added that test" in queued.text
        assert queued.text.startswith("<system-reminder>")  # kept as the model was sent it
        assert count_messages(run).to_dict() == {
            "real_user": 2,
            "internal_user": 3,
            "assistant": 3,
            "tool": 2,
            "tool_calls": 2,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert analyze(run).last_user_index == 6

    def test_an_attachment_with_no_rendered_text_is_skipped_and_counted(self) -> None:
        run = load_conversation(ATTACHMENTS)
        (skipped,) = [r for r in run.readings if r.code == "lines_skipped"]
        assert (skipped.count, skipped.detail) == (1, "attachments with no rendered text ×1")
        assert "hook_success" not in [(m.model_extra or {}).get("attachment") for m in run.messages]

    def test_a_queued_command_without_rendered_text_is_its_prompt(self) -> None:
        line = {
            "type": "attachment",
            "uuid": "q-1",
            "attachment": {
                "type": "queued_command",
                "prompt": "and the weekday",
                "origin": {"kind": "human"},
            },
        }
        first = {"type": "user", "uuid": "u-1", "message": {"role": "user", "content": "what day is it"}}
        run = load_conversation(f"{json.dumps(first)}\n{json.dumps(line)}\n", name="run.jsonl")
        assert [(m.text, m.is_real_user) for m in run.messages] == [
            ("what day is it", True),
            ("and the weekday", True),
        ]


LOCAL_COMMANDS = FIXTURES / "formats" / "claude_code" / "session-1.0.95-local-commands.jsonl"


class TestRealSessionWithLocalCommands:
    """A real Claude Code 1.0.95 session: a rejected edit and its interrupt, a local /mcp command, an MCP tool."""

    def test_it_reads_as_claude_code_sent_it(self) -> None:
        run = load_conversation(LOCAL_COMMANDS)
        assert count_messages(run).to_dict() == {
            "real_user": 3,
            "internal_user": 4,  # the interrupt marker, the local-command caveat, /mcp and its output
            "assistant": 20,
            "tool": 19,
            "tool_calls": 19,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        internal = [m.text.split("\n")[0] for m in run.messages if m.role == "user" and m.internal]
        assert [text[:24] for text in internal] == [
            "[Request interrupted by ",
            "Caveat: The messages bel",
            "<command-name>/mcp</comm",
            "<local-command-stdout>(n",
        ]
        assert run.messages[5].call_ids == (
            "toolu_014WvJQVXQ9y641v1V4N2v4P",
            "toolu_01ADafGuxkjzdYjrKMBX5DKE",
        )

    def test_thinking_lines_merge_into_their_reply(self) -> None:
        run = load_conversation(LOCAL_COMMANDS)
        first = run.messages[1]
        assert first.call_ids[0].startswith("toolu_0193wZ")
        assert (first.usage_metadata or {}).get("total_tokens") == 15259


class TestHookContext:
    def test_a_hooks_added_context_is_an_internal_turn_even_unrendered(self) -> None:
        prompt = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hello"}}
        hook = {
            "parentUuid": "u1",
            "isSidechain": False,
            "type": "attachment",
            "uuid": "h1",
            "attachment": {
                "type": "hook_additional_context",
                "content": ["Relevant memories from kb:\n- Prefers tabs"],
                "hookName": "UserPromptSubmit",
                "toolUseID": "UserPromptSubmit",
                "hookEvent": "UserPromptSubmit",
            },
        }
        run = load_conversation(f"{json.dumps(prompt)}\n{json.dumps(hook)}\n", name="run.jsonl")
        assert [(m.text, m.internal) for m in run.messages] == [
            ("hello", False),
            ("Relevant memories from kb:\n- Prefers tabs", True),
        ]
        assert not any(r.code == "lines_skipped" for r in run.readings)


class TestLocalCommandsAsSystemLines:
    """Claude Code 2.1 writes a local command and its output as ``system`` lines of subtype ``local_command``."""

    def test_they_are_the_internal_turns_the_1_0_user_lines_were(self) -> None:
        common = {"isSidechain": False, "sessionId": "s-2.1", "version": "2.1.270"}
        lines = [
            {
                **common,
                "type": "user",
                "uuid": "u1",
                "message": {"role": "user", "content": "tidy the notes"},
            },
            {
                **common,
                "type": "system",
                "subtype": "local_command",
                "uuid": "c1",
                "level": "info",
                "isMeta": False,
                "content": "<command-name>/rename</command-name>\n            <command-message>rename</command-message>"
                "\n            <command-args>notes</command-args>",
            },
            {
                **common,
                "type": "system",
                "subtype": "local_command",
                "uuid": "c2",
                "level": "info",
                "isMeta": False,
                "content": "<local-command-stdout>Session renamed to: notes</local-command-stdout>",
            },
            {
                **common,
                "type": "user",
                "uuid": "m1",
                "isMeta": True,
                "message": {
                    "role": "user",
                    "content": '<system-reminder>\nThe user named this session "notes".\n</system-reminder>',
                },
            },
        ]
        run = load_conversation("".join(json.dumps(line) + "\n" for line in lines), name="run.jsonl")
        assert [(m.text.split("\n")[0][:30], m.internal) for m in run.messages] == [
            ("tidy the notes", False),
            ("<command-name>/rename</command", True),
            ("<local-command-stdout>Session ", True),
            ("<system-reminder>", True),
        ]
