"""The self-contained HTML report of a simulation and a sweep, and the pure figure functions it is made of.

Invariant: the report needs no server and no network — plotly.js is inlined once, each figure is a div with
its own data — and every piece of text that came from a user's file is HTML-escaped before it is written.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from compressor.replay import Metric, Outcome, Recommendation, Simulation, Sweep
from dashboard.i18n import recommendation_sentences

COLORS: dict[str, str] = {
    "sent": "#4C78A8",
    "trigger": "#F58518",
    "uncompacted": "#9D9D9D",
    "threshold": "#D62728",
    "context_max": "#333333",
    "compacted": "#54A24B",
    "refused": "#B279A2",
    "chosen": "#D62728",
    "setting": "#4C78A8",
}
HEATMAPS: tuple[tuple[Metric, str, str], ...] = (
    ("compactions", "Compactions over the run", "Blues"),
    ("compaction_input_tokens", "Tokens sent to the compaction model", "Oranges"),
    ("peak_utilisation", "Peak context, share of context_max", "Reds"),
)
_PLOT_CONFIG = {"displaylogo": False, "responsive": True}


# -- figures ---------------------------------------------------------------------------------------


def context_figure(simulation: Simulation) -> go.Figure:
    """Tokens at each model call: what was sent, what the trigger read, the uncompacted run, the two limits."""
    steps = simulation.steps
    x = [step.index for step in steps]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[step.uncompacted_tokens for step in steps],
            name="without compaction",
            mode="lines",
            line={"color": COLORS["uncompacted"], "dash": "dot"},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[step.context_tokens for step in steps],
            name="window the trigger read",
            mode="lines",
            line={"color": COLORS["trigger"], "width": 1},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[step.sent_tokens for step in steps],
            name="window sent to the model",
            mode="lines",
            line={"color": COLORS["sent"], "width": 2},
        )
    )
    span = [x[0], x[-1]] if x else [0, 1]
    fig.add_trace(
        go.Scatter(
            x=span,
            y=[simulation.outcome.threshold] * 2,
            name="threshold",
            mode="lines",
            line={"color": COLORS["threshold"], "dash": "dash"},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=span,
            y=[simulation.context_max] * 2,
            name="context_max",
            mode="lines",
            line={"color": COLORS["context_max"], "dash": "dashdot"},
        )
    )
    for outcome, label, symbol in (("compacted", "compaction", "triangle-down"), ("skipped", "refused", "x")):
        chosen = [step for step in steps if step.event == outcome]
        if chosen:
            fig.add_trace(
                go.Scatter(
                    x=[step.index for step in chosen],
                    y=[step.context_tokens for step in chosen],
                    name=label,
                    mode="markers",
                    marker={
                        "symbol": symbol,
                        "size": 11,
                        "color": COLORS[outcome if outcome == "compacted" else "refused"],
                    },
                    text=[step.skip_reason or step.event for step in chosen],
                    hovertemplate="message %{x}: %{y:,} tokens<br>%{text}",
                )
            )
    fig.update_layout(
        title="Context over the run",
        xaxis_title="message index of the model call",
        yaxis_title="tokens",
        hovermode="x unified",
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


def heatmap_figure(
    sweep: Sweep, metric: Metric, *, title: str, colorscale: str = "Blues", min_target: float | None = None
) -> go.Figure:
    """``metric`` over keep (rows) × trigger ratio (columns) for one min target, with the values written in."""
    grid = sweep.grid(metric, min_target)
    percent = metric == "peak_utilisation"
    text = [
        ["–" if value is None else (f"{value:.0%}" if percent else f"{value:,}") for value in row]
        for row in grid
    ]
    fig = go.Figure(
        go.Heatmap(
            z=grid,
            x=[f"{r:g}" for r in sweep.ratios],
            y=[str(k) for k in sweep.keeps],
            text=text,
            texttemplate="%{text}",
            colorscale=colorscale,
            hovertemplate="ratio %{x}, keep %{y}: %{text}<extra></extra>",
        )
    )
    target = sweep.min_targets[0] if min_target is None else min_target
    fig.update_layout(
        title=f"{title} (min_target_context_ratio {target:g})",
        xaxis={"title": "trigger_context_ratio", "type": "category"},
        yaxis={"title": "keep_recent_messages", "type": "category"},
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


def tradeoff_figure(sweep: Sweep, chosen: Outcome | None = None) -> go.Figure:
    """Each setting's compaction cost against the headroom it leaves at its peak (1 − peak utilisation)."""
    outcomes = sweep.outcomes
    fig = go.Figure(
        go.Scatter(
            x=[1 - o.peak_utilisation for o in outcomes],
            y=[o.compaction_input_tokens for o in outcomes],
            mode="markers",
            name="settings",
            marker={"color": COLORS["setting"], "size": 9},
            text=[
                f"ratio {o.trigger_context_ratio:g}, keep {o.keep_recent_messages}, min target "
                f"{o.min_target_context_ratio:g}, {o.compactions} compaction(s)"
                for o in outcomes
            ],
            hovertemplate="%{text}<br>headroom %{x:.1%}, cost %{y:,} tokens<extra></extra>",
        )
    )
    if chosen is not None:
        fig.add_trace(
            go.Scatter(
                x=[1 - chosen.peak_utilisation],
                y=[chosen.compaction_input_tokens],
                mode="markers",
                name="recommended",
                marker={"color": COLORS["chosen"], "size": 15, "symbol": "star"},
            )
        )
    fig.update_layout(
        title="Compaction cost against headroom",
        xaxis={"title": "headroom at the peak (1 − peak / context_max)", "tickformat": ".0%"},
        yaxis_title="tokens sent to the compaction model",
        margin={"t": 50, "l": 60, "r": 20, "b": 40},
    )
    return fig


# -- HTML pieces -----------------------------------------------------------------------------------


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _figure_html(fig: go.Figure) -> str:
    return str(fig.to_html(full_html=False, include_plotlyjs=False, config=_PLOT_CONFIG))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def compactions_table(simulation: Simulation) -> str:
    """Every compaction attempt of the simulated setting (refused ones included) as an HTML table."""
    if not simulation.events:
        return "<p>No compaction was attempted with this setting.</p>"
    rows = [
        (
            event.index,
            event.status if not event.reason else f"{event.status}: {event.reason}",
            f"{event.span[0]} / {event.span[1]} / {event.span[2]}",
            f"{event.compress_tokens:,}",
            f"{event.tokens_before:,} → {event.tokens_after:,}",
            f"{event.memory_tokens:,}",
            f"{event.reinjection_tokens:,}",
            ", ".join(event.reinjected_files) or "–",
            f"{event.request_tokens:,}",
            event.calls,
        )
        for event in simulation.events
    ]
    headers = (
        "message",
        "outcome",
        "prefix / compress / tail",
        "span tokens",
        "context tokens",
        "memory block",
        "reinjection",
        "files reinjected",
        "request tokens",
        "calls",
    )
    return _table(headers, rows)


def recommendation_html(recommendation: Recommendation) -> str:
    chosen = recommendation.setting
    if chosen is None:
        head = f"<p class='verdict'>No recommendation with {recommendation.headroom:.0%} headroom.</p>"
    else:
        head = (
            "<p class='verdict'>Use <code>trigger_context_ratio</code> "
            f"<b>{chosen.trigger_context_ratio:g}</b>, <code>keep_recent_messages</code> "
            f"<b>{chosen.keep_recent_messages}</b>, <code>min_target_context_ratio</code> "
            f"<b>{chosen.min_target_context_ratio:g}</b>.</p>"
        )
    items = "".join(f"<li>{_e(sentence)}</li>" for sentence in recommendation_sentences(recommendation, "en"))
    return f"{head}<ul>{items}</ul>"


def _facts(simulation: Simulation) -> str:
    o = simulation.outcome
    first = "never" if o.first_trigger_index is None else f"message {o.first_trigger_index:,}"
    saved = o.agent_input_tokens_saved
    facts = (
        ("trigger first fires", first),
        ("compactions", f"{o.compactions:,} ({o.refused:,} refused)"),
        ("peak context", f"{o.peak_tokens:,} tokens ({o.peak_utilisation:.1%})"),
        ("model calls over capacity", f"{o.steps_over_capacity:,} of {o.steps:,}"),
        ("tokens sent to the compaction model", f"{o.compaction_input_tokens:,}"),
        (
            "tokens the agent sends",
            f"{o.agent_input_tokens:,} instead of {o.agent_input_tokens_uncompacted:,} ({saved:,} saved)",
        ),
    )
    return "<dl class='facts'>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts) + "</dl>"


def _sweep_table(sweep: Sweep, recommendation: Recommendation) -> str:
    chosen = recommendation.setting.key if recommendation.setting is not None else None
    rows = [
        (
            "★" if o.key == chosen else "",
            f"{o.trigger_context_ratio:g}",
            o.keep_recent_messages,
            f"{o.min_target_context_ratio:g}",
            "–" if o.first_trigger_index is None else o.first_trigger_index,
            o.compactions,
            f"{o.peak_tokens:,}",
            f"{o.peak_utilisation:.1%}",
            o.steps_over_capacity,
            f"{o.compaction_input_tokens:,}",
            f"{o.agent_input_tokens:,}",
        )
        for o in sweep.outcomes
    ]
    headers = (
        "",
        "trigger ratio",
        "keep",
        "min target",
        "first trigger",
        "compactions",
        "peak tokens",
        "peak",
        "calls over capacity",
        "compaction input",
        "agent input",
    )
    return _table(headers, rows)


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #222; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
.meta { color: #555; }
.facts { display: grid; grid-template-columns: max-content auto; gap: .3rem 1.2rem; }
.facts dt { color: #555; } .facts dd { margin: 0; font-weight: 600; }
.verdict { font-size: 1.1rem; }
table { border-collapse: collapse; font-size: .85rem; width: 100%; }
th, td { border-bottom: 1px solid #e3e3e3; padding: .25rem .5rem; text-align: right; }
th { background: #f6f6f6; } td:nth-child(2), th:nth-child(2) { text-align: left; }
.figure { min-height: 420px; }
footer { margin-top: 3rem; color: #777; font-size: .8rem; }
"""


def build_report(simulation: Simulation, sweep: Sweep, recommendation: Recommendation, *, title: str) -> str:
    """One HTML file holding the run's context chart, its compactions, the sweep heatmaps and the recommendation."""
    o = simulation.outcome
    meta = (
        f"{_e(simulation.source or '(unnamed run)')} · {simulation.messages:,} context messages, {o.steps:,} model "
        f"calls · counter {_e(simulation.counter)} · context_max {_e(simulation.capacity.describe())} · summary "
        f"model {_e(simulation.summary)}"
    )
    setting = (
        f"Simulated setting: trigger_context_ratio {o.trigger_context_ratio:g} (threshold {o.threshold:,} tokens), "
        f"keep_recent_messages {o.keep_recent_messages}, min_target_context_ratio {o.min_target_context_ratio:g} "
        f"({o.min_target_tokens:,} tokens)."
    )
    figures = [
        f"<div class='figure'>{_figure_html(heatmap_figure(sweep, metric, title=name, colorscale=scale, min_target=m))}"
        "</div>"
        for m in sweep.min_targets
        for metric, name, scale in HEATMAPS
    ]
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(title)}</title><style>{_STYLE}</style>",
        f"<script type='text/javascript'>{get_plotlyjs()}</script>",
        "</head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p class='meta'>{meta}</p>",
        f"<p>{_e(setting)}</p>",
        _facts(simulation),
        "<h2>Recommendation</h2>",
        recommendation_html(recommendation),
        "<h2>Context over the run</h2>",
        f"<div class='figure'>{_figure_html(context_figure(simulation))}</div>",
        "<h2>Compactions</h2>",
        compactions_table(simulation),
        f"<h2>Sweep: {len(sweep.outcomes)} settings, summary model {_e(sweep.summary)}</h2>",
        *figures,
        f"<div class='figure'>{_figure_html(tradeoff_figure(sweep, recommendation.setting))}</div>",
        _sweep_table(sweep, recommendation),
        "<footer>Written by compaction-lab from a replay of the run; no network was used to draw it.</footer>",
        "</body></html>",
    ]
    return "\n".join(parts)
