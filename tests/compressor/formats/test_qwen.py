"""Qwen Code sessions: the chain Qwen resumes, roles from provenance, chat_compression recorded with its numbers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

SESSION = FIXTURES / "formats" / "qwen" / "3f6c2a1e-9b7d-4e5f-a1c2-d3e4f5a6b7c8.jsonl"


@pytest.fixture(scope="module")
def session() -> Conversation:
    return load_conversation(fixture(SESSION))


def record(uuid: str, parent: str | None, kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s",
        "timestamp": "t",
        "type": kind,
        "cwd": "/w",
        "version": "0.10.2",
        **fields,
    }


def said(text: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def jsonl(*records: dict[str, Any]) -> Conversation:
    return load_conversation("\n".join(json.dumps(r) for r in records) + "\n", name="chat.jsonl")


class TestFixture:
    def test_counts(self, session: Conversation) -> None:
        assert session.source_format == "qwen-code"
        assert count_messages(session).to_dict() == {
            "real_user": 3,
            "internal_user": 2,
            "assistant": 6,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_roles_follow_provenance(self, session: Conversation) -> None:
        assert (
            [m.text for m in session.messages if m.is_real_user]
            == [
                "Add a --json flag to the `report` command.",
                "Print totals only with --json.",
                "and keep the old output unchanged",  # typed while the edit ran: a request, after that tool's result
            ]
        )
        assert [m.text.split("\n")[0] for m in session.messages if m.is_internal] == [
            "Background task `pytest -q` completed: 42 passed.",
            "<state_snapshot>",
        ]
        assert [m.role for m in session.messages[11:14]] == ["assistant", "tool", "user"]

    def test_the_rewound_turn_and_the_side_chain_are_not_read(self, session: Conversation) -> None:
        texts = " ".join(m.text for m in session.messages)
        assert "Also print totals" not in texts and "Exploring tests/" not in texts

    def test_calls_pair_by_id_and_by_name(self, session: Conversation) -> None:
        calls = [call.id for m in session.messages for call in m.tool_calls or ()]
        results = [m.tool_call_id for m in session.messages if m.role == "tool"]
        assert calls == results == ["call_5e1f0a", "call_6a2b1c", "qwen_run_shell_command_1", "call_7c3d2e"]

    def test_thoughts_and_usage(self, session: Conversation) -> None:
        first = session.messages[1]
        assert first.content == "I'll look at the CLI entry point."
        assert (first.model_extra or {})[
            "reasoning_content"
        ] == "The flag belongs where the command is parsed."
        assert first.usage_metadata == {
            "input_tokens": 11200,
            "output_tokens": 48,
            "reasoning_tokens": 12,
            "total_tokens": 11260,
        }
        assert (
            session.metadata["context_window"] == 1000000 and session.metadata["model"] == "qwen3-coder-plus"
        )

    def test_the_compression_is_recorded_with_its_numbers(self, session: Conversation) -> None:
        (compaction,) = session.recorded_compactions
        assert (compaction.source, compaction.index, compaction.tokens_before, compaction.tokens_after) == (
            "qwen-code",
            9,
            12115,
            1884,
        )
        assert compaction.summary.startswith("<state_snapshot>\n<overall_goal>Add a --json flag")
        assert session.messages[9].content == compaction.summary

    def test_readings(self, session: Conversation) -> None:
        assert [describe_reading(r) for r in session.readings] == [
            "2 user turns were written by the agent's harness and were read as internal",
            "1 compaction the agent made itself is recorded in the file",
            "7 lines that are not part of the conversation were skipped (records on branches the session left "
            "(rewinds) ×2, subagent side-chain records ×1, system session_source records ×1, system ui_telemetry "
            "records ×1, system rewind records ×1, system custom_title records ×1)",
            "the file names the model: qwen3-coder-plus",
            "2 usage reports after the agent's first own compaction measured the compacted window; they are read "
            "as stale for the whole run shown here",
        ]


class TestRoles:
    def test_without_provenance_subtypes_and_reminders_decide(self) -> None:
        run = jsonl(
            record("a", None, "user", message=said("fix the build")),
            record("b", "a", "user", subtype="cron", message=said("nightly check")),
            record("c", "b", "user", message=said("<system-reminder>todo list is empty</system-reminder>")),
            record("d", "c", "assistant", message=said("ok", "model")),
        )
        assert [m.internal for m in run.messages if m.role == "user"] == [False, True, True]

    def test_records_of_one_uuid_are_merged(self) -> None:
        run = jsonl(
            record("a", None, "user", provenance="real_user", message=said("hi")),
            record("b", "a", "assistant", message=said("Hel", "model")),
            record(
                "b",
                "a",
                "assistant",
                message=said("lo", "model"),
                usageMetadata={"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
            ),
        )
        assert run.messages[1].content == "Hel\nlo" and run.messages[1].reported_total_tokens == 12


class TestBadInput:
    @pytest.mark.parametrize(
        ("bad", "problem"),
        [
            (
                record(
                    "b",
                    "a",
                    "assistant",
                    message={"role": "model", "parts": [{"functionCall": {"args": {}}}]},
                ),
                "chat.jsonl: line 2: message.parts[0].functionCall: missing name",
            ),
            (
                record(
                    "b", "a", "assistant", message=said("x", "model"), usageMetadata={"promptTokenCount": "n"}
                ),
                "chat.jsonl: line 2: usageMetadata.promptTokenCount: must be a number, got string 'n'",
            ),
            (
                record(
                    "b", "a", "system", subtype="chat_compression", systemPayload={"compressedHistory": {}}
                ),
                "chat.jsonl: line 2: systemPayload.compressedHistory: must be a list of Content, got object",
            ),
            (
                record("b", "a", "tool_result", message="done"),
                "chat.jsonl: line 2: message: expected a Content (a JSON object), got string",
            ),
        ],
    )
    def test_one_line_naming_the_field(self, bad: dict[str, Any], problem: str) -> None:
        with pytest.raises(ConversationFormatError) as error:
            jsonl(record("a", None, "user", provenance="real_user", message=said("hi")), bad)
        assert str(error.value) == problem
