"""``run_facts``: what every analysis of a conversation reads, built once, kept on it, and the same numbers."""

from __future__ import annotations

from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.census import count_messages
from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation, RecordedCompaction
from compressor.overhead import hidden_overhead
from compressor.run_facts import counted_facts, message_counts, run_facts
from compressor.spans import call_reach, last_user_index
from compressor.tokens import get_counter


def run() -> Conversation:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "fix the build"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "name": "bash", "arguments": "{}"}]},
        {"role": "tool", "tool_call_id": "a", "content": "error: missing import " * 20},
        {"role": "user", "content": "<system-reminder>internal</system-reminder>"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "b", "name": "bash", "arguments": "{}"}]},
        {"role": "tool", "tool_call_id": "b", "content": "ok"},
        {"role": "tool", "tool_call_id": "nobody", "content": "stray"},
        {"role": "assistant", "content": "done", "usage_metadata": {"total_tokens": 900}},
        {"role": "user", "content": "thanks"},
    ]
    summary = RecordedCompaction(
        index=2, source="claude-code", summary="the build was fixed", tokens_before=5
    )
    return Conversation.from_messages(messages, recorded_compactions=[summary])


class TestRunFacts:
    def test_the_facts_are_the_messages_read_directly(self) -> None:
        conversation = run()
        facts = run_facts(conversation)
        messages = conversation.messages
        assert facts.roles == tuple(m.role for m in messages)
        assert list(map(bool, facts.internal)) == [m.is_internal for m in messages] and any(facts.internal)
        assert facts.last_user_index == last_user_index(messages) == len(messages) - 1
        assert facts.reach == call_reach(messages)
        assert message_counts(conversation) == count_messages(conversation)

    def test_built_once_and_kept_on_the_conversation(self) -> None:
        conversation = run()
        assert run_facts(conversation) is run_facts(conversation)
        assert message_counts(conversation) is message_counts(conversation)
        counter = get_counter("cl100k_base")
        assert counted_facts(conversation, counter) is counted_facts(conversation, counter)

    def test_a_copy_with_other_messages_starts_without_them(self) -> None:
        conversation = run()
        facts = run_facts(conversation)
        shorter = conversation.with_messages(conversation.messages[:3])
        assert run_facts(shorter) is not facts and run_facts(shorter).roles == facts.roles[:3]
        copied = conversation.model_copy(update={"messages": conversation.messages[:2]})
        assert len(run_facts(copied).roles) == 2

    @pytest.mark.parametrize("name", ["cl100k_base", "string_length"])
    def test_counted_facts_are_the_counter_s_own_numbers(self, name: str) -> None:
        conversation, counter = run(), get_counter(name)
        counted = counted_facts(conversation, counter)
        assert counted.hidden_overhead == hidden_overhead(conversation, counter)
        assert counted.hidden_overhead.at_index == 7
        assert counted.summary_tokens == (counter.tok("the build was fixed"),)


class TestReanalysis:
    @pytest.mark.parametrize("keep", [0, 1, 2, 4, 20])
    def test_rows_and_dicts_are_the_per_message_view(self, keep: int) -> None:
        analysis = analyze(run(), CurrentRoundCompressorConfig(keep_recent_messages=keep), context_max=2_000)
        rows = analysis.per_message
        assert [row.segment for row in rows] == [analysis.span.segment_of(i) for i in range(len(rows))]
        assert analysis.to_dict()["per_message"] == [row.to_dict() for row in rows]
        assert analysis.message_dicts(2, 5) == [row.to_dict() for row in rows[2:5]]

    def test_a_settings_change_reads_the_same_facts(self) -> None:
        conversation = run()
        first = analyze(conversation, CurrentRoundCompressorConfig(keep_recent_messages=1), context_max=2_000)
        again = analyze(conversation, CurrentRoundCompressorConfig(keep_recent_messages=3), context_max=2_000)
        assert again.facts is first.facts
        assert (
            first.to_dict()["counts"] == again.to_dict()["counts"] == count_messages(conversation).to_dict()
        )
        recorded = again.to_dict()["recorded_compactions"]
        assert recorded == [
            {
                "index": 1,
                "source": "claude-code",
                "summary_tokens": get_counter("cl100k_base").tok("the build was fixed"),
                "tokens_before": 5,
                "tokens_after": None,
            }
        ]
