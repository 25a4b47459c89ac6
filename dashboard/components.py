"""Small Streamlit building blocks the pages share: plain text for markdown slots, translated tables, metric
cards that wrap on a narrow screen, a message viewer (images as placeholders) and secret warnings.

Invariant: user content reaches the screen only as text (st.text, st.code, dataframes) or escaped by
``plain`` where Streamlit would read markdown, so a message holding ``<script>`` or ``**x**`` shows as written;
a secret found in content is named by kind and masked preview only, never shown in full; every number shown
is a field of the value the library returned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import pandas as pd
import streamlit as st

from compressor.messages import Message
from compressor.secrets import Finding, find_secrets

from .content import readable
from .i18n import Stat, column_labels, counted, secret_kind
from .roots import without_server_paths
from .state import session
from .state.session import t
from .tables import CellWords

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


def error_line(text: str) -> str:
    """An error for a markdown slot: one line, no server path in it (``roots.without_server_paths``), escaped."""
    return plain(without_server_paths(text))


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
    st.dataframe(frame, column_config=table_config(frame, column_config, headers), **options)


def table_config(
    frame: pd.DataFrame, column_config: Mapping[str, Any] | None, labels: Mapping[str, str]
) -> dict[str, Any]:
    """``header_config``, with whole-number columns written with thousands separators as the metrics and
    captions write them ("13,320", never "13320") unless ``column_config`` formats them itself."""
    numbers: dict[str, Any] = {
        column: st.column_config.NumberColumn(format="localized")
        for column in frame.columns
        if pd.api.types.is_integer_dtype(frame[column].dtype)
        and not pd.api.types.is_bool_dtype(frame[column].dtype)
    }
    return header_config(list(frame.columns), {**numbers, **(column_config or {})}, labels)


#: A metric card is never narrower than this: on a narrow screen the cards wrap onto the next line instead.
METRIC_MIN_WIDTH = 150


def stats(values: Sequence[Stat]) -> None:
    """Numbers as ``st.metric`` cards in one row that wraps, each card as wide as its label and number need."""
    with st.container(horizontal=True, gap="medium"):
        for stat in values:
            st.metric(
                stat.label,
                stat.value,
                delta=stat.delta,
                delta_color="inverse",
                help=stat.help,  # markdown: the glossary's formulas are set as code
                width="content",
            )


def cell_words() -> CellWords:
    """How the session's language words a debug table's flags and sizes ("是", "3 项")."""
    language = session.language()
    return CellWords(yes=t("cell.yes"), no=t("cell.no"), size=lambda n, noun: counted(n, noun, language))


def stop_when_empty(message_key: str) -> NoReturn:
    """The empty state of a page with no conversation: say what to do next, link to Load, stop the page."""
    st.info(t(message_key))
    st.page_link("views/load.py", label=t("nav.load"), icon=":material/upload_file:")
    st.stop()


def show_message(message: Message, heading: str) -> None:
    """One message in full, as text: content, tool calls, tool result id and any other fields."""
    st.markdown(f"**{plain(heading)}**")
    shown = readable(message.content)  # an image or a base64 payload as "[image, 18 KB]", never verbatim
    if isinstance(shown, str):
        st.code(shown or " ", language=None, wrap_lines=True)
    else:
        st.code(json.dumps(shown, ensure_ascii=False, indent=2), language="json", wrap_lines=True)
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
            json.dumps(readable(extra), ensure_ascii=False, indent=2, default=str),
            language="json",
            wrap_lines=True,
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
    flag_secrets(t("secrets.messages", secrets=counted(len(found), "secret", session.language())), found)


def flag_summary_secrets(summary: str | None) -> None:
    """Flag secrets in a compaction's summary (it is short, so it is searched on every run)."""
    where = t("secrets.where.summary")
    found = [(where, finding) for finding in find_secrets(summary or "")]
    flag_secrets(t("secrets.summary", secrets=counted(len(found), "secret", session.language())), found)


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
