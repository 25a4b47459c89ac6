"""Tables of a replayed run: its compaction attempts, and a sweep's settings (the Tune page's CSV).

Invariant: one row per value the replay returned, its fields copied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

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
