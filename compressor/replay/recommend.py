"""``recommend()``: the setting of a sweep that costs the user least, with the reasons as codes and numbers.

Invariant: the pick is the cheapest setting (USD with a price, else tokens) that keeps the headroom at every
call, never overflows and raises no loop flag; ties go in a fixed order; the library says *why* as ``Reason``
codes with their numbers (the pick's cost beside the current setting's and the runner-up's), and every
renderer words the same codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..cost import LoopRules, Price, Unit
from ..cost.ledger import rounded
from ..errors import ConfigError
from .costs import Assessment, assess_sweep
from .sweep import Sweep
from .values import Outcome

ReasonCode = Literal[
    "no_steps",  # the run has no model call: nothing to simulate
    "none_qualify",  # no setting keeps the headroom (limit, limit_tokens)
    "lowest_peak",  # the lowest peak of the grid and its setting
    "only_after_request",  # what can be tried when none qualifies
    "none_clean",  # settings keep the headroom, but every one raises a loop flag (qualifying, flagged)
    "least_flagged",  # ... the one with the fewest flagged attempts (flagged, ratio, keep, min_target)
    "qualifying",  # how many settings keep the headroom (qualifying, considered, limit, limit_tokens)
    "loop_flagged",  # of those, how many were set aside for loop flags (flagged)
    "cheapest_price",  # the pick costs the least: price (USD) and tokens, with its setting
    "cheapest_tokens",  # the same without a price: tokens
    "tie_break",  # several settings cost exactly as much: how the pick won (tied, ratio, keep, min_target)
    "is_current",  # the pick is the current setting
    "versus_current_price",  # the current setting's price beside the pick's (current_price, price, saved, …)
    "versus_current_tokens",  # the same in tokens
    "current_cheaper_price",  # the current setting costs less but does not qualify (current_price, difference, …)
    "current_cheaper_tokens",  # the same in tokens
    "compaction_cost",  # the pick's compactions and what they send (compactions, compaction_input_tokens)
    "never_fires",  # with the pick, compaction never fires on this run: it costs what not compacting does (threshold)
    "edge_ratio_low",  # the pick is the lowest ratio of the grid: a lower one might cost less (ratio)
    "edge_ratio_high",  # ... the highest ratio (ratio)
    "edge_keep_high",  # ... the largest keep (keep)
    "edge_keep_low",  # ... the smallest keep, when that is above 0 (keep)
    "runner_up_price",  # the next cheapest setting and how much more it costs (price, difference, …)
    "runner_up_tokens",  # the same in tokens
    "cheapest_firing_price",  # the pick never fires: the cheapest setting that does, and what it costs more
    "cheapest_firing_tokens",  # the same in tokens
    "peak",  # the pick's peak and the agent's input with and without compaction
]


@dataclass(frozen=True)
class Reason:
    """One reason for the choice: a code and the numbers a renderer needs to word it."""

    code: ReasonCode
    values: dict[str, int | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, **self.values}


@dataclass(frozen=True, kw_only=True)
class Pick:
    """A setting of the sweep with what it costs over the run."""

    setting: Outcome
    cost: float  # USD with a price, else tokens
    tokens: int
    unit: Unit

    def to_dict(self) -> dict[str, Any]:
        return {
            "trigger_context_ratio": self.setting.trigger_context_ratio,
            "keep_recent_messages": self.setting.keep_recent_messages,
            "min_target_context_ratio": self.setting.min_target_context_ratio,
            "cost": rounded(self.cost, self.unit),
            "unit": self.unit,
            "tokens": self.tokens,
            "compactions": self.setting.compactions,
        }


@dataclass(frozen=True, kw_only=True)
class Recommendation:
    """The setting to use (None when none qualifies), beside the current setting and the runner-up, and why."""

    headroom: float
    setting: Outcome | None
    reasons: tuple[Reason, ...]
    qualifying: int
    considered: int
    unit: Unit = "tokens"
    price: Price | None = None
    pick: Pick | None = None
    current: Pick | None = None
    runner_up: Pick | None = None
    #: every setting's bill and loop flags, in the order of the sweep's outcomes
    assessments: tuple[Assessment, ...] = field(default=(), repr=False, compare=False)

    @property
    def trigger_context_ratio(self) -> float | None:
        return self.setting.trigger_context_ratio if self.setting else None

    @property
    def keep_recent_messages(self) -> int | None:
        return self.setting.keep_recent_messages if self.setting else None

    @property
    def min_target_context_ratio(self) -> float | None:
        return self.setting.min_target_context_ratio if self.setting else None

    @property
    def codes(self) -> tuple[ReasonCode, ...]:
        return tuple(reason.code for reason in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "headroom": self.headroom,
            "trigger_context_ratio": self.trigger_context_ratio,
            "keep_recent_messages": self.keep_recent_messages,
            "min_target_context_ratio": self.min_target_context_ratio,
            "setting": self.setting.to_dict() if self.setting else None,
            "reasons": [reason.to_dict() for reason in self.reasons],
            "qualifying": self.qualifying,
            "considered": self.considered,
            "unit": self.unit,
            "price": self.price.to_dict() if self.price is not None else None,
            "pick": self.pick.to_dict() if self.pick else None,
            "current": self.current.to_dict() if self.current else None,
            "runner_up": self.runner_up.to_dict() if self.runner_up else None,
            "settings": [assessment.summary() for assessment in self.assessments],
        }


def _setting(outcome: Outcome) -> dict[str, int | float]:
    return {
        "ratio": outcome.trigger_context_ratio,
        "keep": outcome.keep_recent_messages,
        "min_target": outcome.min_target_context_ratio,
    }


def _pick(assessment: Assessment) -> Pick:
    return Pick(
        setting=assessment.outcome,
        cost=assessment.cost,
        tokens=assessment.tokens,
        unit=assessment.ledger.unit,
    )


def _order(assessment: Assessment) -> tuple[float, int, int, float, int, float]:
    """Cheapest first; among equal bills the fewest compactions, then the earliest trigger (the same bill on this
    run, and the most room left on a run that grows faster), then the smaller keep and min target."""
    o = assessment.outcome
    return (
        assessment.cost,
        assessment.tokens,
        o.compactions + o.maskings,
        o.trigger_context_ratio,
        o.keep_recent_messages,
        o.min_target_context_ratio,
    )


def _cost(pick: Pick, name: str) -> dict[str, int | float]:
    """The pick's cost under ``name`` (price or tokens) and its tokens."""
    if pick.unit == "usd":
        return {name: round(pick.cost, 6), f"{name}_tokens": pick.tokens}
    return {name: pick.tokens}


#: The codes that differ by unit: (with a price, in tokens).
_BY_UNIT: dict[str, tuple[ReasonCode, ReasonCode]] = {
    "cheapest": ("cheapest_price", "cheapest_tokens"),
    "versus_current": ("versus_current_price", "versus_current_tokens"),
    "current_cheaper": ("current_cheaper_price", "current_cheaper_tokens"),
    "runner_up": ("runner_up_price", "runner_up_tokens"),
    "cheapest_firing": ("cheapest_firing_price", "cheapest_firing_tokens"),
}


def _code(name: str, unit: Unit) -> ReasonCode:
    return _BY_UNIT[name][0 if unit == "usd" else 1]


def recommend(
    swept: Sweep,
    *,
    headroom: float = 0.1,
    price: Price | None = None,
    current: tuple[float, int, float] | None = None,
    rules: LoopRules | None = None,
) -> Recommendation:
    """The cheapest setting of ``swept`` whose peak stays at or below ``1 - headroom`` of context_max, that never
    overflows and raises no loop flag (``compressor.cost.loops``): priced with ``price`` (USD per the cache
    model of ``compressor.cost.ledger``), else in tokens. ``current`` names the current setting's key
    ``(ratio, keep, min_target)`` so its cost is given beside the pick's.

    The runner-up is the cheapest other setting that costs more than the pick; when compaction never fires with
    the pick, it is the cheapest setting at which it does.
    """
    if not 0.0 <= headroom < 1.0:
        raise ConfigError(f"headroom: {headroom:g} must be a share of context_max, 0 ≤ h < 1")
    outcomes = swept.outcomes
    limit = 1.0 - headroom
    bound = {"limit": limit, "limit_tokens": int(swept.context_max * limit)}
    unit: Unit = "usd" if price is not None else "tokens"
    if swept.steps == 0:
        return Recommendation(
            headroom=headroom,
            setting=None,
            reasons=(Reason("no_steps"),),
            qualifying=0,
            considered=len(outcomes),
            unit=unit,
            price=price,
        )
    assessments = assess_sweep(swept, price, rules)
    by_key = {a.outcome.key: a for a in assessments}
    now = _pick(by_key[current]) if current is not None and current in by_key else None
    roomy = [
        a
        for a in assessments
        if a.outcome.peak_tokens <= swept.context_max * limit and a.outcome.steps_over_capacity == 0
    ]

    def result(
        reasons: list[Reason], pick: Assessment | None = None, runner: Assessment | None = None
    ) -> Recommendation:
        return Recommendation(
            headroom=headroom,
            setting=pick.outcome if pick else None,
            reasons=tuple(reasons),
            qualifying=len(roomy),
            considered=len(outcomes),
            unit=unit,
            price=price,
            pick=_pick(pick) if pick else None,
            current=now,
            runner_up=_pick(runner) if runner else None,
            assessments=assessments,
        )

    if not roomy:
        lowest = min(outcomes, key=lambda o: (o.peak_tokens, o.compactions, o.compaction_input_tokens))
        return result(
            [
                Reason("none_qualify", bound),
                Reason(
                    "lowest_peak",
                    {
                        "peak_tokens": lowest.peak_tokens,
                        "peak_utilisation": lowest.peak_utilisation,
                        **_setting(lowest),
                    },
                ),
                Reason("only_after_request"),
            ]
        )
    clean = sorted((a for a in roomy if a.loops.clean), key=_order)
    flagged = len(roomy) - len(clean)
    if not clean:
        least = min(roomy, key=lambda a: (a.loops.flagged, *_order(a)))
        return result(
            [
                Reason("none_clean", {"qualifying": len(roomy), "flagged": flagged}),
                Reason("least_flagged", {"flagged": least.loops.flagged, **_setting(least.outcome)}),
            ]
        )
    best = clean[0]
    chosen, pick = best.outcome, _pick(best)
    name = "price" if unit == "usd" else "tokens"
    reasons = [Reason("qualifying", {"qualifying": len(roomy), "considered": len(outcomes), **bound})]
    if flagged:
        reasons.append(Reason("loop_flagged", {"flagged": flagged}))
    reasons.append(Reason(_code("cheapest", unit), {**_cost(pick, name), **_setting(chosen)}))
    tied = [a for a in clean if (a.cost, a.tokens) == (best.cost, best.tokens)]
    if len(tied) > 1:
        reasons.append(Reason("tie_break", {"tied": len(tied), **_setting(chosen)}))
    reasons.extend(_versus_current(pick, now))
    if chosen.compactions:
        reasons.append(
            Reason(
                "compaction_cost",
                {
                    "compactions": chosen.compactions,
                    "compaction_input_tokens": chosen.compaction_input_tokens,
                },
            )
        )
    if best.fires:
        reasons.extend(_edges(swept, chosen))
        runner = next((a for a in clean[1:] if (a.cost, a.tokens) != (best.cost, best.tokens)), None)
        code = _code("runner_up", unit)
    else:
        reasons.append(Reason("never_fires", {"threshold": chosen.threshold}))
        runner = next((a for a in clean[1:] if a.fires), None)
        code = _code("cheapest_firing", unit)
    if runner is not None:
        other = _pick(runner)
        difference = other.cost - pick.cost
        reasons.append(
            Reason(
                code,
                {
                    **_cost(other, name),
                    "difference": round(difference, 6) if unit == "usd" else round(difference),
                    **_setting(runner.outcome),
                },
            )
        )
    reasons.append(
        Reason(
            "peak",
            {
                "peak_tokens": chosen.peak_tokens,
                "peak_utilisation": chosen.peak_utilisation,
                "agent_input_tokens": chosen.agent_input_tokens,
                "agent_input_tokens_uncompacted": chosen.agent_input_tokens_uncompacted,
            },
        )
    )
    return result(reasons, best, runner)


def _versus_current(pick: Pick, now: Pick | None) -> list[Reason]:
    """The current setting's cost beside the pick's; cheaper only when it does not qualify."""
    if now is None:
        return []
    if now.setting.key == pick.setting.key:
        return [Reason("is_current")]
    usd = pick.unit == "usd"
    name = "current_price" if usd else "current_tokens"
    current: dict[str, int | float] = {
        name: round(now.cost, 6) if usd else now.tokens,
        **_setting(now.setting),
    }
    if now.cost < pick.cost:
        difference = pick.cost - now.cost
        return [
            Reason(
                _code("current_cheaper", pick.unit),
                {
                    **current,
                    "difference": round(difference, 6) if usd else round(difference),
                },
            )
        ]
    mine = {"price": round(pick.cost, 6)} if usd else {"tokens": pick.tokens}
    saved = round(now.cost - pick.cost, 6) if usd else now.tokens - pick.tokens
    return [Reason(_code("versus_current", pick.unit), {**current, **mine, "saved": saved})]


def _edges(swept: Sweep, chosen: Outcome) -> list[Reason]:
    """Where the pick sits on the edge of the grid, so a setting beyond it might cost less."""
    edges: list[Reason] = []
    ratios, keeps = swept.ratios, swept.keeps
    if len(ratios) > 1 and chosen.trigger_context_ratio == ratios[0]:
        edges.append(Reason("edge_ratio_low", {"ratio": chosen.trigger_context_ratio}))
    elif len(ratios) > 1 and chosen.trigger_context_ratio == ratios[-1]:
        edges.append(Reason("edge_ratio_high", {"ratio": chosen.trigger_context_ratio}))
    if len(keeps) > 1 and chosen.keep_recent_messages == keeps[-1]:
        edges.append(Reason("edge_keep_high", {"keep": chosen.keep_recent_messages}))
    elif len(keeps) > 1 and chosen.keep_recent_messages == keeps[0] and keeps[0] > 0:
        edges.append(Reason("edge_keep_low", {"keep": chosen.keep_recent_messages}))
    return edges
