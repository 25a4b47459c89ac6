"""Cline / Roo task histories: tool results sent back as user text are tool messages paired with the tool use
they answer, the person's words are the only real requests, and a plain Anthropic file still reads as before."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.cline import CLINE_RULES
from compressor.formats.cline_tools import continuation_summary, find_call, result_tool, split_user_words
from compressor.messages import Conversation
from tests.conftest import FIXTURES

CLASSIC = FIXTURES / "formats" / "cline" / "api_conversation_history.json"
NATIVE = FIXTURES / "formats" / "cline" / "api_conversation_history_native.json"


@pytest.fixture(scope="module")
def classic() -> Conversation:
    return load_conversation(CLASSIC)


@pytest.fixture(scope="module")
def native() -> Conversation:
    return load_conversation(NATIVE)


class TestClassicXmlTools:
    def test_counts(self, classic: Conversation) -> None:
        assert classic.source_format == "cline"
        assert count_messages(classic).to_dict() == {
            "real_user": 5,
            "internal_user": 10,
            "assistant": 14,
            "tool": 12,
            "tool_calls": 12,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_the_span_is_no_longer_empty(self, classic: Conversation) -> None:
        analysis = analyze(classic)
        assert classic.messages[analysis.last_user_index].text.startswith("[TASK RESUMPTION]")
        assert analysis.span.has_compressible

    def test_the_xml_tool_use_becomes_a_call_and_leaves_the_text(self, classic: Conversation) -> None:
        reply, result = classic.messages[1:3]
        (call,) = reply.tool_calls or ()
        assert (call.name, call.parsed_arguments()) == ("read_file", {"path": "cli.py"})
        assert (
            reply.text
            == "<thinking>\nI need to see how cli.py parses its arguments before changing it.\n</thinking>"
        )
        assert result.tool_call_id == call.id and result.name == "read_file"

    def test_a_result_in_separate_blocks_is_joined(self, classic: Conversation) -> None:
        result = classic.messages[2]
        assert result.text.startswith("[read_file for 'cli.py'] Result:\nimport argparse")

    def test_parameters_holding_code_are_read_whole(self, classic: Conversation) -> None:
        call = (classic.messages[15].tool_calls or [])[0]
        arguments = call.parsed_arguments()
        assert arguments["path"] == "tests/test_cli.py" and arguments["content"].endswith('"Hello, Ada!"]')

    def test_real_requests_are_what_the_person_wrote(self, classic: Conversation) -> None:
        openings = [m.text.split("\n")[0] for m in classic.messages if m.is_real_user]
        assert openings == [
            "<task>",
            "<answer>",
            "The user provided the following feedback:",
            "The user has provided feedback on the results. Consider their input to continue the task, and then "
            "attempt completion again.",
            "[TASK RESUMPTION] This task was interrupted 2 hours ago. It may or may not be complete, so please "
            "reassess the task context. Be aware that the project state may have changed since then. The current "
            "working directory is now '/home/dev/greeter'. If the task has not been completed, retry the last step "
            "before interruption and proceed with completing the task.",
        ]

    def test_a_denied_tool_keeps_its_result_and_the_feedback_is_a_request(
        self, classic: Conversation
    ) -> None:
        denied, feedback = classic.messages[19:21]
        assert denied.role == "tool" and denied.text.endswith("Result:\nThe user denied this operation.")
        assert feedback.is_real_user and "<feedback>\nDon't run the whole suite" in feedback.text

    def test_environment_details_alone_and_the_no_tool_nudge_are_internal(
        self, classic: Conversation
    ) -> None:
        internal = [m.text.split("\n")[0] for m in classic.messages if m.is_internal]
        assert internal.count("<environment_details>") == 9
        assert (
            "[ERROR] You did not use a tool in your previous response! Please retry with a tool use."
            in internal
        )

    def test_a_completion_nobody_answered_stays_text(self, classic: Conversation) -> None:
        last_completion = classic.messages[33]
        assert last_completion.tool_calls is None and last_completion.text.startswith("<attempt_completion>")

    def test_readings(self, classic: Conversation) -> None:
        assert [(r.code, r.count) for r in classic.readings] == [
            ("tool_results_from_user_text", 12),
            ("tool_calls_from_text", 12),
            ("internal_user_turns", 10),
        ]


class TestNativeToolUse:
    def test_counts(self, native: Conversation) -> None:
        assert count_messages(native).to_dict() == {
            "real_user": 3,
            "internal_user": 5,
            "assistant": 7,
            "tool": 8,
            "tool_calls": 8,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert analyze(native).span.has_compressible

    def test_an_answer_inside_a_tool_result_is_split_off_as_the_request(self, native: Conversation) -> None:
        result, answer = native.messages[9:11]
        assert result.role == "tool" and result.text.endswith("plain print calls?'] Result:")
        assert answer.is_real_user and answer.text.startswith("<answer>\nlogging, please\n</answer>")

    def test_feedback_returned_as_blocks_without_a_header(self, native: Conversation) -> None:
        result, feedback = native.messages[18:20]
        assert result.role == "tool" and result.content == ""
        assert feedback.is_real_user and "<feedback>\nLog the name being greeted too." in feedback.text

    def test_summarize_task_is_cline_s_own_compaction(self, native: Conversation) -> None:
        (compaction,) = native.recorded_compactions
        carrier = native.messages[compaction.index]
        assert carrier.role == "tool" and carrier.name == "summarize_task"
        assert compaction.source == "cline" and compaction.summary.startswith(
            "1. Primary Request and Intent:"
        )
        assert compaction.tokens_before == 1040 + 160250 + 402  # the summarising call's own window

    def test_metrics_become_usage_as_cline_counts_its_window(self, native: Conversation) -> None:
        reply = native.messages[1]
        assert reply.usage_metadata == {
            "input_tokens": 9120 + 11840,
            "output_tokens": 61,
            "total_tokens": 9120 + 11840 + 61,
            "cached_tokens": 11840,
        }
        assert analyze(native).total_source == "usage"

    def test_the_model_comes_from_model_info(self, native: Conversation) -> None:
        # and no agent: Roo Code and Kilo Code write the same file, their place names them (test_every_agent);
        # the window is the one its environment details state ("… / 200K tokens used")
        assert native.metadata == {"model": "claude-sonnet-4-20250514", "context_window": 200_000}


class TestStatedWindow:
    """Cline states the model's context window in each turn's environment details (``getEnvironmentDetails``:
    ``(contextWindow / 1000).toLocaleString()`` + "K"). A real history (claude_4_5_opus through an OpenAI-compatible
    provider, "… / 128K tokens used") was analysed in the 200,000 default; now in the window the file states."""

    @pytest.mark.parametrize(
        ("stated", "window"), [("128", 128_000), ("1,048.576", 1_048_576), ("64", 64_000)]
    )
    def test_the_latest_stated_window_is_the_runs(self, stated: str, window: int) -> None:
        usage = f"# Context Window Usage\n1,234 / {stated}K tokens used (1%)"
        details = f"<environment_details>\n{usage}\n</environment_details>"
        turns = [
            {"role": "user", "content": [{"type": "text", "text": "<task>\nFix it\n</task>"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Looking."}]},
            {"role": "user", "content": [{"type": "text", "text": details}]},
        ]
        run = load_conversation(json.dumps(turns), name="api_conversation_history.json")
        assert run.metadata["context_window"] == window


ENV = {"type": "text", "text": "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>"}


def history(*messages: dict[str, Any]) -> Conversation:
    task = {"role": "user", "content": [{"type": "text", "text": "<task>\nfix it\n</task>"}, ENV]}
    return load_conversation(json.dumps([task, *messages]).encode(), name="api_conversation_history.json")


class TestPairing:
    def test_a_text_result_answers_a_tool_use_of_another_name_by_order(self) -> None:
        use = {"type": "tool_use", "id": "toolu_1", "name": "mcp__github__get_issue", "input": {"number": 7}}
        result = {"type": "text", "text": "[use_mcp_tool for 'github'] Result:\nissue 7: crash on start"}
        conversation = history(
            {"role": "assistant", "content": [use]}, {"role": "user", "content": [result, ENV]}
        )
        assert conversation.messages[2].tool_call_id == "toolu_1"
        assert count_messages(conversation).unmatched_tool_calls == 0

    def test_a_tool_use_the_history_never_answers_gets_a_stand_in(self) -> None:
        use = {"type": "tool_use", "id": "toolu_9", "name": "execute_command", "input": {"command": "make"}}
        conversation = history({"role": "assistant", "content": [use]})
        assert conversation.messages[-1].tool_call_id == "toolu_9"
        assert [r.code for r in conversation.readings][-1] == "results_filled_in"


class TestPlainAnthropicFilesAreNotCline:
    def test_a_message_list_with_tool_results_reads_through_the_chat_reader(self) -> None:
        messages: list[dict[str, Any]] = [
            {"role": "user", "content": "list files"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}]},
        ]
        conversation = load_conversation(json.dumps(messages).encode(), name="plain.json")
        assert conversation.source_format == "anthropic"

    def test_a_task_tag_alone_does_not_make_a_file_cline_s(self) -> None:
        messages = [
            {"role": "user", "content": "<task>\nsum 2 and 3\n</task>"},
            {"role": "assistant", "content": "5"},
        ]
        assert load_conversation(json.dumps(messages).encode(), name="p.json").source_format == "openai"


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("[read_file for 'src/app.py'] Result:", "read_file"),
        ("[search_files for 'TODO' in '*.py'] Result:\nfound 3", "search_files"),
        ("[execute_command for 'echo 'hi''] Result:\nhi", "execute_command"),
        ("[attempt_completion] Result:", "attempt_completion"),
        ("[use_mcp_tool for 'github'] Result:\n{}", "use_mcp_tool"),
        (
            "Tool [read_file] was not executed because a tool has already been used in this message.",
            "read_file",
        ),
        ("Skipping tool [write_to_file for 'a.txt'] due to user rejecting a previous tool.", "write_to_file"),
        ("see [read_file] Result: later", None),
        ("<task>\nfix it\n</task>", None),
    ],
)
def test_result_headers(text: str, tool: str | None) -> None:
    assert result_tool(text) == tool


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("<task>\nfix it\n</task>\n<environment_details>\ncwd\n</environment_details>", "request"),
        ("<environment_details>\n# Current Mode\nACT MODE\n</environment_details>", "internal"),
        (
            "[ERROR] You did not use a tool in your previous response! Please retry with a tool use.",
            "internal",
        ),
        ("[TASK RESUMPTION] This task was interrupted 2 hours ago.", "request"),
        ("please also update the README", "request"),
        ("[read_file for 'a'] Result:\nx", "tool_result"),
    ],
)
def test_cline_rules(text: str, kind: str) -> None:
    assert CLINE_RULES.kind(text) == kind


class TestTextTools:
    def test_split_keeps_a_file_that_mentions_feedback_whole(self) -> None:
        text = "[read_file for 'notes.md'] Result:\n# Notes\n<feedback>\nnot from the person\n</feedback>"
        assert split_user_words("read_file", text) == (text, "")

    def test_split_takes_the_answer_of_a_question(self) -> None:
        text = "[ask_followup_question for 'which?'] Result:\n<answer>\nthe first\n</answer>"
        assert split_user_words("ask_followup_question", text) == (
            "[ask_followup_question for 'which?'] Result:",
            "<answer>\nthe first\n</answer>",
        )

    def test_a_content_value_holding_the_closing_tag_is_read_whole(self) -> None:
        text = "<write_to_file>\n<path>a.md</path>\n<content>\nsay </write_to_file> here\n</content>\n</write_to_file>"
        call = find_call(text, "write_to_file")
        assert call is not None and call.params == {"path": "a.md", "content": "say </write_to_file> here"}
        assert call.end == len(text)

    def test_the_continuation_prompt_yields_its_summary(self) -> None:
        text = (
            "\nThis session is being continued from a previous conversation that ran out of context. The "
            "conversation is summarized below:\nDid A, then B.\n\nPlease continue the conversation from where we "
            "left it off without asking the user any further questions."
        )
        assert continuation_summary(text) == "Did A, then B"


class TestBadInput:
    def test_a_tool_use_without_an_id_names_the_block(self) -> None:
        history = json.loads(NATIVE.read_text())
        del history[1]["content"][2]["id"]
        with pytest.raises(
            ConversationFormatError, match=r"h\.json: \[1\]\.content\[2\]: tool_use block missing id"
        ):
            load_conversation(json.dumps(history).encode(), name="h.json")

    def test_metrics_that_are_not_numbers_name_the_field(self) -> None:
        history = json.loads(NATIVE.read_text())
        history[1]["metrics"]["tokens"]["prompt"] = "many"
        with pytest.raises(
            ConversationFormatError, match=r"\[1\]\.metrics\.tokens\.prompt: must be a number"
        ):
            load_conversation(json.dumps(history).encode(), name="h.json")

    def test_a_truncated_file_is_one_line(self) -> None:
        text = CLASSIC.read_text()
        with pytest.raises(ConversationFormatError, match=r"^h\.json: not valid JSON"):
            load_conversation(text[: len(text) // 2].encode(), name="h.json")
