"""The Dump review page's figures over a folder of dumps (``tables.dump_frame``): how much each saved,
before against after, and both over time.

Invariant: every point is a row of the frame it is given, labelled from ``labels``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from .style import PALETTE


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
        yaxis_title=labels["dumps"],
        bargap=0.05,
    )
    return fig


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


def over_time(frame: pd.DataFrame, *, labels: Mapping[str, str]) -> go.Figure:
    """Tokens before and after each compaction, in time order."""
    ordered = frame.sort_values("time", kind="stable")
    fig = go.Figure()
    for column in ("tokens_before", "tokens_after"):
        fig.add_trace(
            go.Scatter(
                x=ordered["time"].tolist(),
                y=ordered[column].astype(float).tolist(),
                mode="lines+markers",
                name=labels[column],
                line={"color": PALETTE[column]},
                meta=column,
            )
        )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        xaxis_title=labels["time"],
        yaxis_title=labels["tokens"],
    )
    return fig
