"""The recommendation optimises what users pay: the cheapest setting that keeps the headroom, never overflows and
raises no loop flag, priced beside the current setting and the runner-up, with codes for the grid's edge and for
a compaction that never fires."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.generate import conversation_dicts
from compressor.cost import Price
from compressor.errors import ConfigError
from compressor.messages import Conversation
from compressor.replay import CompactionEvent, Outcome, Sweep, assess_sweep, recommend, sweep
from compressor.windows import Capacity

PRICE = Price(model="made", input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)


def outcome(
    ratio: float,
    keep: int = 0,
    *,
    peak: int = 600,
    compactions: int = 1,
    agent: int = 50_000,
    cached: int = 0,
    compaction: int = 1_000,
    output: int = 0,
    over: int = 0,
    min_target: float = 0.1,
) -> Outcome:
    return Outcome(
        trigger_context_ratio=ratio,
        keep_recent_messages=keep,
        min_target_context_ratio=min_target,
        context_max=1000,
        threshold=int(1000 * ratio),
        min_target_tokens=100,
        steps=10,
        first_trigger_index=3,
        compactions=compactions,
        refused=0,
        peak_tokens=peak,
        steps_over_capacity=over,
        compaction_calls=compactions,
        compaction_input_tokens=compaction,
        agent_input_tokens=agent,
        agent_input_tokens_uncompacted=60_000,
        agent_cached_tokens=cached,
        compaction_output_tokens=output,
    )


def attempt(index: int, step: int, before: int, after: int) -> CompactionEvent:
    return CompactionEvent(
        index=index,
        status="compacted",
        context_tokens=before,
        span=(1, 4, 0),
        compress_tokens=before // 2,
        summary_tokens=10,
        memory_tokens=20,
        reinjection_tokens=0,
        reinjected_files=(),
        request_tokens=500,
        calls=1,
        tokens_before=before,
        tokens_after=after,
        prefix_tokens=0,
        tail_tokens=0,
        step=step,
        sent_tokens=after,
    )


def made_sweep(
    *outcomes: Outcome, attempts: tuple[tuple[CompactionEvent, ...], ...] = (), steps: int = 10
) -> Sweep:
    return Sweep(
        ratios=tuple(sorted({o.trigger_context_ratio for o in outcomes})),
        keeps=tuple(sorted({o.keep_recent_messages for o in outcomes})),
        min_targets=(0.1,),
        outcomes=outcomes,
        capacity=Capacity(1000, "explicit"),
        counter="cl100k_base",
        summary="fixed:10",
        source="made",
        steps=steps,
        attempts=attempts,
    )


def reason(recommendation: Any, code: str) -> dict[str, int | float]:
    return dict(recommendation.reasons[recommendation.codes.index(code)].values)


class TestTheCheapestSetting:
    def test_in_tokens_when_no_price_is_known(self) -> None:
        chosen = recommend(
            made_sweep(
                outcome(0.5, agent=40_000, compaction=3_000, output=300),  # 43,300
                outcome(0.7, agent=45_000, compaction=1_000, output=100),  # 46,100
                outcome(0.9, peak=950, agent=30_000),  # cheapest, but no headroom
            )
        )
        assert (chosen.trigger_context_ratio, chosen.unit, chosen.qualifying) == (0.5, "tokens", 2)
        assert reason(chosen, "cheapest_tokens") == {
            "tokens": 43_300,
            "ratio": 0.5,
            "keep": 0,
            "min_target": 0.1,
        }
        assert chosen.pick is not None and chosen.pick.cost == 43_300

    def test_in_dollars_the_cache_decides(self) -> None:
        # B sends fewer tokens, A reads almost all of its input from the cache
        a = outcome(0.5, agent=100_000, cached=90_000, compaction=0, compactions=0)
        b = outcome(0.6, agent=90_000, cached=40_000, compaction=5_000)
        assert recommend(made_sweep(a, b)).trigger_context_ratio == 0.6
        chosen = recommend(made_sweep(a, b), price=PRICE)
        assert chosen.trigger_context_ratio == 0.5 and chosen.unit == "usd" and chosen.price == PRICE
        # 90,000 read at $0.30 and 10,000 written at $3.75 per million
        assert reason(chosen, "cheapest_price") == {
            "price": 0.0645,
            "price_tokens": 100_000,
            "ratio": 0.5,
            "keep": 0,
            "min_target": 0.1,
        }

    def test_a_setting_that_overflows_never_qualifies(self) -> None:
        chosen = recommend(
            made_sweep(outcome(0.5, agent=40_000, over=1), outcome(0.7, agent=45_000)), headroom=0.0
        )
        assert chosen.trigger_context_ratio == 0.7

    def test_a_setting_with_a_loop_flag_is_set_aside(self) -> None:
        looping = (attempt(4, 3, 900, 890), attempt(5, 4, 900, 890))  # low gain, again a call later
        chosen = recommend(
            made_sweep(
                outcome(0.5, agent=40_000),
                outcome(0.7, agent=45_000),
                attempts=(looping, ()),
            )
        )
        assert chosen.trigger_context_ratio == 0.7
        assert reason(chosen, "loop_flagged") == {"flagged": 1}

    def test_when_every_setting_loops_there_is_no_pick(self) -> None:
        looping = (attempt(4, 3, 900, 890),)
        chosen = recommend(made_sweep(outcome(0.5), outcome(0.7), attempts=(looping, looping)))
        assert chosen.setting is None
        assert chosen.codes == ("none_clean", "least_flagged")
        assert reason(chosen, "none_clean") == {"qualifying": 2, "flagged": 2}


class TestBesideTheCurrentSetting:
    def test_the_current_setting_and_what_the_pick_saves(self) -> None:
        chosen = recommend(
            made_sweep(outcome(0.5, agent=40_000), outcome(0.8, agent=47_000)), current=(0.8, 0, 0.1)
        )
        assert chosen.current is not None and chosen.current.tokens == 48_000
        assert reason(chosen, "versus_current_tokens") == {
            "current_tokens": 48_000,
            "tokens": 41_000,
            "saved": 7_000,
            "ratio": 0.8,
            "keep": 0,
            "min_target": 0.1,
        }

    def test_in_dollars(self) -> None:
        chosen = recommend(
            made_sweep(outcome(0.5, agent=40_000), outcome(0.8, agent=47_000)),
            current=(0.8, 0, 0.1),
            price=PRICE,
        )
        values = reason(chosen, "versus_current_price")
        assert values["current_price"] == pytest.approx(48_000 * 3.75e-6)
        assert values["saved"] == pytest.approx(7_000 * 3.75e-6)

    def test_a_cheaper_current_setting_that_does_not_qualify(self) -> None:
        chosen = recommend(
            made_sweep(outcome(0.5, agent=40_000), outcome(0.9, peak=950, agent=20_000)),
            current=(0.9, 0, 0.1),
        )
        assert reason(chosen, "current_cheaper_tokens")["difference"] == 20_000

    def test_the_pick_is_the_current_setting(self) -> None:
        chosen = recommend(
            made_sweep(outcome(0.5, agent=40_000), outcome(0.8, agent=47_000)), current=(0.5, 0, 0.1)
        )
        assert "is_current" in chosen.codes

    def test_a_current_setting_outside_the_grid_is_left_out(self) -> None:
        chosen = recommend(made_sweep(outcome(0.5), outcome(0.8)), current=(0.65, 0, 0.1))
        assert chosen.current is None and not {"is_current", "versus_current_tokens"} & set(chosen.codes)


class TestTheGridsEdges:
    def test_the_lowest_ratio_and_the_largest_keep(self) -> None:
        chosen = recommend(
            made_sweep(
                outcome(0.5, 8, agent=40_000),
                outcome(0.7, 8, agent=45_000),
                outcome(0.5, 0, agent=46_000),
            )
        )
        assert chosen.codes[-4:-2] == ("edge_ratio_low", "edge_keep_high")
        assert reason(chosen, "edge_ratio_low") == {"ratio": 0.5} and reason(chosen, "edge_keep_high") == {
            "keep": 8
        }

    def test_the_highest_ratio_and_the_smallest_keep_above_zero(self) -> None:
        chosen = recommend(made_sweep(outcome(0.8, 2, agent=40_000), outcome(0.6, 4, agent=45_000)))
        assert {"edge_ratio_high", "edge_keep_low"} <= set(chosen.codes)

    def test_inside_the_grid_or_a_single_value_is_no_edge(self) -> None:
        chosen = recommend(
            made_sweep(
                outcome(0.5, agent=46_000),
                outcome(0.6, agent=40_000),
                outcome(0.7, agent=45_000),
            )
        )
        assert chosen.trigger_context_ratio == 0.6
        assert not [code for code in chosen.codes if code.startswith("edge_")]


class TestNeverFires:
    def test_the_pick_costs_what_not_compacting_does_and_the_cheapest_firing_setting_is_given(self) -> None:
        chosen = recommend(
            made_sweep(
                outcome(0.5, agent=45_000, compaction=2_000),
                outcome(0.6, agent=46_000, compaction=1_000),
                outcome(0.9, peak=880, agent=44_000, compaction=0, compactions=0),
                outcome(0.95, peak=880, agent=44_000, compaction=0, compactions=0),
            )
        )
        # the two never-firing settings cost the same; the earlier trigger wins the tie
        assert chosen.trigger_context_ratio == 0.9
        assert reason(chosen, "tie_break")["tied"] == 2
        assert reason(chosen, "never_fires") == {"threshold": 900}
        assert not [code for code in chosen.codes if code.startswith("edge_")]  # nothing beyond it is cheaper
        assert reason(chosen, "cheapest_firing_tokens") == {
            "tokens": 47_000,
            "difference": 3_000,
            "ratio": 0.5,
            "keep": 0,
            "min_target": 0.1,
        }
        assert chosen.runner_up is not None and chosen.runner_up.setting.trigger_context_ratio == 0.5


class TestRunnerUp:
    def test_the_next_cheapest_at_a_different_cost(self) -> None:
        chosen = recommend(
            made_sweep(
                outcome(0.5, agent=40_000),
                outcome(0.6, agent=40_000),
                outcome(0.7, agent=42_500),
            )
        )
        assert chosen.trigger_context_ratio == 0.5
        assert reason(chosen, "runner_up_tokens") == {
            "tokens": 43_500,
            "difference": 2_500,
            "ratio": 0.7,
            "keep": 0,
            "min_target": 0.1,
        }

    def test_in_dollars(self) -> None:
        chosen = recommend(made_sweep(outcome(0.5, agent=40_000), outcome(0.7, agent=42_000)), price=PRICE)
        assert reason(chosen, "runner_up_price")["difference"] == pytest.approx(2_000 * 3.75e-6)

    def test_alone_there_is_none(self) -> None:
        chosen = recommend(made_sweep(outcome(0.5)))
        assert chosen.runner_up is None and "runner_up_tokens" not in chosen.codes


class TestNothingToPick:
    def test_nothing_qualifies(self) -> None:
        chosen = recommend(made_sweep(outcome(0.5, peak=1200), outcome(0.8, peak=1500)), headroom=0.2)
        assert chosen.setting is None and chosen.trigger_context_ratio is None
        assert chosen.codes == ("none_qualify", "lowest_peak", "only_after_request")
        assert reason(chosen, "none_qualify") == {"limit": 0.8, "limit_tokens": 800}
        assert chosen.to_dict()["setting"] is None and chosen.to_dict()["pick"] is None

    def test_a_run_without_model_calls(self) -> None:
        chosen = recommend(made_sweep(outcome(0.5, peak=0), steps=0))
        assert chosen.setting is None and chosen.codes == ("no_steps",)

    def test_headroom_out_of_range(self) -> None:
        with pytest.raises(ConfigError, match="headroom"):
            recommend(made_sweep(outcome(0.5, peak=10)), headroom=1.0)


class TestOnARealSweep:
    def test_the_pick_is_the_cheapest_clean_setting_that_keeps_the_headroom(self) -> None:
        conversation = Conversation.from_messages(conversation_dicts(400, seed=5), name="generated")
        swept = sweep(
            conversation,
            ratios=(0.5, 0.7, 0.9),
            keeps=(0, 2),
            min_targets=(0.0,),
            context_max=150_000,
            summary="ratio:0.1",
        )
        for price in (None, PRICE):
            chosen = recommend(swept, headroom=0.1, price=price)
            allowed = [
                a
                for a in assess_sweep(swept, price)
                if a.outcome.peak_tokens <= 0.9 * 150_000
                and a.loops.clean
                and not a.outcome.steps_over_capacity
            ]
            assert chosen.pick is not None and chosen.pick.cost == min(a.cost for a in allowed)
            written = chosen.to_dict()
            assert written["unit"] == ("usd" if price else "tokens")
            assert len(written["settings"]) == len(swept.outcomes)
            assert {"cost", "tokens", "flagged", "fires"} <= set(written["settings"][0])
