"""Continue sessions read as Continue sends them: context items in front of the typed words, every tool call
answered once from its state, thinking with the next reply, each conversation summary one recorded compaction.

Fixtures (built here, own content) follow continuedev/continue at d0a3c0b626b5bebc3bef4742eec05a0242be0bab:
``core/index.d.ts`` (Session, ChatHistoryItem, ChatMessage, ToolCallState, Usage), ``core/util/history.ts`` and
``paths.ts`` (``<sessionId>.json`` and the ``sessions.json`` index under ``~/.continue/sessions``), the IDE's
``gui/src/redux/util/constructMessages.ts`` and ``slices/sessionSlice.ts`` (what a request holds; the tool items
the GUI keeps beside the states), ``core/tools/constants.ts``, ``core/util/messageContent.ts``,
``core/util/conversationCompaction.ts``; the CLI's ``extensions/cli/src/session.ts`` (editorState as a string),
``services/ChatHistoryService.ts`` (outputs named "Tool Result"), ``compaction.ts`` and
``core/util/messageConversion.ts`` (``convertFromUnifiedHistory``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.continue_dev import (
    CANCELLED,
    CLI_NO_OUTPUT,
    NO_OUTPUT,
    NO_RESULT,
    READER,
    SUMMARY_LEAD,
)
from compressor.formats.places import find_sessions
from compressor.formats.registry import READERS
from compressor.formats.swe_agent import READER as SWE_AGENT_READER
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

FOLDER = FIXTURES / "formats" / "continue"
IDE = FOLDER / "8d3c5a7e-2b41-4f0e-9c6d-1a2b3c4d5e6f.json"
CLI = FOLDER / "2f9b1c44-5e6a-4d7b-8c9d-0e1f2a3b4c5d.json"


def index(*paths: Path) -> str:
    """``sessions.json`` as ``HistoryManager.save`` writes it beside the sessions: one entry per session."""
    entries = [
        {
            "sessionId": raw(path)["sessionId"],
            "title": raw(path)["title"],
            "dateCreated": str(1_764_580_000_000 + n),
            "workspaceDirectory": raw(path)["workspaceDirectory"],
            "messageCount": sum(1 for item in raw(path)["history"] if item["message"]["role"] == "assistant"),
        }
        for n, path in enumerate(paths)
    ]
    return json.dumps(entries, indent=2)


@pytest.fixture(scope="module")
def ide() -> Conversation:
    return load_conversation(fixture(IDE))


@pytest.fixture(scope="module")
def cli() -> Conversation:
    return load_conversation(fixture(CLI))


def raw(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(fixture(path).read_text(encoding="utf-8"))
    return value


def session(*items: dict[str, Any]) -> bytes:
    return json.dumps(
        {"sessionId": "s-1", "title": "t", "workspaceDirectory": "/w", "history": list(items)}
    ).encode()


def item(role: str, content: Any = "", **fields: Any) -> dict[str, Any]:
    message = {"role": role, "content": content, **fields.pop("message", {})}
    return {"message": message, "contextItems": fields.pop("contextItems", []), **fields}


class TestIdeSession:
    def test_counts(self, ide: Conversation) -> None:
        assert ide.source_format == "continue"
        assert count_messages(ide).to_dict() == {
            "real_user": 3,
            "internal_user": 1,
            "assistant": 5,
            "tool": 4,
            "tool_calls": 4,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_the_session_says_title_workspace_model_and_mode(self, ide: Conversation) -> None:
        assert ide.metadata == {
            "agent": "continue",
            "session_id": "8d3c5a7e-2b41-4f0e-9c6d-1a2b3c4d5e6f",
            "title": "SUMMER discount code",
            "workspace_directory": "file:///home/dev/shop",
            "mode": "agent",
            "model": "Claude Sonnet 4",
            "writer": "ide",
        }

    def test_context_items_come_before_the_typed_words_as_sent(self, ide: Conversation) -> None:
        first = ide.messages[0]
        context = raw(IDE)["history"][0]["contextItems"][0]["content"]
        assert first.text == context + "\n" + "\n" + "Add a SUMMER code worth 15% off, with a test."
        assert first.is_real_user and first.metadata == {"context_items": ["discount.py"]}
        reading = next(r for r in ide.readings if r.code == "context_items_included")
        assert reading.count == 1 and describe_reading(reading).startswith(
            "1 context item the person attached (a file, a selection, search results) is kept in their turn"
        )

    def test_thinking_goes_with_the_next_reply(self, ide: Conversation) -> None:
        reply = ide.messages[1]
        assert reply.role == "assistant" and reply.text == "Let me look at the existing tests."
        assert (reply.model_extra or {})["reasoning_content"] == "I should look at the existing tests first."

    def test_each_call_is_answered_once_from_its_state(self, ide: Conversation) -> None:
        results = {m.tool_call_id: m for m in ide.messages if m.role == "tool"}
        history = raw(IDE)["history"]
        assert (
            results["toolu_01ReadDiscountTests"].text
            == history[2]["toolCallStates"][0]["output"][0]["content"]
        )
        assert results["toolu_01ReadDiscountTests"].name == "read_file"
        assert (
            len([m for m in ide.messages if m.role == "tool"]) == 4
        )  # the GUI's two tool items are not doubled
        skipped = next(r for r in ide.readings if r.code == "lines_skipped")
        assert "tool items its call's state already answers ×2" in skipped.detail

    def test_terminal_output_carries_its_status(self, ide: Conversation) -> None:
        result = next(m for m in ide.messages if m.tool_call_id == "toolu_01RunPytest")
        assert result.text.endswith("1 failed, 2 passed in 0.04s\n[Status: Command failed with exit code 1]")

    def test_a_cancelled_call_and_one_never_run_get_continues_words(self, ide: Conversation) -> None:
        results = {m.tool_call_id: m for m in ide.messages if m.role == "tool"}
        assert results["toolu_01EditDiscount"].text == CANCELLED
        assert results["toolu_01EditDiscount"].metadata == {"status": "canceled"}
        assert results["toolu_01ListPricing"].text == NO_OUTPUT

    def test_an_image_part_is_an_image(self, ide: Conversation) -> None:
        request = ide.messages[7]
        assert isinstance(request.content, list)
        assert [part["type"] for part in request.content if isinstance(part, dict)] == ["text", "image_url"]

    def test_the_summary_follows_the_item_it_replaces(self, ide: Conversation) -> None:
        (compaction,) = ide.recorded_compactions
        carrier = ide.messages[compaction.index]
        assert ide.messages[compaction.index - 1].text == "Understood: a RATES table keyed by code."
        assert carrier.role == "user" and carrier.internal
        assert compaction.summary == raw(IDE)["history"][8]["conversationSummary"]
        assert carrier.text == SUMMARY_LEAD + compaction.summary
        assert ide.messages[compaction.index + 1].text == "Go ahead, and list the package first."

    def test_usage_after_a_summary_is_stale_as_the_file_keeps_the_items_it_replaced(self) -> None:
        # The IDE sends the summary (in the system message) and the items after it, but the file keeps all.
        data = raw(IDE)
        data["history"][9]["message"]["usage"] = {"promptTokens": 900, "completionTokens": 30}
        data["history"][10]["message"]["content"] = "Listing the package."
        data["history"][10]["message"]["usage"] = {"promptTokens": 950, "completionTokens": 20}
        run = load_conversation(json.dumps(data), name="ide.json")
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"][-2:] == [None, None]
        assert ("usage_after_compaction_stale", 1) in [(r.code, r.count) for r in run.readings]

    def test_the_empty_reply_a_failed_stream_left_is_not_a_message(self, ide: Conversation) -> None:
        assert ide.messages[-1].role == "tool" and ide.messages[-2].tool_calls


class TestCliSession:
    def test_counts_and_writer(self, cli: Conversation) -> None:
        assert cli.metadata["writer"] == "cli" and "model" not in cli.metadata
        assert count_messages(cli).to_dict()["tool"] == 3
        assert cli.metadata["session_usage"] == {
            "input_tokens": 10612,
            "output_tokens": 143,
            "total_tokens": 10755,
            "cached_tokens": 4800,
            "total_cost": 0.0231,
        }

    def test_the_compacted_history_opens_with_the_summary_it_carries(self, cli: Conversation) -> None:
        (compaction,) = cli.recorded_compactions
        assert compaction.index == 0 and cli.messages[0].role == "assistant"
        assert cli.messages[0].text == compaction.summary

    def test_usage_after_the_summary_was_measured_on_the_history_shown(self, cli: Conversation) -> None:
        # The CLI saves the compacted history (ChatHistoryService.compact): the file holds no item the summary
        # replaced, so each later usage measured the window this run shows, and is not stale.
        assert [m.reported_total_tokens for m in cli.messages if m.role == "assistant"] == [
            None,  # the summary
            5258,
            5497,
            5651,
        ]
        assert not any(r.code == "usage_after_compaction_stale" for r in cli.readings)

    def test_a_system_item_before_the_summary_changes_nothing(self) -> None:
        data = raw(CLI)
        system = {"message": {"role": "system", "content": "You are cn."}, "contextItems": []}
        data["history"].insert(0, system)
        run = load_conversation(json.dumps(data), name="cli.json")
        assert run.recorded_compactions[0].index == 0
        assert not any(r.code == "usage_after_compaction_stale" for r in run.readings)

    def test_context_items_are_wrapped_as_the_cli_sends_them(self, cli: Conversation) -> None:
        request = cli.messages[1]
        assert request.text == (
            '<context name="client.py">\ndef backoff(attempt):\n    return min(2 ** attempt, 30)\n</context>\n\n'
            "Now add jitter."
        )

    def test_usage_counts_the_cached_prompt_in_the_window(self, cli: Conversation) -> None:
        assert cli.messages[2].usage_metadata == {
            "input_tokens": 5210,
            "output_tokens": 48,
            "total_tokens": 5258,
            "cached_tokens": 4800,
        }

    def test_results_are_the_outputs_or_the_cli_words_for_none(self, cli: Conversation) -> None:
        results = [m.text for m in cli.messages if m.role == "tool"]
        assert results == [
            "http/client.py:12: # TODO jitter\nREADME.md:40: Retries use jitter.",
            "Permission denied by user",
            CLI_NO_OUTPUT,
        ]


class TestOlderAndBrokenFiles:
    def test_a_single_tool_call_state_of_older_files_answers_its_call(self) -> None:
        call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        state = {"toolCallId": "c1", "toolCall": call, "status": "done", "output": [{"content": "a.py"}]}
        text = session(
            item("user", "list"), item("assistant", "", message={"toolCalls": [call]}, toolCallState=state)
        )
        conversation = load_conversation(text, name="s.json")
        assert [m.text for m in conversation.messages] == ["list", "", "a.py"]

    def test_a_tool_item_answers_a_call_that_has_no_state(self) -> None:
        call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        text = session(
            item("user", "list"),
            item("assistant", "", message={"toolCalls": [call]}),
            item("tool", "a.py", message={"toolCallId": "c1"}),
            item("assistant", "One file."),
        )
        messages = load_conversation(text, name="s.json").messages
        assert [(m.role, m.text) for m in messages][2:] == [("tool", "a.py"), ("assistant", "One file.")]

    def test_a_call_nothing_answers_gets_the_stand_in(self) -> None:
        call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        text = session(item("user", "list"), item("assistant", "", message={"toolCalls": [call]}))
        conversation = load_conversation(text, name="s.json")
        assert conversation.messages[-1].text == NO_RESULT

    def test_thinking_before_a_new_request_goes_with_no_later_reply(self) -> None:
        text = session(item("user", "a"), item("thinking", "hmm"), item("user", "b"), item("assistant", "ok"))
        conversation = load_conversation(text, name="s.json")
        assert "reasoning_content" not in (conversation.messages[-1].model_extra or {})
        skipped = next(r for r in conversation.readings if r.code == "lines_skipped")
        assert skipped.detail == "thinking with no reply after it ×1"

    def test_system_items_are_left_out_as_continue_builds_the_system_message_itself(self) -> None:
        text = session(item("system", "You are helpful."), item("user", "hi"), item("assistant", "hello"))
        conversation = load_conversation(text, name="s.json")
        assert [m.role for m in conversation.messages] == ["user", "assistant"] and not conversation.system

    def test_an_unknown_role_is_one_line_naming_the_item(self) -> None:
        text = session(
            item("user", "hi"), {"message": {"role": "narrator", "content": "x"}, "contextItems": []}
        )
        with pytest.raises(ConversationFormatError) as error:
            load_conversation(text, name="s.json")
        assert len(str(error.value).splitlines()) == 1

    def test_a_state_without_an_id_names_where_it_is(self) -> None:
        text = session(item("user", "hi"), item("assistant", "x", toolCallStates=[{"status": "done"}]))
        with pytest.raises(ConversationFormatError, match=r"history\[1\]\.toolCallStates\[0\]"):
            load_conversation(text, name="s.json")

    def test_usage_that_is_no_number_names_the_field(self) -> None:
        usage = {"promptTokens": "many", "completionTokens": 3}
        text = session(item("user", "hi"), item("assistant", "x", message={"usage": usage}))
        with pytest.raises(ConversationFormatError, match=r"history\[1\]\.message\.usage\.promptTokens"):
            load_conversation(text, name="s.json")


class TestDetection:
    def test_the_index_is_refused_in_one_line_that_says_what_it_is(self, tmp_path: Path) -> None:
        path = tmp_path / "sessions.json"
        path.write_text(index(IDE, CLI), encoding="utf-8")
        with pytest.raises(
            ConversationFormatError, match=r"sessions\.json: is Continue's sessions index"
        ) as error:
            load_conversation(path)
        assert len(str(error.value).splitlines()) == 1

    def test_it_is_read_before_the_general_history_shape_that_would_take_it(self) -> None:
        assert READERS.index(READER) < READERS.index(SWE_AGENT_READER)


class TestPlace:
    def test_sessions_are_found_and_the_index_is_not(self, tmp_path: Path) -> None:
        folder = tmp_path / ".continue" / "sessions"
        folder.mkdir(parents=True)
        for path in (IDE, CLI):
            shutil.copyfile(fixture(path), folder / path.name)
        (folder / "sessions.json").write_text(index(IDE, CLI), encoding="utf-8")
        found = find_sessions(tmp_path, environ={})
        assert sorted(s.path.name for s in found) == sorted([IDE.name, CLI.name])
        assert {s.agent for s in found} == {"continue"}

    def test_continues_variable_moves_the_folder(self, tmp_path: Path) -> None:
        folder = tmp_path / "elsewhere" / "sessions"
        folder.mkdir(parents=True)
        shutil.copyfile(fixture(IDE), folder / IDE.name)
        found = find_sessions(tmp_path / "home", environ={"CONTINUE_GLOBAL_DIR": str(tmp_path / "elsewhere")})
        assert [(s.agent, s.path) for s in found] == [("continue", folder / IDE.name)]


CLI_WRITTEN = FOLDER / "c4768c3c-f350-44fa-beb6-e90d041e765d.json"


def cli_user(text: str) -> dict[str, Any]:
    """A user item as the CLI saves one: the typed text is also its editorState."""
    return {"message": {"role": "user", "content": text}, "contextItems": [], "editorState": text}


class TestWrittenByTheCli:
    """A session the cn CLI 1.5.47 wrote itself around an auto-compaction. Before, its replies' usage (the stream's
    snake_case OpenAI usage) was not read, so windows were counted, and the CLI's own ``continue`` was read as the
    person's request."""

    def test_each_replys_usage_is_read(self) -> None:
        run = load_conversation(fixture(CLI_WRITTEN))
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"] == [None, 381, 412]
        assert (run.messages[1].usage_metadata or {})["input_tokens"] == 364

    def test_the_clis_continue_after_compaction_is_internal(self) -> None:
        run = load_conversation(fixture(CLI_WRITTEN))
        assert [(m.role, m.internal) for m in run.messages] == [
            ("assistant", False),
            ("assistant", False),
            ("user", True),
            ("assistant", False),
        ]
        (compaction,) = run.recorded_compactions
        assert compaction.index == 0 and compaction.summary.startswith("Summary: the user asked")
        assert "usage_after_compaction_stale" not in {r.code for r in run.readings}

    def test_a_continue_the_person_typed_stays_a_request(self) -> None:
        data = json.loads(fixture(CLI_WRITTEN).read_text())
        data["history"].insert(1, cli_user("Thanks."))
        data["history"].append(cli_user("continue"))
        run = load_conversation(json.dumps(data), name="s.json")
        assert [m.internal for m in run.messages if m.role == "user"] == [False, False, False]


class TestMutatedShapes:
    """Found by mutating the fixtures: a list as a tool call's or a tool item's id, or a number as a message's
    content, was a TypeError out of the reader."""

    def test_a_call_id_that_is_not_a_string_is_one_line(self) -> None:
        data = json.loads(fixture(FOLDER / "2f9b1c44-5e6a-4d7b-8c9d-0e1f2a3b4c5d.json").read_text())
        item = next(i for i in data["history"] if i["message"].get("toolCalls"))
        item["message"]["toolCalls"][0]["id"] = []
        with pytest.raises(ConversationFormatError, match=r"toolCalls\[0\]\.id: must be a string, got list"):
            load_conversation(json.dumps(data), name="s.json")

    def test_a_tool_item_id_that_is_not_a_string_is_one_line(self) -> None:
        data = json.loads(fixture(FOLDER / "8d3c5a7e-2b41-4f0e-9c6d-1a2b3c4d5e6f.json").read_text())
        item = next(i for i in data["history"] if i["message"]["role"] == "tool")
        item["message"]["toolCallId"] = []
        with pytest.raises(ConversationFormatError, match=r"a tool message without toolCallId"):
            load_conversation(json.dumps(data), name="s.json")
