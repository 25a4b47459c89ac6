"""One file, one answer: the shared default grid and summary model, ``tune()`` as the CLI prints it, and the
bundled demo run's recommendation — a setting at which compaction fires, the headroom kept, priced beside the
current setting."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import main
from compressor.config import CurrentRoundCompressorConfig
from compressor.formats import load_conversation
from compressor.replay import (
    BASELINES,
    DEFAULT_HEADROOM,
    DEFAULT_KEEPS,
    DEFAULT_RATIOS,
    DEFAULT_SUMMARY,
    grid_around,
    ratio_steps,
    simulate,
    tune,
)

DEMO = Path(__file__).resolve().parents[3] / "dashboard" / "samples" / "demo-conversation.json"


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


class TestTheSharedGrid:
    def test_the_defaults(self) -> None:
        assert DEFAULT_RATIOS == (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
        assert DEFAULT_KEEPS == (0, 2, 4, 8)
        assert (DEFAULT_SUMMARY, DEFAULT_HEADROOM) == ("ratio:0.1", 0.1)

    @pytest.mark.parametrize(
        ("low", "high", "step", "ratios"),
        [
            (0.5, 0.95, 0.05, DEFAULT_RATIOS),
            (0.6, 0.7, 0.05, (0.6, 0.65, 0.7)),
            (0.3, 0.36, 0.02, (0.3, 0.32, 0.34, 0.36)),
            (0.8, 0.5, 0.1, (0.8,)),
        ],
    )
    def test_ratio_steps(self, low: float, high: float, step: float, ratios: tuple[float, ...]) -> None:
        assert ratio_steps(low, high, step) == ratios

    def test_the_grid_always_holds_the_current_setting(self) -> None:
        assert grid_around((0.5, 0.9), (0, 4), 0.72, 3) == ((0.5, 0.72, 0.9), (0, 3, 4))
        assert grid_around((0.5, 0.9), (0, 4), 0.9, 0) == ((0.5, 0.9), (0, 4))


@pytest.fixture(scope="module")
def demo() -> Any:
    return tune(load_conversation(DEMO), context_max=16_000)


class TestTheDemoRun:
    def test_the_pick_compacts_and_keeps_the_headroom(self, demo: Any) -> None:
        recommendation = demo.recommendation
        chosen = recommendation.setting
        assert chosen is not None and chosen.compactions > 0
        assert chosen.peak_tokens <= (1 - DEFAULT_HEADROOM) * 16_000 and chosen.steps_over_capacity == 0
        assert "never_fires" not in recommendation.codes

    def test_its_price_is_beside_the_current_settings(self, demo: Any) -> None:
        recommendation = demo.recommendation
        assert demo.price.price is None and recommendation.unit == "tokens"  # the demo names no model
        assert recommendation.current is not None and recommendation.current.setting.key == (0.8, 0, 0.1)
        assert recommendation.pick is not None and recommendation.pick.cost < recommendation.current.cost
        values = dict(recommendation.reasons[recommendation.codes.index("versus_current_tokens")].values)
        assert (values["tokens"], values["current_tokens"]) == (
            recommendation.pick.tokens,
            recommendation.current.tokens,
        )
        assert recommendation.runner_up is not None

    def test_the_sweep_is_the_shared_grid_around_the_current_setting(self, demo: Any) -> None:
        assert demo.sweep.ratios == DEFAULT_RATIOS and demo.sweep.keeps == DEFAULT_KEEPS
        assert demo.sweep.summary == DEFAULT_SUMMARY

    def test_the_baselines_are_played_at_the_current_setting(self, demo: Any) -> None:
        assert tuple(b.strategy for b in demo.baselines) == BASELINES
        for baseline in demo.baselines:
            assert baseline.outcome.key == demo.simulation.outcome.key
            assert baseline.outcome.strategy == baseline.strategy
            assert baseline.assessment.ledger.unit == "tokens"
            alone = simulate(
                load_conversation(DEMO),
                context_max=16_000,
                summary=DEFAULT_SUMMARY,
                strategy=baseline.strategy,
            )
            assert baseline.outcome == alone.outcome and baseline.attempts == alone.events

    def test_priced_as_a_cached_model_the_pick_is_the_cheapest_in_dollars_and_says_so(self) -> None:
        priced = tune(load_conversation(DEMO), context_max=16_000, price_model="claude-sonnet-4-5")
        recommendation = priced.recommendation
        assert recommendation.unit == "usd" and recommendation.setting is not None
        assert {"cheapest_price", "versus_current_price"} <= set(recommendation.codes)
        pick, current, runner_up = recommendation.pick, recommendation.current, recommendation.runner_up
        assert pick is not None and current is not None and runner_up is not None
        assert pick.cost <= current.cost and pick.cost <= runner_up.cost
        # the demo run compacts mid-run and goes on: with the cache priced, one compaction still pays
        assert recommendation.setting.compactions == 1

    def test_the_cli_recommends_what_tune_does(self, demo: Any) -> None:
        code, out, err = run_cli("simulate", str(DEMO), "--context-max", "16000", "--json")
        assert code == 0, err
        document = json.loads(out)
        recommended = document["recommendation"]
        chosen = demo.recommendation.setting
        assert (recommended["trigger_context_ratio"], recommended["keep_recent_messages"]) == (
            chosen.trigger_context_ratio,
            chosen.keep_recent_messages,
        )
        assert recommended["pick"]["cost"] == demo.recommendation.pick.tokens
        assert recommended["current"]["cost"] == demo.recommendation.current.tokens
        assert document["price"] == {"price": None, "source": "none", "asked": None}
        assert document["current"]["ledger"] == demo.current.ledger.to_dict()
        assert [b["strategy"] for b in document["baselines"]] == list(BASELINES)


class TestTuningValues:
    def test_to_dict_carries_the_ledger_the_flags_and_the_baselines(self, demo: Any) -> None:
        written = demo.to_dict()
        assert {"price", "current", "settings", "steps", "recommendation", "baselines"} <= set(written)
        assert {"ledger", "loops"} <= set(written["current"])
        assert written["current"]["ledger"]["with_compaction"]["agent"]["cached_tokens"] > 0

    def test_a_config_and_a_price_model(self) -> None:
        config = CurrentRoundCompressorConfig(trigger_context_ratio=0.6, keep_recent_messages=2)
        tuned = tune(load_conversation(DEMO), config, context_max=16_000, price_model="gpt-5", baselines=())
        assert tuned.price.source == "price_model" and tuned.baselines == ()
        assert 0.6 in tuned.sweep.ratios and 2 in tuned.sweep.keeps
        assert tuned.recommendation.current is not None and tuned.recommendation.current.setting.key == (
            0.6,
            2,
            0.1,
        )
