"""On the bundled Claude Code session, a simulated compaction keeps the agent's hidden system prompt and tool
definitions in every later window (issue 10: windows that include what the file does not show)."""

from __future__ import annotations

from compressor.config import CurrentRoundCompressorConfig
from compressor.formats import load_conversation
from compressor.overhead import hidden_overhead
from compressor.replay import simulate
from tests.conftest import TRANSCRIPTS, fixture


def test_the_window_after_a_simulated_compaction_still_carries_the_hidden_overhead() -> None:
    run = load_conversation(fixture(TRANSCRIPTS / "claude-code-session.jsonl"))
    overhead = hidden_overhead(run, "cl100k_base").tokens
    assert overhead == 18_357
    config = CurrentRoundCompressorConfig(trigger_context_ratio=0.6)
    carried = simulate(run, config, context_max=40_000, summary="ratio:0.1", hidden_overhead=overhead)
    dropped = simulate(run, config, context_max=40_000, summary="ratio:0.1")

    first = carried.events[0]
    assert (first.index, first.status, first.tokens_before, first.tokens_after) == (
        25,
        "compacted",
        5_923,
        780,
    )
    at = next(step for step in carried.steps if step.index == first.index)
    # the trigger read the reported usage (it holds the overhead); the window sent after compacting adds it back
    assert (at.context_tokens, at.total_source, at.sent_tokens) == (24_472, "usage", 780 + overhead)
    after = next(step for step in carried.steps if step.index > first.index)
    without = next(step for step in dropped.steps if step.index == after.index)
    assert (after.index, after.total_source, after.hidden_tokens) == (27, "counted", overhead)
    assert after.context_tokens == without.context_tokens + overhead == 1_994 + overhead
    # carrying it, the run compacts three times instead of once: the savings are not overstated
    assert [e.index for e in carried.events if e.status == "compacted"] == [25, 39, 67]
    assert [e.index for e in dropped.events if e.status == "compacted"] == [25]
