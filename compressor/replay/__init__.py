"""Whole-run replay: where openJiuwen would compact over a run, what each compaction costs, and sweeps of settings.

Invariant: a second, incremental implementation of spans, trigger and reinjection (``index`` and ``player``), kept
number for number equal to the step-by-step reference by the tests; results are frozen values with ``to_dict()``.
"""

from .recommend import Reason, ReasonCode, Recommendation, recommend
from .simulate import LiveCostEstimate, Simulation, estimate_live_cost, simulate
from .sweep import Metric, Sweep, sweep, validate_grid
from .values import CompactionEvent, Outcome, Step, SummaryKind, SummaryModel

__all__ = [
    "CompactionEvent",
    "LiveCostEstimate",
    "Metric",
    "Outcome",
    "Reason",
    "ReasonCode",
    "Recommendation",
    "Simulation",
    "Step",
    "SummaryKind",
    "SummaryModel",
    "Sweep",
    "estimate_live_cost",
    "recommend",
    "simulate",
    "sweep",
    "validate_grid",
]
