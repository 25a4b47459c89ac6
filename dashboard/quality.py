"""What a compaction kept, on the pages: the retention badge beside a before → after number, the "What it kept"
panel (kept per category, the lost items, and the message each came from, one click away), what each dump of a
folder forgot, and the agent's own recorded compactions scored.

Invariant: every number is a ``compressor.quality`` score fetched through ``state.quality``; words come from
``i18n.quality`` in the session's language.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import streamlit as st

from compressor.compaction_result import CompactionResult
from compressor.errors import CompressorError
from compressor.messages import Message
from compressor.quality import ScoredCompaction, ScoreReport

from . import quality_tables
from .components import error_line, show_message, table
from .i18n import counted
from .i18n.quality import badge
from .state import quality, session
from .state.session import t

#: Lost items listed in the message jump; the rest are counted (the table lists them all).
JUMPS_SHOWN = 200


def _labels() -> dict[str, str]:
    return {
        "category": t("quality.col.category"),
        "item": t("quality.col.item"),
        "message": t("quality.col.message"),
        "status": t("quality.col.status"),
        "match": t("quality.col.match"),
        "mentions": t("quality.col.mentions"),
        "kept": t("quality.col.kept"),
        "elsewhere": t("quality.col.elsewhere"),
        "lost": t("quality.col.lost"),
        "total": t("quality.col.total"),
        "share": t("quality.col.share"),
        "dump": t("quality.col.dump"),
        "retention": t("quality.col.retention"),
        "number": t("quality.col.number"),
        "summary_at": t("quality.col.summary_at"),
        "origin": t("quality.col.origin"),
        "span_tokens": t("quality.col.span_tokens"),
        "summary_tokens": t("quality.col.summary_tokens"),
    }


def retention_badge(scored: ScoredCompaction) -> None:
    """The badge beside a before → after number: green when nothing was lost, orange otherwise, grey when the
    compaction has nothing to score."""
    language = session.language()
    lost = quality_tables.lost_count(scored)
    color: Literal["gray", "green", "orange"] = (
        "gray" if scored.retention is None else ("green" if lost == 0 else "orange")
    )
    line = t("quality.badge_line", label=t("quality.badge_label"), badge=badge(scored, language))
    st.badge(line, color=color, icon=":material/fact_check:")


def what_it_kept(scored: ScoredCompaction, messages: Sequence[Message], key: str) -> None:
    """The panel, closed until clicked: kept per category, the lost items, and a jump to each one's message
    (``messages`` are those the item indexes point into)."""
    language = session.language()
    lost = quality_tables.lost_count(scored)
    with st.expander(t("quality.open", lost=lost), icon=":material/fact_check:"):
        st.caption(t("quality.intro"))
        if scored.retention is None:
            st.info(badge(scored, language))
            return
        st.markdown(f"**{t('quality.by_category')}**")
        table(quality_tables.category_frame(scored, language), hide_index=True, labels=_labels())
        if st.toggle(t("quality.show_all"), key=f"{key}_all"):
            table(quality_tables.items_frame(scored, language), hide_index=True, labels=_labels())
        if not lost:
            st.success(t("quality.nothing_lost"))
            return
        st.markdown(f"**{t('quality.lost_title')}**")
        frame = quality_tables.lost_frame(scored, language)
        table(frame, hide_index=True, labels=_labels())
        rows = list(range(min(len(frame), JUMPS_SHOWN)))
        if len(frame) > JUMPS_SHOWN:
            st.caption(t("quality.lost_more", count=len(frame) - JUMPS_SHOWN))
        chosen = st.selectbox(
            t("quality.jump"),
            rows,
            format_func=lambda row: (
                f"#{frame['message'][row]} · {frame['category'][row]} · {frame['item'][row]}"
            ),
            key=key,
        )
        if chosen is not None:
            index = int(frame["message"][chosen])
            if 0 <= index < len(messages):
                show_message(
                    messages[index], t("quality.message", index=index) + f" · {messages[index].role}"
                )


def dump_kept(path: str, messages: Sequence[Message], key: str) -> None:
    """One dump's badge and its "What it kept" panel (item indexes point into the dump's ``before``)."""
    try:
        scored = quality.dump_score(path, session.settings().counter)
    except (CompressorError, OSError) as error:  # changed or gone since it was read: say so, keep the page
        st.caption(error_line(str(error)))
        return
    retention_badge(scored)
    what_it_kept(scored, messages, key)


def result_kept(result: CompactionResult, key: str) -> None:
    """A live or re-run result's badge and its "What it kept" panel (indexes point into the conversation)."""
    scored = quality.result_score(result, session.settings().counter)
    retention_badge(scored)
    what_it_kept(scored, result.analysis.conversation.messages, key)


def folder_kept(paths: Sequence[str], names: Sequence[str]) -> None:
    """What each dump of the folder forgot, one row per dump, closed until clicked."""
    language = session.language()
    counter = session.settings().counter
    scored: list[tuple[str, ScoredCompaction]] = []
    for path, name in zip(paths, names, strict=True):
        try:
            scored.append((name, quality.dump_score(path, counter)))
        except (CompressorError, OSError):  # gone or changed since the walk: the table lists it as broken
            continue
    scores = [score for _, score in scored]
    frame = quality_tables.dumps_frame([name for name, _ in scored], scores, language)
    with st.expander(t("quality.folder_title"), icon=":material/fact_check:"):
        st.caption(
            t(
                "quality.folder_caption",
                dumps=counted(len(scores), "dump", language),
                lost=int(frame["lost"].sum()),
            )
        )
        table(frame, hide_index=True, labels=_labels())


def recorded_kept(report: ScoreReport) -> None:
    """The agent's own recorded compactions of a run, scored: one row each."""
    st.subheader(t("quality.recorded_title"), anchor=False)
    if not report.compactions:
        st.caption(t("quality.recorded_none"))
        return
    table(quality_tables.recorded_frame(report, session.language()), hide_index=True, labels=_labels())
