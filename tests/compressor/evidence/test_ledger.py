"""The artifact ledger: a hand-written span gives exactly its known ledger; each source rule of the table in
``ledger.py`` (what is read from where, and what is not) has its own case."""

from __future__ import annotations

import json

from compressor.evidence.ledger import command_of, failed, open_todos
from compressor.messages import Message, ToolCall
from compressor.prompt import memory_message
from compressor.quality import build_ledger
from tests.compressor.quality.handmade import LEDGER, SPAN, call


def keys(messages: list[Message], category: str, **options: object) -> list[str]:
    return [item.key for item in build_ledger(messages, **options).of(category)]  # type: ignore[arg-type]


class TestTheHandWrittenSpan:
    def test_every_artifact_with_its_messages(self) -> None:
        ledger = build_ledger(SPAN)
        assert [(a.category, a.key, a.index, a.last_index, a.mentions) for a in ledger.items] == LEDGER

    def test_the_offset_numbers_the_messages(self) -> None:
        ledger = build_ledger(SPAN, offset=100)
        assert (ledger.start, ledger.end) == (100, 110)
        assert [a.index - 100 for a in ledger.items] == [row[2] for row in LEDGER]

    def test_tools_count_calls_and_failed_calls(self) -> None:
        tools = {a.key: (a.mentions, a.failures) for a in build_ledger(SPAN).of("tools")}
        assert tools == {"read": (1, 0), "bash": (2, 1), "edit": (1, 0), "todowrite": (1, 0)}

    def test_same_messages_same_ledger(self) -> None:
        assert build_ledger(SPAN) == build_ledger(list(SPAN))


class TestSources:
    def test_file_contents_in_arguments_are_not_read(self) -> None:
        assert "docs/retry.md" not in keys(SPAN, "paths")  # it is inside Edit's new_string

    def test_tool_output_is_read_for_errors_and_final_figures_only(self) -> None:
        messages = [
            Message(role="assistant", content="", tool_calls=[call("c", "Bash", command="ls")]),
            Message(
                role="tool",
                tool_call_id="c",
                content="src/listed.py\nhttps://example.org/x\n"
                + "x\n" * 10
                + "done in 12.5 ms\nerror: disk full",
            ),
        ]
        ledger = build_ledger(messages)
        assert ledger.of("paths") == () and ledger.of("identifiers") == ()
        assert [a.key for a in ledger.of("numbers")] == ["12.5 ms"]
        assert [a.key for a in ledger.of("errors")] == ["error: disk full"]

    def test_figures_of_a_read_file_are_not_measurements(self) -> None:
        messages = [
            Message(role="assistant", content="", tool_calls=[call("c", "Read", file_path="a.py")]),
            Message(role="tool", tool_call_id="c", content="WAIT = 30s\nSIZE = 16 GB"),
        ]
        assert keys(messages, "numbers") == []

    def test_progress_bars_give_no_figures(self) -> None:
        messages = [
            Message(role="assistant", content="", tool_calls=[call("c", "Bash", command="train")]),
            Message(
                role="tool", tool_call_id="c", content="40%|████      | 4/10 [00:02<00:03, 1.9it/s]\nloss 0.5"
            ),
        ]
        assert keys(messages, "numbers") == []

    def test_a_shell_wrapper_is_unwrapped(self) -> None:
        wrapped = ToolCall(
            id="c", name="shell", arguments=json.dumps({"command": ["bash", "-lc", "git status"]})
        )
        listed = ToolCall(id="d", name="exec", arguments=json.dumps({"cmd": ["ls", "-la"]}))
        assert (command_of(wrapped), command_of(listed)) == ("git status", "ls -la")

    def test_internal_turns_are_skipped_but_summaries_are_read(self) -> None:
        reminder = Message(role="user", content="<system-reminder>edit src/secret_plan.py</system-reminder>")
        block = memory_message("Edited src/kept.py; ran `uv run pytest -q`.")
        agent = Message(role="user", internal=True, content="Summary: edited src/agent.py")
        messages = [reminder, block, agent]
        assert keys(messages, "paths") == ["src/kept.py"]
        assert keys(messages, "paths", carriers={2}) == ["src/kept.py", "src/agent.py"]
        assert keys(messages, "commands") == ["uv run pytest -q"]

    def test_constraints_come_from_real_users_only(self) -> None:
        messages = [
            Message(role="user", content="Never use tabs."),
            Message(role="assistant", content="We must not break it."),
        ]
        assert keys(messages, "constraints") == ["never use tabs"]

    def test_a_later_todo_list_replaces_the_earlier_one(self) -> None:
        first = call("t1", "TodoWrite", todos=[{"content": "Write docs", "status": "pending"}])
        second = call(
            "t2",
            "TodoWrite",
            todos=[
                {"content": "Write docs", "status": "completed"},
                {"content": "Ship it", "status": "in_progress"},
            ],
        )
        messages = [
            Message(role="assistant", content="", tool_calls=[first]),
            Message(role="assistant", content="", tool_calls=[second]),
        ]
        assert keys(messages, "todos") == ["ship it"]
        assert open_todos(call("p", "update_plan", plan=[{"step": "A", "status": "pending"}])) == ["A"]
        assert open_todos(call("x", "Bash", command="ls")) is None


class TestPaths:
    def test_a_tail_of_one_longer_path_is_that_file(self) -> None:
        messages = [
            Message(role="assistant", content="open /r/src/a.py and src/a.py and a.py"),
        ]
        ledger = build_ledger(messages)
        assert [(a.key, a.mentions) for a in ledger.of("paths")] == [("/r/src/a.py", 1)]

    def test_a_bare_name_shared_by_two_files_names_neither(self) -> None:
        messages = [Message(role="assistant", content="src/x/base.py and src/y/base.py; base.py")]
        assert keys(messages, "paths") == ["src/x/base.py", "src/y/base.py"]


class TestFailures:
    def test_flags_and_shapes_of_a_failed_result(self) -> None:
        assert failed(
            Message.model_validate({"role": "tool", "tool_call_id": "c", "content": "x", "is_error": True})
        )
        assert failed(Message(role="tool", tool_call_id="c", content="Exit code 2\nboom"))
        assert failed(Message(role="tool", tool_call_id="c", content="<tool_use_error>no</tool_use_error>"))
        assert not failed(Message(role="tool", tool_call_id="c", content="Exit code 0"))
        assert not failed(Message(role="tool", tool_call_id="c", content="all good"))
