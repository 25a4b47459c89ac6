"""GitHub Copilot Chat sessions read as Copilot sends them to the model: the frozen user message, one assistant
message per tool-call round with its calls, each result right after its round, the summary as a recorded compaction.

Fixtures (built here, own content) follow the files named in tests/fixtures/formats/copilot_chat/README.md.
"""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from compressor.census import count_messages
from compressor.cli import EXIT_BAD_INPUT, EXIT_OK, main
from compressor.errors import ConversationFormatError
from compressor.formats import chat, load_conversation
from compressor.formats.copilot_chat import READER, SUMMARY_TAG
from compressor.formats.copilot_log import replay
from compressor.formats.copilot_parts import EMPTY_RESULT
from compressor.formats.places import find_sessions
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.registry import READERS
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

FOLDER = FIXTURES / "formats" / "copilot_chat"
FLAT = FOLDER / "2d8e4f6a-0b1c-4d3e-9f5a-7b6c8d0e1f23.json"
LOG = FOLDER / "5b7d9f1b-3d5f-4b7d-9f1b-3d5f7b9d1f62.jsonl"


def raw(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(fixture(path).read_text())
    return value


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in fixture(path).read_text().splitlines() if line.strip()]


def lines(values: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(value) + "\n" for value in values)


@pytest.fixture(scope="module")
def flat() -> Conversation:
    return load_conversation(fixture(FLAT))


@pytest.fixture(scope="module")
def log() -> Conversation:
    return load_conversation(fixture(LOG))


class TestMessages:
    def test_roles_in_the_order_copilot_sends_them(self, flat: Conversation) -> None:
        assert flat.source_format == "copilot-chat"
        assert [m.role for m in flat.messages] == [
            "user", "user",                                   # global context, request 0
            "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant",
            "user", "assistant", "tool", "assistant", "tool",  # request 1 up to the summarised round
            "user",                                            # the summary
            "assistant", "tool", "assistant",
            "user", "assistant",                               # Ask mode
            "user",                                            # the failed request
        ]  # fmt: skip

    def test_the_user_message_is_the_one_copilot_rendered(self, flat: Conversation) -> None:
        first = flat.messages[1]
        assert isinstance(first.content, str)
        assert first.content.startswith('<attachments>\n<attachment id="file:parser.py"')
        assert (
            "<userRequest>\nWhy does test_parse_spaces fail? #file:parser.py\n</userRequest>" in first.content
        )
        assert first.metadata is not None and first.metadata["attachments"] == ["file:parser.py"]
        assert first.metadata["request_id"] == "request_5f1c2a9e-7b3d-4e8a-9c21-0d6b4a7e1f30"

    def test_without_a_rendered_message_the_typed_text_is_sent(self, flat: Conversation) -> None:
        assert flat.messages[18].content == "What does str.partition return when the separator is missing?"

    def test_each_call_is_answered_right_after_its_round(self, flat: Conversation) -> None:
        counts = count_messages(flat)
        assert counts.unmatched_tool_calls == 0 and counts.unmatched_tool_results == 0
        for index, message in enumerate(flat.messages):
            for offset, call in enumerate(message.tool_calls or (), start=1):
                assert flat.messages[index + offset].tool_call_id == call.id

    def test_calls_carry_their_arguments_as_json_text(self, flat: Conversation) -> None:
        (call,) = flat.messages[2].tool_calls or ()
        assert call.name == "run_in_terminal"
        assert call.parsed_arguments()["command"] == "pytest -q tests/test_parser.py"

    def test_a_prompt_tsx_result_is_its_text_lines(self, flat: Conversation) -> None:
        text = flat.messages[3].text
        assert text.splitlines()[1].startswith("FAILED tests/test_parser.py::test_parse_spaces")
        assert text.endswith("1 failed, 1 passed in 0.03s")

    def test_a_call_without_a_recorded_result_is_left_out_as_copilot_does(self, flat: Conversation) -> None:
        names = [call.name for m in flat.messages for call in m.tool_calls or ()]
        assert "get_errors" not in names and "insert_edit_into_file" in names
        assert any(
            r.code == "lines_skipped" and "no recorded result" in r.detail and r.count == 1
            for r in flat.readings
        )

    def test_the_final_reply_and_an_ask_reply_are_assistant_text(self, flat: Conversation) -> None:
        assert flat.messages[8].text.startswith("Fixed: `parse` now strips spaces")
        assert not flat.messages[8].tool_calls
        assert flat.messages[19].text == (
            "It returns a 3-tuple of the whole string and two empty strings: `'abc'.partition('=')` is `('abc', '', '')`."
        )

    def test_a_failed_request_keeps_its_words_and_no_reply(self, flat: Conversation) -> None:
        assert flat.messages[-1].content == "Also handle lines that start with '#'."
        assert any(r.code == "api_errors_left_out" for r in flat.readings)

    def test_an_empty_result_is_sent_as_copilot_writes_it(self) -> None:
        session = raw(FLAT)
        results = session["requests"][0]["result"]["metadata"]["toolCallResults"]
        first = next(iter(results))
        results[first] = {"$mid": 20, "content": []}
        conversation = load_conversation(json.dumps(session), name="s.json")
        assert conversation.messages[3].content == EMPTY_RESULT

    def test_an_exported_session_reads_the_same(self, flat: Conversation) -> None:
        session = raw(FLAT)
        exported = {key: session[key] for key in ("initialLocation", "requests", "responderUsername")}
        again = load_conversation(
            json.dumps(exported), name="chat.json"
        )  # Chat: Export Chat… (IExportableChatData)
        assert again.messages == flat.messages and "session_id" not in again.metadata


class TestRealUserTurns:
    def test_the_global_context_and_the_summary_are_internal(self, flat: Conversation) -> None:
        internal = [i for i, m in enumerate(flat.messages) if m.is_internal]
        assert internal == [0, 14]
        assert flat.messages[0].text.startswith("<environment_info>")

    def test_every_typed_request_is_a_real_user_turn(self, flat: Conversation) -> None:
        assert [i for i, m in enumerate(flat.messages) if m.is_real_user] == [1, 9, 18, 20]

    def test_a_continue_button_sends_no_user_message(self) -> None:
        session = raw(FLAT)
        session["requests"][2]["confirmation"] = "Continue"
        conversation = load_conversation(json.dumps(session), name="s.json")
        assert conversation.messages[18].role == "assistant"
        assert any("button presses" in r.detail for r in conversation.readings)


class TestCompaction:
    def test_the_summary_takes_over_after_its_round(self, flat: Conversation) -> None:
        (compaction,) = flat.recorded_compactions
        carrier = flat.messages[compaction.index]
        assert compaction.index == 14 and compaction.source == "copilot-chat"
        assert isinstance(carrier.content, str)
        assert carrier.content.startswith(f"<{SUMMARY_TAG}>\n<analysis>")
        assert carrier.content.endswith(f"</summary>\n</{SUMMARY_TAG}>")
        assert compaction.summary in carrier.content
        # the summarised round is the one before it; the round that went over the budget stays after it
        assert flat.messages[12].metadata == {"round_id": "b3c5d7e9-f1a2-4b4c-9d6e-8f0a2b4c6d85"}
        assert flat.messages[15].metadata == {"round_id": "c4d6e8f0-a2b3-4c5d-8e7f-9a1b3c5d7e96"}

    def test_tokens_before_are_the_last_usage_reported_before_it(self, flat: Conversation) -> None:
        (compaction,) = flat.recorded_compactions
        assert compaction.tokens_before == 10_087 and compaction.tokens_after is None

    def test_a_summary_kept_on_the_round_itself_is_read_too(self) -> None:
        session = raw(FLAT)
        metadata = session["requests"][1]["result"]["metadata"]
        summary = metadata.pop("summary")
        metadata["toolCallRounds"][1]["summary"] = summary["text"]
        conversation = load_conversation(json.dumps(session), name="s.json")
        assert [c.index for c in conversation.recorded_compactions] == [14]

    def test_usage_after_the_summary_is_stale(self, flat: Conversation) -> None:
        assert flat.messages[17].usage_metadata == {
            "input_tokens": 11840,
            "output_tokens": 52,
            "total_tokens": 11892,
        }
        assert flat.messages[17].reported_total_tokens is None
        assert any(r.code == "usage_after_compaction_stale" for r in flat.readings)


class TestServerCompaction:
    """A compaction the Responses API made (``context_management``) is kept on the round it first goes out with:
    microsoft/vscode-copilot-chat ``src/extension/prompt/common/toolCallRound.ts`` at
    e6071080e75bfb140d06223d43b255416d88d8be (``compaction?: OpenAIContextManagementResponse``, ``{encrypted_content,
    type: 'compaction', id}``), and ``src/platform/endpoint/node/responsesApi.ts`` at
    51c15db45199f0b956bd34512a2cd03414f07b47 (``rawMessagesToResponseAPI`` sends the messages from the one holding the
    latest compaction on, the compaction first in it). The flat fixture with its summary replaced by such a
    compaction on the round after the summarised one."""

    def compacted(self) -> Conversation:
        session = raw(FLAT)
        metadata = session["requests"][1]["result"]["metadata"]
        metadata.pop("summary")
        metadata["toolCallRounds"][2]["compaction"] = {
            "type": "compaction",
            "id": "cmp_1",
            "encrypted_content": "gAAAAB-opaque",
        }
        return load_conversation(json.dumps(session), name="s.json")

    def test_it_is_a_recorded_compaction_right_before_its_round(self) -> None:
        run = self.compacted()
        (compaction,) = run.recorded_compactions
        carrier = run.messages[compaction.index]
        assert compaction.index == 14 and compaction.summary == ""
        assert carrier.role == "user" and carrier.internal and "encrypted" in carrier.text
        assert run.messages[15].metadata == {"round_id": "c4d6e8f0-a2b3-4c5d-8e7f-9a1b3c5d7e96"}
        assert compaction.tokens_before == 10_087

    def test_the_summary_is_said_to_be_encrypted(self) -> None:
        assert any(r.code == "summaries_encrypted" and r.count == 1 for r in self.compacted().readings)

    def test_another_kind_of_context_management_is_not_a_compaction(self) -> None:
        session = raw(FLAT)
        metadata = session["requests"][1]["result"]["metadata"]
        metadata.pop("summary")
        metadata["toolCallRounds"][2]["compaction"] = {"type": "something_else"}
        assert load_conversation(json.dumps(session), name="s.json").recorded_compactions == []


class TestMetadata:
    def test_session_and_model(self, flat: Conversation) -> None:
        assert flat.metadata["session_id"] == "2d8e4f6a-0b1c-4d3e-9f5a-7b6c8d0e1f23"
        assert flat.metadata["title"] == "Fixing tinyparse parse spaces"
        assert flat.metadata["model"] == "claude-sonnet-4"  # the last request's, without the vendor
        assert flat.metadata["models"] == ["claude-sonnet-4", "gpt-4.1"]
        assert flat.metadata["writer"] == "json"
        assert flat.metadata["context_window"] == 127_805  # the picker's model is the last request's

    def test_no_prompt_budget_when_the_picker_holds_another_model(self) -> None:
        session = raw(FLAT)
        session["inputState"]["selectedModel"]["identifier"] = "copilot/gpt-4.1"
        assert "context_window" not in load_conversation(json.dumps(session), name="s.json").metadata

    def test_round_usage_and_timing(self, flat: Conversation) -> None:
        assert flat.messages[2].usage_metadata == {
            "input_tokens": 9412, "output_tokens": 96, "total_tokens": 9508, "cached_tokens": 0,
        }  # fmt: skip
        assert flat.messages[2].reported_total_tokens == 9508
        assert flat.messages[4].reasoning_content.startswith("The assertion shows")  # type: ignore[attr-defined]
        assert flat.messages[8].metadata is not None
        assert flat.messages[8].metadata["completed_at"] == 1764590022530
        assert flat.messages[8].metadata["elapsed_ms"] == 21530

    def test_a_session_without_counts_is_counted(self, log: Conversation) -> None:
        assert all(m.usage_metadata is None for m in log.messages)


class TestTheLog:
    def test_the_log_is_replayed_into_its_session(self, log: Conversation) -> None:
        assert log.metadata["writer"] == "log"
        assert log.metadata["title"] == "Rename parse to parse_line"  # set by a later entry
        assert [m.role for m in log.messages] == [
            "user",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        assert log.messages[-1].text.startswith("Renamed `parse` to `parse_line`")

    def test_a_request_undone_by_a_checkpoint_is_left_out(self, log: Conversation) -> None:
        assert not any("Undo that" in m.text for m in log.messages)
        assert any(r.detail.startswith("requests undone") for r in log.readings)

    def test_the_log_and_the_flat_file_read_alike(self, log: Conversation, tmp_path: Path) -> None:
        *_, state = replayed(entries(LOG))
        flat_copy = tmp_path / "same.json"
        flat_copy.write_text(json.dumps(state))
        again = load_conversation(flat_copy)
        assert again.messages == log.messages and again.metadata["writer"] == "json"

    def test_a_push_with_an_index_cuts_the_list_first(self, tmp_path: Path) -> None:
        values = [*entries(LOG), {"kind": 2, "k": ["requests"], "i": 1}]
        path = tmp_path / "cut.jsonl"
        path.write_text(lines(values))
        conversation = load_conversation(path)
        assert not any(r.detail.startswith("requests undone") for r in conversation.readings)

    def test_a_torn_last_line_is_read_up_to_the_last_whole_entry(
        self, log: Conversation, tmp_path: Path
    ) -> None:
        path = tmp_path / "torn.jsonl"
        path.write_text(fixture(LOG).read_text() + '{"kind": 1, "k": ["customTitle"], "v": "half')
        assert load_conversation(path).messages == log.messages


def replayed(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The states after each entry, by the same rules as VS Code (a small reference for one test)."""
    state: Any = None
    out = []
    for entry in values:
        if entry["kind"] == 0:
            state = copy.deepcopy(entry["v"])
        else:
            *parents, last = entry["k"]
            holder = state
            for step in parents:
                holder = holder[step]
            if entry["kind"] == 1:
                holder[last] = entry["v"]
            elif entry["kind"] == 3:
                holder.pop(last, None)
            else:
                items = holder.setdefault(last, [])
                if "i" in entry:
                    del items[entry["i"] :]
                items.extend(entry.get("v") or [])
        out.append(copy.deepcopy(state))
    return out


class TestWrongShapes:
    @pytest.mark.parametrize(
        ("change", "words"),
        [
            (
                lambda s: s["requests"].__setitem__(0, 7),
                "requests[0]: expected a request (a JSON object), got number",
            ),
            (
                lambda s: s["requests"][0]["result"]["metadata"]["toolCallRounds"][0]["toolCalls"][0].pop(
                    "id"
                ),
                "toolCallRounds[0].toolCalls[0]: a tool call without id",
            ),
            (
                lambda s: s["requests"][0]["result"]["metadata"]["toolCallRounds"][0].__setitem__(
                    "usage", {"prompt_tokens": "many", "completion_tokens": 1}
                ),
                "usage.prompt_tokens: must be a number",
            ),
            (
                lambda s: s["requests"][0].__setitem__("message", 5),
                "requests[0].message: must hold the request's text",
            ),
            (lambda s: s.__setitem__("requests", []), "holds no requests"),
        ],
    )
    def test_one_line_naming_the_file_and_field(self, change: Any, words: str, tmp_path: Path) -> None:
        session = raw(FLAT)
        change(session)
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(session))
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation(path)
        message = str(caught.value)
        assert "\n" not in message and str(path) in message and words in message

    @pytest.mark.parametrize(
        ("entry", "words"),
        [
            (
                {"kind": 1, "k": ["requests", 9, "result"], "v": {}},
                "changes .requests[9].result, but .requests[9] is absent",
            ),
            ({"kind": 2, "k": ["customTitle"], "v": ["x"]}, "appends to .customTitle, which is a string"),
            ({"kind": 2, "k": ["requests"], "v": "x"}, "must be a list of items to append"),
            ({"kind": 1, "k": ["requests", True], "v": 1}, "a path step must be a key or an index"),
            ({"kind": 7, "k": []}, "is not a chat session log entry"),
        ],
    )
    def test_a_log_entry_that_does_not_fit_names_its_line(
        self, entry: dict[str, Any], words: str, tmp_path: Path
    ) -> None:
        values = entries(LOG)
        path = tmp_path / "broken.jsonl"
        path.write_text(lines([*values, entry]))
        with pytest.raises(ConversationFormatError) as caught:
            load_conversation(path)
        message = str(caught.value)
        assert "\n" not in message and f"line {len(values) + 1}" in message and words in message

    def test_a_change_before_the_first_state_is_refused(self) -> None:
        with pytest.raises(FormatProblem, match="before the log's first entry"):
            replay([(Loc(line=1), {"kind": 1, "k": ["customTitle"], "v": "x"})])

    def test_an_empty_session_is_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "empty.jsonl"
        path.write_text(lines([{"kind": 0, "v": {"version": 3, "sessionId": "s", "requests": []}}]))
        with pytest.raises(ConversationFormatError, match="holds no requests"):
            load_conversation(path)

    def test_the_callers_entries_are_left_as_they_were(self) -> None:
        values = entries(LOG)
        before = json.dumps(values)
        replay([(Loc(line=n), v) for n, v in enumerate(values, start=1)])
        assert json.dumps(values) == before


class TestRegistry:
    def test_registered_before_the_general_shapes(self) -> None:
        order = list(READERS)
        for general in (chat.OBJECT_READER, chat.MESSAGES_READER, chat.NUMBERED_READER):
            assert order.index(READER) < order.index(general)

    def test_other_formats_are_not_taken(self) -> None:
        from compressor.formats.shape import Shape

        assert not READER.looks_like(Shape.of_object({"messages": [{"role": "user", "content": "hi"}]}, "x"))
        assert not READER.looks_like(
            Shape.of_object({"requests": [{"message": "hi"}]}, "x")
        )  # nothing marks it


class TestPlaces:
    def test_workspace_and_empty_window_sessions_are_listed_the_log_over_its_older_copy(
        self, tmp_path: Path
    ) -> None:
        workspace = tmp_path / ".config/Code/User/workspaceStorage/0a1b2c/chatSessions"
        empty = (
            tmp_path
            / "Library/Application Support/Code - Insiders/User/globalStorage/emptyWindowChatSessions"
        )
        for folder in (workspace, empty):
            folder.mkdir(parents=True)
        old = workspace / "5b7d9f1b.json"
        newer = workspace / "5b7d9f1b.jsonl"
        alone = workspace / "2d8e4f6a.json"
        window = empty / "9c0d.json"
        for age, path in enumerate((newer, old, alone, window)):
            path.write_text("{}")
            os.utime(path, (1_764_000_000 - age * 60, 1_764_000_000 - age * 60))
        found = [(s.agent, s.path) for s in find_sessions(tmp_path, environ={})]
        assert found == [("copilot-chat", newer), ("copilot-chat", alone), ("copilot-chat", window)]


class TestInspect:
    def test_inspect_prints_a_decision(self) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(fixture(FLAT))], out=out, err=err) == EXIT_OK, err.getvalue()
        printed = out.getvalue()
        assert "copilot-chat" in printed
        assert any(line.strip().startswith("decision") for line in printed.splitlines())

    def test_inspect_of_a_broken_log_is_one_line(self, tmp_path: Path) -> None:
        path = tmp_path / "broken.jsonl"
        path.write_text(lines([*entries(LOG), {"kind": 1, "k": ["requests", 5, "x"], "v": 1}]))
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(path)], out=out, err=err) == EXIT_BAD_INPUT
        assert len(err.getvalue().splitlines()) == 1 and str(path) in err.getvalue()
