"""``tune()``: one run's whole tuning answer — the current setting replayed and priced, the default sweep, the
recommendation, and the baselines at the current setting — as the CLI prints it and the Tune page shows it.

Invariant: built only from ``simulate``, ``sweep``, ``recommend`` and ``costs`` with the shared defaults of
``grid``, so one file with one set of options gets one answer wherever it is asked.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import CurrentRoundCompressorConfig
from ..cost import LoopRules
from ..messages import Conversation
from ..reinjection import READ_FILE_TOOLS
from ..tokens import TokenCounter
from .costs import Assessment, PriceChoice, assess, assess_simulation, resolve_price
from .grid import DEFAULT_HEADROOM, DEFAULT_KEEPS, DEFAULT_RATIOS, DEFAULT_SUMMARY, grid_around
from .masking import MASK_KEEP_RESULTS
from .recommend import Recommendation, recommend
from .simulate import Simulation, simulate
from .strategies import BASELINES
from .sweep import Sweep, sweep
from .values import CompactionEvent, Outcome, SummaryModel


@dataclass(frozen=True, kw_only=True)
class Baseline:
    """A baseline strategy played at the current setting: its outcome, its attempts and its bill, beside openJiuwen's."""

    strategy: str
    keep_results: int
    outcome: Outcome
    attempts: tuple[CompactionEvent, ...]
    assessment: Assessment

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "keep_results": self.keep_results,
            "outcome": self.outcome.to_dict(),
            "ledger": self.assessment.ledger.to_dict(),
            "loops": self.assessment.loops.to_dict(),
        }


@dataclass(frozen=True, kw_only=True)
class Tuning:
    simulation: Simulation  # the current setting, step by step
    current: Assessment  # ... priced, with its loop flags
    sweep: Sweep
    recommendation: Recommendation
    price: PriceChoice
    baselines: tuple[Baseline, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "price": self.price.to_dict(),
            "current": {
                **self.simulation.to_dict(include_steps=False),
                "ledger": self.current.ledger.to_dict(),
                "loops": self.current.loops.to_dict(),
            },
            "settings": [outcome.to_dict() for outcome in self.sweep.outcomes],
            "steps": [step.to_dict() for step in self.simulation.steps],
            "recommendation": self.recommendation.to_dict(),
            "baselines": [baseline.to_dict() for baseline in self.baselines],
        }


def tune(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig | None = None,
    *,
    context_max: int | None = None,
    model: str | None = None,
    counter: str | TokenCounter = "cl100k_base",
    summary: str | SummaryModel = DEFAULT_SUMMARY,
    ratios: Sequence[float] = DEFAULT_RATIOS,
    keeps: Sequence[int] = DEFAULT_KEEPS,
    headroom: float = DEFAULT_HEADROOM,
    price_model: str | None = None,
    prices: str | Path | None = None,
    hidden_overhead: int = 0,
    read_tools: Collection[str] = READ_FILE_TOOLS,
    baselines: Sequence[str] = BASELINES,
    keep_results: int = MASK_KEEP_RESULTS,
    rules: LoopRules | None = None,
) -> Tuning:
    """Replay the current setting, sweep the grid around it, price both and recommend (see ``recommend``).

    The price row: ``price_model``, else ``model``, else the model the run's file names (``resolve_price``);
    none found: everything is counted in tokens.
    """
    config = config or CurrentRoundCompressorConfig()
    choice = resolve_price(conversation, price_model=price_model, model=model, prices=prices)
    options: dict[str, Any] = {
        "context_max": context_max,
        "model": model,
        "counter": counter,
        "summary": summary,
        "hidden_overhead": hidden_overhead,
        "read_tools": read_tools,
    }
    simulation = simulate(conversation, config, **options)
    grid_ratios, grid_keeps = grid_around(
        ratios, keeps, config.trigger_context_ratio, config.keep_recent_messages
    )
    swept = sweep(
        conversation,
        ratios=grid_ratios,
        keeps=grid_keeps,
        min_targets=[config.min_target_context_ratio],
        **options,
    )
    current_key = (config.trigger_context_ratio, config.keep_recent_messages, config.min_target_context_ratio)
    recommendation = recommend(swept, headroom=headroom, price=choice.price, current=current_key, rules=rules)
    played = tuple(
        _baseline(conversation, name, current_key, keep_results, choice, rules, options) for name in baselines
    )
    return Tuning(
        simulation=simulation,
        current=assess_simulation(simulation, choice.price, rules),
        sweep=swept,
        recommendation=recommendation,
        price=choice,
        baselines=played,
    )


def _baseline(
    conversation: Conversation,
    strategy: str,
    key: tuple[float, int, float],
    keep_results: int,
    choice: PriceChoice,
    rules: LoopRules | None,
    options: dict[str, Any],
) -> Baseline:
    """One baseline at the current setting, played as a one-setting sweep (no step records to build) and priced
    in totals and flags; ``assess(baseline.outcome, baseline.attempts, price)`` gives its lines too."""
    ratio, keep, min_target = key
    swept = sweep(
        conversation,
        ratios=[ratio],
        keeps=[keep],
        min_targets=[min_target],
        strategy=strategy,
        keep_results=keep_results,
        **options,
    )
    outcome, attempts = swept.outcomes[0], swept.attempts[0]
    return Baseline(
        strategy=strategy,
        keep_results=keep_results,
        outcome=outcome,
        attempts=attempts,
        assessment=assess(outcome, attempts, choice.price, rules, lines=False),
    )
