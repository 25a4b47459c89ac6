"""A run's plays: the outcomes of the settings a fleet wants, each billed at the run's price with its loop flags,
and the run's untouched outcome.

Invariant: every outcome is ``replay.sweep``'s for its setting and every bill ``replay.assess``'s totals and
flags for it; the untouched outcome is one that made no attempt, so every setting making none has its numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from ..cost import LoopRules, Price, Weights, flagged_count
from ..messages import Conversation
from ..replay import CompactionEvent, Outcome, Sweep, compacted_cost, resolve_price, sweep
from .figures import Cell
from .values import Bill, FleetGrid, SettingKey

#: The untouched play: the highest trigger and min target a setting may have, so that nearly every run makes
#: no attempt there; a run that does gets no template (its settings are all played).
UNTOUCHED_SETTING = (0.99, 0, 0.95)


@dataclass(frozen=True)
class Played:
    """The outcomes of some settings of one run with their bills, and the run's untouched outcome."""

    outcomes: tuple[Outcome, ...]
    bills: tuple[Bill, ...]
    template: Outcome | None
    template_bill: Bill | None


def bill(outcome: Outcome, attempts: Sequence[CompactionEvent], price: Price | None) -> Bill:
    """``replay.assess``'s totals and loop flags for one setting (its ledger's with-compaction tokens and cost,
    its report's flagged attempts), without building the ledger lines and the report: every cell is billed."""
    return _billed(outcome, attempts, Weights.of(price), price is not None)


#: The loop rules ``assess`` flags with by default (one value, not one per cell).
_RULES = LoopRules()


def _billed(outcome: Outcome, attempts: Sequence[CompactionEvent], weights: Weights, priced: bool) -> Bill:
    paid = compacted_cost(outcome, weights)
    cost = paid.cost if priced else None
    if not attempts:  # no attempt: nothing flagged, nothing summarised
        return Bill(tokens=paid.tokens, cost=cost, flagged=0, span_tokens=0, summary_tokens=0)
    span = summary = 0
    for attempt in attempts:
        if attempt.status == "compacted":
            span += attempt.compress_tokens
            summary += attempt.summary_tokens
    return Bill(
        tokens=paid.tokens,
        cost=cost,
        flagged=flagged_count(attempts, outcome.threshold, _RULES),
        span_tokens=span,
        summary_tokens=summary,
    )


def billed_outcomes(
    swept: Sweep, settings: Sequence[SettingKey], price: Price | None
) -> tuple[tuple[Outcome, ...], tuple[Bill, ...]]:
    """The outcomes of ``settings`` from a sweep that played them, each with its bill at ``price``."""
    # a sweep's attempts are in the order of its outcomes (``Sweep.attempts_of`` would search for each)
    by_key = {o.key: (o, attempts) for o, attempts in zip(swept.outcomes, swept.attempts, strict=True)}
    weights, priced = Weights.of(price), price is not None
    # A bill reads the outcome's call numbers, its threshold and its attempts: settings that took one play
    # (``Player.play_grid``) hold the same attempts and numbers, so they are billed once.
    billed: dict[tuple[int, ...], Bill] = {}
    bills = []
    for setting in settings:
        outcome, attempts = by_key[setting]
        key = (id(attempts), outcome.threshold, *_BILLED_NUMBERS(outcome))
        found = billed.get(key)
        if found is None:
            found = billed[key] = _billed(outcome, attempts, weights, priced)
        bills.append(found)
    return tuple(by_key[setting][0] for setting in settings), tuple(bills)


#: The outcome's numbers ``_billed`` reads besides its threshold (``compacted_cost``'s).
_BILLED_NUMBERS = attrgetter(
    "steps",
    "agent_input_tokens",
    "agent_cached_tokens",
    "compaction_calls",
    "compaction_input_tokens",
    "compaction_cached_tokens",
    "compaction_output_tokens",
)


def play(
    conversation: Conversation,
    grid: FleetGrid,
    context_max: int,
    settings: Sequence[tuple[float, int, float]],
    *,
    template: bool,
) -> Played:
    """The outcomes of ``settings`` (the smallest grid holding them is played once), each priced at the run's
    price with its loop flags, and the untouched outcome: a setting of the grid that made no attempt, else the
    highest setting there is, played on its own."""
    price = resolve_price(conversation, price_model=grid.price_model, model=grid.model).price
    outcomes: tuple[Outcome, ...] = ()
    bills: tuple[Bill, ...] = ()
    untouched: Outcome | None = None
    if settings:
        swept = sweep(
            conversation,
            ratios=sorted({s[0] for s in settings}),
            keeps=sorted({s[1] for s in settings}),
            min_targets=sorted({s[2] for s in settings}),
            context_max=context_max,
            counter=grid.counter,
            summary=grid.summary,
        )
        outcomes, bills = billed_outcomes(swept, settings, price)
        untouched = next((o for o in swept.outcomes if untouched_outcome(o)), None)
    if template and untouched is None:
        ratio, keep, target = UNTOUCHED_SETTING
        found = sweep(
            conversation,
            ratios=[ratio],
            keeps=[keep],
            min_targets=[target],
            context_max=context_max,
            counter=grid.counter,
            summary="fixed:1",
        ).outcomes[0]
        untouched = found if untouched_outcome(found) else None
    if not template or untouched is None:
        return Played(outcomes, bills, None, None)
    return Played(outcomes, bills, untouched, bill(untouched, (), price))


def untouched_outcome(outcome: Outcome) -> bool:
    """No attempt at all (each one compacts or is refused): every setting that makes none has these numbers."""
    return not outcome.compactions and not outcome.refused


def cell(outcome: Outcome, bill: Bill) -> Cell:
    cost = bill.cost if bill.cost is not None else math.nan
    return (
        outcome.compactions,
        outcome.peak_tokens,
        outcome.steps_over_capacity,
        bill.tokens,
        cost,
        bill.flagged,
    )
