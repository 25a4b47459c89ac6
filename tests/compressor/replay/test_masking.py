"""The baselines: observation masking and the hybrid, on a small run checked by hand, and as fast as they are exact."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.generate import conversation_dicts
from compressor.config import CurrentRoundCompressorConfig
from compressor.errors import ConfigError
from compressor.messages import Conversation, Message
from compressor.replay import MASK_PLACEHOLDER, simulate, sweep
from compressor.tokens import get_counter
from tests.conftest import FakeModel

# string_length: tokens = len("<|start|>" + role + "\n" + text + "<|end|>") // 3 (+ a call's JSON)
USER_100 = "u" * 279
RESULT_300 = "t" * 879  # (21 + 879) / 3


def call(number: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"c{number}",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": "ls"})},
        }
    ]


def small_run() -> Conversation:
    """user 100 · (assistant 58 calling bash · its result 300) × 3 · assistant 10."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": USER_100}]
    for number in (1, 2, 3):
        messages.append({"role": "assistant", "content": "a" * 20, "tool_calls": call(number)})
        messages.append({"role": "tool", "tool_call_id": f"c{number}", "content": RESULT_300})
    messages.append({"role": "assistant", "content": "done"})
    return Conversation.from_messages(messages, name="masking by hand")


def replay(strategy: str, summary: str = "fixed:30", keep_results: int = 1) -> Any:
    # context_max 2,000 at ratio 0.25: threshold 500; min target 0
    config = CurrentRoundCompressorConfig(trigger_context_ratio=0.25, min_target_context_ratio=0.0)
    return simulate(
        small_run(),
        config,
        context_max=2000,
        counter="string_length",
        summary=summary,
        strategy=strategy,
        keep_results=keep_results,
    )


class TestTheSmallRun:
    def test_its_sizes(self) -> None:
        counter = get_counter("string_length")
        assert [counter.message_tokens(m) for m in small_run().messages] == [
            100,
            58,
            300,
            58,
            300,
            58,
            300,
            10,
        ]
        # a masked result: (21 + 43 placeholder characters) // 3
        assert counter.message_tokens(Message(role="tool", content=MASK_PLACEHOLDER, tool_call_id="c1")) == 21


class TestMasking:
    """keep 1 result: at 819 ≥ 500 the first result is masked (300 → 21), at 898 the second one."""

    def test_each_call(self) -> None:
        run = replay("masking")
        table = [(s.index, s.context_tokens, s.sent_tokens, s.event, s.cached_tokens) for s in run.steps]
        assert table == [
            (1, 103, 103, "none", 0),
            (3, 461, 461, "none", 103),  # U + A1 + T1 + 3; reads the previous window
            # U A1 T1 A2 T2 = 819: T1 masked, 819 - 279 = 540; the cache keeps U + A1 = 158
            (5, 819, 540, "masked", 158),
            # 540 + A3 + T3 = 898: T2 masked, 619; the cache keeps U + A1 + T1' + A2 = 237
            (7, 898, 619, "masked", 237),
        ]

    def test_each_masking(self) -> None:
        run = replay("masking")
        assert [
            (e.kind, e.span, e.masked_results, e.compress_tokens, e.calls, e.request_tokens)
            for e in run.events
        ] == [
            ("masking", (2, 1, 1), 1, 300, 0, 0),
            ("masking", (4, 1, 1), 1, 300, 0, 0),
        ]
        assert [(e.previous_tokens, e.preserved_tokens, e.sent_tokens) for e in run.events] == [
            (461, 158, 540),
            (540, 237, 619),
        ]

    def test_totals(self) -> None:
        o = replay("masking").outcome
        assert (o.strategy, o.maskings, o.compactions, o.compaction_calls) == ("masking", 2, 0, 0)
        assert o.agent_input_tokens == 103 + 461 + 540 + 619
        assert o.agent_cached_tokens == 0 + 103 + 158 + 237
        assert o.peak_tokens == 619 and o.first_trigger_index == 5

    def test_keeping_every_result_masks_nothing(self) -> None:
        run = replay("masking", keep_results=3)
        assert run.events == () and [s.reason for s in run.steps][2:] == [
            "nothing_to_mask",
            "nothing_to_mask",
        ]
        assert run.outcome.agent_input_tokens == run.outcome.agent_input_tokens_uncompacted

    def test_keeping_none_masks_all_but_never_a_result_no_bigger_than_its_placeholder(self) -> None:
        run = replay("masking", keep_results=0)
        # at 819 both results go: 819 - 2 × 279 = 261
        assert [(s.index, s.sent_tokens) for s in run.steps][2:] == [(5, 261), (7, 261 + 58 + 21)]


class TestHybrid:
    """Masking first; at 540 the window is still ≥ 500, so the masked context is summarised as openJiuwen would."""

    def test_each_call(self) -> None:
        run = replay("hybrid")
        table = [(s.index, s.context_tokens, s.sent_tokens, s.event, s.cached_tokens) for s in run.steps]
        assert table == [
            (1, 103, 103, "none", 0),
            (3, 461, 461, "none", 103),
            # mask T1 (540), then compress A1 T1' A2 T2 (440) into a 188-token memory block: U + M = 291
            (5, 819, 291, "compacted", 100),
            # U M A3 T3 = 649: T3 is the one kept, nothing to mask; M A3 T3 (549) → M: 291
            (7, 649, 291, "compacted", 100),
        ]

    def test_each_attempt(self) -> None:
        run = replay("hybrid")
        assert [
            (e.kind, e.index, e.span, e.context_tokens, e.sent_tokens, e.compress_tokens) for e in run.events
        ] == [
            ("masking", 5, (2, 1, 1), 819, 540, 300),
            ("summary", 5, (1, 4, 0), 540, 291, 440),
            ("summary", 7, (1, 3, 0), 649, 291, 549),
        ]
        # the summary at call 5 sees the cache the masking left: U + A1
        assert run.events[1].previous_tokens == 158

    def test_totals(self) -> None:
        o = replay("hybrid").outcome
        assert (o.strategy, o.maskings, o.compactions, o.compaction_calls) == ("hybrid", 1, 2, 2)
        assert o.agent_input_tokens == 103 + 461 + 291 + 291
        assert o.agent_cached_tokens == 0 + 103 + 100 + 100
        assert o.compaction_output_tokens == 30 + 30

    def test_when_masking_is_enough_it_does_not_summarise(self) -> None:
        # threshold 560: at call 5 masking leaves 540 (enough); at call 7 it leaves 619 (not enough)
        config = CurrentRoundCompressorConfig(trigger_context_ratio=0.28, min_target_context_ratio=0.0)
        run = simulate(
            small_run(),
            config,
            context_max=2000,
            counter="string_length",
            summary="fixed:30",
            strategy="hybrid",
            keep_results=1,
        )
        assert [(s.index, s.event, s.sent_tokens) for s in run.steps][2:] == [
            (5, "masked", 540),
            (7, "compacted", 291),
        ]
        assert (run.outcome.maskings, run.outcome.compactions) == (2, 1)


class TestSweepsOfTheBaselines:
    @pytest.mark.parametrize("strategy", ["masking", "hybrid"])
    @pytest.mark.parametrize("summary", ["fixed:200", "ratio:0.1", "offline"])
    def test_every_setting_equals_its_simulation(self, strategy: str, summary: str) -> None:
        conversation = Conversation.from_messages(conversation_dicts(220, seed=3), name="generated")
        swept = sweep(
            conversation,
            ratios=(0.3, 0.6),
            keeps=(0, 3),
            min_targets=(0.02,),
            context_max=20_000,
            summary=summary,
            strategy=strategy,
            keep_results=4,
        )
        assert swept.strategy == strategy
        for outcome, attempts in zip(swept.outcomes, swept.attempts, strict=True):
            config = CurrentRoundCompressorConfig(
                trigger_context_ratio=outcome.trigger_context_ratio,
                keep_recent_messages=outcome.keep_recent_messages,
                min_target_context_ratio=0.02,
            )
            run = simulate(
                conversation, config, context_max=20_000, summary=summary, strategy=strategy, keep_results=4
            )
            assert outcome == run.outcome
            assert attempts == run.events
        assert any(outcome.maskings for outcome in swept.outcomes)


class TestRefusals:
    def test_an_unknown_strategy(self) -> None:
        with pytest.raises(ConfigError, match="strategy"):
            replay("summarise-everything")

    def test_a_negative_keep(self) -> None:
        with pytest.raises(ConfigError, match="keep_results"):
            replay("masking", keep_results=-1)

    def test_a_live_model(self) -> None:
        with pytest.raises(ConfigError, match="baseline"):
            simulate(small_run(), context_max=2000, summary=FakeModel([]), strategy="hybrid")
