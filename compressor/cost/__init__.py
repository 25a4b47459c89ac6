"""What compaction costs: model prices, a cache-aware ledger per compaction and per run, and loop detection.

Invariant: pure arithmetic on token counts and price rows (no replay import: ``replay`` builds on this room);
every result is a frozen value with ``to_dict()`` and codes, never words.
"""

from .ledger import (
    CallTokens,
    CompactionCost,
    PaybackStatus,
    RunCost,
    RunLedger,
    Unit,
    Weights,
    compaction_cost,
    price_call,
    run_cost,
)
from .loops import (
    BREAKER_AFTER,
    LOW_GAIN_SHARE,
    REFIRE_CALLS,
    AttemptFlags,
    FlagCode,
    LoopFlag,
    LoopReport,
    LoopRules,
    Storm,
    detect_loops,
    flagged_count,
)
from .prices import Price, bundled_prices, find_price, price_table, read_prices

__all__ = [
    "BREAKER_AFTER",
    "LOW_GAIN_SHARE",
    "REFIRE_CALLS",
    "AttemptFlags",
    "CallTokens",
    "CompactionCost",
    "FlagCode",
    "LoopFlag",
    "LoopReport",
    "LoopRules",
    "PaybackStatus",
    "Price",
    "RunCost",
    "RunLedger",
    "Storm",
    "Unit",
    "Weights",
    "bundled_prices",
    "compaction_cost",
    "detect_loops",
    "find_price",
    "flagged_count",
    "price_call",
    "price_table",
    "read_prices",
    "run_cost",
]
