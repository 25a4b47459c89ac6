"""Each setting's figures over a fleet and the fleet recommendation: the cheapest setting that keeps the
headroom on at least a chosen share of the runs, and the runs it hurts most, each with its reasons.

Invariant: pure arithmetic on a compact table of four numbers per run and setting (``OutcomeTable``), so a
fleet of thousands of runs and a hundred settings fits in a few MB; percentiles are nearest-rank (every
figure is one run's); ties go in a fixed order (fewer tokens, higher ratio, smaller keep, lower min target).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from ..replay import Outcome
from .values import (
    FleetReason,
    FleetRecommendation,
    Hurt,
    HurtRun,
    RunRow,
    SettingFigures,
    SettingKey,
    Spread,
)

#: The runs a recommendation lists as hurt, worst first.
HURT_LIMIT = 10


def nearest_rank(values: Sequence[float], share: float) -> float:
    """The smallest value with at least ``share`` of the values at or below it (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(math.ceil(share * len(ordered)) - 1, 0)]


def spread(values: Sequence[float]) -> Spread:
    return Spread(p50=nearest_rank(values, 0.5), p95=nearest_rank(values, 0.95), max=max(values, default=0.0))


@dataclass
class OutcomeTable:
    """Four numbers per run and setting, run-major: compactions, peak tokens, calls over capacity, tokens sent."""

    settings: tuple[SettingKey, ...]
    capacities: array[int]  # per run: context_max
    compactions: array[int]
    peaks: array[int]
    over: array[int]
    tokens: array[int]

    @classmethod
    def empty(cls, settings: tuple[SettingKey, ...]) -> OutcomeTable:
        return cls(settings, array("q"), array("q"), array("q"), array("q"), array("q"))

    def add_run(self, context_max: int, outcomes: Sequence[Outcome]) -> None:
        self.capacities.append(context_max)
        for outcome in outcomes:
            self.compactions.append(outcome.compactions)
            self.peaks.append(outcome.peak_tokens)
            self.over.append(outcome.steps_over_capacity)
            self.tokens.append(outcome.agent_input_tokens + outcome.compaction_input_tokens)

    @property
    def runs(self) -> int:
        return len(self.capacities)

    def column(self, values: array[int], setting: int) -> list[int]:
        width = len(self.settings)
        return list(values[setting::width])

    def keeps_headroom(self, run: int, setting: int, headroom: float) -> bool:
        at = run * len(self.settings) + setting
        return self.over[at] == 0 and self.peaks[at] <= self.capacities[run] * (1.0 - headroom)


def setting_figures(table: OutcomeTable, headroom: float) -> tuple[SettingFigures, ...]:
    rows = []
    for position, setting in enumerate(table.settings):
        compactions = table.column(table.compactions, position)
        peaks = table.column(table.peaks, position)
        over = table.column(table.over, position)
        tokens = sum(table.column(table.tokens, position))
        utilisation = [peak / capacity for peak, capacity in zip(peaks, table.capacities, strict=True)]
        keeping = sum(1 for run in range(table.runs) if table.keeps_headroom(run, position, headroom))
        rows.append(
            SettingFigures(
                setting=setting,
                runs=table.runs,
                compacting=sum(1 for c in compactions if c > 0),
                compactions=spread(compactions),
                peak_utilisation=spread(utilisation),
                overflowing=sum(1 for o in over if o > 0),
                keeping_headroom=keeping,
                tokens=tokens,
                cost=float(tokens),
            )
        )
    return tuple(rows)


def _order(figures: SettingFigures) -> tuple[float, float, int, float]:
    ratio, keep, target = figures.setting
    return (figures.cost, -ratio, keep, target)


def recommend_fleet(
    table: OutcomeTable,
    runs: Sequence[RunRow],
    figures: Sequence[SettingFigures],
    *,
    headroom: float,
    share: float,
) -> FleetRecommendation:
    """The cheapest setting keeping the headroom on at least ``share`` of the runs, with the runs it hurts."""
    if not table.runs or not figures:
        return FleetRecommendation(
            headroom=headroom,
            share=share,
            setting=None,
            reasons=(FleetReason("no_runs", {"runs": table.runs}),),
            hurt=(),
        )
    qualifying = sorted((f for f in figures if f.headroom_share >= share), key=_order)
    if not qualifying:
        best = max(figures, key=lambda f: (f.headroom_share, -f.cost))
        ratio, keep, target = best.setting
        reason = FleetReason(
            "none_reach_share",
            {
                "share": share,
                "best_share": round(best.headroom_share, 4),
                "ratio": ratio,
                "keep": keep,
                "min_target": target,
            },
        )
        return FleetRecommendation(headroom=headroom, share=share, setting=None, reasons=(reason,), hurt=())
    pick = qualifying[0]
    reasons = [
        FleetReason(
            "reaches_share",
            {
                "share": round(pick.headroom_share, 4),
                "runs": pick.runs,
                "keeping": pick.keeping_headroom,
                "goal": share,
            },
        ),
        FleetReason("qualifying", {"qualifying": len(qualifying), "considered": len(figures)}),
        FleetReason(
            "cheapest_tokens",
            {
                "tokens": pick.tokens,
                "runner_up_tokens": qualifying[1].tokens if len(qualifying) > 1 else -1,
            },
        ),
    ]
    if not pick.compacting:
        reasons.append(FleetReason("never_fires"))
    position = table.settings.index(pick.setting)
    return FleetRecommendation(
        headroom=headroom,
        share=share,
        setting=pick.setting,
        reasons=tuple(reasons),
        hurt=hurt_runs(table, runs, position, headroom),
    )


def hurt_runs(table: OutcomeTable, runs: Sequence[RunRow], pick: int, headroom: float) -> tuple[HurtRun, ...]:
    """The runs the picked setting serves worst: over capacity, then over the headroom, then dearer than their
    own cheapest setting that keeps the headroom; worst first, at most ``HURT_LIMIT``."""
    width = len(table.settings)
    limit = 1.0 - headroom
    found: list[HurtRun] = []
    for run, row in enumerate(runs):
        at = run * width + pick
        capacity = table.capacities[run]
        peak, over, tokens = table.peaks[at], table.over[at], table.tokens[at]
        reasons: list[Hurt] = []
        severity = 0.0
        utilisation = round(peak / capacity, 4)
        if over:
            reasons.append(Hurt("overflows", {"steps_over_capacity": over, "peak_utilisation": utilisation}))
            severity = 3.0 + min(over / max(row.steps, 1), 0.999)
        if peak > capacity * limit:
            reasons.append(Hurt("over_headroom", {"peak_utilisation": utilisation, "limit": round(limit, 4)}))
            severity = max(severity, 2.0 + min(utilisation - limit, 0.999))
        own = [s for s in range(width) if table.keeps_headroom(run, s, headroom)]
        if own:
            best = min(
                own,
                key=lambda s: (table.tokens[run * width + s], -table.settings[s][0], *table.settings[s][1:]),
            )
            best_tokens = table.tokens[run * width + best]
            if tokens > best_tokens:
                ratio, keep, target = table.settings[best]
                reasons.append(
                    Hurt(
                        "costs_more",
                        {
                            "tokens": tokens,
                            "best_tokens": best_tokens,
                            "extra": tokens - best_tokens,
                            "ratio": ratio,
                            "keep": keep,
                            "min_target": target,
                        },
                    )
                )
                severity = max(severity, 1.0 + min((tokens - best_tokens) / max(best_tokens, 1), 0.999))
        if reasons:
            found.append(
                HurtRun(key=row.key, name=row.name, reasons=tuple(reasons), severity=round(severity, 6))
            )
    found.sort(key=lambda hurt: (-hurt.severity, hurt.key))
    return tuple(found[:HURT_LIMIT])
