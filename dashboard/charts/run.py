"""The Tune and Demo pages' figures of a replayed run, and the exported report's: the context at every model
call, the sweep's heatmaps and each setting's cost against its headroom.

Invariant: pure functions of a ``Simulation`` or ``Sweep``; every label, title and hover text comes from
``labels`` (``dashboard.i18n.chart_labels``) and every outcome is worded by the ``outcome_text`` passed in,
so the same figure is drawn in any language and never relabelled afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import plotly.graph_objects as go

from compressor.replay import Assessment, Metric, Outcome, Simulation, Sweep

from .style import HEAT_SCALE, PALETTE

#: The sweep metrics drawn as heatmaps, in the order the pages and the report show them.
HEATMAPS: tuple[Metric, ...] = ("compactions", "compaction_input_tokens", "peak_utilisation")
#: Words for a compaction attempt from its status and reason codes (``dashboard.i18n.outcome_text``).
OutcomeText = Callable[[str, str], str]


def context_figure(
    simulation: Simulation, *, labels: Mapping[str, str], outcome_text: OutcomeText
) -> go.Figure:
    """Tokens at each model call: what was sent, what the trigger read, the uncompacted run, the two limits,
    and a marker at every compaction (kept or refused)."""
    steps = simulation.steps
    x = [step.index for step in steps]
    fig = go.Figure()
    lines = (
        (
            "uncompacted",
            [step.uncompacted_tokens for step in steps],
            {"color": PALETTE["uncompacted"], "dash": "dot"},
        ),
        ("read", [step.context_tokens for step in steps], {"color": PALETTE["window"], "width": 1}),
        ("sent", [step.sent_tokens for step in steps], {"color": PALETTE["sent"], "width": 2}),
    )
    for key, values, line in lines:
        fig.add_trace(go.Scatter(x=x, y=values, name=labels[key], mode="lines", line=line, meta=key))
    span = [x[0], x[-1]] if x else [0, 1]
    limits = (
        ("threshold", simulation.outcome.threshold, "dash"),
        ("context_max", simulation.context_max, "dashdot"),
    )
    for key, value, dash in limits:
        fig.add_trace(
            go.Scatter(
                x=span,
                y=[value] * 2,
                name=labels[key],
                mode="lines",
                line={"color": PALETTE[key], "dash": dash},
                meta=key,
            )
        )
    for event, key, symbol in (("compacted", "compaction", "triangle-down"), ("skipped", "refused", "x")):
        chosen = [step for step in steps if step.event == event]
        if chosen:
            fig.add_trace(
                go.Scatter(
                    x=[step.index for step in chosen],
                    y=[step.context_tokens for step in chosen],
                    name=labels[key],
                    mode="markers",
                    marker={"symbol": symbol, "size": 11, "color": PALETTE[key]},
                    text=[outcome_text(step.event, step.skip_reason) for step in chosen],
                    hovertemplate=labels["hover.step"],
                    meta=key,
                )
            )
    fig.update_layout(
        title=labels["context_title"],
        xaxis_title=labels["context_x"],
        yaxis={"title": labels["tokens"], "rangemode": "nonnegative"},
        hovermode="x unified",
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


#: Up to this many, a count's colour bar has a tick at every whole number.
SMALL_COUNT = 10


def heatmap_figure(
    sweep: Sweep, metric: Metric, *, labels: Mapping[str, str], min_target: float | None = None
) -> go.Figure:
    """``metric`` over keep (rows) × trigger ratio (columns) for one min target, with the values written in."""
    grid = sweep.grid(metric, min_target)
    percent = metric == "peak_utilisation"
    text = [
        ["–" if value is None else (f"{value:.1%}" if percent else f"{value:,}") for value in row]
        for row in grid
    ]
    title = labels[f"heat.{metric}"]
    return _heatmap(
        sweep, grid, text, metric=metric, title=title, percent=percent, labels=labels, min_target=min_target
    )


def cost_heatmap(
    sweep: Sweep,
    assessments: Sequence[Assessment],
    *,
    labels: Mapping[str, str],
    amount: Callable[[float], str],
    min_target: float | None = None,
) -> go.Figure:
    """Each setting's run cost (``Assessment.cost``: USD with a price, else tokens) on the sweep's grid, written
    with ``amount``."""
    target = sweep.min_targets[0] if min_target is None else min_target
    by_key = {a.outcome.key: a.cost for a in assessments}
    grid: list[list[float | int | None]] = [
        [by_key.get((ratio, keep, target)) for ratio in sweep.ratios] for keep in sweep.keeps
    ]
    text = [["–" if value is None else amount(value) for value in row] for row in grid]
    return _heatmap(
        sweep,
        grid,
        text,
        metric="cost",
        title=labels["heat.cost"],
        percent=False,
        labels=labels,
        min_target=min_target,
    )


def _heatmap(
    sweep: Sweep,
    grid: list[list[float | int | None]],
    text: list[list[str]],
    *,
    metric: str,
    title: str,
    percent: bool,
    labels: Mapping[str, str],
    min_target: float | None,
) -> go.Figure:
    values = [value for row in grid for value in row if value is not None]
    top = max([*values, 1.0 if percent else 1])
    colorbar: dict[str, object] = {"tickformat": ".0%" if percent else ",d"}
    if metric == "cost":
        colorbar = {}
    elif not percent and top <= SMALL_COUNT:
        # a few compactions: one tick per whole number, never "1, 1, 2, 2" from 0.5 steps
        colorbar["dtick"] = 1
    fig = go.Figure(
        go.Heatmap(
            z=grid,
            x=[f"{r:g}" for r in sweep.ratios],
            y=[str(k) for k in sweep.keeps],
            text=text,
            texttemplate="%{text}",
            colorscale=HEAT_SCALE,
            # counts, shares and costs are never negative: the scale starts at 0, also when every cell is 0
            zmin=0,
            zmax=top,
            colorbar=colorbar,
            hovertemplate=labels["hover.heat"] + "<extra></extra>",
            meta=metric,
        )
    )
    target = sweep.min_targets[0] if min_target is None else min_target
    fig.update_layout(
        title=labels["heat_title"].format(title=title, target=f"{target:g}"),
        xaxis={"title": "trigger_context_ratio", "type": "category"},
        yaxis={"title": "keep_recent_messages", "type": "category"},
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


def tradeoff_figure(sweep: Sweep, chosen: Outcome | None, *, labels: Mapping[str, str]) -> go.Figure:
    """Each setting's compaction cost against the headroom it leaves at its peak (1 − peak utilisation)."""
    outcomes = sweep.outcomes
    fig = go.Figure(
        go.Scatter(
            x=[1 - o.peak_utilisation for o in outcomes],
            y=[o.compaction_input_tokens for o in outcomes],
            mode="markers",
            name=labels["settings"],
            marker={"color": PALETTE["settings"], "size": 9},
            text=[
                labels["hover.setting"].format(
                    ratio=f"{o.trigger_context_ratio:g}",
                    keep=o.keep_recent_messages,
                    min_target=f"{o.min_target_context_ratio:g}",
                    compactions=o.compactions,
                )
                for o in outcomes
            ],
            hovertemplate="%{text}<br>" + labels["hover.tradeoff"] + "<extra></extra>",
            meta="settings",
        )
    )
    if chosen is not None:
        fig.add_trace(
            go.Scatter(
                x=[1 - chosen.peak_utilisation],
                y=[chosen.compaction_input_tokens],
                mode="markers",
                name=labels["recommended"],
                marker={
                    "color": PALETTE["recommended"],
                    "size": 15,
                    "symbol": "star",
                    "line": {"width": 1, "color": PALETTE["marker"]},
                },
                meta="recommended",
            )
        )
    fig.update_layout(
        title=labels["tradeoff_title"],
        xaxis={"title": labels["tradeoff_x"], "tickformat": ".0%"},
        yaxis_title=labels["tradeoff_y"],
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


def mark_step(fig: go.Figure, x: int, label: str) -> go.Figure:
    """A copy of ``fig`` with a vertical line at ``x`` (the model call on show) labelled ``label``."""
    out = go.Figure(fig)
    out.add_vline(
        x=x,
        line={"color": PALETTE["now"], "width": 2, "dash": "dot"},
        annotation_text=label,
        annotation_position="top",
    )
    return out
