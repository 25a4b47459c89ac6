"""The one palette of every dashboard and report figure: one colour per concept, the same everywhere.

Invariant: no two concepts share a colour; the threshold is the only red (the window bar that reached it is
the same red, lighter); the colours of a span's segments mean those segments and nothing else.
"""

from __future__ import annotations

PALETTE: dict[str, str] = {
    # the segments of a span, and only them
    "system": "#79706E",
    "prefix": "#4E79A7",
    "compress": "#F28E2B",
    "tail": "#59A14F",
    "unanchored": "#D7B5A6",
    # what a compaction puts where the span was
    "memory": "#B07AA1",
    "reinjection": "#76B7B2",
    # the limits a window is measured against
    "threshold": "#D62728",
    "threshold_reached": "rgba(214, 39, 40, 0.45)",
    "min_target": "#B6992D",
    "context_max": "#333333",
    # the windows of a run
    "window": "#6C7A89",
    "sent": "#4B4B8F",
    "uncompacted": "#BAB0AC",
    # what happened at a model call, and the settings of a sweep
    "compaction": "#9C755F",
    "refused": "#E377C2",
    "settings": "#17BECF",
    "recommended": "#EDC948",
    # a folder of dumps
    "dump": "#7570B3",
    "tokens_before": "#E6AB02",
    "tokens_after": "#1B9E77",
    # marks drawn over the data
    "marker": "#222222",
    "marker_edge": "#FFFFFF",
    "no_change": "#999999",
    "now": "#000000",
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
