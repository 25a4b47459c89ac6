"""A window total taken apart: the parts add up to what the trigger reads, "% left" and "% until compaction"
are shares of the capacity, and a replayed call's window is its step's own numbers."""

from __future__ import annotations

import pytest

from compressor.analysis import analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.formats import load_conversation
from compressor.messages import Conversation
from compressor.replay import simulate
from compressor.window_parts import WindowBreakdown, of_analysis, of_step, run_peaks, share
from tests.conftest import REPO, SAMPLES

DEMO = REPO / "dashboard" / "samples" / "demo-conversation.json"
CLAUDE_CODE = SAMPLES / "transcripts" / "claude-code-session.jsonl"


def demo() -> Conversation:
    return load_conversation(DEMO)


def breakdown(conversation: Conversation, **settings: object) -> WindowBreakdown:
    config = CurrentRoundCompressorConfig().with_settings(**settings)
    return of_analysis(analyze(conversation, config, context_max=16_000))


class TestOfAnalysis:
    @pytest.mark.parametrize("settings", [{}, {"keep_recent_messages": 4}, {"trigger_context_ratio": 0.95}])
    def test_the_parts_add_up_to_the_window_total(self, settings: dict[str, object]) -> None:
        parts = breakdown(demo(), **settings)
        assert sum(tokens for _, tokens in parts.parts) == parts.total_tokens
        assert "drift" not in dict(parts.parts)  # a counted window has no drift

    def test_the_span_is_the_count_the_trigger_checks(self) -> None:
        analysis = analyze(demo(), CurrentRoundCompressorConfig(), context_max=16_000)
        parts = of_analysis(analysis)
        assert parts.part("span") == analysis.segment_tokens["compress"] == analysis.decision.target_tokens
        assert parts.part("tools") == analysis.profile.tools_tokens

    def test_left_and_until_compaction_are_shares_of_the_capacity(self) -> None:
        parts = breakdown(demo(), trigger_context_ratio=0.95)
        assert parts.free_tokens == 16_000 - parts.total_tokens
        assert parts.left_share == share(parts.free_tokens, 16_000)
        assert parts.until_compaction_tokens == 15_200 - parts.total_tokens
        assert parts.until_compaction_share == round((15_200 - parts.total_tokens) / 16_000, 4)

    def test_past_the_threshold_nothing_is_left_until_compaction(self) -> None:
        parts = breakdown(demo())
        assert parts.hit and parts.until_compaction_tokens == 0 and parts.until_compaction_share == 0.0

    def test_reported_usage_keeps_the_hidden_overhead_and_names_the_drift(self) -> None:
        conversation = load_conversation(CLAUDE_CODE)
        analysis = analyze(conversation, context_max=200_000)
        assert analysis.total_source == "usage"
        parts = of_analysis(analysis)
        assert parts.part("hidden") == analysis.hidden_overhead.tokens > 0
        assert sum(tokens for _, tokens in parts.parts) == analysis.total_tokens  # drift included, signed

    def test_a_window_over_capacity(self) -> None:
        parts = WindowBreakdown(
            parts=(("system", 10), ("span", 30)),
            total_tokens=40,
            total_source="counted",
            capacity=32,
            threshold=25,
            min_span=3,
            span_tokens=30,
            hit=True,
        )
        assert parts.over_tokens == 8 and parts.free_tokens == 0 and parts.left_share == 0.0


class TestOfStep:
    def test_a_call_is_its_steps_window(self) -> None:
        conversation = demo()
        analysis = analyze(conversation, CurrentRoundCompressorConfig(), context_max=16_000)
        run = simulate(conversation, CurrentRoundCompressorConfig(), context_max=16_000, summary="ratio:0.1")
        system, tools = sum(analysis.profile.system_tokens), analysis.profile.tools_tokens
        for step in run.steps:
            parts = of_step(step, capacity=16_000, min_span=1_600, system_tokens=system, tools_tokens=tools)
            assert parts.total_tokens == step.context_tokens
            assert sum(tokens for _, tokens in parts.parts) == step.context_tokens
            assert parts.has("span") == (step.compress_tokens is not None)

    def test_before_any_compaction_a_call_reads_what_analysis_of_its_messages_reads(self) -> None:
        conversation = demo()
        run = simulate(conversation, CurrentRoundCompressorConfig(), context_max=16_000, summary="ratio:0.1")
        first_compaction = run.events[0].index
        for step in run.steps:
            if step.index > first_compaction:
                break
            before = analyze(
                conversation.with_messages(conversation.messages[: step.index]), context_max=16_000
            )
            assert step.context_tokens == before.total_tokens  # the window on Span & trigger at that moment


class TestRunPeaks:
    def test_the_peak_read_is_the_thresholds_quantity(self) -> None:
        run = simulate(demo(), CurrentRoundCompressorConfig(), context_max=16_000, summary="ratio:0.1")
        peaks = run_peaks(run.steps, capacity=16_000, threshold=run.outcome.threshold)
        assert peaks.read_tokens == max(step.context_tokens for step in run.steps) >= run.outcome.threshold
        assert peaks.crossed and peaks.sent_tokens == run.outcome.peak_tokens < peaks.read_tokens

    def test_a_run_without_calls(self) -> None:
        peaks = run_peaks((), capacity=10, threshold=8)
        assert (peaks.read_tokens, peaks.read_index, peaks.crossed) == (0, None, False)
