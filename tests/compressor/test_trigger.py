"""The ordered trigger decision (SPEC §8)."""

from __future__ import annotations

from compressor.trigger import decide, min_target_for, threshold_for


class TestThresholds:
    def test_threshold_is_truncated_and_at_least_one(self) -> None:
        assert threshold_for(1000, 0.8) == 800
        assert threshold_for(999, 0.5) == 499
        assert threshold_for(1, 0.1) == 1

    def test_min_target_may_be_zero(self) -> None:
        assert min_target_for(1000, 0.0) == 0
        assert min_target_for(1234, 0.1) == 123


class TestOrder:
    def test_below_threshold_wins_over_everything(self) -> None:
        decision = decide(799, 1000, 0.8, 0.1, None)
        assert (decision.hit, decision.reason, decision.target_tokens) == (False, "below_threshold", None)

    def test_then_an_empty_span(self) -> None:
        decision = decide(800, 1000, 0.8, 0.1, None)
        assert decision.reason == "no_compressible_span"
        assert "target_tokens" not in decision.record()

    def test_then_a_span_too_small(self) -> None:
        decision = decide(900, 1000, 0.8, 0.1, 99)
        assert decision.reason == "target_below_min"
        assert decision.record() == {
            "total_tokens": 900,
            "context_max": 1000,
            "threshold": 800,
            "hit": False,
            "reason": "target_below_min",
            "target_tokens": 99,
            "min_target_tokens": 100,
        }

    def test_else_it_fires(self) -> None:
        decision = decide(900, 1000, 0.8, 0.1, 100)
        assert decision.hit and decision.reason == "reached_threshold"
        assert decision.record()["target_tokens"] == 100
        assert "min_target_tokens" not in decision.record()

    def test_explanations_quote_the_numbers(self) -> None:
        assert "1,200" in decide(1200, 2000, 0.8, 0.1, 10).explain()
        assert "1,600" in decide(1700, 2000, 0.8, 0.1, 150).explain()
        assert "fires" in decide(1700, 2000, 0.8, 0.1, 500).explain()
