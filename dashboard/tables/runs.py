"""Tables of a replayed run: its compaction attempts and their bill, and a sweep's settings (the Tune page's CSV).

Invariant: one row per value the replay returned, its fields copied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from compressor.cost import CompactionCost
from compressor.cost.ledger import rounded
from compressor.replay import CompactionEvent, Sweep


def _status(status: str, reason: str) -> str:
    return status


def compactions_frame(
    events: Sequence[CompactionEvent], outcome_text: Callable[[str, str], str] = _status
) -> pd.DataFrame:
    """One row per compaction attempt of a replayed run, its outcome worded by ``outcome_text(status, reason)``:
    the window total the trigger read at that call, then the context messages before and after."""
    rows = [
        {
            "message": f"#{event.index}",
            "outcome": outcome_text(event.status, event.reason),
            "window": event.context_tokens,
            "span": " / ".join(str(count) for count in event.span),
            "compress": event.compress_tokens,
            "before": event.tokens_before,
            "after": event.tokens_after,
            "memory": event.memory_tokens,
            "reinjection": event.reinjection_tokens,
            "request": event.request_tokens,
            "calls": event.calls,
            "files": ", ".join(event.reinjected_files),
        }
        for event in events
    ]
    columns = [
        "message",
        "outcome",
        "window",
        "span",
        "compress",
        "before",
        "after",
        "memory",
        "reinjection",
        "request",
        "calls",
        "files",
    ]
    return pd.DataFrame(rows, columns=columns)


def sweep_frame(sweep: Sweep) -> pd.DataFrame:
    """One row per setting of a sweep, its outcome's ``to_dict()`` (the Tune page's CSV download)."""
    frame = pd.DataFrame([outcome.to_dict() for outcome in sweep.outcomes])
    if "first_trigger_index" in frame:  # a message index, empty where the trigger never fires (never "13.0")
        frame["first_trigger_index"] = frame["first_trigger_index"].astype("Int64")
    return frame


#: The columns of a replay's bill, one row per compaction attempt; the ones in ``COST_MONEY`` are USD with a price
#: (else tokens).
COST_COLUMNS: tuple[str, ...] = (
    "message",
    "call",
    "invalidated",
    "written",
    "next_call",
    "saving",
    "payback",
)
COST_MONEY: tuple[str, ...] = ("call", "next_call", "saving")


def compaction_costs_frame(
    lines: Sequence[CompactionCost], payback: Callable[[CompactionCost], str]
) -> pd.DataFrame:
    """Each attempt's ledger line: its call, the cached tokens it invalidates and the ones written again, what the
    next agent call costs more (negative: it already saves), the saving at every later call, and its payback worded
    by ``payback``."""
    rows = [
        {
            "message": f"#{line.index}",
            "call": rounded(line.call_cost, line.unit),
            "invalidated": line.invalidated_tokens,
            "written": line.cache_write_tokens,
            "next_call": rounded(line.first_call_extra, line.unit),
            "saving": rounded(line.saving_per_call, line.unit),
            "payback": payback(line),
        }
        for line in lines
    ]
    return pd.DataFrame(rows, columns=list(COST_COLUMNS))
