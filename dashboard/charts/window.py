"""The window part by part against its limits (Span & trigger, Live compaction, Demo) and one compaction's
before and after (Live compaction, Dump review's re-run, Demo).

Invariant: the figures draw the numbers they are given, labelled from ``labels``; the window bar's parts are the
breakdown's own, and no two mark labels are drawn on the same row when they would touch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from compressor.window_parts import WindowBreakdown

from .style import PALETTE, PART_COLOURS, WINDOW_PART_COLOURS

#: Two mark labels closer than this share of the axis go on different rows above the bar.
LABEL_GAP = 0.3
#: The height of one row of mark labels, as a share of the plot's height.
LABEL_ROW = 0.3


def label_rows(positions: Sequence[float], upper: float, gap: float = LABEL_GAP) -> list[int]:
    """A row (0 = nearest the bar) for each label at ``positions`` on an axis ending at ``upper``: two labels
    closer than ``gap`` of the axis never share a row, so no label is drawn over another."""
    order = sorted(range(len(positions)), key=lambda i: positions[i])
    rows = [0] * len(positions)
    last: list[float] = []  # the rightmost position placed on each row
    for i in order:
        x = positions[i]
        row = next((r for r, end in enumerate(last) if x - end >= gap * upper), len(last))
        if row == len(last):
            last.append(x)
        else:
            last[row] = x
        rows[i] = row
    return rows


def window_bar(breakdown: WindowBreakdown, *, labels: Mapping[str, str]) -> go.Figure:
    """One stacked bar of the window total by part (``compressor.window_parts``) and the free capacity, with
    marks for the trigger threshold, the minimum span (measured from where the span starts) and the capacity."""
    parts: list[tuple[str, int]] = [(code, tokens) for code, tokens in breakdown.parts if tokens > 0]
    parts.append(("free", breakdown.free_tokens))
    fig = go.Figure()
    for code, tokens in parts:
        fig.add_trace(
            go.Bar(
                name=labels[f"part.{code}"],
                orientation="h",
                x=[tokens],
                y=[labels["window"]],
                marker_color=WINDOW_PART_COLOURS[code],
                hovertemplate=labels[f"part.{code}"] + ": %{x:,}<extra></extra>",
                meta=code,
            )
        )
    span_start = 0
    for code, tokens in parts:
        if code == "span":
            break
        if code in ("system", "tools", "hidden", "prefix"):
            span_start += tokens
    marks = (
        ("threshold", breakdown.threshold, breakdown.threshold, "dash"),
        ("min_target", span_start + breakdown.min_span, breakdown.min_span, "dot"),
        ("context_max", breakdown.capacity, breakdown.capacity, "solid"),
    )
    upper = max(breakdown.capacity, breakdown.total_tokens, breakdown.threshold) * 1.02
    rows = label_rows([float(x) for _, x, _, _ in marks], upper)
    for (key, x, value, dash), row in zip(marks, rows, strict=True):
        fig.add_shape(
            type="line",
            x0=x,
            x1=x,
            y0=-0.5,
            y1=0.5,
            line={"color": PALETTE[key], "width": 3 if key == "threshold" else 2, "dash": dash},
            name=key,
        )
        fig.add_annotation(
            x=x,
            y=1.0 + row * LABEL_ROW,
            yref="paper",
            yanchor="bottom",
            xanchor="right" if x > 0.85 * upper else "left" if x < 0.15 * upper else "center",
            text=f"{labels[key]} {value:,}",
            showarrow=False,
            font={"color": PALETTE[key]},
            name=key,
        )
    fig.update_layout(
        barmode="stack",
        height=170 + 26 * max(rows),
        margin={"l": 10, "r": 10, "t": 36 + 26 * max(rows), "b": 10},
        # No axis title: it would sit on the legend; the ticks are tokens and the caption below says so.
        xaxis={"range": [0, upper], "rangemode": "nonnegative", "ticksuffix": ""},
        yaxis={"showticklabels": False},
        legend={"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0, "traceorder": "normal"},
        bargap=0.3,
    )
    return fig


def before_after(
    before: Sequence[tuple[str, int]],
    after: Sequence[tuple[str, int]],
    *,
    labels: Mapping[str, str],
) -> go.Figure:
    """Two stacked bars, before and after a compaction, one trace per part (``compressor.breakdown``:
    prefix, compressed span, memory block, reinjection, tail); a part missing from one side is 0 there."""
    order: list[str] = []
    for key, _ in (*before, *after):
        if key not in order:
            order.append(key)
    before_map, after_map = dict(before), dict(after)
    rows = [labels["before"], labels["after"]]
    fig = go.Figure()
    for key in order:
        fig.add_trace(
            go.Bar(
                name=labels[key],
                orientation="h",
                x=[before_map.get(key, 0), after_map.get(key, 0)],
                y=rows,
                marker_color=PART_COLOURS[key],
                hovertemplate="%{y} · " + labels[key] + ": %{x:,}<extra></extra>",
                meta=key,
            )
        )
    fig.update_layout(
        barmode="stack",
        height=220,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "traceorder": "normal"},
        xaxis_title=labels["tokens"],
        yaxis={"autorange": "reversed"},
    )
    return fig
