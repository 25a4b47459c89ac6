"""A database Crush wrote itself (tests/fixtures/formats/crush/README.md names it and what was trimmed).

Pins how a real store reads: a reply that failed before sending anything is left out (and said so), a refused and a
cancelled call are answered by the errors Crush stored, parallel calls pair with their results, the model and the
session's counts come from the database.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compressor.formats import load_conversations
from compressor.messages import Conversation

DATABASE = (
    Path(__file__).resolve().parents[2] / "fixtures" / "formats" / "crush" / "dbos-transact-golang.crush.db"
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Conversation]:
    copy = tmp_path_factory.mktemp("crush") / "crush.db"  # read from a copy: the fixture stays as committed
    copy.write_bytes(DATABASE.read_bytes())
    return load_conversations(copy)


class TestTheRealSession:
    def test_the_failed_reply_is_left_out_so_two_requests_follow_each_other(
        self, runs: list[Conversation]
    ) -> None:
        first = runs[0]
        assert [m.role for m in first.messages[:3]] == ["user", "user", "assistant"]
        assert first.messages[1].content == "try again"
        skipped = {r.code: r.detail for r in first.readings}["events_skipped"]
        assert skipped == "assistant messages with nothing sent (cancelled or failed) ×1"

    def test_every_call_is_answered_in_order(self, runs: list[Conversation]) -> None:
        first = runs[0]
        calls = [call.id for m in first.messages for call in m.tool_calls or []]
        results = [m.tool_call_id for m in first.messages if m.role == "tool"]
        assert len(calls) == 14 and results == calls
        assert len(first.messages[2].tool_calls or []) == 10  # parallel calls, then their ten results

    def test_refused_and_cancelled_calls_carry_crushs_errors(self, runs: list[Conversation]) -> None:
        errors = [m.content for m in runs[0].messages if m.role == "tool" and m.model_extra.get("is_error")]
        assert len(errors) == 4 and all(e.startswith("File not found: ") for e in errors[:2])
        assert errors[2:] == ["Permission denied", "Tool execution canceled by user"]

    def test_counts_model_and_sessions_come_from_the_database(self, runs: list[Conversation]) -> None:
        first, second = runs
        assert [m.role for m in first.messages].count("user") == 3
        assert first.metadata["model"] == "gpt-5"
        assert first.metadata["session_usage"] == {"prompt_tokens": 127170, "completion_tokens": 64}
        assert [m.role for m in second.messages] == ["user", "assistant", "tool", "assistant"]
        assert second.metadata["title"] == "Instructions in CLI.md"
