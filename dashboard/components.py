"""Small Streamlit building blocks the pages share: plain text for markdown slots, translated tables and
metric cards, a message viewer, secret warnings, a folder browser confined to the configured roots, one
compaction run and its result (Live compaction, Dump review's re-run), and the Tune page's live-replay panel.

Invariant: user content reaches the screen only as text (st.text, st.code, dataframes) or escaped by
``plain`` where Streamlit would read markdown, so a message holding ``<script>`` or ``**x**`` shows as written;
a secret found in content is named by kind and masked preview only, never shown in full; every number shown
is a field of the value the library returned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd
import streamlit as st

from compressor.backends import Backend
from compressor.breakdown import BeforeAfter
from compressor.compaction_result import CompactionResult
from compressor.errors import CompressorError
from compressor.messages import Conversation, Message
from compressor.prompt import section_checklist
from compressor.secrets import Finding, find_secrets

from . import charts, roots, tables
from .i18n import Stat, chart_labels, column_labels, explain, result_stats, secret_kind, status_text
from .settings import Settings
from .sources import LoadedConversation
from .state import dumps, keys, live, replays, session
from .state.session import t

#: Characters that can start markdown, HTML, math, emoji shortcodes or Streamlit directives on one line.
_SPECIAL = "\\`*_{}[]()#+-!|<>~$:^&="
_ESCAPE = {ord(char): "\\" + char for char in _SPECIAL}
_ORDERED_LIST = re.compile(r"^(\d+)([.)])")


def plain(text: str) -> str:
    """``text`` for a markdown slot (captions, alerts): one line, with every character that could start
    markdown, HTML, an emoji shortcode or a Streamlit directive backslash-escaped (CommonMark allows
    escaping any ASCII punctuation), so the text shows exactly as written."""
    line = " ".join(str(text).split()).translate(_ESCAPE)
    return _ORDERED_LIST.sub(lambda match: match.group(1) + "\\" + match.group(2), line)


def header_config(
    columns: Sequence[str], column_config: Mapping[str, Any] | None, labels: Mapping[str, str]
) -> dict[str, Any]:
    """``column_config`` with a translated header for every known column that has no label of its own."""
    config: dict[str, Any] = {}
    for column in columns:
        given = (column_config or {}).get(column)
        entry = dict(given) if given is not None else {}
        if column in labels and not entry.get("label"):
            entry["label"] = labels[column]
        if entry:
            config[column] = entry
    return config


def table(
    frame: pd.DataFrame,
    *,
    column_config: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    **options: Any,
) -> None:
    """``st.dataframe`` with the column headers in the session's language (the data is shown as is);
    ``labels`` gives headers of its own to columns that mean something else on this table."""
    headers = {**column_labels(session.language()), **(labels or {})}
    st.dataframe(frame, column_config=header_config(list(frame.columns), column_config, headers), **options)


def stats(values: Sequence[Stat], *, per_row: int | None = None) -> None:
    """Numbers as ``st.metric`` cards, ``per_row`` to a row (all in one row by default)."""
    width = per_row or len(values)
    for start in range(0, len(values), width):
        for column, stat in zip(st.columns(width), values[start : start + width], strict=False):
            help_text = plain(stat.help) if stat.help else None
            column.metric(stat.label, stat.value, delta=stat.delta, delta_color="inverse", help=help_text)


def stop_when_empty(message_key: str) -> NoReturn:
    """The empty state of a page with no conversation: say what to do next, link to Load, stop the page."""
    st.info(t(message_key))
    st.page_link("views/load.py", label=t("nav.load"), icon=":material/upload_file:")
    st.stop()


def show_message(message: Message, heading: str) -> None:
    """One message in full, as text: content, tool calls, tool result id and any other fields."""
    st.markdown(f"**{plain(heading)}**")
    if isinstance(message.content, str):
        st.code(message.content or " ", language=None, wrap_lines=True)
    else:
        st.code(json.dumps(message.content, ensure_ascii=False, indent=2), language="json", wrap_lines=True)
    if message.tool_calls:
        st.caption(t("message.tool_calls"))
        calls = [call.openai() for call in message.tool_calls]
        st.code(json.dumps(calls, ensure_ascii=False, indent=2), language="json", wrap_lines=True)
    extra = {
        key: value
        for key, value in message.to_openjiuwen().items()
        if key not in ("role", "content", "tool_calls") and value is not None
    }
    if extra:
        st.caption(t("message.fields"))
        st.code(
            json.dumps(extra, ensure_ascii=False, indent=2, default=str), language="json", wrap_lines=True
        )


#: Most secrets listed under one warning; the rest are counted.
SECRETS_SHOWN = 20


def flag_secrets(headline: str, found: Sequence[tuple[str, Finding]]) -> None:
    """A warning when ``found`` (where, finding) is not empty, listing each secret by kind and masked preview."""
    if not found:
        return
    st.warning(headline)
    lines = [
        t(
            "secrets.line",
            where=where,
            kind=secret_kind(finding.kind, session.language()),
            preview=finding.preview,
        )
        for where, finding in found[:SECRETS_SHOWN]
    ]
    if len(found) > SECRETS_SHOWN:
        lines.append(t("secrets.more", count=len(found) - SECRETS_SHOWN))
    st.text("\n".join(lines))  # text, not markdown: a preview may hold any character


def flag_message_secrets(
    system: Sequence[tuple[int, Finding]], context: Sequence[tuple[int, Finding]]
) -> None:
    """Flag secrets found in the system messages (numbered from 1) and the context messages (by index)."""
    found = [(t("secrets.where.system", number=index + 1), finding) for index, finding in system]
    found += [(t("secrets.where.message", index=index), finding) for index, finding in context]
    flag_secrets(t("secrets.messages", count=len(found)), found)


def flag_summary_secrets(summary: str | None) -> None:
    """Flag secrets in a compaction's summary (it is short, so it is searched on every run)."""
    where = t("secrets.where.summary")
    found = [(where, finding) for finding in find_secrets(summary or "")]
    flag_secrets(t("secrets.summary", count=len(found)), found)


def message_picker(messages: Sequence[Message], key: str, heading: str) -> None:
    """A number input choosing one message of a list, shown in full below it."""
    if not messages:
        st.caption(t("message.none"))
        return
    index = st.number_input(
        t("message.pick", last=len(messages) - 1), min_value=0, max_value=len(messages) - 1, step=1, key=key
    )
    chosen = messages[int(index)]
    show_message(chosen, f"{heading} #{int(index)} · {chosen.role}")


@dataclass(frozen=True)
class FolderChoice:
    """Where the browser stands and what is selected in it."""

    root_index: int
    root: Path
    folder: str
    entry: roots.Entry | None


def folder_browser(
    page: str, configured: Sequence[Path], *, suffixes: Sequence[str] | None
) -> FolderChoice | None:
    """Pick a root, walk its folders (never above the root) and select a folder or file inside it."""
    if not configured:
        st.info(t("browse.no_roots", env=roots.ROOTS_ENV))
        return None
    root_index, folder = dumps.browse_position(page)
    root_index = min(max(root_index, 0), len(configured) - 1)
    chosen_root = st.selectbox(
        t("browse.root"),
        range(len(configured)),
        index=root_index,
        format_func=lambda i: roots.root_label(configured[i]),
        key=keys.browse_widget(page, "root"),
        help=t("browse.root_help", env=roots.ROOTS_ENV),
    )
    if chosen_root != root_index:
        root_index, folder = int(chosen_root), ""
        dumps.set_browse_position(page, root_index, folder)
    root = configured[root_index]
    if not root.is_dir():
        st.warning(plain(t("browse.missing_root", root=roots.root_label(root))))
        return None
    try:
        entries = roots.list_folder(root, folder, suffixes=suffixes)
    except (roots.OutsideRootError, OSError):
        folder = ""
        dumps.set_browse_position(page, root_index, folder)
        entries = roots.list_folder(root, folder, suffixes=suffixes)
    st.text(t("browse.here", path=roots.root_label(root) + folder))
    up, _ = st.columns([1, 4])
    up.button(
        t("browse.up"),
        disabled=not folder,
        key=keys.browse_widget(page, "up"),
        on_click=dumps.set_browse_position,
        args=(page, root_index, roots.parent_of(folder)),
    )
    if not entries:
        st.caption(t("browse.empty"))
        return FolderChoice(root_index, root, folder, None)
    picked = st.selectbox(
        t("browse.entries", count=len(entries)),
        range(len(entries)),
        format_func=lambda i: entries[i].label,
        key=keys.browse_widget(page, f"entry:{root_index}:{folder}"),
    )
    entry = entries[int(picked)] if picked is not None else None
    if entry is not None and entry.is_dir:
        st.button(
            t("browse.open"),
            key=keys.browse_widget(page, "open"),
            on_click=dumps.set_browse_position,
            args=(page, root_index, entry.relative),
        )
    return FolderChoice(root_index, root, folder, entry)


# -- one compaction's result (Live compaction, Dump review's re-run) ---------------------------------


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
    alert(plain(status_text(result, language)))
    if status == "skipped":
        st.caption(explain(result.decision, language))

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
        summary_checklist(result.summary)
        st.code(result.summary or "", language=None, wrap_lines=True)
    with tabs[1]:
        st.code(result.prompt or "", language=None, wrap_lines=True)
    with tabs[2]:
        st.caption(t("result.request", messages=len(result.request_messages), tokens=result.request_tokens))
        table(tables.messages_table(result.request_messages, result.analysis.counter), hide_index=True)
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
        table(tables.messages_table(result.messages, result.analysis.counter), hide_index=True)
        message_picker(result.messages, keys.page_widget(key, "context_message"), t("result.context_message"))
    with tabs[6]:
        if result.debug_records:
            table(tables.debug_table(result.debug_records), hide_index=True)
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
            st.error(plain(str(error)))
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
            calls=estimate.calls,
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
        st.warning(plain(t("tune.live_unconfigured", problem=str(error))))
    if backend_label is not None:
        st.caption(plain(t("tune.live_backend", backend=backend_label)))
    confirmed = st.checkbox(
        t("tune.live_confirm", calls=estimate.calls, tokens=estimate.request_tokens),
        key=replays.live_confirm_key(estimate),
    )
    if st.button(
        t("tune.live_run"),
        type="primary",
        disabled=not confirmed or backend_label is None or estimate.calls == 0,
        key=keys.page_widget("tune", "live_run"),
    ):
        with st.spinner(t("tune.live_running", calls=estimate.calls)):
            try:
                replays.run_live_replay(item, settings)
            except (CompressorError, ValueError) as error:
                st.error(plain(str(error)))
    if replays.live_replay(item, settings) is None:
        st.caption(t("tune.live_pending", summary=replays.STAND_IN_SUMMARY))
