"""Small Streamlit building blocks the pages share: plain text for markdown slots, a message viewer,
and a folder browser confined to the configured roots.

Invariant: user content reaches the screen only as text (st.text, st.code, dataframes) or escaped by
``plain`` where Streamlit would read markdown, so a message holding ``<script>`` or ``**x**`` shows as written;
a secret found in content is named by kind and masked preview only, never shown in full.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import streamlit as st

from compressor.messages import Message
from compressor.secrets import Finding, find_secrets

from . import roots, state
from .i18n import column_labels, t

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


def table(frame: Any, *, column_config: Mapping[str, Any] | None = None, **options: Any) -> None:
    """``st.dataframe`` with the column headers in the session's language (the data is shown as is)."""
    st.dataframe(frame, column_config=header_config(list(frame.columns), column_config, column_labels()), **options)


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


def secret_kind(kind: str) -> str:
    """A kind of secret (``compressor.secrets``) in words, in the UI language; an unknown kind as itself."""
    labels = {
        "private_key": t("secrets.kind.private_key"),
        "anthropic_key": t("secrets.kind.anthropic_key"),
        "openai_key": t("secrets.kind.openai_key"),
        "aws_access_key": t("secrets.kind.aws_access_key"),
        "github_token": t("secrets.kind.github_token"),
        "slack_token": t("secrets.kind.slack_token"),
        "google_api_key": t("secrets.kind.google_api_key"),
        "url_credentials": t("secrets.kind.url_credentials"),
        "bearer_token": t("secrets.kind.bearer_token"),
        "assignment": t("secrets.kind.assignment"),
    }
    return labels.get(kind, kind)


def flag_secrets(headline: str, found: Sequence[tuple[str, Finding]]) -> None:
    """A warning when ``found`` (where, finding) is not empty, listing each secret by kind and masked preview."""
    if not found:
        return
    st.warning(headline)
    lines = [
        t("secrets.line", where=where, kind=secret_kind(finding.kind), preview=finding.preview)
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
    root_index, folder = state.browse_position(page)
    root_index = min(max(root_index, 0), len(configured) - 1)
    chosen_root = st.selectbox(
        t("browse.root"),
        range(len(configured)),
        index=root_index,
        format_func=lambda i: roots.root_label(configured[i]),
        key=state.browse_widget(page, "root"),
        help=t("browse.root_help", env=roots.ROOTS_ENV),
    )
    if chosen_root != root_index:
        root_index, folder = int(chosen_root), ""
        state.set_browse_position(page, root_index, folder)
    root = configured[root_index]
    if not root.is_dir():
        st.warning(plain(t("browse.missing_root", root=roots.root_label(root))))
        return None
    try:
        entries = roots.list_folder(root, folder, suffixes=suffixes)
    except (roots.OutsideRootError, OSError):
        folder = ""
        state.set_browse_position(page, root_index, folder)
        entries = roots.list_folder(root, folder, suffixes=suffixes)
    st.text(t("browse.here", path=roots.root_label(root) + folder))
    up, _ = st.columns([1, 4])
    up.button(
        t("browse.up"),
        disabled=not folder,
        key=state.browse_widget(page, "up"),
        on_click=state.set_browse_position,
        args=(page, root_index, roots.parent_of(folder)),
    )
    if not entries:
        st.caption(t("browse.empty"))
        return FolderChoice(root_index, root, folder, None)
    picked = st.selectbox(
        t("browse.entries", count=len(entries)),
        range(len(entries)),
        format_func=lambda i: _entry_label(entries[i]),
        key=state.browse_widget(page, f"entry:{root_index}:{folder}"),
    )
    entry = entries[int(picked)] if picked is not None else None
    if entry is not None and entry.is_dir:
        st.button(
            t("browse.open"),
            key=state.browse_widget(page, "open"),
            on_click=state.set_browse_position,
            args=(page, root_index, entry.relative),
        )
    return FolderChoice(root_index, root, folder, entry)


def _entry_label(entry: roots.Entry) -> str:
    if entry.is_dir:
        return f"📁 {entry.name}/"
    return f"📄 {entry.name} · {_size(entry.size)}"


def _size(size: int) -> str:
    if size >= 2**20:
        return f"{size / 2**20:.1f} MB"
    if size >= 2**10:
        return f"{size / 2**10:.0f} KB"
    return f"{size} B"


def read_dump_bytes(path: str | None) -> bytes | None:
    """A written dump's bytes for a download button, or None when there is none to offer."""
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError:
        return None
