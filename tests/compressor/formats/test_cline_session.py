"""Cline CLI 3.x sessions (``<id>.messages.json``): the system prompt, each reply with its window from ``metrics``,
tool results by id (a tool's own result objects as their JSON), the person's ``<user_input>`` a real request.
Before this reader, such a file was read as a bare Anthropic message list: no usage, no system prompt, a
``read_files`` result as Python's repr of its objects."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from compressor.census import count_messages
from compressor.formats import load_conversation
from compressor.formats.places import find_sessions
from tests.conftest import FIXTURES, fixture

SESSION = FIXTURES / "formats" / "cline" / "1796161295367_z8gc0.messages.json"


class TestCliSession:
    def test_roles_and_pairing(self) -> None:
        run = load_conversation(fixture(SESSION))
        assert run.source_format == "cline" and len(run.system) == 1
        assert str(run.system[0].content).startswith("You are Cline, an AI coding agent.")
        assert [m.role for m in run.messages] == [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        counts = count_messages(run)
        assert (counts.real_user, counts.tool_calls, counts.unmatched_tool_calls) == (1, 2, 0)

    def test_each_replys_metrics_are_its_window(self) -> None:
        run = load_conversation(fixture(SESSION))
        assert [m.reported_total_tokens for m in run.messages if m.role == "assistant"] == [
            1097 + 17,
            1179 + 17,
            1410 + 17,
        ]
        assert run.metadata["model"] == "fake-gpt-4o" and run.metadata["cline_version"] == "3.0.65"

    def test_a_tools_own_result_objects_are_sent_as_json(self) -> None:
        run = load_conversation(fixture(SESSION))
        assert json.loads(str(run.messages[2].content)) == [
            {"query": "notes.txt", "result": "1 | deploy: Friday", "success": True}
        ]

    def test_the_clis_text_beside_tool_results_is_internal(self) -> None:
        data = json.loads(fixture(SESSION).read_text())
        data["messages"][2]["content"].append({"type": "text", "text": "<mode_notice>act</mode_notice>"})
        run = load_conversation(json.dumps(data), name="s.messages.json")
        assert [(m.role, m.internal) for m in run.messages[2:4]] == [("tool", False), ("user", True)]
        assert count_messages(run).real_user == 1


def test_the_clis_sessions_are_found_in_its_standard_place(tmp_path: Path) -> None:
    folder = tmp_path / ".cline/data/sessions/1796161295367_z8gc0"
    folder.mkdir(parents=True)
    shutil.copyfile(fixture(SESSION), folder / SESSION.name)
    (folder / "1796161295367_z8gc0.json").write_text(json.dumps({"version": 1, "status": "completed"}))
    found = find_sessions(tmp_path, environ={})
    assert [(s.agent, s.path) for s in found] == [("cline", folder / SESSION.name)]


SDK = FIXTURES / "formats" / "cline"


class TestSdkSessionFile:
    """Session files as ``@cline/core`` writes them, which keep no ``origin`` (cline/cline at
    21cb8d2525bcedf1f4b6890b27a74a14fe7451e4, ``sdk/packages/core/docs/messages-contract-v1.md``: ``{version: 1,
    updated_at, agent: lead|subagent|teammate, sessionId, messages, system_prompt?}``); the fixtures are that
    commit's own ``sdk/packages/core/fixtures``. Before, they were read as a bare Anthropic list: no usage, no
    model, no recorded compaction."""

    def test_the_contracts_golden_file_reads_as_a_cline_session(self) -> None:
        run = load_conversation(fixture(SDK / "success.messages.json"))
        assert run.source_format == "cline"
        assert run.metadata["session_id"] == "fixture-success-01"
        assert run.metadata["model"] == "claude-sonnet-4-6"
        reply = run.messages[-1]
        assert reply.usage_metadata is not None and reply.usage_metadata["total_tokens"] == 29

    def test_an_agentic_compaction_is_recorded_with_its_window(self) -> None:
        """``compaction-shared.ts`` ``buildSummaryMessage``: a user message "Context summary: …" with
        ``metadata {kind: compaction_summary, summary, tokensBefore}``, first in the rewritten list."""
        run = load_conversation(fixture(SDK / "agentic.compaction.json"))
        (compaction,) = run.recorded_compactions
        assert (compaction.index, compaction.tokens_before) == (0, 21919)
        assert compaction.summary.startswith("## Goal\nAlign spacing/padding of sidebar UI elements")
        assert run.messages[0].internal and not run.messages[1].internal  # then "hello", the person's

    def test_a_basic_compaction_is_recorded_with_its_notices(self) -> None:
        """``basic-compaction.ts``: the first kept request carries ``metadata {kind: compaction, messagesRemoved,
        usageBefore}`` (usage summed over the dropped calls, no window); each kept request gets a
        ``<SYSTEM_NOTICE>`` of what was done after it."""
        run = load_conversation(fixture(SDK / "basic.compaction.json"))
        (compaction,) = run.recorded_compactions
        assert (compaction.index, compaction.tokens_before) == (0, None)
        assert compaction.summary.count("<SYSTEM_NOTICE>") == 4
        assert not run.messages[0].internal  # the person's request, the notice folded into it

    def test_an_attached_file_is_the_text_cline_sends_for_it(self) -> None:
        """``sdk/packages/shared/src/llms/ai-sdk-format.ts``: a ``file`` block goes to the model as
        ``formatFileContentBlock(path, content)`` (``prompt/format.ts``), ``<file_content path="…">`` text."""
        run = load_conversation(fixture(SDK / "session.messages.json"))
        request = run.messages[0]
        path = "/Users/example/dev/cline/apps/examples/desktop-app/webview/components/agent-sidebar.tsx"
        assert f'<file_content path="{path}">\n"use client";' in request.text
        assert request.text.rstrip().endswith("</file_content>")
