"""Figures the pages show, as pure functions from compressor values (or tables of them) to plotly Figures.

Invariant: a chart draws the numbers it is given and computes none of its own beyond grouping bars;
every label is passed in, so the same figure renders in any language. One trace per series, never per bar.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

SEGMENT_ORDER: tuple[str, ...] = ("system", "prefix", "compress", "tail", "unanchored")
COLORS: dict[str, str] = {
    "system": "#8C8C8C",
    "prefix": "#4C78A8",
    "compress": "#F58518",
    "tail": "#54A24B",
    "unanchored": "#C9C3BE",
    "memory": "#B279A2",
    "reinjection": "#E45756",
    "window_hit": "#EE9A9D",
    "compressed": "#F58518",
    "threshold": "#B91C1C",
    "min_target": "#9467BD",
    "context_max": "#333333",
    "before": "#F58518",
    "after": "#4C78A8",
}
DEFAULT_NAMES: dict[str, str] = {
    "system": "system",
    "prefix": "preserved prefix",
    "compress": "to compress",
    "tail": "protected tail",
    "unanchored": "unanchored (no user request)",
    "internal": "internal message",
    "last_user": "last real user message",
    "tool_boundary": "tail widened by the tool boundary",
    "tokens": "tokens",
    "message": "message",
    "window": "window total",
    "span": "span to compress",
    "threshold": "threshold",
    "min_target": "minimum span",
    "context_max": "context_max",
    "before": "before",
    "after": "after",
    "memory": "memory block",
    "reinjection": "reinjection",
    "compressed": "compressed span",
    "reduction_ratio": "reduction ratio",
    "dumps": "dumps",
    "tokens_before": "tokens before",
    "tokens_after": "tokens after",
    "time": "time",
}
#: More messages than this are drawn as groups of consecutive messages of one segment.
MAX_BARS = 400


def _names(labels: Mapping[str, str] | None) -> dict[str, str]:
    return {**DEFAULT_NAMES, **(labels or {})}


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
    tail_start: int | None = None,
    naive_tail_start: int | None = None,
    labels: Mapping[str, str] | None = None,
    max_bars: int = MAX_BARS,
) -> go.Figure:
    """Horizontal bars, one per message (length = tokens), one trace per segment.

    ``frame`` is ``tables.span_frame``. Internal messages and the last real user message get markers;
    when ``tail_start < naive_tail_start`` (context indices) the messages the tool boundary added to
    the tail are shaded.
    """
    names = _names(labels)
    bars = group_bars(frame, max_bars)
    fig = go.Figure()
    for segment in SEGMENT_ORDER:
        mine = [bar for bar in bars if bar.segment == segment]
        if not mine:
            continue
        fig.add_trace(
            go.Bar(
                name=names[segment],
                orientation="h",
                x=[bar.tokens for bar in mine],
                y=[bar.position for bar in mine],
                marker_color=COLORS[segment],
                customdata=[[bar.label, bar.last - bar.first + 1] for bar in mine],
                hovertemplate="%{customdata[0]}: %{x:,} "
                + names["tokens"]
                + "<extra>"
                + names[segment]
                + "</extra>",
                meta=segment,
            )
        )
    for flag, symbol in (("internal", "diamond"), ("last_user", "star")):
        marked = [bar for bar in bars if getattr(bar, flag)]
        if marked:
            fig.add_trace(
                go.Scatter(
                    name=names[flag],
                    mode="markers",
                    x=[bar.tokens for bar in marked],
                    y=[bar.position for bar in marked],
                    marker={
                        "symbol": symbol,
                        "size": 12,
                        "color": "#222222",
                        "line": {"width": 1, "color": "white"},
                    },
                    hovertemplate="%{y}<extra>" + names[flag] + "</extra>",
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
                fillcolor=COLORS["tail"],
                opacity=0.15,
                line_width=0,
                annotation_text=names["tool_boundary"],
                annotation_position="top right",
                name="tool_boundary",
            )
    tick_step = max(math.ceil(len(bars) / 40), 1)
    fig.update_layout(
        barmode="overlay",
        height=min(max(260, 18 * len(bars) + 120), 1600),
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        xaxis_title=names["tokens"],
        yaxis={
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": [bar.position for bar in bars][::tick_step],
            "ticktext": [bar.label for bar in bars][::tick_step],
            "title": names["message"],
        },
    )
    return fig


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


def window_gauge(
    *,
    total_tokens: int,
    context_max: int,
    threshold: int,
    span_tokens: int,
    min_target_tokens: int,
    hit: bool,
    labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """Two bars against ``context_max``: the window total with the threshold line, the span with the minimum.

    The window bar turns red when the trigger fires (``hit``), so the picture agrees with the decision.
    """
    names = _names(labels)
    rows = [names["window"], names["span"]]
    fig = go.Figure(
        go.Bar(
            orientation="h",
            x=[total_tokens, span_tokens],
            y=rows,
            marker_color=[COLORS["window_hit"] if hit else COLORS["prefix"], COLORS["compress"]],
            text=[f"{total_tokens:,}", f"{span_tokens:,}"],
            textposition="inside",
            insidetextanchor="end",
            hovertemplate="%{y}: %{x:,}<extra></extra>",
            showlegend=False,
        )
    )
    lines = (
        ("threshold", threshold, 0, "dash"),
        ("min_target", min_target_tokens, 1, "dot"),
    )
    for key, value, row, dash in lines:
        fig.add_shape(
            type="line",
            x0=value,
            x1=value,
            y0=row - 0.5,
            y1=row + 0.5,
            line={"color": COLORS[key], "width": 3, "dash": dash},
            name=key,
        )
    fig.add_shape(
        type="line",
        x0=context_max,
        x1=context_max,
        y0=-0.5,
        y1=1.5,
        line={"color": COLORS["context_max"], "width": 2},
        name="context_max",
    )
    # Labels never sit on a bar's number: threshold and context_max above the plot, the minimum beside its line.
    for key, value in (("threshold", threshold), ("context_max", context_max)):
        fig.add_annotation(
            x=value,
            y=1.0,
            yref="paper",
            yanchor="bottom",
            text=f"{names[key]} {value:,}",
            showarrow=False,
            font={"color": COLORS[key]},
            name=key,
        )
    fig.add_annotation(
        x=min_target_tokens,
        y=rows[1],
        xanchor="left",
        xshift=6,
        text=f"{names['min_target']} {min_target_tokens:,}",
        showarrow=False,
        font={"color": COLORS["min_target"]},
        bgcolor="rgba(255,255,255,0.85)",
        name="min_target",
    )
    upper = max(context_max, total_tokens, span_tokens, threshold) * 1.08
    fig.update_layout(
        height=260,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        xaxis={"range": [0, upper], "title": names["tokens"]},
        yaxis={"autorange": "reversed"},
        bargap=0.35,
    )
    return fig


def before_after(
    before: Sequence[tuple[str, int]],
    after: Sequence[tuple[str, int]],
    *,
    labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """Two stacked bars, before and after a compaction, one trace per part (prefix, compressed span,
    memory block, reinjection, tail); a part missing from one side is 0 there."""
    names = _names(labels)
    order: list[str] = []
    for key, _ in (*before, *after):
        if key not in order:
            order.append(key)
    before_map, after_map = dict(before), dict(after)
    rows = [names["before"], names["after"]]
    fig = go.Figure()
    for key in order:
        fig.add_trace(
            go.Bar(
                name=names.get(key, key),
                orientation="h",
                x=[before_map.get(key, 0), after_map.get(key, 0)],
                y=rows,
                marker_color=COLORS.get(key, "#999999"),
                hovertemplate="%{y} · " + names.get(key, key) + ": %{x:,}<extra></extra>",
                meta=key,
            )
        )
    fig.update_layout(
        barmode="stack",
        height=220,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "traceorder": "normal"},
        xaxis_title=names["tokens"],
        yaxis={"autorange": "reversed"},
    )
    return fig


def reduction_histogram(frame: pd.DataFrame, *, labels: Mapping[str, str] | None = None) -> go.Figure:
    """How much the dumps saved: a histogram of ``reduction_ratio`` (``tables.dump_frame``)."""
    names = _names(labels)
    fig = go.Figure(
        go.Histogram(
            x=frame["reduction_ratio"].astype(float).tolist(),
            xbins={"start": 0.0, "end": 1.0, "size": 0.05},
            marker_color=COLORS["after"],
            name=names["reduction_ratio"],
        )
    )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"range": [0, 1], "tickformat": ".0%", "title": names["reduction_ratio"]},
        yaxis_title=names["dumps"],
        bargap=0.05,
    )
    return fig


def before_vs_after(frame: pd.DataFrame, *, labels: Mapping[str, str] | None = None) -> go.Figure:
    """One point per dump, tokens before against after, with the no-change diagonal."""
    names = _names(labels)
    before = frame["tokens_before"].astype(float).tolist()
    after = frame["tokens_after"].astype(float).tolist()
    fig = go.Figure(
        go.Scatter(
            x=before,
            y=after,
            mode="markers",
            marker={"color": COLORS["after"], "size": 8, "opacity": 0.7},
            customdata=frame["file"].tolist(),
            hovertemplate="%{customdata}<br>%{x:,} → %{y:,}<extra></extra>",
            name=names["dumps"],
        )
    )
    top = max([*before, *after, 1.0])
    fig.add_shape(
        type="line", x0=0, y0=0, x1=top, y1=top, line={"color": "#999999", "dash": "dot"}, name="diagonal"
    )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=names["tokens_before"],
        yaxis_title=names["tokens_after"],
    )
    return fig


def over_time(frame: pd.DataFrame, *, labels: Mapping[str, str] | None = None) -> go.Figure:
    """Tokens before and after each compaction, in time order."""
    names = _names(labels)
    ordered = frame.sort_values("time", kind="stable")
    fig = go.Figure()
    for column, key in (("tokens_before", "before"), ("tokens_after", "after")):
        fig.add_trace(
            go.Scatter(
                x=ordered["time"].tolist(),
                y=ordered[column].astype(float).tolist(),
                mode="lines+markers",
                name=names[column],
                line={"color": COLORS[key]},
                meta=column,
            )
        )
    fig.update_layout(
        height=280,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        xaxis_title=names["time"],
        yaxis_title=names["tokens"],
    )
    return fig


# -- whole-run replays (Tune and Demo pages) ------------------------------------------------------
# The replay figures themselves are dashboard.report's (the exported report draws the same ones); these
# helpers put them in the page's language and mark the step the Demo page is showing.


def relabel(
    fig: go.Figure,
    *,
    names: Mapping[str, str] | None = None,
    title: str | None = None,
    xaxis_title: str | None = None,
    yaxis_title: str | None = None,
) -> go.Figure:
    """A copy of ``fig`` with trace names mapped through ``names`` (drawn name → shown name) and new titles."""
    out = go.Figure(fig)
    mapping = dict(names or {})
    if mapping:
        out.for_each_trace(lambda trace: trace.update(name=mapping.get(trace.name, trace.name)))
    if title is not None:
        out.update_layout(title_text=title)
    if xaxis_title is not None:
        out.update_xaxes(title_text=xaxis_title)
    if yaxis_title is not None:
        out.update_yaxes(title_text=yaxis_title)
    return out


def mark_step(fig: go.Figure, x: int, label: str) -> go.Figure:
    """A copy of ``fig`` with a vertical line at ``x`` (the model call on show) labelled ``label``."""
    out = go.Figure(fig)
    out.add_vline(
        x=x,
        line={"color": COLORS["context_max"], "width": 2, "dash": "dot"},
        annotation_text=label,
        annotation_position="top",
    )
    return out
