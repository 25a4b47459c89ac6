"""Gemini CLI stream-json logs: one conversation per ``init``, streamed chunks joined, every call paired."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.messages import Conversation
from tests.conftest import TRANSCRIPTS, fixture

SAMPLE = TRANSCRIPTS / "gemini-cli-stream.jsonl"


@pytest.fixture(scope="module")
def sessions() -> list[Conversation]:
    return load_conversations(fixture(SAMPLE))


def stream(*events: dict[str, Any]) -> list[Conversation]:
    return load_conversations("\n".join(json.dumps(e) for e in events) + "\n", name="run.jsonl")


INIT = {"type": "init", "timestamp": "t0", "session_id": "s-1", "model": "gemini-2.5-pro"}


class TestSample:
    def test_the_two_inits_are_two_sessions(self, sessions: list[Conversation]) -> None:
        assert [c.metadata["session_id"] for c in sessions] == [
            "6727b31e-11a1-4351-b526-77ba7b90da09",
            "65b8f8e4-6941-4eba-b2b8-a3f492435908",
        ]
        assert {c.source_format for c in sessions} == {"gemini-cli-stream"}
        assert {c.metadata["model"] for c in sessions} == {"gemini-3-pro-preview"}

    def test_counts(self, sessions: list[Conversation]) -> None:
        assert [count_messages(c).to_dict() for c in sessions] == [
            {
                "real_user": 1,
                "internal_user": 0,
                "assistant": 41,
                "tool": 40,
                "tool_calls": 40,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
            {
                "real_user": 1,
                "internal_user": 0,
                "assistant": 28,
                "tool": 28,
                "tool_calls": 28,
                "unmatched_tool_calls": 0,
                "unmatched_tool_results": 0,
            },
        ]
        lines = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
        assert sum(1 for e in lines if e["type"] == "tool_use") == 68
        assert sum(1 for e in lines if e["type"] == "tool_result") == 67  # the log ends mid-call

    def test_the_prompt_is_the_one_request(self, sessions: list[Conversation]) -> None:
        for session in sessions:
            first = session.messages[0]
            assert first.is_real_user and first.text.startswith(
                "You are an expert frontend software engineer."
            )

    def test_delta_chunks_are_one_closing_message(self, sessions: list[Conversation]) -> None:
        last = sessions[0].messages[-1]
        assert last.role == "assistant" and not last.tool_calls
        assert last.text.startswith(
            "I have converted the Figma design to a production-ready React application."
        )
        assert "**Deliverables:**\n- **GitHub Repo:** `https://github.com/metaphi-agent/" in last.text

    def test_the_call_the_log_never_answers_gets_a_stand_in(self, sessions: list[Conversation]) -> None:
        call, stand_in = sessions[1].messages[-2:]
        assert (
            call.tool_calls is not None
            and call.tool_calls[0].id == "run_shell_command-1769811075548-79133c0672948"
        )
        assert stand_in.tool_call_id == call.tool_calls[0].id and stand_in.content.startswith("(no result")

    def test_totals_over_the_session_are_no_window(self, sessions: list[Conversation]) -> None:
        assert sessions[0].metadata["stats"]["total_tokens"] == 2164148
        assert all(m.usage_metadata is None for s in sessions for m in s.messages)

    def test_readings(self, sessions: list[Conversation]) -> None:
        assert [describe_reading(r) for r in sessions[0].readings] == [
            "1 line that is not part of the conversation was skipped (events outside a session (before its "
            "init or after its result) ×1)",
            "7 streamed chunks were joined into messages",
            "the file names the model: gemini-3-pro-preview",
        ]
        assert [r.code for r in sessions[1].readings] == [
            "results_filled_in",
            "lines_skipped",
            "model_from_file",
        ]


class TestEvents:
    def test_text_then_calls_is_one_assistant_message(self) -> None:
        (run,) = stream(
            INIT,
            {"type": "message", "role": "user", "content": "hi"},
            {"type": "message", "role": "assistant", "content": "Look", "delta": True},
            {"type": "message", "role": "assistant", "content": "ing.", "delta": True},
            {"type": "tool_use", "tool_name": "ls", "tool_id": "c1", "parameters": {"path": "."}},
            {"type": "tool_use", "tool_name": "ls", "tool_id": "c2", "parameters": {"path": "src"}},
            {"type": "tool_result", "tool_id": "c1", "status": "success", "output": "a"},
            {
                "type": "tool_result",
                "tool_id": "c2",
                "status": "error",
                "error": {"type": "x", "message": "denied"},
            },
            {"type": "error", "severity": "warning", "message": "slow"},
        )
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "hi"),
            ("assistant", "Looking."),
            ("tool", "a"),
            ("tool", "denied"),
        ]
        assert [call.id for call in run.messages[1].tool_calls or ()] == ["c1", "c2"]
        assert run.messages[3].name == "ls" and (run.messages[3].model_extra or {})["status"] == "error"

    def test_a_log_without_init_is_one_session(self) -> None:
        run = load_conversation(
            "\n".join(
                json.dumps(e)
                for e in [
                    {"type": "message", "role": "user", "content": "hi"},
                    {"type": "tool_use", "tool_name": "ls", "tool_id": "c1", "parameters": {}},
                    {"type": "tool_result", "tool_id": "c1", "status": "success", "output": "a"},
                ]
            )
            + "\n",
            name="run.jsonl",
        )
        assert [m.role for m in run.messages] == ["user", "assistant", "tool"]


class TestBadInput:
    @pytest.mark.parametrize(
        ("event", "problem"),
        [
            (
                {"type": "tool_use", "tool_id": "c1", "tool_name": 3},
                "run.jsonl: line 2: tool_name: must be a string, got number",
            ),
            (
                {"type": "tool_result", "tool_id": "c1", "status": "success", "output": ["x"]},
                "run.jsonl: line 2: output: must be a string, got list",
            ),
            (
                {"type": "message", "role": "system", "content": "x"},
                "run.jsonl: line 2: role: unknown role 'system' (expected user or assistant)",
            ),
        ],
    )
    def test_one_line_naming_the_field(self, event: dict[str, Any], problem: str) -> None:
        with pytest.raises(ConversationFormatError) as error:
            stream(INIT, event)
        assert str(error.value) == problem
