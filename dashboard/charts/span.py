"""The Span & trigger page's message bars (and a dump's, on Dump review): one bar per message, one trace per
segment, grouped into runs of one segment when a conversation is long.

Invariant: a bar's length is the tokens it is given and nothing else; every label comes from ``labels``
(``dashboard.i18n.chart_labels``); one trace per series, never one per bar.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from .style import PALETTE

SEGMENT_ORDER: tuple[str, ...] = ("system", "prefix", "compress", "tail", "unanchored")
#: More messages than this are drawn as groups of consecutive messages of one segment.
MAX_BARS = 400


@dataclass(frozen=True)
class Bar:
    """One drawn bar: a message, or a run of consecutive messages of one segment."""

    position: int  # row on the chart, top first
    first: int  # first and last frame positions covered
    last: int
    label: str
    tokens: int
    segment: str
    internal: bool
    last_user: bool


def group_bars(frame: pd.DataFrame, max_bars: int = MAX_BARS) -> list[Bar]:
    """One bar per row, or groups of ``ceil(n / max_bars)`` rows that never cross a segment change."""
    count = len(frame)
    size = max(math.ceil(count / max_bars), 1) if count else 1
    labels = frame["label"].tolist()
    tokens = frame["tokens"].tolist()
    segments = frame["segment"].tolist()
    internal = frame["internal"].tolist()
    last_user = frame["last_user"].tolist()
    bars: list[Bar] = []
    start = 0
    while start < count:
        end = start + 1
        while end < count and end - start < size and segments[end] == segments[start]:
            end += 1
        label = labels[start] if end - start == 1 else f"{labels[start]}–{labels[end - 1]}"
        bars.append(
            Bar(
                position=len(bars),
                first=start,
                last=end - 1,
                label=label,
                tokens=int(sum(tokens[start:end])),
                segment=str(segments[start]),
                internal=any(internal[start:end]),
                last_user=any(last_user[start:end]),
            )
        )
        start = end
    return bars


def span_bars(
    frame: pd.DataFrame,
    *,
    labels: Mapping[str, str],
    tail_start: int | None = None,
    naive_tail_start: int | None = None,
    max_bars: int = MAX_BARS,
) -> go.Figure:
    """Horizontal bars, one per message (length = tokens), one trace per segment.

    ``frame`` is ``tables.span_frame`` (or ``tables.dump_span_frame``). Internal messages and the last real
    user message get markers; when ``tail_start < naive_tail_start`` (context indices) the messages the tool
    boundary added to the tail are shaded.
    """
    bars = group_bars(frame, max_bars)
    fig = go.Figure()
    for segment in SEGMENT_ORDER:
        mine = [bar for bar in bars if bar.segment == segment]
        if not mine:
            continue
        fig.add_trace(
            go.Bar(
                name=labels[segment],
                orientation="h",
                x=[bar.tokens for bar in mine],
                y=[bar.position for bar in mine],
                marker_color=PALETTE[segment],
                customdata=[[_worded(bar.label, labels), bar.last - bar.first + 1] for bar in mine],
                hovertemplate="%{customdata[0]}: %{x:,} "
                + labels["tokens"]
                + "<extra>"
                + labels[segment]
                + "</extra>",
                meta=segment,
            )
        )
    for flag, symbol in (("internal", "diamond"), ("last_user", "star")):
        marked = [bar for bar in bars if getattr(bar, flag)]
        if marked:
            fig.add_trace(
                go.Scatter(
                    name=labels[flag],
                    mode="markers",
                    x=[bar.tokens for bar in marked],
                    y=[bar.position for bar in marked],
                    marker={
                        "symbol": symbol,
                        "size": 12,
                        "color": PALETTE["marker"],
                        "line": {"width": 1, "color": PALETTE["marker_edge"]},
                    },
                    hovertemplate="%{y}<extra>" + labels[flag] + "</extra>",
                    meta=flag,
                )
            )
    if tail_start is not None and naive_tail_start is not None and tail_start < naive_tail_start:
        first = _bar_of_index(frame, bars, tail_start)
        last = _bar_of_index(frame, bars, naive_tail_start - 1)
        if first is not None and last is not None:
            fig.add_hrect(
                y0=first - 0.5,
                y1=last + 0.5,
                fillcolor=PALETTE["tail"],
                opacity=0.15,
                line_width=0,
                annotation_text=labels["tool_boundary"],
                annotation_position="top right",
                name="tool_boundary",
            )
    tick_step = max(math.ceil(len(bars) / 40), 1)
    fig.update_layout(
        barmode="overlay",
        height=min(max(260, 18 * len(bars) + 120), 1600),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        xaxis_title=labels["tokens"],
        yaxis={
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": [bar.position for bar in bars][::tick_step],
            "ticktext": [_worded(bar.label, labels) for bar in bars][::tick_step],
            "title": labels["message"],
        },
    )
    return fig


def _worded(label: str, labels: Mapping[str, str]) -> str:
    """A bar's label with its system rows named in the chart's language ("system 1" → "系统 1")."""
    return label.replace("system ", f"{labels['system']} ") if label.startswith("system ") else label


def _bar_of_index(frame: pd.DataFrame, bars: Sequence[Bar], index: int) -> int | None:
    """The chart row holding context message ``index``."""
    mask = (frame["index"] == index).fillna(False).to_numpy(dtype=bool)
    positions = frame["position"].to_numpy()[mask]
    if len(positions) == 0:
        return None
    position = int(positions[0])
    for bar in bars:
        if bar.first <= position <= bar.last:
            return bar.position
    return None
