"""Run one compaction for a page and show its result: shared by Live compaction and Dump review's re-run.

Invariant: every number shown is a field of the CompactionResult (or its Analysis) the compactor returned;
message text, prompts and replies are shown as text only.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import Any

import streamlit as st

from compressor.breakdown import BeforeAfter
from compressor.messages import Conversation

from . import charts, state, tables
from .components import message_picker, plain, table
from .i18n import chart_labels, explain, status_text, t
from .settings import Settings

SESSION_ID = "dashboard"


def compaction_available() -> bool:
    """True when ``compressor.compactor`` imports (a broken build shows an empty state, not a traceback)."""
    try:
        importlib.import_module("compressor.compactor")
    except Exception:  # any import-time failure means: no live compaction in this build
        return False
    return True


def run_compaction(
    conversation: Conversation,
    settings: Settings,
    backend: Any,
    *,
    force: bool,
    preserve: str | None,
    dump_dir: Path | None,
) -> Any:
    """``CurrentRoundCompressor(...).compact(...)`` with the sidebar settings; returns the CompactionResult."""
    from compressor.compactor import CurrentRoundCompressor

    # With the key: the compactor passes it to the dump writer, which refuses to write it anywhere.
    model, client = state.live_configs(with_key=True)
    compressor = CurrentRoundCompressor(
        settings.config(model=model, model_client=client),
        backend,
        context_max=settings.explicit_context_max,
        model=settings.capacity_model,
        counter=settings.counter,
        dump_dir=str(dump_dir) if dump_dir is not None else None,
        session_id=SESSION_ID,
    )
    return asyncio.run(compressor.compact(conversation, force=force, preserve_instruction=preserve))


def show_result(result: Any, *, key: str) -> None:
    """Headline, numbers, chart and the details of one compaction."""
    status = result.status
    alert = {"compacted": st.success, "skipped": st.info, "no_benefit": st.warning}.get(status, st.error)
    alert(plain(status_text(result)))
    if status == "skipped":
        st.caption(explain(result.decision))

    columns = st.columns(5)
    columns[0].metric(t("metric.tokens_before"), f"{result.tokens_before:,}")
    columns[1].metric(
        t("metric.tokens_after"),
        f"{result.tokens_after:,}",
        delta=f"{-result.saved_tokens:,}" if result.saved_tokens else None,
        delta_color="inverse",
    )
    columns[2].metric(t("metric.saved"), f"{result.reduction_ratio:.1%}", help=t("metric.saved_help"))
    columns[3].metric(t("metric.request_tokens"), f"{result.request_tokens:,}", help=t("metric.request_help"))
    columns[4].metric(t("metric.calls"), f"{result.calls}", help=plain(result.backend_label))

    if status == "compacted":
        parts = BeforeAfter.of(result)
        st.plotly_chart(charts.before_after(parts.before, parts.after, labels=chart_labels()), key=f"{key}_before_after")
        st.caption(
            t(
                "result.parts",
                prefix=result.prefix_tokens,
                memory=result.memory_tokens,
                reinjection=result.reinjection_tokens,
                tail=result.tail_tokens,
            )
        )
        if result.reinjection is not None and result.reinjection.files:
            st.caption(
                t("result.reinjected", count=len(result.reinjection.files), tokens=result.reinjection_tokens)
            )
            st.text("\n".join(str(file.path) for file in result.reinjection.files))
            if result.reinjection_tokens >= result.memory_tokens:
                st.warning(t("result.reinjection_heavy"))
    if result.error:
        st.code(result.error, language=None, wrap_lines=True)

    names = ["summary", "prompt", "request", "reply", "attempts", "context", "debug"]
    tabs = st.tabs([t(f"result.tab.{name}") for name in names])
    with tabs[0]:
        from compressor.prompt import section_checklist

        checklist = section_checklist(result.summary)
        present = sum(1 for _, ok in checklist if ok)
        st.caption(t("result.sections", present=present, total=len(checklist)))
        table(tables.checklist_table(checklist), hide_index=True)
        st.code(result.summary or "", language=None, wrap_lines=True)
    with tabs[1]:
        st.code(result.prompt or "", language=None, wrap_lines=True)
    with tabs[2]:
        st.caption(t("result.request", messages=len(result.request_messages), tokens=result.request_tokens))
        table(tables.messages_table(result.request_messages, result.analysis.counter), hide_index=True)
        message_picker(
            result.request_messages, state.page_widget(key, "request_message"), t("result.request_message")
        )
    with tabs[3]:
        st.code(result.raw_reply or "", language=None, wrap_lines=True)
    with tabs[4]:
        if result.attempts:
            table(tables.attempts_table(result.attempts), hide_index=True)
        else:
            st.caption(t("result.no_attempts"))
    with tabs[5]:
        st.caption(t("result.context", messages=len(result.messages)))
        table(tables.messages_table(result.messages, result.analysis.counter), hide_index=True)
        message_picker(
            result.messages, state.page_widget(key, "context_message"), t("result.context_message")
        )
    with tabs[6]:
        if result.debug_records:
            table(tables.debug_table(result.debug_records), hide_index=True)
            st.json(list(result.debug_records), expanded=False)
        else:
            st.caption(t("result.no_debug"))
