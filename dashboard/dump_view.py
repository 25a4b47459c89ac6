"""One dump on Dump review: its numbers, its context before and after, its span, prompt, reply, summary, its own
debug records, and the re-run — first with the dump's own settings (does the split come out the same?), then
with the sidebar's.

Invariant: every number is the dump's own or a re-run's result; a re-run's split is compared with the recorded
one in words, so a reader sees at once whether the recorded compaction was reproduced.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from compressor.dumps import DumpRecord
from compressor.dumps.debuglog import debug_log_name
from compressor.replay import PriceChoice

from . import charts, tables
from .compaction_view import compaction_run, show_result, summary_checklist
from .components import cell_words, error_line, flag_summary_secrets, message_picker, plain, stats, table
from .dump_cost_view import dump_cost_stats, dump_timing_stats
from .i18n import chart_labels, counted, dump_stats, option_labels, role_names, segment_names
from .settings import Settings, with_changes
from .sources import dump_conversation, oversized_message
from .state import dumps, keys, live, session
from .state.session import t

TABS = ("messages", "span", "prompt", "reply", "summary", "debug", "rerun")


def recorded_settings(record: DumpRecord, current: Settings) -> Settings:
    """The settings that reproduce a dump's split: its own capacity and kept messages (the rest as they are)."""
    return with_changes(
        current,
        capacity_mode="number",
        context_max=max(record.context_max, 1),
        keep_recent_messages=max(record.exclude_recent_messages, 0),
    )


def show_dump(
    path: str, record: DumpRecord, current: Settings, *, base: Path, price: PriceChoice | None = None
) -> None:
    """The dump at ``path`` (shown relative to ``base``) in detail; its compaction call at ``price`` when given."""
    language = session.language()
    stats(dump_stats(record, language))
    if price is not None:
        dump_cost_stats(path, price, current.counter)
        dump_timing_stats(record)
    backend = record.backend or t("dumps.openjiuwen_dump")
    st.caption(
        plain(t("dumps.record", session=record.session_id, context=record.context_id, backend=backend))
    )
    tabs = st.tabs([t(f"dumps.tab.{name}") for name in TABS])
    with tabs[0]:
        for column, side, messages in zip(
            st.columns(2), ("before", "after"), (record.before, record.after), strict=True
        ):
            with column:
                st.caption(t(f"dumps.{side}", messages=counted(len(messages), "message", language)))
                table(tables.messages_table(messages, current.counter, role_names(language)), hide_index=True)
                message_picker(
                    messages, keys.page_widget("dumps", f"{side}_message"), t(f"dumps.{side}_message")
                )
    with tabs[1]:
        problem = oversized_message(dump_conversation(record))
        if problem is not None:
            st.warning(error_line(problem))
        else:
            span_frame = tables.dump_span_frame(record, dumps.dump_span(path, current.counter))
            st.caption(t("dumps.span_note", counter=t(f"counter.{current.counter}")))
            st.plotly_chart(charts.span_bars(span_frame, labels=chart_labels(language)), key="dumps_span")
            table(
                tables.message_table(span_frame, segment_names(language), role_names=role_names(language)),
                hide_index=True,
            )
    with tabs[2]:
        st.code(record.prompt, language=None, wrap_lines=True)
    with tabs[3]:
        st.code(record.raw_content, language=None, wrap_lines=True)
    with tabs[4]:
        flag_summary_secrets(record.extracted_summary)
        if record.extracted_summary:
            summary_checklist(record.extracted_summary)
        st.code(record.extracted_summary or " ", language=None, wrap_lines=True)
        if record.reinjection_message is not None:
            with st.expander(t("dumps.reinjection")):
                st.code(record.reinjection_message.text, language=None, wrap_lines=True)
    with tabs[5]:
        debug_records(record, base)
    with tabs[6]:
        rerun_panel(path, record, current)


def debug_records(record: DumpRecord, base: Path) -> None:
    """The dump's own debug records (from the log in its folder), or why there are none."""
    log = record.path.parent / debug_log_name(record.processor_type)
    if record.debug_records:
        where = tables.folder_of(str(log), str(base))
        st.caption(
            plain(
                t(
                    "dumps.debug_from",
                    records=counted(len(record.debug_records), "record", session.language()),
                    log=log.name if where == "." else f"{where}/{log.name}",
                )
            )
        )
        table(tables.debug_table(record.debug_records, cell_words()), hide_index=True)
        st.json(list(record.debug_records), expanded=False)
    else:
        st.caption(t("dumps.no_debug"))


def _rerun(path: str, record: DumpRecord, settings: Settings, choice: str, force: bool, slot: str) -> None:
    signature = (path, settings.compaction_key, choice, force)
    if st.button(
        t(f"dumps.rerun.{slot}"),
        type="primary" if slot == "recorded" else "secondary",
        key=keys.page_widget("dumps", f"rerun_{slot}"),
    ):
        result = compaction_run(
            dump_conversation(record), settings, lambda: live.rerun_backend(choice, path), force=force
        )
        live.store_rerun_result(f"{path}#{slot}", signature, result)
    stored = live.rerun_result(f"{path}#{slot}")
    if stored is None:
        return
    if stored[0] != signature:
        st.warning(t("compact.stale"))
    result = stored[1]
    # a re-run is ours, made now: never to be mistaken for the compaction the dump recorded
    which = t("dumps.rerun_badge.recorded") if slot == "recorded" else t("dumps.rerun_badge.sidebar")
    st.badge(which, icon=":material/replay:", color="violet")
    recorded = (record.prefix_count, record.compress_count, record.tail_count)
    split = " / ".join(str(count) for count in recorded)
    if result.span_counts == recorded:
        st.success(t("dumps.split_same", split=split))
    else:
        now = " / ".join(str(count) for count in result.span_counts)
        st.warning(t("dumps.split_differs", split=split, now=now))
    st.caption(t("dumps.rerun_compare", before=record.tokens_before, after=record.tokens_after))
    show_result(result, key=f"rerun_{slot}")


def rerun_panel(path: str, record: DumpRecord, current: Settings) -> None:
    """Re-run the dump's compaction: with its own settings first, then with the sidebar's."""
    language = session.language()
    choice = st.radio(
        t("dumps.rerun_backend"),
        ("replay", "live"),
        format_func=option_labels("dumps.rerun_backend.", language),
        key=keys.W_RERUN_BACKEND,
        persist_state=keys.PERSIST,
        horizontal=True,
    )
    own = recorded_settings(record, current)
    st.subheader(t("dumps.rerun.recorded_title"), anchor=False)
    st.caption(
        t(
            "dumps.rerun.recorded_help",
            context_max=own.context_max,
            keep=own.keep_recent_messages,
            split=f"{record.prefix_count} / {record.compress_count} / {record.tail_count}",
        )
    )
    _rerun(path, record, own, choice, True, "recorded")
    st.subheader(t("dumps.rerun.sidebar_title"), anchor=False)
    st.caption(t("dumps.rerun_intro"))
    force = st.toggle(
        t("compact.force"), key=keys.W_RERUN_FORCE, persist_state=keys.PERSIST, help=t("compact.force_help")
    )
    if current.explicit_context_max != record.context_max and st.button(
        t("dumps.use_context_max", context_max=own.context_max, keep=own.keep_recent_messages),
        key=keys.page_widget("dumps", "use_cmax"),
    ):
        session.queue_settings(own)
        st.rerun()  # the whole app: the sidebar shows the dump's settings now
    _rerun(path, record, current, choice, bool(force), "sidebar")
