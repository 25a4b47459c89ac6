"""Legacy SWE-agent trajectories (text actions): each answered action is a tool call, its observation the result,
the issue the only real request, demonstrations left out; function-calling trajectories keep their own reader."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.swe_agent_text import is_demo, without_command
from compressor.messages import Conversation
from tests.conftest import FIXTURES, TRANSCRIPTS

HERE = FIXTURES / "formats" / "swe_agent_text"
#: Real SWE-agent files, copied unmodified (README.md names their source).
PYDICOM = HERE / "pydicom__pydicom-1458.traj"  # SWE-agent 0.x: is_demo "True", no message_type
HUMANEVAL = HERE / "humanevalfix-python-0.traj"  # SWE-agent 1.x: message_type on every item
DEMOS = HERE / "demos-in-history.traj"  # demonstrations put in the history, a format-error requery


def counts(conversation: Conversation) -> dict[str, int]:
    return count_messages(conversation).to_dict()


class TestRealTrajectories:
    @pytest.mark.parametrize(
        ("path", "assistant", "calls", "demos"),
        [(PYDICOM, 12, 11, 1), (HUMANEVAL, 5, 4, 0)],
    )
    def test_every_observation_answers_its_action(
        self, path: Any, assistant: int, calls: int, demos: int
    ) -> None:
        conversation = load_conversation(path)
        assert conversation.source_format == "swe-agent-text" and len(conversation.system) == 1
        assert counts(conversation) == {
            "real_user": 1,
            "internal_user": 0,
            "assistant": assistant,
            "tool": calls,
            "tool_calls": calls,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        skipped = [r.count for r in conversation.readings if r.code == "demonstration_turns_skipped"]
        assert skipped == ([demos] if demos else [])

    @pytest.mark.parametrize("path", [PYDICOM, HUMANEVAL, DEMOS])
    def test_the_compressible_span_is_no_longer_empty(self, path: Any) -> None:
        analysis = analyze(load_conversation(path))
        assert analysis.last_user_index == 0 and analysis.span.has_compressible

    def test_an_action_is_named_by_its_first_word_and_leaves_the_content(self) -> None:
        reply = load_conversation(PYDICOM).messages[1]
        (call,) = reply.tool_calls or ()
        assert (call.name, call.parsed_arguments()) == ("create", {"command": "create reproduce_bug.py"})
        assert "```" not in reply.text and reply.text.startswith("First, I'll create a new Python script")
        assert (reply.model_extra or {})["action"] == "create reproduce_bug.py\n"

    def test_the_last_action_without_an_observation_stays_text(self) -> None:
        last = load_conversation(PYDICOM).messages[-1]
        assert last.role == "assistant" and last.tool_calls is None and last.text.endswith("```\nsubmit\n```")

    def test_run_fields_go_to_the_metadata(self) -> None:
        metadata = load_conversation(PYDICOM).metadata
        assert metadata["agent"] == "swe-agent" and metadata["exit_status"] == "submitted"
        assert isinstance(metadata["model_stats"], dict)


@pytest.fixture(scope="module")
def demos() -> Conversation:
    return load_conversation(DEMOS)


class TestDemonstrationsAndHarnessTurns:
    def test_counts(self, demos: Conversation) -> None:
        assert counts(demos) == {
            "real_user": 1,
            "internal_user": 1,
            "assistant": 6,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_demonstration_turns_are_left_out(self, demos: Conversation) -> None:
        assert all("/demo" not in m.text for m in demos.messages)
        assert [(r.code, r.count) for r in demos.readings] == [
            ("demonstration_turns_skipped", 4),
            ("tool_calls_from_text", 4),
            ("tool_results_from_user_text", 4),
            ("internal_user_turns", 1),
        ]

    def test_a_format_error_requery_is_internal(self, demos: Conversation) -> None:
        requery = demos.messages[6]
        assert requery.internal and requery.text.startswith("Your output was not formatted correctly")


class TestFunctionCallingStaysWithItsReader:
    def test_the_function_calling_sample_is_read_as_before(self) -> None:
        conversation = load_conversation(TRANSCRIPTS / "swe-agent-function-calling.traj")
        assert conversation.source_format == "swe-agent" and len(conversation.messages) == 27


@pytest.mark.parametrize(
    ("content", "action", "expected"),
    [
        ("List them.\n```\nls -F\n```", "ls -F\n", "List them."),
        ("List them.\n\n```bash\nls -F\n```\n", "ls -F", "List them."),
        ("Create it.\n<command>\ncreate a.py\n</command>", "create a.py", "Create it."),
        ("We can use `ls -F` here.", "ls -F\n", None),
        ("no command at all", "submit", None),
    ],
)
def test_without_command(content: str, action: str, expected: str | None) -> None:
    assert without_command(content, action) == expected


@pytest.mark.parametrize(("flag", "demo"), [(True, True), ("True", True), ("false", False), (None, False)])
def test_is_demo(flag: Any, demo: bool) -> None:
    assert is_demo({"is_demo": flag}) is demo


class TestBadInput:
    def test_an_action_that_is_not_text_names_the_field(self) -> None:
        trajectory = json.loads(DEMOS.read_text())
        trajectory["history"][8]["action"] = 5
        with pytest.raises(
            ConversationFormatError, match=r"t\.traj: history\[8\]\.action: must be a string, got number"
        ):
            load_conversation(json.dumps(trajectory).encode(), name="t.traj")

    def test_a_history_item_that_is_not_an_object_names_it(self) -> None:
        trajectory = json.loads(DEMOS.read_text())
        trajectory["history"][7] = "observation"
        with pytest.raises(ConversationFormatError, match=r"history\[7\]: expected a history item"):
            load_conversation(json.dumps(trajectory).encode(), name="t.traj")

    def test_a_truncated_file_is_one_line(self) -> None:
        text = DEMOS.read_text()
        with pytest.raises(ConversationFormatError, match=r"^t\.traj: not valid JSON"):
            load_conversation(text[:-200].encode(), name="t.traj")
