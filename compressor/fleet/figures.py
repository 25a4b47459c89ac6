"""Each setting's figures over a fleet and the fleet recommendation: the cheapest setting that keeps the
headroom on at least a chosen share of the runs, and the runs it hurts most, each with its reasons.

Invariant: pure arithmetic on a compact table of six numbers per run and setting (``OutcomeTable``), so a
fleet of thousands of runs and a hundred settings fits in a few MB; money is USD only when every run has a
price (else tokens for all, and ``unit`` says so); percentiles are nearest-rank (every figure is one run's);
ties go in a fixed order (cheaper, higher ratio, smaller keep, lower min target).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from .values import (
    FleetReason,
    FleetRecommendation,
    Hurt,
    HurtRun,
    RunRow,
    SettingFigures,
    SettingKey,
    Spread,
    Unit,
)

#: The runs a recommendation lists as hurt, worst first.
HURT_LIMIT = 10
#: One run under one setting: compactions, peak tokens, calls over capacity, tokens, USD (nan: no price), flags.
Cell = tuple[int, int, int, int, float, int]
Number = TypeVar("Number", int, float)


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
    """The grid's cells per run, run-major (``cells[run * settings + setting]``), in flat arrays."""

    settings: tuple[SettingKey, ...]
    capacities: array[int] = field(default_factory=lambda: array("q"))  # per run: context_max
    compactions: array[int] = field(default_factory=lambda: array("q"))
    peaks: array[int] = field(default_factory=lambda: array("q"))
    over: array[int] = field(default_factory=lambda: array("q"))
    tokens: array[int] = field(default_factory=lambda: array("q"))
    costs: array[float] = field(default_factory=lambda: array("d"))
    flagged: array[int] = field(default_factory=lambda: array("q"))
    #: ``unit`` once known (it reads every cost; ``charge`` asks for it per cell), forgotten by ``add_run``
    _unit: Unit | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def empty(cls, settings: tuple[SettingKey, ...]) -> OutcomeTable:
        return cls(settings)

    @classmethod
    def sized(cls, settings: tuple[SettingKey, ...], capacities: Sequence[int]) -> OutcomeTable:
        """A table of one run per capacity whose cells are zero until ``put``: 48 bytes a cell, filled in place."""
        zeros = bytes(8 * len(capacities) * len(settings))
        return cls(
            settings,
            capacities=array("q", capacities),
            compactions=array("q", zeros),
            peaks=array("q", zeros),
            over=array("q", zeros),
            tokens=array("q", zeros),
            costs=array("d", zeros),
            flagged=array("q", zeros),
        )

    def put(self, at: int, cell: Cell) -> None:
        """The cell at ``run * len(settings) + setting`` of a ``sized`` table."""
        self._unit = None
        compactions, peak, over, tokens, cost, flagged = cell
        self.compactions[at], self.peaks[at], self.over[at] = compactions, peak, over
        self.tokens[at], self.costs[at], self.flagged[at] = tokens, cost, flagged

    def add_run(self, context_max: int, cells: Sequence[Cell]) -> None:
        """One run's cells, in the order of ``settings``."""
        self._unit = None
        self.capacities.append(context_max)
        for compactions, peak, over, tokens, cost, flagged in cells:
            self.compactions.append(compactions)
            self.peaks.append(peak)
            self.over.append(over)
            self.tokens.append(tokens)
            self.costs.append(cost)
            self.flagged.append(flagged)

    @property
    def runs(self) -> int:
        return len(self.capacities)

    @property
    def unit(self) -> Unit:
        if self._unit is None:
            priced = self.costs and not any(math.isnan(c) for c in self.costs)
            self._unit = "usd" if priced else "tokens"
        return self._unit

    def charge(self, at: int) -> float:
        """What a cell costs in the table's unit."""
        return self.costs[at] if self.unit == "usd" else float(self.tokens[at])

    def column(self, values: array[Number], setting: int) -> list[Number]:
        return list(values[setting :: len(self.settings)])

    def keeps_headroom(self, run: int, setting: int, headroom: float) -> bool:
        at = run * len(self.settings) + setting
        return self.over[at] == 0 and self.peaks[at] <= self.capacities[run] * (1.0 - headroom)


def setting_figures(table: OutcomeTable, headroom: float) -> tuple[SettingFigures, ...]:
    unit = table.unit
    # Each run's most tokens that keep the headroom (``keeps_headroom``'s bound), once for every setting.
    limits = [capacity * (1.0 - headroom) for capacity in table.capacities]
    rows = []
    for position, setting in enumerate(table.settings):
        compactions = table.column(table.compactions, position)
        peaks = table.column(table.peaks, position)
        over = table.column(table.over, position)
        utilisation = [peak / capacity for peak, capacity in zip(peaks, table.capacities, strict=True)]
        tokens = sum(table.column(table.tokens, position))
        keeping = sum(
            1 for o, peak, limit in zip(over, peaks, limits, strict=True) if o == 0 and peak <= limit
        )
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
                # the cells' charges in run order, as ``charge`` gives them
                cost=round(sum(table.column(table.costs, position)), 6) if unit == "usd" else float(tokens),
                unit=unit,
                loop_flags=sum(1 for flags in table.column(table.flagged, position) if flags),
                loop_flags_source="cost.loops",
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
    unit = table.unit
    if not table.runs or not figures:
        reason = FleetReason("no_runs", {"runs": table.runs})
        return FleetRecommendation(
            headroom=headroom, share=share, setting=None, reasons=(reason,), hurt=(), unit=unit
        )
    qualifying = sorted((f for f in figures if f.headroom_share >= share), key=_order)
    if not qualifying:
        best = max(figures, key=lambda f: (f.headroom_share, -f.cost))
        ratio, keep, target = best.setting
        values = {"share": share, "best_share": round(best.headroom_share, 4), "ratio": ratio, "keep": keep}
        reason = FleetReason("none_reach_share", {**values, "min_target": target})
        return FleetRecommendation(
            headroom=headroom, share=share, setting=None, reasons=(reason,), hurt=(), unit=unit
        )
    pick = qualifying[0]
    runner_up = qualifying[1] if len(qualifying) > 1 else None
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
            "cheapest_price" if unit == "usd" else "cheapest_tokens",
            {
                "cost": pick.cost,
                "tokens": pick.tokens,
                "runner_up_cost": runner_up.cost if runner_up is not None else -1,
                "runner_up_tokens": runner_up.tokens if runner_up is not None else -1,
            },
        ),
    ]
    if pick.loop_flags:
        reasons.append(FleetReason("loop_flagged", {"runs": pick.loop_flags}))
    if not pick.compacting:
        reasons.append(FleetReason("never_fires"))
    position = table.settings.index(pick.setting)
    return FleetRecommendation(
        headroom=headroom,
        share=share,
        setting=pick.setting,
        reasons=tuple(reasons),
        hurt=hurt_runs(table, runs, position, headroom),
        unit=unit,
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
        peak, over, charge = table.peaks[at], table.over[at], table.charge(at)
        reasons: list[Hurt] = []
        severity = 0.0
        utilisation = round(peak / capacity, 4)
        if over:
            reasons.append(Hurt("overflows", {"steps_over_capacity": over, "peak_utilisation": utilisation}))
            severity = 3.0 + min(over / max(row.steps, 1), 0.999)
        if peak > capacity * limit:
            reasons.append(Hurt("over_headroom", {"peak_utilisation": utilisation, "limit": round(limit, 4)}))
            severity = max(severity, 2.0 + min(utilisation - limit, 0.999))
        if table.flagged[at]:
            reasons.append(Hurt("loop_flagged", {"flagged": table.flagged[at]}))
            severity = max(severity, 1.5)
        # the settings whose cell keeps the headroom on this run (``keeps_headroom``, a row at a time)
        begin, bound = run * width, capacity * (1.0 - headroom)
        cells = zip(table.over[begin : begin + width], table.peaks[begin : begin + width], strict=True)
        own = [s for s, (o, top) in enumerate(cells) if o == 0 and top <= bound]
        if own:
            ratio, keep, target = table.settings[pick]
            best = min(
                own,
                key=lambda s: (table.charge(run * width + s), -table.settings[s][0], *table.settings[s][1:]),
            )
            best_charge = table.charge(run * width + best)
            if charge > best_charge:
                ratio, keep, target = table.settings[best]
                extra = round(charge - best_charge, 6)
                values = {"charge": round(charge, 6), "best_charge": round(best_charge, 6), "extra": extra}
                reasons.append(
                    Hurt("costs_more", {**values, "ratio": ratio, "keep": keep, "min_target": target})
                )
                severity = max(severity, 1.0 + min(extra / max(best_charge, 1e-9), 0.999))
        if reasons:
            found.append(
                HurtRun(key=row.key, name=row.name, reasons=tuple(reasons), severity=round(severity, 6))
            )
    found.sort(key=lambda hurt: (-hurt.severity, hurt.key))
    return tuple(found[:HURT_LIMIT])
