"""Many runs at once: a persistent catalog (DuckDB over Parquet), the per-run work as pure functions, executors
(local processes by default, Dask distributed past one machine), and fleet figures with one recommendation.

Invariant: every number of a fleet is ``replay``'s on the run it came from; the catalog tokenises a file once
(until it changes) and a sweep with other settings never reads the files again.
"""

from .build import Progress, build_catalog
from .catalog import Catalog, CatalogError, default_root
from .executors import EXECUTORS, DaskExecutor, Executor, InlineExecutor, ProcessExecutor, make_executor
from .figures import HURT_LIMIT, OutcomeTable, nearest_rank, recommend_fleet, setting_figures
from .inputs import SUFFIXES, Input, discover
from .queries import ORDERS, RUN_COLUMNS, RunFilter, facets, runs_table
from .sweeps import fleet_runs, run_fleet, sweep_fleet
from .values import (
    DEFAULT_HEADROOM,
    DEFAULT_KEEPS,
    DEFAULT_RATIOS,
    DEFAULT_SHARE,
    DEFAULT_SUMMARY,
    Broken,
    BuildCounts,
    Fleet,
    FleetGrid,
    FleetReason,
    FleetRecommendation,
    FleetRetention,
    Hurt,
    HurtRun,
    RunRow,
    SettingFigures,
    Spread,
)
from .work import FileResult, FileTask, SweepTask, process_file, sweep_kept

__all__ = [
    "DEFAULT_HEADROOM",
    "DEFAULT_KEEPS",
    "DEFAULT_RATIOS",
    "DEFAULT_SHARE",
    "DEFAULT_SUMMARY",
    "EXECUTORS",
    "HURT_LIMIT",
    "ORDERS",
    "RUN_COLUMNS",
    "SUFFIXES",
    "Broken",
    "BuildCounts",
    "Catalog",
    "CatalogError",
    "DaskExecutor",
    "Executor",
    "FileResult",
    "FileTask",
    "Fleet",
    "FleetGrid",
    "FleetReason",
    "FleetRecommendation",
    "FleetRetention",
    "Hurt",
    "HurtRun",
    "InlineExecutor",
    "Input",
    "OutcomeTable",
    "ProcessExecutor",
    "Progress",
    "RunFilter",
    "RunRow",
    "SettingFigures",
    "Spread",
    "SweepTask",
    "build_catalog",
    "default_root",
    "discover",
    "facets",
    "fleet_runs",
    "make_executor",
    "nearest_rank",
    "process_file",
    "recommend_fleet",
    "run_fleet",
    "runs_table",
    "setting_figures",
    "sweep_fleet",
    "sweep_kept",
]
