"""The values a fleet returns: the grid it sweeps, one row per run, the broken files, each setting's fleet
figures and the fleet recommendation with the runs it hurts.

Invariant: values are frozen, built by keyword, carry codes and numbers only (words are the renderers'), and
``to_dict()`` is what ``compaction-lab fleet --json`` prints and what the Fleet page renders.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from functools import cache
from operator import attrgetter
from typing import Any, Literal

from ..replay import Outcome

#: A setting of the grid: (trigger_context_ratio, keep_recent_messages, min_target_context_ratio).
SettingKey = tuple[float, int, float]
#: How a fleet's money is counted: tokens until a price table prices the runs.
Unit = Literal["tokens", "usd"]
DEFAULT_SHARE = 0.95
#: The default grid, as ``simulate`` and the Tune page sweep one run: ratios 0.5 to 0.95 by 0.05, four keeps,
#: summaries a tenth of the span (instant on any run), a tenth of the window kept free.
DEFAULT_RATIOS: tuple[float, ...] = tuple(round(0.5 + 0.05 * step, 2) for step in range(10))
DEFAULT_KEEPS: tuple[int, ...] = (0, 2, 4, 8)
DEFAULT_SUMMARY = "ratio:0.1"
DEFAULT_HEADROOM = 0.1


@cache
def outcome_fields() -> tuple[str, ...]:
    """The constructor fields of ``Outcome``; part of every play key, so a catalog written by a version with
    other fields is never read back."""
    return tuple(f.name for f in fields(Outcome))


def outcome_json(outcome: Outcome) -> str:
    """The outcome's fields as a JSON array, in ``outcome_fields()`` order."""
    return compact_json(_outcome_values()(outcome))


#: ``json.dumps(value, separators=(",", ":"))`` without making an encoder per call (one per catalog row).
compact_json = json.JSONEncoder(separators=(",", ":")).encode


@cache
def _outcome_values() -> attrgetter[tuple[Any, ...]]:
    return attrgetter(*outcome_fields())


def outcome_from_json(text: str) -> Outcome:
    return Outcome(**dict(zip(outcome_fields(), json.loads(text), strict=True)))


@dataclass(frozen=True, kw_only=True)
class FleetGrid:
    """What every run is swept with: the grid, the summary model, the counter and the capacity flags.

    Without ``context_max`` or ``model`` each run's own model gives its capacity (``windows.resolve_context_max``).
    """

    ratios: tuple[float, ...]
    keeps: tuple[int, ...]
    min_targets: tuple[float, ...]
    summary: str = DEFAULT_SUMMARY
    counter: str = "cl100k_base"
    context_max: int | None = None
    model: str | None = None
    headroom: float = DEFAULT_HEADROOM
    share: float = DEFAULT_SHARE
    price_model: str | None = None  # bill every run at this model's price (default: each run's own model)

    @property
    def settings(self) -> tuple[SettingKey, ...]:
        """Every setting in ``sweep()``'s order: min target, then keep, then ratio."""
        return tuple((r, k, m) for m in self.min_targets for k in self.keeps for r in self.ratios)

    def play_key(self, context_max: int) -> str:
        """What an outcome depends on besides its setting and its run: a catalog cache key."""
        text = json.dumps(
            [
                self.counter,
                context_max,
                self.summary,
                0,
                "openjiuwen",
                self.price_model,
                self.model,
                outcome_fields(),
            ]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def template_key(self, context_max: int) -> str:
        """The key of a run's untouched outcome (no attempt at all): the summary does not change it."""
        text = json.dumps(
            [
                self.counter,
                context_max,
                "untouched",
                0,
                "openjiuwen",
                self.price_model,
                self.model,
                outcome_fields(),
            ]
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ratios": list(self.ratios),
            "keeps": list(self.keeps),
            "min_targets": list(self.min_targets),
            "summary": self.summary,
            "counter": self.counter,
            "context_max": self.context_max,
            "model": self.model,
            "headroom": self.headroom,
            "share": self.share,
            "price_model": self.price_model,
        }


@dataclass(frozen=True)
class Bill:
    """What one setting costs one run (``replay.assess``): tokens sent, USD at the run's price (None without
    one) and the attempts that raised a loop flag; with what its compactions summarised: the spans' tokens and
    their summaries' (what the size model's retention reads; None where a catalog row predates them)."""

    tokens: int
    cost: float | None
    flagged: int
    span_tokens: int | None = None
    summary_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class RunRow:
    """One run of the catalog: where it came from, what it holds, and the capacity it is swept with."""

    run_id: str  # content id: the file's hash and the conversation's number in it
    path: str
    conversation: int
    name: str
    format: str
    agent: str
    model: str | None
    recorded_window: int | None = None  # the context window the file records its agent had, if it does
    size: int
    mtime_ns: int
    hash: str
    messages: int
    context_tokens: int  # count(context) under the catalog's counter
    system_tokens: int
    tools_tokens: int
    window_tokens: int  # the window total the trigger reads at the end of the run (SPEC §6)
    window_source: str
    steps: int  # model calls
    recorded_compactions: int
    context_max: int
    context_max_source: str

    @property
    def key(self) -> str:
        """The run's name in a fleet: its file and, for a file holding several, the conversation's number."""
        return f"{self.path}#{self.conversation}"

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"key": self.key}


@dataclass(frozen=True)
class Broken:
    """A file the fleet could not read, with the loader's one-line reason."""

    path: str
    error: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "error": self.error}


@dataclass(frozen=True)
class Spread:
    """p50, p95 and max of one figure over the runs (nearest rank, so every value is one run's)."""

    p50: float
    p95: float
    max: float

    def to_dict(self) -> dict[str, Any]:
        return {"p50": self.p50, "p95": self.p95, "max": self.max}


@dataclass(frozen=True, kw_only=True)
class SettingFigures:
    """One setting over the fleet.

    ``tokens`` adds up what every run sends with it (the agent's input and the compaction requests); ``cost`` is
    the same in ``unit``. Loop flags and retention stay None until a ledger measures them (``*_source`` says).
    """

    setting: SettingKey
    runs: int
    compacting: int  # runs where it compacts at least once
    compactions: Spread
    peak_utilisation: Spread
    overflowing: int  # runs with a model call over capacity
    keeping_headroom: int  # runs whose every call stays at or below 1 - headroom of capacity
    tokens: int
    cost: float
    unit: Unit = "tokens"
    loop_flags: int | None = None
    loop_flags_source: str = "not_measured"
    retention: float | None = None
    retention_source: str = "not_measured"

    @property
    def compacting_share(self) -> float:
        return self.compacting / self.runs if self.runs else 0.0

    @property
    def headroom_share(self) -> float:
        return self.keeping_headroom / self.runs if self.runs else 0.0

    def to_dict(self) -> dict[str, Any]:
        ratio, keep, target = self.setting
        return {
            "trigger_context_ratio": ratio,
            "keep_recent_messages": keep,
            "min_target_context_ratio": target,
            "runs": self.runs,
            "compacting": self.compacting,
            "compacting_share": round(self.compacting_share, 4),
            "compactions": self.compactions.to_dict(),
            "peak_utilisation": self.peak_utilisation.to_dict(),
            "overflowing": self.overflowing,
            "keeping_headroom": self.keeping_headroom,
            "headroom_share": round(self.headroom_share, 4),
            "tokens": self.tokens,
            "cost": self.cost,
            "unit": self.unit,
            "loop_flags": self.loop_flags,
            "loop_flags_source": self.loop_flags_source,
            "retention": self.retention,
            "retention_source": self.retention_source,
        }


HurtCode = Literal["overflows", "over_headroom", "loop_flagged", "costs_more"]


@dataclass(frozen=True)
class Hurt:
    """Why the fleet's setting hurts one run: a code and the numbers a renderer words."""

    code: HurtCode
    values: dict[str, int | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, **self.values}


@dataclass(frozen=True, kw_only=True)
class HurtRun:
    """A run the fleet's setting serves worse than the run's own best setting would, with every reason."""

    key: str
    name: str
    reasons: tuple[Hurt, ...]
    severity: float  # the order of the list: overflows, the headroom missed, loop flags, then the extra cost

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "name": self.name, "reasons": [r.to_dict() for r in self.reasons]}


FleetCode = Literal[
    "no_runs",  # nothing to recommend from (runs)
    "none_reach_share",  # no setting keeps the headroom on the chosen share (share, best_share, ratio, keep, min_target)
    "reaches_share",  # the pick keeps the headroom on this share of runs (share, runs, keeping, goal)
    "qualifying",  # how many settings reach the share (qualifying, considered)
    "cheapest_price",  # the pick costs the least of them in USD (cost, tokens, runner_up_cost, runner_up_tokens)
    "cheapest_tokens",  # the same without a price for every run: tokens (tokens, runner_up_tokens)
    "loop_flagged",  # with the pick, this many runs raise a loop flag (runs)
    "never_fires",  # with the pick no run compacts
]


@dataclass(frozen=True)
class FleetReason:
    code: FleetCode
    values: dict[str, int | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, **self.values}


@dataclass(frozen=True, kw_only=True)
class FleetRecommendation:
    """The cheapest setting that keeps the headroom on at least ``share`` of the runs, and the runs it hurts."""

    headroom: float
    share: float
    setting: SettingKey | None
    reasons: tuple[FleetReason, ...]
    hurt: tuple[HurtRun, ...]
    unit: Unit = "tokens"

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(reason.code for reason in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        ratio, keep, target = self.setting if self.setting is not None else (None, None, None)
        return {
            "headroom": self.headroom,
            "share": self.share,
            "trigger_context_ratio": ratio,
            "keep_recent_messages": keep,
            "min_target_context_ratio": target,
            "unit": self.unit,
            "reasons": [reason.to_dict() for reason in self.reasons],
            "hurt": [run.to_dict() for run in self.hurt],
        }


RetentionSource = Literal["measured", "summary_size", "no_compaction"]


@dataclass(frozen=True, kw_only=True)
class FleetRetention:
    """What the recommended setting's compactions keep, over the runs it compacts.

    ``measured`` (offline summaries): each run's macro retention (``quality.score_replay``) of the artifacts its
    compacted spans held; ``summary_size`` (fixed:N, ratio:X): the summary tokens per compacted span token the
    size model gives, as no summary text exists to score. ``mean``/``p50``/``low`` (p5) are over the runs scored.
    """

    source: RetentionSource
    runs: int
    mean: float | None = None
    p50: float | None = None
    low: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "runs": self.runs, "mean": self.mean, "p50": self.p50, "low": self.low}


@dataclass(frozen=True, kw_only=True)
class BuildCounts:
    """What one build did: files seen, processed (read and counted), reused from the catalog, broken."""

    files: int = 0
    processed: int = 0
    reused: int = 0
    broken: int = 0
    runs: int = 0
    swept: int = 0  # runs whose grid was played (not all from the catalog)
    cancelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, kw_only=True)
class Fleet:
    """A whole fleet: its runs, broken files, each setting's figures and the recommendation."""

    grid: FleetGrid
    runs: tuple[RunRow, ...]
    broken: tuple[Broken, ...]
    settings: tuple[SettingFigures, ...]
    recommendation: FleetRecommendation
    counts: BuildCounts
    catalog: str
    #: per run (in ``runs`` order), the recommended setting's outcome (None without a recommendation)
    picked: tuple[Outcome | None, ...] = field(default=(), repr=False, compare=False)
    retention: FleetRetention | None = None  # the recommended setting's (None without one)

    def figures(self, setting: SettingKey) -> SettingFigures | None:
        return next((row for row in self.settings if row.setting == setting), None)

    def to_dict(self) -> dict[str, Any]:
        runs = []
        for position, run in enumerate(self.runs):
            row = run.to_dict()
            outcome = self.picked[position] if position < len(self.picked) else None
            if outcome is not None:
                row["recommended"] = {
                    "compactions": outcome.compactions,
                    "peak_tokens": outcome.peak_tokens,
                    "peak_utilisation": round(outcome.peak_utilisation, 4),
                    "steps_over_capacity": outcome.steps_over_capacity,
                }
            runs.append(row)
        return {
            "catalog": self.catalog,
            "grid": self.grid.to_dict(),
            "counts": self.counts.to_dict(),
            "runs": runs,
            "broken": [b.to_dict() for b in self.broken],
            "settings": [s.to_dict() for s in self.settings],
            "recommendation": {
                **self.recommendation.to_dict(),
                "retention": self.retention.to_dict() if self.retention is not None else None,
            },
        }
