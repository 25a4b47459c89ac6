"""The Fleet page's renderers: the fleet heatmap, the distributions over its runs, the runs table as a frame,
and the recommendation in words — pure functions of ``compressor.fleet`` values, every word passed in.

Invariant: nothing here computes a figure of the fleet; it lays out the numbers ``run_fleet`` and
``runs_table`` returned, and words codes through the string tables (``t`` is ``translate`` in a language).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from compressor.fleet import Fleet, FleetRecommendation, FleetRetention, Hurt, Progress
from compressor.fleet.values import SettingFigures

from .style import HEAT_SCALE, PALETTE

Words = Callable[..., str]
#: What a heatmap cell can show, and how it writes a value.
HEAT_METRICS: dict[str, Callable[[SettingFigures], float]] = {
    "headroom_share": lambda f: f.headroom_share,
    "cost": lambda f: f.cost,
    "compacting_share": lambda f: f.compacting_share,
    "peak_p95": lambda f: f.peak_utilisation.p95,
    "loop_flags": lambda f: float(f.loop_flags or 0),
}
SHARE_METRICS = ("headroom_share", "compacting_share", "peak_p95")
#: The runs table's columns and the settings table's, in order.
RUN_TABLE_COLUMNS: tuple[str, ...] = (
    "name",
    "agent",
    "model",
    "size",
    "messages",
    "context_tokens",
    "steps",
    "compactions",
    "peak_utilisation",
    "steps_over_capacity",
    "tokens",
    "path",
)
SETTING_COLUMNS: tuple[str, ...] = (
    "ratio",
    "keep",
    "min_target",
    "compacting_share",
    "compactions_p95",
    "peak_p50",
    "peak_p95",
    "overflowing",
    "headroom_share",
    "loop_flags",
    "tokens",
    "cost",
)


def fleet_heatmap(
    fleet: Fleet, metric: str, *, labels: Mapping[str, str], min_target: float | None = None
) -> go.Figure:
    """``metric`` of every setting over keep (rows) × trigger ratio (columns), the pick outlined."""
    grid = fleet.grid
    target = grid.min_targets[0] if min_target is None else min_target
    value = HEAT_METRICS[metric]
    cells = {f.setting: value(f) for f in fleet.settings if f.setting[2] == target}
    z = [[cells.get((ratio, keep, target)) for ratio in grid.ratios] for keep in grid.keeps]
    share = metric in SHARE_METRICS
    text = [["–" if v is None else (f"{v:.1%}" if share else f"{v:,.4g}") for v in row] for row in z]
    values = [v for row in z for v in row if v is not None]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"{r:g}" for r in grid.ratios],
            y=[str(k) for k in grid.keeps],
            text=text,
            texttemplate="%{text}",
            colorscale=HEAT_SCALE,
            # every figure of a setting is a count, a share or a cost: the scale starts at 0, also when all are 0
            zmin=0,
            zmax=max([*values, 1.0 if share else 1]),
            colorbar={"tickformat": ".0%" if share else ""},
            meta=metric,
            hovertemplate=labels["hover"] + "<extra></extra>",
        )
    )
    pick = fleet.recommendation.setting
    if pick is not None and pick[2] == target:
        fig.add_trace(
            go.Scatter(
                x=[f"{pick[0]:g}"],
                y=[str(pick[1])],
                mode="markers",
                name=labels["pick"],
                hoverinfo="skip",
                marker={
                    "symbol": "square-open",
                    "size": 28,
                    "color": PALETTE["recommended"],
                    "line": {"width": 3},
                },
            )
        )
    fig.update_layout(
        title=labels["title"].format(metric=labels[f"metric.{metric}"], target=f"{target:g}"),
        xaxis={"title": "trigger_context_ratio", "type": "category"},
        yaxis={"title": "keep_recent_messages", "type": "category"},
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
        showlegend=False,
    )
    return fig


def distribution(
    values: Sequence[float],
    *,
    title: str,
    axis: str,
    runs: str,
    colour: str = "window",
    percent: bool = False,
) -> go.Figure:
    """A histogram of one number per run (peak utilisation, compactions) under the fleet's setting; ``runs``
    names the count axis. Both axes start at 0 and the counts are whole numbers."""
    tallest = max(Counter(values).values(), default=0) if not percent else len(values)
    # whole counts on the x axis too: a tick per count when they are few (never "0, 0, 0, 1" from 0.2 steps)
    low, high = min(values, default=0), max(values, default=0)
    whole = not percent and high - low <= 20
    # a bar per whole count, over at least three counts: one value alone (every run at 0) is a bar, not the plot
    bins = {"start": low - 0.5, "size": 1} if whole else None
    fig = go.Figure(go.Histogram(x=list(values), marker={"color": PALETTE[colour]}, nbinsx=30, xbins=bins))
    if whole:
        fig.update_xaxes(range=[low - 0.5, max(high, low + 2) + 0.5])
    fig.update_layout(
        title=title,
        xaxis={
            "title": axis,
            "tickformat": ".0%" if percent else ",d",
            "rangemode": "nonnegative",
            "dtick": 1 if whole else None,
        },
        # a handful of runs: a tick per whole run (plotly alone would tick 0.5 and write "1, 1, 2, 2")
        yaxis={
            "title": runs,
            "rangemode": "tozero",
            "tickformat": ",d",
            "dtick": 1 if tallest <= 10 else None,
        },
        bargap=0.05,
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


def picked_values(fleet: Fleet) -> tuple[list[float], list[int]]:
    """Each run's peak utilisation and compactions under the recommended setting (runs without one left out)."""
    peaks = [o.peak_utilisation for o in fleet.picked if o is not None]
    compactions = [o.compactions for o in fleet.picked if o is not None]
    return peaks, compactions


#: What a table shows for a value a run does not have (never "None").
MISSING = "—"
#: The columns that hold a share, written as every page writes one ("17.2%").
SHARES = ("peak_utilisation", "compacting_share", "peak_p50", "peak_p95", "headroom_share")


def _cell(key: str, value: object) -> object:
    """A value as a table shows it: a dash for none, a share as a percentage, anything else as it is."""
    if value is None:
        return MISSING
    return f"{value:.1%}" if key in SHARES and isinstance(value, int | float) else value


def runs_frame(rows: Sequence[Mapping[str, Any]], columns: Mapping[str, str]) -> pd.DataFrame:
    """The runs table: the columns named in ``columns`` (key → header), in that order."""
    return pd.DataFrame(
        [{header: _cell(key, row.get(key)) for key, header in columns.items()} for row in rows],
        columns=list(columns.values()),
    )


def settings_frame(fleet: Fleet, headers: Mapping[str, str]) -> pd.DataFrame:
    """Every setting's fleet figures, one row each, in ``SETTING_COLUMNS`` (``headers``: column → header)."""
    columns = {name: headers[name] for name in SETTING_COLUMNS}
    rows = []
    for f in fleet.settings:
        ratio, keep, target = f.setting
        values = {
            "ratio": ratio,
            "keep": keep,
            "min_target": target,
            "compacting_share": f.compacting_share,
            "compactions_p95": f.compactions.p95,
            "peak_p50": f.peak_utilisation.p50,
            "peak_p95": f.peak_utilisation.p95,
            "overflowing": f.overflowing,
            "headroom_share": f.headroom_share,
            "loop_flags": f.loop_flags,
            "tokens": f.tokens,
            "cost": f.cost,
        }
        rows.append({header: _cell(key, values[key]) for key, header in columns.items()})
    return pd.DataFrame(rows, columns=list(columns.values()))


def amount(value: float, unit: str) -> str:
    return f"${value:,.4f}" if unit == "usd" else f"{round(value):,}"


# Every key below is written out where it is looked up (the string tables' test finds each one).
REASONS: dict[str, Callable[[Words, dict[str, Any]], str]] = {
    "no_runs": lambda t, v: t("fleet.reason.no_runs", **v),
    "none_reach_share": lambda t, v: t("fleet.reason.none_reach_share", **v),
    "reaches_share": lambda t, v: t("fleet.reason.reaches_share", **v),
    "qualifying": lambda t, v: t("fleet.reason.qualifying", **v),
    "cheapest_price": lambda t, v: t("fleet.reason.cheapest_price", **v),
    "cheapest_tokens": lambda t, v: t("fleet.reason.cheapest_tokens", **v),
    "loop_flagged": lambda t, v: t("fleet.reason.loop_flagged", **v),
    "never_fires": lambda t, v: t("fleet.reason.never_fires", **v),
}
HURTS: dict[str, Callable[[Words, dict[str, Any]], str]] = {
    "overflows": lambda t, v: t("fleet.hurt.overflows", **v),
    "over_headroom": lambda t, v: t("fleet.hurt.over_headroom", **v),
    "loop_flagged": lambda t, v: t("fleet.hurt.loop_flagged", **v),
    "costs_more": lambda t, v: t("fleet.hurt.costs_more", **v),
}


def metric_labels(t: Words) -> dict[str, str]:
    return {
        "headroom_share": t("fleet.metric.headroom_share"),
        "cost": t("fleet.metric.cost"),
        "compacting_share": t("fleet.metric.compacting_share"),
        "peak_p95": t("fleet.metric.peak_upper"),
        "loop_flags": t("fleet.metric.loop_flags"),
    }


def column_labels(t: Words) -> dict[str, str]:
    """Every column of the runs and settings tables (and the runs table's orders), in the UI's language."""
    return {
        "name": t("fleet.col.name"),
        "path": t("fleet.col.path"),
        "error": t("fleet.col.error"),
        "agent": t("fleet.col.agent"),
        "model": t("fleet.col.model"),
        "size": t("fleet.col.size"),
        "messages": t("fleet.col.messages"),
        "context_tokens": t("fleet.col.context_tokens"),
        "steps": t("fleet.col.steps"),
        "compactions": t("fleet.col.compactions"),
        "peak_utilisation": t("fleet.col.peak_utilisation"),
        "steps_over_capacity": t("fleet.col.steps_over_capacity"),
        "tokens": t("fleet.col.tokens"),
        "ratio": t("fleet.col.ratio"),
        "keep": t("fleet.col.keep"),
        "min_target": t("fleet.col.min_target"),
        "compacting_share": t("fleet.metric.compacting_share"),
        "compactions_p95": t("fleet.col.compactions_upper"),
        "peak_p50": t("fleet.col.peak_median"),
        "peak_p95": t("fleet.metric.peak_upper"),
        "overflowing": t("fleet.col.overflowing"),
        "headroom_share": t("fleet.metric.headroom_share"),
        "loop_flags": t("fleet.metric.loop_flags"),
        "cost": t("fleet.metric.cost"),
    }


def progress_text(t: Words, progress: Progress | None) -> str:
    """The progress bar's words: the phase, its counts and the time left."""
    if progress is None:
        return t("fleet.starting")
    eta = progress.eta_seconds
    values = {
        "done": progress.done,
        "total": progress.total,
        "processed": progress.processed,
        "reused": progress.reused,
        "broken": progress.broken,
        "eta": t("fleet.eta", seconds=round(eta)) if eta is not None else "",
    }
    if progress.phase == "build":
        return t("fleet.progress.build", **values)
    if progress.phase == "sweep":
        return t("fleet.progress.sweep", **values)
    return t("fleet.progress.done", **values)


def retention_line(retention: FleetRetention | None, t: Words) -> str:
    """The recommended setting's retention in words ("" without a recommendation)."""
    if retention is None:
        return ""
    values = {
        "runs": retention.runs,
        **{
            name: f"{value:.1%}" if value is not None else "–"
            for name, value in (("mean", retention.mean), ("p50", retention.p50), ("low", retention.low))
        },
    }
    if retention.source == "measured":
        return t("fleet.retention.measured", **values)
    if retention.source == "summary_size":
        return t("fleet.retention.summary_size", **values)
    return t("fleet.retention.no_compaction", **values)


def recommendation_lines(recommendation: FleetRecommendation, t: Words) -> list[str]:
    """The recommendation's reasons, worded in the UI's language from their codes and numbers."""
    lines = []
    for reason in recommendation.reasons:
        values: dict[str, Any] = {**reason.values, "headroom": f"{recommendation.headroom:.0%}"}
        for name in ("cost", "runner_up_cost"):
            if name in values:
                values[name] = amount(float(values[name]), "usd")
        for name in ("share", "best_share", "goal"):
            if name in values:
                values[name] = f"{float(values[name]):.1%}"
        lines.append(REASONS[reason.code](t, values))
    return lines


def hurt_lines(reasons: Sequence[Hurt], unit: str, t: Words) -> str:
    """One run's reasons, worded and joined."""
    worded = []
    for hurt in reasons:
        values: dict[str, Any] = dict(hurt.values)
        for name in ("peak_utilisation", "limit"):
            if name in values:
                values[name] = f"{float(values[name]):.1%}"
        for name in ("charge", "best_charge", "extra"):
            if name in values:
                values[name] = amount(float(values[name]), unit)
        worded.append(HURTS[hurt.code](t, values))
    return "; ".join(worded)
