"""The one palette of every dashboard and report figure: one colour per concept, the same everywhere.

Invariant: no two concepts share a colour or come close to one (the marks drawn over the data aside); the threshold
is the only red; the colours of a span's segments mean those segments (and the same parts of a window) only.
"""

from __future__ import annotations

PALETTE: dict[str, str] = {
    # the segments of a span, and only them (a window breakdown draws its prefix, span and tail in them too)
    "system": "#79706E",
    "prefix": "#4E79A7",
    "compress": "#F28E2B",
    "tail": "#59A14F",
    "unanchored": "#C9A27E",
    # the other parts of a window total (compressor.window_parts), and what is left of the capacity
    "tools": "#9ACD32",
    "hidden": "#FABFD2",
    "rest": "#A0CBE8",
    "drift": "#C5B0D5",
    "free": "#E9ECF1",
    # what a compaction puts where the span was
    "memory": "#B07AA1",
    "reinjection": "#76B7B2",
    # the limits a window is measured against
    "threshold": "#D62728",
    "threshold_reached": "rgba(214, 39, 40, 0.45)",
    "min_target": "#B6992D",
    "context_max": "#333333",
    # the windows of a run
    "window": "#7E8FD1",
    "sent": "#4B4B8F",
    "uncompacted": "#BAB0AC",
    # what happened at a model call, and the settings of a sweep
    "compaction": "#8B4513",
    "refused": "#E377C2",
    "settings": "#17BECF",
    "recommended": "#EDC948",
    # a folder of dumps
    "dump": "#7570B3",
    "tokens_before": "#A05195",
    "tokens_after": "#008B8B",
    # marks drawn over the data
    "marker": "#222222",
    "marker_edge": "#FFFFFF",
    "no_change": "#999999",
    "now": "#000000",
}
#: Colours of marks drawn over the data (black, white and greys by design), not of a concept of their own.
MARKS: tuple[str, ...] = ("marker", "marker_edge", "no_change", "now")
#: The colour of each part of a window breakdown bar: a part of the span's segments is that segment's colour.
WINDOW_PART_COLOURS: dict[str, str] = {
    "system": PALETTE["system"],
    "tools": PALETTE["tools"],
    "hidden": PALETTE["hidden"],
    "prefix": PALETTE["prefix"],
    "span": PALETTE["compress"],
    "tail": PALETTE["tail"],
    "unanchored": PALETTE["unanchored"],
    "rest": PALETTE["rest"],
    "drift": PALETTE["drift"],
    "free": PALETTE["free"],
}
#: The colour of each part of a before/after bar: the compressed span is the span's own "compress" colour.
PART_COLOURS: dict[str, str] = {
    "prefix": PALETTE["prefix"],
    "compressed": PALETTE["compress"],
    "memory": PALETTE["memory"],
    "reinjection": PALETTE["reinjection"],
    "tail": PALETTE["tail"],
}
#: Every sweep heatmap shades its values on one scale that uses none of the colours above.
HEAT_SCALE = "Cividis"


def nice_step(top: float, ticks: int = 6) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, … that splits ``0..top`` into at most ``ticks`` steps."""
    step, factors = 1, (2, 2.5, 2)  # 1 → 2 → 5 → 10 → 20 → 50 → 100 …
    turn = 0
    while top / step > ticks:
        step = int(step * factors[turn % 3])
        turn += 1
    return step


def count_axis(top: float, *, ticks: int = 6) -> dict[str, object]:
    """An axis of counts: from 0, never below it, whole numbers only, about ``ticks`` ticks up to ``top``."""
    return {"rangemode": "nonnegative", "tickformat": ",d", "dtick": nice_step(top, ticks), "tick0": 0}
