"""The Dump review page's figures over a folder of dumps (``tables.dump_frame``): how much each saved,
before against after, and both over time (or in order, when the dumps were written in one batch).

Invariant: every point is a row of the frame it is given, labelled from ``labels``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from .style import PALETTE, count_axis


def reduction_histogram(frame: pd.DataFrame, *, labels: Mapping[str, str]) -> go.Figure:
    """How much the dumps saved: a histogram of ``reduction_ratio``."""
    fig = go.Figure(
        go.Histogram(
            x=frame["reduction_ratio"].astype(float).tolist(),
            xbins={"start": 0.0, "end": 1.0, "size": 0.05},
            marker_color=PALETTE["dump"],
            name=labels["reduction_ratio"],
        )
    )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"range": [0, 1], "tickformat": ".0%", "title": labels["reduction_ratio"]},
        yaxis={"title": labels["dumps"], **count_axis(_tallest_bin(frame))},
        bargap=0.05,
    )
    return fig


def _tallest_bin(frame: pd.DataFrame) -> int:
    ratios = frame["reduction_ratio"].dropna().astype(float).clip(0.0, 0.9999)
    return int((ratios // 0.05).value_counts().max()) if len(ratios) else 1


def before_vs_after(frame: pd.DataFrame, *, labels: Mapping[str, str]) -> go.Figure:
    """One point per dump, tokens before against after, with the no-change diagonal."""
    before = frame["tokens_before"].astype(float).tolist()
    after = frame["tokens_after"].astype(float).tolist()
    fig = go.Figure(
        go.Scatter(
            x=before,
            y=after,
            mode="markers",
            marker={"color": PALETTE["dump"], "size": 8, "opacity": 0.7},
            customdata=frame["file"].tolist(),
            hovertemplate="%{customdata}<br>%{x:,} → %{y:,}<extra></extra>",
            name=labels["dumps"],
        )
    )
    top = max([*before, *after, 1.0])
    fig.add_shape(
        type="line",
        x0=0,
        y0=0,
        x1=top,
        y1=top,
        line={"color": PALETTE["no_change"], "dash": "dot"},
        name="diagonal",
    )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=labels["tokens_before"],
        yaxis_title=labels["tokens_after"],
    )
    return fig


def over_time(frame: pd.DataFrame, *, labels: Mapping[str, str], axis: str = "time") -> go.Figure:
    """Tokens before and after each compaction in time order: by time, or by the dumps' order (``axis`` is
    ``tables.time_axis``: "sequence" when dumps written in one batch would all sit on one instant)."""
    ordered = frame.sort_values("sequence", kind="stable")
    x = ordered["time"].tolist() if axis == "time" else ordered["sequence"].tolist()
    fig = go.Figure()
    for column in ("tokens_before", "tokens_after"):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=ordered[column].astype(float).tolist(),
                mode="lines+markers",
                name=labels[column],
                line={"color": PALETTE[column]},
                customdata=ordered["file"].tolist(),
                hovertemplate="%{customdata}: %{y:,}<extra>" + labels[column] + "</extra>",
                meta=column,
            )
        )
    xaxis: dict[str, object] = {"title": labels["time"] if axis == "time" else labels["sequence"]}
    if axis != "time":
        xaxis.update(count_axis(len(ordered)))
        xaxis["rangemode"] = "tozero"
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        xaxis=xaxis,
        yaxis={"title": labels["tokens"], "rangemode": "nonnegative"},
    )
    return fig
