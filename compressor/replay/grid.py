"""The default sweep every front end uses — the CLI's ``simulate`` and the dashboard's Tune page — so that one
file gets one recommendation: trigger ratios, keep values, the summary model and the headroom.

Invariant: a grid always holds the current setting's own ratio and keep, so the current setting is one of its
cells and the recommendation can be priced beside it.
"""

from __future__ import annotations

from collections.abc import Iterable

#: trigger_context_ratio from 0.5 to 0.95 by 0.05: below 0.5 a compaction fires on half-empty windows.
DEFAULT_RATIO_RANGE: tuple[float, float] = (0.5, 0.95)
DEFAULT_RATIO_STEP = 0.05
DEFAULT_KEEPS: tuple[int, ...] = (0, 2, 4, 8)
#: Summaries a tenth of the span: instant on any run (the offline backend costs about a millisecond per
#: message per compaction, too slow for a sweep of a long run).
DEFAULT_SUMMARY = "ratio:0.1"
DEFAULT_HEADROOM = 0.1


def ratio_steps(low: float, high: float, step: float) -> tuple[float, ...]:
    """Ratios from ``low`` to ``high`` by ``step``, rounded to hundredths (``high < low``: just ``low``)."""
    count = int((high - low) / step + 1e-9) + 1 if high >= low else 1
    return tuple(sorted({round(low + number * step, 2) for number in range(count)}))


DEFAULT_RATIOS: tuple[float, ...] = ratio_steps(*DEFAULT_RATIO_RANGE, DEFAULT_RATIO_STEP)


def grid_around(
    ratios: Iterable[float], keeps: Iterable[int], ratio: float, keep: int
) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """The grid's ratios and keeps, sorted, with the current ``ratio`` and ``keep`` added."""
    return tuple(sorted({*(float(r) for r in ratios), float(ratio)})), tuple(
        sorted({*(int(k) for k in keeps), int(keep)})
    )
