"""The self-contained HTML report of a simulation and a sweep, written in one language from the same codes
and numbers the pages show.

Invariant: the report needs no server and no network — plotly.js is inlined once, each figure is a div with
its own data — every piece of text that came from a user's file is HTML-escaped before it is written, and
every word is ours in ``language`` (``<html lang>`` says which).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import cache, partial

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from compressor.quality import ScoreReport
from compressor.replay import Recommendation, Simulation, Sweep
from compressor.window_parts import run_peaks

from .charts import HEATMAPS, context_figure, heatmap_figure, tradeoff_figure
from .i18n import (
    HTML_LANG,
    capacity_text,
    chart_labels,
    outcome_text,
    outcome_words,
    recommendation_sentences,
    translate,
)
from .i18n.quality import replay_lines

_PLOT_CONFIG = {"displaylogo": False, "responsive": True}
#: The report's compactions table, column by column (``report.col.<key>``).
COMPACTION_COLUMNS: tuple[str, ...] = (
    "message",
    "outcome",
    "span",
    "window",
    "span_tokens",
    "context_tokens",
    "memory",
    "reinjection",
    "files",
    "request_tokens",
    "calls",
)
#: The report's sweep table after its ★ column.
SWEEP_COLUMNS: tuple[str, ...] = (
    "ratio",
    "keep",
    "min_target",
    "first_trigger",
    "compactions",
    "peak_tokens",
    "peak",
    "over_capacity",
    "compaction_input",
    "agent_input",
)


@cache
def _plotly_js() -> str:
    """plotly.js (~4.6 MB), read from the installed package once per process, not once per report."""
    return get_plotlyjs()


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _figure_html(fig: go.Figure) -> str:
    return str(fig.to_html(full_html=False, include_plotlyjs=False, config=_PLOT_CONFIG))


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def compactions_table(simulation: Simulation, language: str) -> str:
    """Every compaction attempt of the simulated setting (refused ones included) as an HTML table."""
    if not simulation.events:
        return f"<p>{_e(translate(language, 'report.no_events'))}</p>"
    rows = [
        (
            event.index,
            outcome_text(event.status, event.reason, language),
            f"{event.span[0]} / {event.span[1]} / {event.span[2]}",
            f"{event.context_tokens:,}",
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
    return _table([translate(language, f"report.col.{key}") for key in COMPACTION_COLUMNS], rows)


def recommendation_html(recommendation: Recommendation, language: str) -> str:
    """The verdict (the setting's numbers in bold) and one bullet per reason."""
    chosen = recommendation.setting
    # Our own template is escaped first; the numbers put into it are markup we write ourselves.
    if chosen is None:
        verdict = _e(translate(language, "report.none")).format(headroom=f"{recommendation.headroom:.0%}")
    else:
        verdict = _e(translate(language, "report.use")).format(
            ratio=f"<b>{chosen.trigger_context_ratio:g}</b>",
            keep=f"<b>{chosen.keep_recent_messages}</b>",
            min_target=f"<b>{chosen.min_target_context_ratio:g}</b>",
        )
    items = "".join(
        f"<li>{_e(sentence)}</li>" for sentence in recommendation_sentences(recommendation, language)
    )
    return f"<p class='verdict'>{verdict}</p><ul>{items}</ul>"


def _facts(simulation: Simulation, language: str) -> str:
    say = partial(translate, language)
    o = simulation.outcome
    peaks = run_peaks(simulation.steps, capacity=simulation.context_max, threshold=o.threshold)
    first = (
        say("report.value.never")
        if o.first_trigger_index is None
        else say("report.value.first_trigger", index=o.first_trigger_index)
    )
    facts = (
        ("first_trigger", first),
        ("compactions", say("report.value.compactions", compactions=o.compactions, refused=o.refused)),
        ("peak_read", say("report.value.peak", tokens=peaks.read_tokens, share=peaks.read_share)),
        ("peak", say("report.value.peak", tokens=o.peak_tokens, share=o.peak_utilisation)),
        ("over_capacity", say("report.value.over_capacity", over=o.steps_over_capacity, steps=o.steps)),
        ("compaction_input", f"{o.compaction_input_tokens:,}"),
        (
            "agent_input",
            say(
                "report.value.agent_input",
                tokens=o.agent_input_tokens,
                uncompacted=o.agent_input_tokens_uncompacted,
                saved=o.agent_input_tokens_saved,
            ),
        ),
    )
    rows = "".join(f"<dt>{_e(say(f'report.fact.{key}'))}</dt><dd>{_e(value)}</dd>" for key, value in facts)
    return f"<dl class='facts'>{rows}</dl>"


def _sweep_table(sweep: Sweep, recommendation: Recommendation, language: str) -> str:
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
    return _table(["", *(translate(language, f"report.col.{key}") for key in SWEEP_COLUMNS)], rows)


_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", "PingFang SC", "Microsoft YaHei", sans-serif;
       margin: 2rem auto; max-width: 1100px; color: #222; padding: 0 1rem; }
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


def kept_html(kept: ScoreReport | None, simulation: Simulation, language: str) -> str:
    """Beside each compaction's savings, what its summary kept (``quality.score_replay`` of the run), or ""."""
    lines = list(replay_lines(kept, simulation.events, language).values()) if kept is not None else []
    if not lines:
        return ""
    items = "".join(f"<li>{_e(line)}</li>" for line in lines)
    return f"<h3>{_e(translate(language, 'quality.report_title'))}</h3><ul>{items}</ul>"


def build_report(
    simulation: Simulation,
    sweep: Sweep,
    recommendation: Recommendation,
    *,
    title: str,
    language: str = "en",
    kept: ScoreReport | None = None,
) -> str:
    """One HTML file holding the run's context chart, its compactions, the sweep heatmaps and the
    recommendation, every word in ``language`` (the CLI writes English, the dashboard its UI's language)."""
    say = partial(translate, language)
    labels = chart_labels(language)
    o = simulation.outcome
    meta = say(
        "report.meta",
        source=simulation.source or say("report.unnamed"),
        messages=simulation.messages,
        steps=o.steps,
        counter=simulation.counter,
        capacity=capacity_text(simulation.capacity, language),
        summary=simulation.summary,
    )
    setting = say(
        "report.setting",
        ratio=f"{o.trigger_context_ratio:g}",
        threshold=o.threshold,
        keep=o.keep_recent_messages,
        min_target=f"{o.min_target_context_ratio:g}",
        min_target_tokens=o.min_target_tokens,
    )
    heatmaps = [
        f"<div class='figure'>{_figure_html(heatmap_figure(sweep, metric, labels=labels, min_target=target))}</div>"
        for target in sweep.min_targets
        for metric in HEATMAPS
    ]
    context = context_figure(simulation, labels=labels, outcome_text=outcome_words(language))
    tradeoff = tradeoff_figure(sweep, recommendation.setting, labels=labels)
    parts = [
        "<!DOCTYPE html>",
        f"<html lang='{HTML_LANG.get(language, 'en')}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(title)}</title><style>{_STYLE}</style>",
        f"<script type='text/javascript'>{_plotly_js()}</script>",
        "</head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p class='meta'>{_e(meta)}</p>",
        f"<p>{_e(setting)}</p>",
        _facts(simulation, language),
        f"<h2>{_e(say('report.recommendation'))}</h2>",
        recommendation_html(recommendation, language),
        f"<h2>{_e(labels['context_title'])}</h2>",
        f"<div class='figure'>{_figure_html(context)}</div>",
        f"<h2>{_e(say('report.compactions'))}</h2>",
        compactions_table(simulation, language),
        kept_html(kept, simulation, language),
        f"<h2>{_e(say('report.sweep', settings=len(sweep.outcomes), summary=sweep.summary))}</h2>",
        *heatmaps,
        f"<div class='figure'>{_figure_html(tradeoff)}</div>",
        _sweep_table(sweep, recommendation, language),
        f"<footer>{_e(say('report.footer'))}</footer>",
        "</body></html>",
    ]
    return "\n".join(parts)
