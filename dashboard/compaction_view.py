"""One compaction's result as Live compaction and Dump review's re-run show it, the status box a run is made
in, and the Tune page's panel for a replay that calls a model.

Invariant: a failed run's headline is its classified cause (the endpoint's own words when openJiuwen's
classification has none); a run that saved nothing shows no savings, and one without a summary no section check.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from compressor.backends import Backend
from compressor.breakdown import BeforeAfter
from compressor.compaction_result import CompactionResult
from compressor.errors import CompressorError
from compressor.messages import Conversation
from compressor.prompt import section_checklist

from . import charts, tables
from .components import cell_words, error_line, message_picker, plain, stats, table
from .i18n import chart_labels, counted, explain, result_stats, role_names, status_text
from .roots import without_server_paths
from .settings import Settings
from .sources import LoadedConversation
from .state import keys, live, replays, session
from .state.session import t


def summary_checklist(summary: str | None) -> None:
    """Which of the snapshot's sections a summary holds, as a caption and a table."""
    checklist = section_checklist(summary)
    present = sum(1 for _, ok in checklist if ok)
    st.caption(t("result.sections", present=present, total=len(checklist)))
    table(tables.checklist_table(checklist), hide_index=True)


def show_result(result: CompactionResult, *, key: str) -> None:
    """Headline, numbers, chart and the details of one compaction."""
    language = session.language()
    status = result.status
    alert = {"compacted": st.success, "skipped": st.info, "no_benefit": st.warning}.get(status, st.error)
    alert(error_line(status_text(result, language)))
    if status == "skipped":
        st.caption(explain(result.decision, language))
    if status in ("compacted", "no_benefit"):  # a skipped or failed run saved nothing: no savings to show
        stats(result_stats(result, language))

    if status == "compacted":
        parts = BeforeAfter.of(result)
        figure = charts.before_after(parts.before, parts.after, labels=chart_labels(language))
        st.plotly_chart(figure, key=f"{key}_before_after")
        st.caption(
            t(
                "result.parts",
                prefix=result.prefix_tokens,
                memory=result.memory_tokens,
                reinjection=result.reinjection_tokens,
                tail=result.tail_tokens,
            )
        )
        if result.openjiuwen_memory_tokens:
            st.caption(
                t(
                    "result.sizing",
                    ours=result.memory_tokens,
                    theirs=result.openjiuwen_memory_tokens,
                    after=result.openjiuwen_tokens_after,
                )
            )
        if result.reinjection is not None and result.reinjection.files:
            files = counted(len(result.reinjection.files), "file", language)
            st.caption(t("result.reinjected", files=files, tokens=result.reinjection_tokens))
            st.text("\n".join(str(file.path) for file in result.reinjection.files))
            if result.reinjection_tokens >= result.memory_tokens:
                st.warning(t("result.reinjection_heavy"))
    if result.error:
        with st.expander(t("result.failed_detail"), expanded=status == "failed"):
            st.code(without_server_paths(result.error), language=None, wrap_lines=True)

    names = ["summary", "prompt", "request", "reply", "attempts", "context", "debug"]
    tabs = st.tabs([t(f"result.tab.{name}") for name in names])
    with tabs[0]:
        if result.summary:
            summary_checklist(result.summary)
            st.code(result.summary, language=None, wrap_lines=True)
        else:
            st.caption(t("result.no_summary"))
    with tabs[1]:
        st.code(result.prompt or "", language=None, wrap_lines=True)
    with tabs[2]:
        st.caption(t("result.request", messages=len(result.request_messages), tokens=result.request_tokens))
        roles = role_names(session.language())
        table(tables.messages_table(result.request_messages, result.analysis.counter, roles), hide_index=True)
        message_picker(
            result.request_messages, keys.page_widget(key, "request_message"), t("result.request_message")
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
        table(
            tables.messages_table(result.messages, result.analysis.counter, role_names(session.language())),
            hide_index=True,
        )
        message_picker(result.messages, keys.page_widget(key, "context_message"), t("result.context_message"))
    with tabs[6]:
        if result.debug_records:
            table(tables.debug_table(result.debug_records, cell_words()), hide_index=True)
            st.json(list(result.debug_records), expanded=False)
        else:
            st.caption(t("result.no_debug"))


def compaction_run(
    conversation: Conversation,
    settings: Settings,
    make_backend: Callable[[], Backend],
    *,
    force: bool,
    preserve: str | None = None,
    dump_dir: Path | None = None,
    span_messages: int | None = None,
) -> CompactionResult:
    """Run one compaction inside a status box (narrated when ``span_messages`` is given); a backend that is
    not ready shows its one-line error and stops the page."""
    with st.status(t("compact.running"), expanded=span_messages is not None) as status:
        try:
            backend = make_backend()
        except (ValueError, OSError) as error:  # ConfigError included: a missing field of the backend
            status.update(label=t("compact.config_error"), state="error")
            st.error(error_line(str(error)))
            st.stop()
        if span_messages is not None:
            status.write(plain(t("compact.step.backend", backend=backend.label)))
            status.write(t("compact.step.request", messages=span_messages))
        result = live.run_compaction(
            conversation, settings, backend, force=force, preserve=preserve, dump_dir=dump_dir
        )
        ok = result.status in ("compacted", "skipped", "no_benefit")
        status.update(label=t(f"status.{result.status}"), state="complete" if ok else "error", expanded=False)
    return result


# -- a replay that calls a model (Tune) ----------------------------------------------------------------


def live_replay_panel(item: LoadedConversation, settings: Settings) -> None:
    """What a live replay would send, the backend it would call, the confirmation it needs and the button
    that runs it (the page shows the stand-in replay until it has run)."""
    estimate = replays.live_estimate(item, settings)
    st.info(
        t(
            "tune.live_estimate",
            calls=counted(estimate.calls, "call", session.language()),
            tokens=estimate.request_tokens,
            largest=estimate.largest_request_tokens,
            ratio=f"{estimate.summary_ratio:.0%}",
        )
    )
    backend_label: str | None
    try:
        backend_label = live.live_backend().label
    except ValueError as error:  # ConfigError: the Live page's endpoint is missing a field
        backend_label = None
        st.warning(error_line(t("tune.live_unconfigured", problem=str(error))))
    if backend_label is not None:
        st.caption(plain(t("tune.live_backend", backend=backend_label)))
    confirmed = st.checkbox(
        t(
            "tune.live_confirm",
            calls=counted(estimate.calls, "call", session.language()),
            tokens=estimate.request_tokens,
        ),
        key=replays.live_confirm_key(estimate),
    )
    if st.button(
        t("tune.live_run"),
        type="primary",
        disabled=not confirmed or backend_label is None or estimate.calls == 0,
        key=keys.page_widget("tune", "live_run"),
    ):
        with st.spinner(
            t("tune.live_running", compactions=counted(estimate.calls, "compaction", session.language()))
        ):
            try:
                replays.run_live_replay(item, settings)
            except (CompressorError, ValueError) as error:
                st.error(error_line(str(error)))
    if replays.live_replay(item, settings) is None:
        st.caption(t("tune.live_pending", summary=replays.STAND_IN_SUMMARY))
