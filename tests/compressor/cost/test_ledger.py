"""The cache-aware ledger, checked by hand: one call, one compaction with its invalidated cache and payback, a run."""

from __future__ import annotations

import pytest

from compressor.cost import CallTokens, CompactionCost, Price, Weights, compaction_cost, price_call, run_cost

# Anthropic-shaped prices, per 1M tokens: $3 in, $0.30 cached, $3.75 cache write, $15 out.
PRICE = Price(model="made", input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)
USD = Weights.of(PRICE)
TOKENS = Weights.of(None)


class TestCalls:
    def test_split_caps_the_cached_part(self) -> None:
        call = CallTokens.split(input_tokens=1_000, cached_tokens=1_500, output_tokens=10)
        assert (call.cached, call.written, call.input, call.tokens) == (1_000, 0, 1_000, 1_010)

    def test_a_call_in_dollars_and_in_tokens(self) -> None:
        # 9,000 read at $0.30, 1,000 written at $3.75, 500 out at $15
        assert price_call(
            input_tokens=10_000, cached_tokens=9_000, output_tokens=500, price=PRICE
        ) == pytest.approx(0.0027 + 0.00375 + 0.0075)
        assert price_call(input_tokens=10_000, cached_tokens=9_000, output_tokens=500) == 10_500

    def test_calls_add_up(self) -> None:
        total = CallTokens(cached=1, written=2, output=3, calls=1).plus(
            CallTokens(cached=10, written=20, calls=2)
        )
        assert total == CallTokens(cached=11, written=22, output=3, calls=3)


def one_compaction(weights: Weights, horizon: int = 4, status: str = "compacted") -> CompactionCost:
    """At call 10 of 14: the previous call sent 9,000 tokens, this one would send 10,000; the compaction keeps a
    2,000-token prefix (tools, system, kept messages) and sends 3,000. Its request sends 9,500 tokens, 9,000 of them
    shared with the previous call, and returns a 500-token summary."""
    return compaction_cost(
        index=21,
        step=10,
        kind="summary",
        status=status,
        call=CallTokens.split(input_tokens=9_500, cached_tokens=9_000, output_tokens=500),
        tokens_before=9_990,
        tokens_after=2_990,
        window_before=10_000,
        window_after=3_000,
        previous_window=9_000,
        preserved_tokens=2_000,
        horizon_calls=horizon,
        weights=weights,
    )


class TestOneCompaction:
    def test_the_cache_it_throws_away_and_rewrites(self) -> None:
        line = one_compaction(USD)
        # the previous call left 9,000 cached; only the 2,000 preserved are still a prefix of the new window
        assert line.invalidated_tokens == 9_000 - 2_000
        # the memory block, recovered context and tail: the new window beyond the preserved prefix
        assert line.cache_write_tokens == 3_000 - 2_000
        assert line.cache_write_cost == pytest.approx(1_000 * 3.75e-6)

    def test_its_price_and_payback_in_dollars(self) -> None:
        line = one_compaction(USD)
        call = 9_000 * 0.3e-6 + 500 * 3.75e-6 + 500 * 15e-6  # $0.012075
        assert line.call_cost == pytest.approx(call)
        # next call: 2,000 read + 1,000 written with it, 9,000 read + 1,000 written without
        extra = (2_000 * 0.3e-6 + 1_000 * 3.75e-6) - (9_000 * 0.3e-6 + 1_000 * 3.75e-6)  # -$0.0021
        assert line.first_call_extra == pytest.approx(extra)
        # every later call reads 7,000 fewer cached tokens: $0.0021
        assert line.saving_per_call == pytest.approx(7_000 * 0.3e-6)
        # $0.009975 still owed after the first call: ceil(4.75) = 5 more calls, 6 in all
        assert line.cost == pytest.approx(call + extra)
        assert (line.payback_calls, line.horizon_calls, line.payback) == (6, 4, "never")
        assert one_compaction(USD, horizon=6).payback == "paid"

    def test_the_same_compaction_in_tokens(self) -> None:
        line = one_compaction(TOKENS)
        assert line.unit == "tokens"
        assert line.call_cost == 10_000
        assert line.first_call_extra == 3_000 - 10_000
        # 3,000 owed after the first call, 7,000 saved per call: one more call
        assert (line.payback_calls, line.payback) == (2, "paid")

    def test_a_refused_attempt_never_pays_back(self) -> None:
        line = one_compaction(USD, status="skipped")
        assert (line.invalidated_tokens, line.cache_write_tokens, line.first_call_extra) == (0, 0, 0)
        assert (line.payback_calls, line.payback) == (None, "never")

    def test_a_call_free_change_that_saves_at_once_pays_at_once(self) -> None:
        line = compaction_cost(
            index=5,
            step=2,
            kind="masking",
            status="compacted",
            call=CallTokens(),
            tokens_before=1_000,
            tokens_after=400,
            window_before=1_000,
            window_after=400,
            previous_window=600,
            preserved_tokens=300,
            horizon_calls=1,
            weights=TOKENS,
        )
        assert (line.payback_calls, line.payback) == (1, "paid")

    def test_to_dict_rounds_dollars_and_keeps_codes(self) -> None:
        written = one_compaction(USD).to_dict()
        assert written["payback"] == "never" and written["unit"] == "usd"
        assert written["call_cost"] == round(0.012075, 6)
        assert written["call"] == {
            "calls": 1,
            "input_tokens": 9_500,
            "cached_tokens": 9_000,
            "uncached_tokens": 500,
            "output_tokens": 500,
        }


class TestRun:
    def test_a_run_adds_the_agent_and_the_compaction_calls(self) -> None:
        agent = CallTokens(cached=90_000, written=10_000, calls=20)
        compaction = CallTokens(cached=8_000, written=2_000, output=1_000, calls=2)
        cost = run_cost(agent, compaction, USD)
        assert cost.cost == pytest.approx((98_000 * 0.3 + 12_000 * 3.75 + 1_000 * 15) / 1e6)
        assert cost.tokens == 111_000
        assert run_cost(agent, compaction, TOKENS).cost == 111_000
        assert cost.to_dict()["agent"]["uncached_tokens"] == 10_000
