"""Codex CLI rollouts: Responses items in order, usage from token_count events, Codex's own compactions recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from compressor.census import count_messages, describe_reading
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.responses import SUMMARY_PREFIX
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

ROLLOUT = (
    FIXTURES / "formats" / "codex" / "rollout-2025-10-14T09-00-00-0199e0a4-5b6c-7d8e-9f01-23456789abcd.jsonl"
)


@pytest.fixture(scope="module")
def run() -> Conversation:
    return load_conversation(fixture(ROLLOUT))


def line(kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "2025-10-14T09:00:00.000Z", "type": kind, "payload": payload})


def user(text: str) -> str:
    return line(
        "response_item",
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
    )


def usage(prompt: int, completion: int, total: int | None = None) -> str:
    last = {
        "input_tokens": prompt,
        "cached_input_tokens": 0,
        "output_tokens": completion,
        "reasoning_output_tokens": 0,
        "total_tokens": prompt + completion if total is None else total,
    }
    return line(
        "event_msg", {"type": "token_count", "info": {"last_token_usage": last, "total_token_usage": last}}
    )


def rollout(*lines: str) -> Conversation:
    return load_conversation("\n".join(lines) + "\n", name="rollout.jsonl")


class TestFixture:
    def test_counts(self, run: Conversation) -> None:
        assert run.source_format == "codex"
        assert count_messages(run).to_dict() == {
            "real_user": 4,
            "internal_user": 5,
            "assistant": 8,
            "tool": 5,
            "tool_calls": 5,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert (len(run.system), len(run.messages)) == (2, 22)

    def test_the_system_prompt_and_the_developer_message_lead(self, run: Conversation) -> None:
        assert run.system[0].content.startswith("You are Codex, based on GPT-5.")
        assert run.system[1].content.startswith("<permissions instructions>")

    def test_only_the_users_requests_are_real(self, run: Conversation) -> None:
        real = [m.content for m in run.messages if m.is_real_user]
        assert real == [
            "The stock report double-counts returned items. Find out why and fix it.",
            "Now add a regression test.",
            "Use pytest parametrize for the test.",
            "Thanks. Summarise the change in one line.",
        ]
        internal = [m.text.split("\n")[0][:48] for m in run.messages if m.is_internal]
        assert internal == [
            "# AGENTS.md instructions for /home/dev/inventory",
            "<environment_context>",
            SUMMARY_PREFIX[:48],
            "<turn_aborted>",
            "[compaction summary, encrypted by the server]",
        ]

    def test_one_model_calls_outputs_are_one_assistant_message(self, run: Conversation) -> None:
        patch = run.messages[7]
        assert patch.content == "Line 57 adds `item.returned` a second time; I will remove it."
        assert [call.name for call in patch.tool_calls or ()] == ["apply_patch"]
        assert patch.tool_calls is not None and patch.tool_calls[0].arguments.startswith("*** Begin Patch")
        assert (patch.model_extra or {})["reasoning_content"] == "**Removing the second addition**"
        shell = run.messages[5]
        assert shell.tool_calls is not None and shell.tool_calls[0].name == "local_shell"
        assert json.loads(shell.tool_calls[0].arguments)["command"] == [
            "sed",
            "-n",
            "35,60p",
            "src/report.py",
        ]

    def test_outputs_answer_their_call_id(self, run: Conversation) -> None:
        tools = [(m.tool_call_id, m.text[:16]) for m in run.messages if m.role == "tool"]
        assert tools == [
            ("call_r7Ax01", '{"output":"src/r'),
            ("call_r7Ax02", "def stock_total("),  # the older {content, success} output
            ("call_r7Ax03", '{"output":"Succe'),
            ("call_r7Ax04", "test_report.py\n"),
            ("call_r7Ax05", "aborted"),  # interrupted: the result Codex gives a call that has none
        ]

    def test_usage_is_the_window_of_each_call(self, run: Conversation) -> None:
        totals = [(m.usage_metadata or {}).get("total_tokens") for m in run.messages if m.role == "assistant"]
        # the repeated token_count and the summarisation request's usage attach to nothing; the loader marks the
        # usage after Codex's own compaction stale (it measured the compacted window), keeping the numbers
        assert totals == [5306, 5452, 5782, 5928, 6042, 2149, 2791, 1227]
        assert run.messages[3].usage_metadata == {
            "input_tokens": 5210,
            "cached_input_tokens": 0,
            "output_tokens": 96,
            "reasoning_output_tokens": 64,
            "total_tokens": 5306,
        }

    def test_both_compactions_are_recorded_with_their_sizes(self, run: Conversation) -> None:
        local, remote = run.recorded_compactions
        assert (local.source, local.index, local.tokens_before, local.tokens_after) == (
            "codex",
            13,
            6042,
            1840,
        )
        assert local.summary.startswith(SUMMARY_PREFIX) and "stock_total" in local.summary
        assert run.messages[local.index].content == local.summary and run.messages[local.index].internal
        assert (remote.index, remote.summary, remote.tokens_before, remote.tokens_after) == (
            19,
            "",
            2791,
            960,
        )

    def test_metadata(self, run: Conversation) -> None:
        assert {
            key: run.metadata[key]
            for key in ("agent", "model", "session_id", "cli_version", "context_window")
        } == {
            "agent": "codex",
            "model": "gpt-5-codex",
            "session_id": "0199e0a4-5b6c-7d8e-9f01-23456789abcd",
            "cli_version": "0.46.0",
            "context_window": 272000,
        }

    def test_readings(self, run: Conversation) -> None:
        assert [describe_reading(reading) for reading in run.readings] == [
            "5 user turns were written by the agent's harness and were read as internal",
            "2 compactions the agent made itself are recorded in the file",
            "1 recorded compaction keeps its summary encrypted (only the provider can read it)",
            '1 tool call has no result in the file and was given the result "aborted", as Codex gives a call '
            "that has none",
            "6 lines that are not part of the conversation were skipped (event_msg copies of turns ×3, event_msg "
            "context_compacted ×2, event_msg turn_aborted ×1)",
            "the file names the model: gpt-5-codex",
            "3 usage reports after the agent's first own compaction measured the compacted window; they are read "
            "as stale for the whole run shown here",
        ]


class TestUsage:
    def test_a_total_less_usage_is_input_plus_output(self) -> None:
        run = rollout(
            user("hi"),
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "hello"}],
                },
            ),
            usage(100, 7, total=0),
        )
        assert run.messages[-1].reported_total_tokens == 107

    def test_an_estimate_after_a_compaction_is_its_tokens_after(self) -> None:
        estimate = line(
            "event_msg",
            {
                "type": "token_count",
                "info": {"last_token_usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 321}},
            },
        )
        run = rollout(user("a"), line("compacted", {"message": "summary"}), estimate, user("b"))
        assert run.recorded_compactions[0].tokens_after == 321
        assert run.recorded_compactions[0].tokens_before is None
        assert run.messages[1].content == "summary" and run.messages[1].internal

    def test_the_summary_of_a_replacement_history_is_read_when_message_is_empty(self) -> None:
        summary = SUMMARY_PREFIX + "\nwork so far"
        history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": summary}]}]
        run = rollout(user("a"), line("compacted", {"message": "", "replacement_history": history}))
        assert run.recorded_compactions[0].summary == summary
        assert [reading.code for reading in run.readings].count("summaries_encrypted") == 0


class TestOneCompactionWrittenTwice:
    ITEM = line("response_item", {"type": "compaction", "encrypted_content": "gAAA"})

    @pytest.mark.parametrize("item_first", [True, False])
    def test_a_compaction_item_beside_its_compacted_line_is_one_compaction(self, item_first: bool) -> None:
        compacted = line(
            "compacted",
            {"message": "", "replacement_history": [{"type": "compaction", "encrypted_content": "gAAA"}]},
        )
        pair = [self.ITEM, compacted] if item_first else [compacted, self.ITEM]
        run = rollout(user("a"), *pair, user("b"))
        assert len(run.recorded_compactions) == 1
        assert [m.text for m in run.messages] == ["a", "[compaction summary, encrypted by the server]", "b"]


class TestDetection:
    def test_a_rollout_is_not_taken_for_a_message_list(self) -> None:
        run = rollout(line("session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.1"}), user("fix it"))
        assert run.source_format == "codex" and run.metadata["session_id"] == "s"
        assert [m.role for m in run.messages] == ["user"]

    def test_an_older_rollout_of_bare_items(self) -> None:
        header = json.dumps({"id": "5973b6c0", "timestamp": "2025-06-03T17:32:10.522Z", "instructions": None})
        state = json.dumps({"record_type": "state"})
        call = json.dumps({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"})
        output = json.dumps({"type": "function_call_output", "call_id": "c1", "output": "a.py"})
        items = [
            json.loads(user("<user_instructions>\nuse uv\n</user_instructions>"))["payload"],
            json.loads(user("list the files"))["payload"],
        ]
        run = load_conversation(
            "\n".join([header, state, *map(json.dumps, items), state, call, output]) + "\n",
            name="rollout.jsonl",
        )
        assert (run.source_format, run.metadata["session_id"], run.metadata["agent"]) == (
            "codex",
            "5973b6c0",
            "codex",
        )
        assert [(m.role, m.internal) for m in run.messages] == [
            ("user", True),
            ("user", False),
            ("assistant", False),
            ("tool", False),
        ]
        assert run.readings[-1].detail == "the session header and state markers ×3"

    def test_a_file_still_being_written_reads_to_its_last_whole_line(self, tmp_path: Path) -> None:
        path = tmp_path / "rollout.jsonl"
        path.write_text(user("fix it") + "\n" + user("and test it")[:40])
        run = load_conversation(path)
        assert [m.content for m in run.messages] == ["fix it"]
        assert run.readings[-1].code == "truncated_tail"


class TestBadInput:
    @pytest.mark.parametrize(
        ("lines", "problem"),
        [
            (
                [line("response_item", {"type": "function_call", "name": "shell", "arguments": "{}"})],
                "rollout.jsonl: line 1: payload: missing call_id",
            ),
            (
                [json.dumps({"timestamp": "t", "type": "response_item", "payload": [1]})],
                "rollout.jsonl: line 1: payload: expected a response_item payload (a JSON object), got list",
            ),
            (
                [user("a"), line("compacted", {"message": 7})],
                "rollout.jsonl: line 2: payload.message: must be a string, got number",
            ),
            (
                [
                    user("a"),
                    line(
                        "event_msg",
                        {"type": "token_count", "info": {"last_token_usage": {"input_tokens": "many"}}},
                    ),
                ],
                "rollout.jsonl: line 2: payload.info.last_token_usage.input_tokens: must be a number, got string 'many'",
            ),
            (
                [line("response_item", {"type": "message", "role": "robot", "content": []})],
                "rollout.jsonl: line 1: payload.role: unknown role 'robot' (expected user, assistant, developer or system)",
            ),
            ([line("turn_context", {"model": "gpt-5"})], "rollout.jsonl: holds no messages"),
        ],
    )
    def test_one_line_naming_the_field(self, lines: list[str], problem: str) -> None:
        with pytest.raises(ConversationFormatError) as error:
            rollout(*lines)
        assert str(error.value) == problem


class TestNewerItems:
    """Items later Codex versions write (``codex-rs/protocol/src/models.rs``: ``AdditionalTools``, ``AgentMessage``,
    ``ContextCompaction``, ``CompactionTrigger``): read for what they put in the model's context."""

    def newer(self) -> Conversation:
        return rollout(
            line(
                "session_meta", {"id": "s", "cwd": "/repo", "base_instructions": {"text": "You are Codex."}}
            ),
            line(
                "response_item",
                {
                    "type": "additional_tools",
                    "role": "developer",
                    "tools": [{"type": "function", "name": "lookup", "description": "Look up a doc."}],
                },
            ),
            user("Fix the bug."),
            line(
                "response_item",
                {
                    "type": "function_call",
                    "name": "lookup",
                    "namespace": "docs",
                    "arguments": "{}",
                    "call_id": "c1",
                },
            ),
            line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}),
            line(
                "response_item",
                {
                    "type": "agent_message",
                    "author": "explorer",
                    "recipient": "main",
                    "content": [{"type": "input_text", "text": "The bug is in src/a.py."}],
                },
            ),
            line("response_item", {"type": "compaction_trigger"}),
            line("response_item", {"type": "context_compaction", "encrypted_content": "gAAAA"}),
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Done."}],
                },
            ),
        )

    def test_added_tools_are_the_runs_tools(self) -> None:
        assert [tool.name for tool in self.newer().tools] == ["lookup"]

    def test_another_agents_message_is_an_internal_turn_in_the_context(self) -> None:
        told = next(m for m in self.newer().messages if m.text == "The bug is in src/a.py.")
        assert (
            told.role == "user"
            and told.internal
            and told.model_extra == {"author": "explorer", "recipient": "main"}
        )

    def test_a_context_compaction_is_a_recorded_encrypted_compaction(self) -> None:
        run = self.newer()
        assert len(run.recorded_compactions) == 1
        assert any(r.code == "summaries_encrypted" for r in run.readings)
        skipped = [r for r in run.readings if r.code == "lines_skipped"]
        assert not any("unknown" in r.detail for r in skipped)  # every item type is known


class TestToolSearchTheServerRan:
    """A tool search the Responses API ran itself (``execution: "server"``) has no call id: openai/codex
    ``codex-rs/app-server-protocol/schema/json/internal/RolloutLine.json`` at 7569622ebcc4e536f6291803892e54a15bfd6bd2
    (``ToolSearchCallResponseItem`` requires only ``arguments``, ``execution``, ``type``; ``call_id`` is string or
    null on it and on ``ToolSearchOutputResponseItem``, which requires ``execution``, ``status``, ``tools``; ``id`` is
    write-only, so a rollout holds none). Lines built from those definitions; texts ours."""

    SEARCH: ClassVar[dict[str, Any]] = {
        "type": "tool_search_call",
        "call_id": None,
        "status": "completed",
        "execution": "server",
        "arguments": {"paths": ["lookup_eta"]},
    }
    FOUND: ClassVar[dict[str, Any]] = {
        "type": "tool_search_output",
        "call_id": None,
        "status": "completed",
        "execution": "server",
        "tools": [{"type": "function", "name": "lookup_eta", "description": "Look up a shipping ETA."}],
    }

    def searched(self, *items: dict[str, Any]) -> Conversation:
        return rollout(
            line("session_meta", {"id": "s", "cwd": "/repo"}),
            user("When does order 7 arrive?"),
            *(line("response_item", item) for item in items),
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Tuesday."}],
                },
            ),
        )

    def test_its_output_answers_it(self) -> None:
        run = self.searched(self.SEARCH, self.FOUND)
        call = next(m for m in run.messages if m.tool_calls)
        result = next(m for m in run.messages if m.role == "tool")
        assert [c.name for c in call.tool_calls] == ["tool_search"]
        assert result.tool_call_id == call.tool_calls[0].id
        assert "lookup_eta" in result.text

    def test_searches_answered_in_order(self) -> None:
        second = {**self.SEARCH, "arguments": {"paths": ["track"]}}
        run = self.searched(self.SEARCH, second, self.FOUND, {**self.FOUND, "tools": []})
        calls = [c.id for m in run.messages for c in m.tool_calls or ()]
        results = [m.tool_call_id for m in run.messages if m.role == "tool"]
        assert len(set(calls)) == 2 and results == calls

    def test_a_search_the_client_ran_keeps_its_call_id(self) -> None:
        run = self.searched(
            {**self.SEARCH, "call_id": "ts1", "execution": "client"},
            {**self.FOUND, "call_id": "ts1", "execution": "client"},
        )
        assert [m.tool_call_id for m in run.messages if m.role == "tool"] == ["ts1"]

    def test_an_output_with_no_search_before_it_is_one_line(self) -> None:
        with pytest.raises(ConversationFormatError) as error:
            self.searched(self.FOUND)
        assert str(error.value) == "rollout.jsonl: line 3: payload: missing call_id"


VSCODE = (
    FIXTURES / "formats" / "codex" / "rollout-2025-09-19T17-02-12-01996135-afde-7911-97f0-d863511eca56.jsonl"
)


class TestRealRolloutUsageWrittenFirst:
    """A real Codex 0.39 rollout (VS Code): each call's token_count is written just BEFORE its items."""

    def test_it_reads_as_the_session_went(self) -> None:
        run = load_conversation(VSCODE)
        assert count_messages(run).to_dict() == {
            "real_user": 1,
            "internal_user": 1,  # <environment_context>
            "assistant": 19,
            "tool": 18,
            "tool_calls": 18,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }
        assert run.messages[1].text.startswith("# Context from my IDE setup:")
        assert run.metadata["originator"] == "codex_vscode"
        assert run.metadata["model"] == "aide-gpt-5"

    def test_each_call_carries_its_own_usage(self) -> None:
        run = load_conversation(VSCODE)
        totals = [(m.usage_metadata or {}).get("total_tokens") for m in run.messages if m.role == "assistant"]
        # the first call (update_plan, 5645 in + 810 out) carries 6455, not the second call's 6066; the last
        # reply carries the file's last token_count
        assert totals[:3] == [6455, 6066, 7460]
        assert totals[-1] == 24158
        assert None not in totals

    def test_a_repeated_event_is_not_a_second_call(self) -> None:
        tc = {
            "type": "token_count",
            "info": {"total_token_usage": {"total_tokens": 40}, "last_token_usage": {}},
        }
        tc["info"]["last_token_usage"] = {"input_tokens": 30, "output_tokens": 10, "total_tokens": 40}
        run = rollout(
            user("a"),
            line("event_msg", tc),
            line("response_item", {"type": "message", "role": "assistant", "content": []}),
            line(
                "response_item",
                {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
            ),
            line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}),
            line("event_msg", tc),  # the same event again (as 0.60 writes it after the items too)
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "done"}],
                },
            ),
        )
        totals = [(m.usage_metadata or {}).get("total_tokens") for m in run.messages if m.role == "assistant"]
        assert totals == [40, None]


class TestContentItemKinds:
    """Newer Codex names each part of a user message (``internal_chat_message_metadata_passthrough``
    ``content_item_kinds``, one per content item): ``user.text`` is what the person typed, the rest is context
    Codex added (kinds as codex-cli 0.155 rollouts carry them: ``agents_md.instructions``,
    ``environments.environment_context``, ``hooks.additional_context``, ``skills.selected_skill_instructions``)."""

    @staticmethod
    def said(text: str, *kinds: str) -> str:
        return line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
                "internal_chat_message_metadata_passthrough": {
                    "turn_id": "t1",
                    "content_item_kinds": list(kinds),
                },
            },
        )

    def test_a_hooks_context_after_the_request_is_internal(self) -> None:
        run = rollout(
            self.said("Fix the failing import in app.py.", "user.text"),
            # a UserPromptSubmit hook's context: plain text no tag rule can tell from a request
            self.said("Reminder: run ruff before you finish.", "hooks.additional_context"),
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "On it."}],
                },
            ),
        )
        assert [m.content for m in run.messages if m.is_real_user] == ["Fix the failing import in app.py."]
        assert run.messages[1].role == "user" and not run.messages[1].is_real_user

    def test_a_typed_part_makes_a_request_whatever_its_text(self) -> None:
        run = rollout(
            self.said("# AGENTS.md instructions for /repo\n\nUse tabs.", "agents_md.instructions"),
            self.said("<environment_context>quoted by the user</environment_context>", "user.text"),
            line(
                "response_item",
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Ok."}]},
            ),
        )
        assert [m.is_real_user for m in run.messages if m.role == "user"] == [False, True]

    def test_without_kinds_the_text_rules_decide(self) -> None:
        run = rollout(user("<environment_context>cwd</environment_context>"), user("Go."))
        assert [m.is_real_user for m in run.messages if m.role == "user"] == [False, True]


class TestConfigurationUpdate:
    """A ``configuration_update`` item changes the reasoning effort of the calls after it: openai/codex
    ``ResponseItem::ConfigurationUpdate { reasoning: ConfigurationReasoning { effort } }`` (codex-rs/protocol
    ``models.rs``; Codex's own test ``harness_authored_configuration_updates_preserve_metadata_and_resume`` records
    one in a session), serialized as ``{type: configuration_update, reasoning: {effort}}``: a setting, no text the
    model reads. Lines built from that shape."""

    def test_it_is_a_known_item_that_puts_nothing_in_the_window(self) -> None:
        update = line("response_item", {"type": "configuration_update", "reasoning": {"effort": "high"}})
        run = rollout(user("fix the test"), update, user("and the docs"))
        assert [m.text for m in run.messages] == ["fix the test", "and the docs"]
        skipped = next(r for r in run.readings if r.code == "lines_skipped")
        assert "configuration_update items" in skipped.detail and "unknown" not in skipped.detail
