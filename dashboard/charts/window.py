"""The window against its limits (Span & trigger, Demo) and one compaction's before and after (Live
compaction, Dump review's re-run, Demo).

Invariant: the figures draw the numbers they are given, labelled from ``labels``; the window bar is the
threshold's red exactly when the trigger fires, so the picture agrees with the decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from .style import PALETTE, PART_COLOURS


def window_gauge(
    *,
    total_tokens: int,
    context_max: int,
    threshold: int,
    span_tokens: int,
    min_target_tokens: int,
    hit: bool,
    labels: Mapping[str, str],
) -> go.Figure:
    """Two bars against ``context_max``: the window total with the threshold line, the span with the minimum."""
    rows = [labels["window"], labels["span"]]
    fig = go.Figure(
        go.Bar(
            orientation="h",
            x=[total_tokens, span_tokens],
            y=rows,
            marker_color=[PALETTE["threshold_reached"] if hit else PALETTE["window"], PALETTE["compress"]],
            text=[f"{total_tokens:,}", f"{span_tokens:,}"],
            textposition="inside",
            insidetextanchor="end",
            hovertemplate="%{y}: %{x:,}<extra></extra>",
            showlegend=False,
        )
    )
    for key, value, row, dash in (
        ("threshold", threshold, 0, "dash"),
        ("min_target", min_target_tokens, 1, "dot"),
    ):
        fig.add_shape(
            type="line",
            x0=value,
            x1=value,
            y0=row - 0.5,
            y1=row + 0.5,
            line={"color": PALETTE[key], "width": 3, "dash": dash},
            name=key,
        )
    fig.add_shape(
        type="line",
        x0=context_max,
        x1=context_max,
        y0=-0.5,
        y1=1.5,
        line={"color": PALETTE["context_max"], "width": 2},
        name="context_max",
    )
    # Labels never sit on a bar's number: threshold and context_max above the plot, the minimum beside its line.
    for key, value in (("threshold", threshold), ("context_max", context_max)):
        fig.add_annotation(
            x=value,
            y=1.0,
            yref="paper",
            yanchor="bottom",
            text=f"{labels[key]} {value:,}",
            showarrow=False,
            font={"color": PALETTE[key]},
            name=key,
        )
    fig.add_annotation(
        x=min_target_tokens,
        y=rows[1],
        xanchor="left",
        xshift=6,
        text=f"{labels['min_target']} {min_target_tokens:,}",
        showarrow=False,
        font={"color": PALETTE["min_target"]},
        bgcolor="rgba(255,255,255,0.85)",
        name="min_target",
    )
    upper = max(context_max, total_tokens, span_tokens, threshold) * 1.08
    fig.update_layout(
        height=260,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"range": [0, upper], "title": labels["tokens"]},
        yaxis={"autorange": "reversed"},
        bargap=0.35,
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
