"""The window as the pages show it: one decision banner (the trigger's decision and the conditions around it) and
the window summary — "% left" and "% until compaction" first, the named numbers, the breakdown bar, its reading.

Invariant: every figure is a glossary term or a breakdown part with its tooltip (what it includes, its formula);
Span & trigger, Live compaction and Demo draw the window with these two functions and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from compressor.glossary import TermCode
from compressor.trigger import Decision
from compressor.window_parts import WindowBreakdown

from . import charts
from .components import plain, stats
from .i18n import Stat, chart_labels, explain, percent
from .i18n.terms import breakdown_caption, breakdown_notes, parts_sentence, term_help, term_name
from .state import session
from .state.session import t
from .tables import MISSING


def decision_banner(decision: Decision, *, conditions: Sequence[str] = ()) -> None:
    """The one decision banner: green when openJiuwen compacts, amber when the trigger fires but a condition stops
    it, blue when the trigger does not fire; each condition is a paragraph inside the same banner."""
    language = session.language()
    paragraphs = [plain(explain(decision, language)), *(plain(condition) for condition in conditions)]
    body = "\n\n".join(paragraphs)
    if not decision.hit:
        st.info(body)
    elif conditions:
        st.warning(body)
    else:
        st.success(body)


def no_model_conditions(model_configured: bool, *, offline_backend: bool = False) -> list[str]:
    """The conditions a page adds to its decision banner when openJiuwen has no model to compact with."""
    if model_configured:
        return []
    return [t("decision.condition.offline" if offline_backend else "decision.condition.no_model")]


def _stat(code: TermCode, value: str, *, moment: str | None = None) -> Stat:
    language = session.language()
    help_text = term_help(code, language)
    if moment:
        help_text = f"{moment}\n\n{help_text}"
    return Stat(label=term_name(code, language), value=value, help=help_text)


def window_stats(breakdown: WindowBreakdown, *, moment: str) -> list[Stat]:
    """The window's numbers, "% left" and "% until compaction" first; ``moment`` says when the window was read."""
    span = breakdown.span_tokens if breakdown.span_tokens is not None else breakdown.part("span")
    span_text = f"{span:,}" if breakdown.has("span") else MISSING
    return [
        _stat("left", percent(breakdown.left_share)),
        _stat("until_compaction", percent(breakdown.until_compaction_share)),
        _stat("window_total", f"{breakdown.total_tokens:,}", moment=moment),
        _stat("threshold", f"{breakdown.threshold:,}"),
        _stat("capacity", f"{breakdown.capacity:,}"),
        _stat("span_to_compress", span_text),
        _stat("min_span", f"{breakdown.min_span:,}"),
    ]


def window_summary(breakdown: WindowBreakdown, *, moment: str, key: str, source: str | None = None) -> None:
    """The window's numbers, its breakdown bar and its reading in words (``source`` says how it was counted)."""
    language = session.language()
    stats(window_stats(breakdown, moment=moment))
    st.plotly_chart(charts.window_bar(breakdown, labels=chart_labels(language)), key=f"{key}_window")
    lines = [breakdown_caption(breakdown, language), parts_sentence(breakdown, language)]
    if source:
        lines.append(source)
    st.caption(plain(" ".join(lines)))
    for note in breakdown_notes(breakdown, language):
        st.warning(plain(note))
