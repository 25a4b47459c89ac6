"""A replay in money: the price row a run is billed at, its ledger and loop flags, for one setting or a sweep's.

Invariant: every number comes from the replay's own values (``Outcome`` totals and ``CompactionEvent`` cache
fields) through ``compressor.cost``; a setting's assessment is the same whether it came from ``simulate`` or
``sweep``, because their outcomes and attempts are equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..cost import (
    CallTokens,
    CompactionCost,
    LoopReport,
    LoopRules,
    Price,
    RunCost,
    RunLedger,
    Weights,
    compaction_cost,
    detect_loops,
    find_price,
    price_table,
    run_cost,
)
from ..cost.ledger import rounded
from ..errors import ConfigError
from ..messages import Conversation
from .simulate import Simulation
from .sweep import Sweep
from .values import CompactionEvent, Outcome

PriceSource = Literal["price_model", "model", "run", "none"]


@dataclass(frozen=True, kw_only=True)
class PriceChoice:
    """The price row a run is billed at, and which name chose it (``none``: no name, or the run's is unknown)."""

    price: Price | None
    source: PriceSource
    asked: str | None  # the name looked up

    def to_dict(self) -> dict[str, Any]:
        return {
            "price": self.price.to_dict() if self.price is not None else None,
            "source": self.source,
            "asked": self.asked,
        }


def resolve_price(
    conversation: Conversation | None,
    *,
    price_model: str | None = None,
    model: str | None = None,
    prices: str | Path | None = None,
) -> PriceChoice:
    """``price_model`` (must be in the table), else the chosen ``model``, else the model the run's file names."""
    table = price_table(prices)
    if price_model:
        found = find_price(price_model, table)
        if found is None:
            known = ", ".join(sorted(table)[:8])
            raise ConfigError(f"--price-model: {price_model!r} is not in the price table (e.g. {known}, …)")
        return PriceChoice(price=found, source="price_model", asked=price_model)
    named = conversation.metadata.get("model") if conversation is not None else None
    run_model = named if isinstance(named, str) and named else None
    candidates: list[tuple[str | None, PriceSource]] = [(model, "model"), (run_model, "run")]
    for name, source in candidates:
        found = find_price(name, table)
        if name and found is not None:
            return PriceChoice(price=found, source=source, asked=name)
    return PriceChoice(price=None, source="none", asked=model or run_model)


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """One setting's bill (with and without compaction, each attempt's line) and its loop flags."""

    outcome: Outcome
    ledger: RunLedger
    loops: LoopReport

    @property
    def cost(self) -> float:
        return self.ledger.with_compaction.cost

    @property
    def tokens(self) -> int:
        return self.ledger.with_compaction.tokens

    @property
    def fires(self) -> bool:
        """Compaction (or masking) changed the context at least once with this setting."""
        return bool(self.outcome.compactions or self.outcome.maskings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "setting": _key(self.outcome),
            "ledger": self.ledger.to_dict(),
            "loops": self.loops.to_dict(),
        }

    def summary(self) -> dict[str, Any]:
        """The few numbers a grid cell shows: cost, tokens, flags."""
        unit = self.ledger.unit
        return {
            **_key(self.outcome),
            "cost": rounded(self.cost, unit),
            "unit": unit,
            "tokens": self.tokens,
            "flagged": self.loops.flagged,
            "storm": self.loops.storm is not None,
            "fires": self.fires,
        }


def _key(outcome: Outcome) -> dict[str, Any]:
    return {
        "strategy": outcome.strategy,
        "trigger_context_ratio": outcome.trigger_context_ratio,
        "keep_recent_messages": outcome.keep_recent_messages,
        "min_target_context_ratio": outcome.min_target_context_ratio,
    }


def compaction_lines(
    attempts: Sequence[CompactionEvent], steps: int, weights: Weights
) -> tuple[CompactionCost, ...]:
    """Each attempt's ledger line; its horizon runs to the next attempt at a later call, or the run's end."""
    lines: list[CompactionCost] = []
    for position, attempt in enumerate(attempts):
        later = next((a.step for a in attempts[position + 1 :] if a.step > attempt.step), steps)
        lines.append(
            compaction_cost(
                index=attempt.index,
                step=attempt.step,
                kind=attempt.kind,
                status=attempt.status,
                call=CallTokens.split(
                    input_tokens=attempt.request_tokens,
                    cached_tokens=attempt.request_cached_tokens,
                    output_tokens=attempt.output_tokens,
                    calls=attempt.calls,
                ),
                retries=attempt.retries,
                backoff_seconds=attempt.backoff_seconds,
                tokens_before=attempt.tokens_before,
                tokens_after=attempt.tokens_after,
                window_before=attempt.context_tokens,
                window_after=attempt.sent_tokens,
                previous_window=attempt.previous_tokens,
                preserved_tokens=attempt.preserved_tokens,
                horizon_calls=later - attempt.step,
                weights=weights,
            )
        )
    return tuple(lines)


def compacted_cost(outcome: Outcome, weights: Weights) -> RunCost:
    """The run's bill with this setting: the agent's calls and the compaction calls (a ledger's
    ``with_compaction``)."""
    agent = CallTokens.split(
        input_tokens=outcome.agent_input_tokens,
        cached_tokens=outcome.agent_cached_tokens,
        calls=outcome.steps,
    )
    compaction = CallTokens.split(
        input_tokens=outcome.compaction_input_tokens,
        cached_tokens=outcome.compaction_cached_tokens,
        output_tokens=outcome.compaction_output_tokens,
        calls=outcome.compaction_calls,
    )
    return run_cost(agent, compaction, weights)


def run_ledger(
    outcome: Outcome, attempts: Sequence[CompactionEvent], price: Price | None, *, lines: bool = True
) -> RunLedger:
    """The run with this setting and without compaction, in USD with a price, else in tokens; ``lines`` adds
    each attempt's ledger line (a sweep ranks settings by their totals and can leave them out)."""
    weights = Weights.of(price)
    uncompacted = CallTokens.split(
        input_tokens=outcome.agent_input_tokens_uncompacted,
        cached_tokens=outcome.agent_cached_tokens_uncompacted,
        calls=outcome.steps,
    )
    return RunLedger(
        price=price,
        with_compaction=compacted_cost(outcome, weights),
        without_compaction=run_cost(uncompacted, CallTokens(), weights),
        compactions=compaction_lines(attempts, outcome.steps, weights) if lines else (),
    )


def assess(
    outcome: Outcome,
    attempts: Sequence[CompactionEvent],
    price: Price | None,
    rules: LoopRules | None = None,
    *,
    lines: bool = True,
) -> Assessment:
    return Assessment(
        outcome=outcome,
        ledger=run_ledger(outcome, attempts, price, lines=lines),
        loops=detect_loops(attempts, outcome.threshold, rules),
    )


def assess_simulation(
    simulation: Simulation, price: Price | None, rules: LoopRules | None = None
) -> Assessment:
    return assess(simulation.outcome, simulation.events, price, rules)


def assess_sweep(
    swept: Sweep, price: Price | None, rules: LoopRules | None = None, *, lines: bool = False
) -> tuple[Assessment, ...]:
    """Every setting of a sweep, in the order of ``swept.outcomes`` (totals and flags; ``lines`` for each
    attempt's ledger line too)."""
    attempts = swept.attempts
    return tuple(
        assess(outcome, attempts[position] if position < len(attempts) else (), price, rules, lines=lines)
        for position, outcome in enumerate(swept.outcomes)
    )
