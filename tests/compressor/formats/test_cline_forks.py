"""Roo Code and Kilo Code task histories through the Cline reader: their condense summaries are recorded
compactions, truncation markers and reasoning are not requests, the person's JSON feedback is, and their task
folders are found under every VS Code-based editor.

Fixtures (built here, own content) follow RooCodeInc/Roo-Code at cb836567180a3ff1da6d082f3178b90c3bd22a70:
``src/core/task-persistence/apiMessages.ts`` (``ApiMessage``: ``ts``, ``isSummary``, ``condenseId`` /
``condenseParent``, ``truncationId`` / ``truncationParent`` / ``isTruncationMarker``, standalone ``type:
"reasoning"`` items), ``src/shared/globalFileNames.ts``, ``src/core/condense/index.ts`` (the "fresh start" summary:
a user message opening ``## Conversation Summary``), ``src/core/context-management/index.ts`` (the truncation
marker), ``src/core/task/Task.ts`` (``<user_message>`` task, reasoning blocks in a reply),
``src/core/prompts/responses.ts`` and ``src/core/assistant-message/presentAssistantMessage.ts`` (JSON denial with
``feedback``; ``<user_message>`` in results); Roo's first condense (7c1185ed33, May 2025: the summary an assistant
message). Kilo-Org/kilocode: ``src/core/condense/index.ts`` (0fc86cec2299b333cb21da87b649003b19319ecc),
``src/shared/globalFileNames.ts`` (74d6e4839d20b7b8af79c013e09fe9b1ede35539), ``src/core/task/Task.ts``
(c55f7b4a763f24b751b3d4a348205a272d442f27): the same files and messages as Roo's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from compressor.census import count_messages
from compressor.formats import load_conversation
from compressor.formats.cline_tools import split_user_words
from compressor.formats.places import find_sessions
from compressor.messages import Conversation
from tests.conftest import FIXTURES, fixture

ROO = FIXTURES / "formats" / "roo_code" / "api_conversation_history.json"
KILO = FIXTURES / "formats" / "kilo_code" / "api_conversation_history.json"


@pytest.fixture(scope="module")
def roo() -> Conversation:
    return load_conversation(fixture(ROO))


@pytest.fixture(scope="module")
def kilo() -> Conversation:
    return load_conversation(fixture(KILO))


class TestRooNativeTools:
    def test_counts(self, roo: Conversation) -> None:
        assert roo.source_format == "cline"
        assert count_messages(roo).to_dict() == {
            "real_user": 3,
            "internal_user": 5,
            "assistant": 5,
            "tool": 5,
            "tool_calls": 5,
            "unmatched_tool_calls": 0,
            "unmatched_tool_results": 0,
        }

    def test_the_condense_summary_is_an_internal_turn_recorded_as_a_compaction(
        self, roo: Conversation
    ) -> None:
        (compaction,) = roo.recorded_compactions
        carrier = roo.messages[compaction.index]
        assert carrier.role == "user" and carrier.internal
        assert carrier.text.startswith("## Conversation Summary\n1. Primary request")
        assert compaction.summary.startswith("1. Primary request") and compaction.summary.endswith("line 4.")
        assert (carrier.model_extra or {})["condenseId"] == "3b0f6a52-8d1e-4c7a-9f20-6e5d4c3b2a19"

    def test_the_history_it_replaced_stays_with_its_tags(self, roo: Conversation) -> None:
        (compaction,) = roo.recorded_compactions
        before = roo.messages[: compaction.index]
        assert len(before) == 10
        tagged = [m for m in before if (m.model_extra or {}).get("condenseParent")]
        assert {m.role for m in tagged} >= {"user", "assistant", "tool"}

    def test_the_truncation_marker_is_internal(self, roo: Conversation) -> None:
        marker = next(m for m in roo.messages if m.text.startswith("[Sliding window truncation:"))
        assert marker.internal and (marker.model_extra or {})["isTruncationMarker"] is True

    def test_a_denial_with_feedback_is_the_persons_request(self, roo: Conversation) -> None:
        result = next(m for m in roo.messages if m.tool_call_id == "toolu_01Roo2Diff")
        assert result.text == '{"status":"denied"}'
        words = roo.messages[roo.messages.index(result) + 1]
        assert words.is_real_user and words.text.startswith(
            "Keep a deprecated fetchUser alias for one release."
        )

    def test_reasoning_goes_beside_the_reply(self, roo: Conversation) -> None:
        reply = roo.messages[1]
        assert reply.content == "I'll search the source for fetchUser first."
        assert (reply.model_extra or {})["reasoning_content"] == "Find every use of fetchUser before editing."

    def test_words_after_completion_are_a_request(self, roo: Conversation) -> None:
        assert roo.messages[-1].is_real_user
        assert roo.messages[-1].text.startswith("<user_message>\nAlso note the rename in CHANGELOG.md.")

    def test_every_message_keeps_its_timestamp(self, roo: Conversation) -> None:
        stamps = [(m.model_extra or {}).get("ts") for m in roo.messages if m.role != "tool"]
        assert all(isinstance(stamp, int) for stamp in stamps)


class TestKiloXmlTools:
    def test_xml_tool_uses_are_calls_answered_by_their_results(self, kilo: Conversation) -> None:
        assert count_messages(kilo).to_dict()["tool"] == 2
        reply, result = kilo.messages[1:3]
        calls = reply.tool_calls or []
        assert len(calls) == 1
        call = calls[0]
        assert call.name == "read_file" and "<path>app.py</path>" in call.parsed_arguments()["args"]
        assert result.tool_call_id == call.id

    def test_the_early_condense_summary_is_the_reply_that_carries_it(self, kilo: Conversation) -> None:
        (compaction,) = kilo.recorded_compactions
        carrier = kilo.messages[compaction.index]
        assert carrier.role == "assistant" and carrier.text == compaction.summary
        assert compaction.summary.startswith("The user wants GET /health")

    def test_a_standalone_reasoning_item_is_left_out_and_said(self, kilo: Conversation) -> None:
        assert not any("encrypted_content" in (m.model_extra or {}) for m in kilo.messages)
        skipped = next(r for r in kilo.readings if r.code == "lines_skipped")
        assert skipped.detail == "reasoning items (not a message) ×1"


class TestJsonFeedback:
    def test_an_approval_with_feedback_keeps_the_result_after_it(self) -> None:
        text = '{"status":"approved","feedback":"use tabs"}\n\nChanges applied to a.py.'
        assert split_user_words("apply_diff", text) == (
            '{"status":"approved"}\n\nChanges applied to a.py.',
            "use tabs",
        )

    @pytest.mark.parametrize(
        "text",
        [
            '{"status":"denied","message":"The user denied this operation."}',
            '{"status":"error","feedback":"not a person"}',
            '{"status":"denied","feedback":',
            '{"status":"denied","feedback":""}',
        ],
    )
    def test_json_without_the_persons_words_stays_the_result(self, text: str) -> None:
        assert split_user_words("apply_diff", text) == (text, "")


class TestPlaces:
    @pytest.mark.parametrize(
        ("editor", "extension", "agent"),
        [
            ("Code", "rooveterinaryinc.roo-cline", "roo-code"),
            ("Cursor", "kilocode.kilo-code", "kilo-code"),
            ("VSCodium", "saoudrizwan.claude-dev", "cline"),
            ("Windsurf", "rooveterinaryinc.roo-cline", "roo-code"),
        ],
    )
    def test_each_forks_tasks_are_found_under_each_editor(
        self, tmp_path: Path, editor: str, extension: str, agent: str
    ) -> None:
        task = tmp_path / ".config" / editor / "User/globalStorage" / extension / "tasks" / "1764490324000"
        task.mkdir(parents=True)
        shutil.copyfile(fixture(ROO), task / "api_conversation_history.json")
        (task / "ui_messages.json").write_text(json.dumps([{"ts": 1, "type": "say", "say": "text"}]))
        found = find_sessions(tmp_path, environ={})
        assert [(s.agent, s.path) for s in found] == [(agent, task / "api_conversation_history.json")]

    def test_macos_keeps_them_under_application_support(self, tmp_path: Path) -> None:
        storage = tmp_path / "Library/Application Support/Code/User/globalStorage"
        task = storage / "kilocode.kilo-code/tasks/t1"
        task.mkdir(parents=True)
        shutil.copyfile(fixture(KILO), task / "api_conversation_history.json")
        assert [s.agent for s in find_sessions(tmp_path, environ={})] == ["kilo-code"]
