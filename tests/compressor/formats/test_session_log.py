"""SessionLog: entries stay editable until the end, then every call is paired and compactions point at summaries."""

from __future__ import annotations

import pytest

from compressor.census import count_messages
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.session_log import SessionLog

HERE = Loc(line=1)


def call(call_id: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "name": "ls", "arguments": "{}"}],
    }


def result(call_id: str, text: str = "ok") -> dict[str, object]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


class TestPairing:
    def test_a_stand_in_follows_the_results_already_there(self) -> None:
        log = SessionLog(source_format="test")
        log.add({"role": "user", "content": "go"}, HERE)
        log.add(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "a", "name": "ls"}, {"id": "b", "name": "ls"}],
            },
            HERE,
        )
        log.add(result("a"), HERE)
        log.add({"role": "user", "content": "next"}, HERE)
        run = log.conversation("run", unanswered="aborted")
        assert [(m.role, m.tool_call_id, m.text) for m in run.messages] == [
            ("user", None, "go"),
            ("assistant", None, ""),
            ("tool", "a", "ok"),
            ("tool", "b", "aborted"),
            ("user", None, "next"),
        ]
        assert count_messages(run).unmatched_tool_calls == 0

    def test_results_without_a_call_and_second_results_are_left_out(self) -> None:
        log = SessionLog(source_format="test")
        log.add(result("zz"), HERE)
        log.add(call("a"), HERE)
        log.add(result("a"), HERE)
        log.add(result("a", "again"), HERE)
        run = log.conversation("run", unanswered="aborted")
        assert [m.text for m in run.messages] == ["", "ok"]
        assert run.readings[-1].detail == "tool results that answer no call ×2"

    def test_compaction_indices_follow_inserted_stand_ins(self) -> None:
        log = SessionLog(source_format="test")
        log.add({"role": "user", "content": "go"}, HERE)
        log.add(call("a"), HERE)
        log.compaction("summary", HERE, tokens_before=10, tokens_after=2)
        run = log.conversation("run", unanswered="aborted")
        (compaction,) = run.recorded_compactions
        assert compaction.index == 3 and run.messages[3].content == "summary" and run.messages[3].internal
        assert (compaction.tokens_before, compaction.tokens_after, compaction.source) == (10, 2, "test")


class TestUsage:
    def test_the_last_reported_window(self) -> None:
        log = SessionLog(source_format="test")
        log.add({"role": "assistant", "content": "a", "usage_metadata": {"total_tokens": 120}}, HERE)
        log.add({"role": "assistant", "content": "b", "usage_metadata": {"total_tokens": 0}}, HERE)
        assert log.last_reported_total() == 120
        assert log.last_assistant(since=1) is log.entries[1]


def test_an_empty_log_holds_no_messages() -> None:
    with pytest.raises(FormatProblem, match="holds no messages"):
        SessionLog(source_format="test").conversation("run", unanswered="aborted")
