"""Whole-run replay: where openJiuwen would compact over a run, what each compaction costs, and sweeps of settings.

Invariant: a second, incremental implementation of spans, trigger and reinjection (``index`` and ``player``), kept
number for number equal to the step-by-step reference by the tests; results are frozen values with ``to_dict()``.
"""

from .costs import (
    Assessment,
    PriceChoice,
    assess,
    assess_simulation,
    assess_sweep,
    compacted_cost,
    resolve_price,
    run_ledger,
)
from .grid import (
    DEFAULT_HEADROOM,
    DEFAULT_KEEPS,
    DEFAULT_RATIO_RANGE,
    DEFAULT_RATIO_STEP,
    DEFAULT_RATIOS,
    DEFAULT_SUMMARY,
    grid_around,
    ratio_steps,
)
from .masking import MASK_KEEP_RESULTS, MASK_PLACEHOLDER
from .recommend import Pick, Reason, ReasonCode, Recommendation, recommend
from .simulate import LiveCostEstimate, Simulation, estimate_live_cost, simulate
from .strategies import BASELINES, STRATEGIES, StrategyName
from .sweep import Metric, Sweep, sweep, validate_grid
from .tuning import Baseline, Tuning, tune
from .values import CompactionEvent, Outcome, Step, SummaryKind, SummaryModel

__all__ = [
    "BASELINES",
    "DEFAULT_HEADROOM",
    "DEFAULT_KEEPS",
    "DEFAULT_RATIOS",
    "DEFAULT_RATIO_RANGE",
    "DEFAULT_RATIO_STEP",
    "DEFAULT_SUMMARY",
    "MASK_KEEP_RESULTS",
    "MASK_PLACEHOLDER",
    "STRATEGIES",
    "Assessment",
    "Baseline",
    "CompactionEvent",
    "LiveCostEstimate",
    "Metric",
    "Outcome",
    "Pick",
    "PriceChoice",
    "Reason",
    "ReasonCode",
    "Recommendation",
    "Simulation",
    "Step",
    "StrategyName",
    "SummaryKind",
    "SummaryModel",
    "Sweep",
    "Tuning",
    "assess",
    "assess_simulation",
    "assess_sweep",
    "compacted_cost",
    "estimate_live_cost",
    "grid_around",
    "ratio_steps",
    "recommend",
    "resolve_price",
    "run_ledger",
    "simulate",
    "sweep",
    "tune",
    "validate_grid",
]
