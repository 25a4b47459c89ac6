"""The dashboard's and the report's figures, one module per page's subject, all drawn in one palette.

Invariant: pure functions from compressor values (or the tables of them) to plotly Figures, every label
passed in; tests read ``fig.data`` and ``fig.layout``, pages only hand the figure to ``st.plotly_chart``.
"""

from .dumps import before_vs_after, over_time, reduction_histogram
from .run import (
    HEATMAPS,
    OutcomeText,
    context_figure,
    cost_heatmap,
    heatmap_figure,
    mark_step,
    tradeoff_figure,
)
from .span import MAX_BARS, SEGMENT_ORDER, Bar, group_bars, span_bars
from .style import HEAT_SCALE, PALETTE, PART_COLOURS
from .window import before_after, label_rows, window_bar

__all__ = [
    "HEATMAPS",
    "HEAT_SCALE",
    "MAX_BARS",
    "PALETTE",
    "PART_COLOURS",
    "SEGMENT_ORDER",
    "Bar",
    "OutcomeText",
    "before_after",
    "before_vs_after",
    "context_figure",
    "cost_heatmap",
    "group_bars",
    "heatmap_figure",
    "label_rows",
    "mark_step",
    "over_time",
    "reduction_histogram",
    "span_bars",
    "tradeoff_figure",
    "window_bar",
]
