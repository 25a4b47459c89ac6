"""Tables of messages: a conversation's window message by message, plain message lists, the conversations a
session holds, a compaction's attempts, a summary's sections and debug-log records.

Invariant: every number is copied from a compressor value; a value that is not there is a dash, never "None",
and an image or a base64 payload shows as its placeholder.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from compressor.analysis import Analysis
from compressor.compaction_result import Attempt
from compressor.messages import Message
from compressor.tokens import get_counter

from ..content import readable, readable_text
from ..sources import LoadedConversation

PREVIEW_CHARS = 120
SEGMENTS: tuple[str, ...] = ("system", "prefix", "compress", "tail", "unanchored")

SPAN_COLUMNS = ["position", "index", "label", "role", "tokens", "segment", "internal", "last_user", "preview"]


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line of at most ``limit`` characters (whitespace collapsed), ending in … when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def message_preview(message: Message, limit: int = PREVIEW_CHARS) -> str:
    """One line of a message: its text (images as ``[image, 18 KB]``), else its tool calls."""
    text = readable_text(message.content)
    if not text.strip() and message.tool_calls:
        text = " ".join(f"{call.name}({call.arguments})" for call in message.tool_calls)
    return preview(text, limit)


def span_frame(analysis: Analysis) -> pd.DataFrame:
    """One row per message of the window: system messages first, then the context with its segment."""
    conversation = analysis.conversation
    system, context = conversation.system, conversation.messages
    rows = analysis.per_message
    last_user = analysis.last_user_index
    return frame_of_messages(
        index=[None] * len(system) + [row.index for row in rows],
        labels=[f"system {n}" for n in range(1, len(system) + 1)] + [f"#{row.index}" for row in rows],
        roles=[m.role for m in system] + [row.role for row in rows],
        tokens=[*analysis.profile.system_tokens, *analysis.profile.tokens],
        segments=["system"] * len(system) + [row.segment for row in rows],
        internal=[False] * len(system) + [row.internal for row in rows],
        last_user=[False] * len(system) + [row.index == last_user for row in rows],
        previews=[message_preview(m) for m in (*system, *context)],
    )


def frame_of_messages(
    *,
    index: Sequence[int | None],
    labels: Sequence[str],
    roles: Sequence[str],
    tokens: Sequence[int],
    segments: Sequence[str],
    internal: Sequence[bool],
    last_user: Sequence[bool],
    previews: Sequence[str],
) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "position": range(len(labels)),
            "index": pd.array(list(index), dtype="Int64"),
            "label": list(labels),
            "role": list(roles),
            "tokens": pd.array(list(tokens), dtype="int64"),
            "segment": list(segments),
            "internal": pd.array(list(internal), dtype=bool),
            "last_user": pd.array(list(last_user), dtype=bool),
            "preview": list(previews),
        },
        columns=SPAN_COLUMNS,
    )


def message_table(
    frame: pd.DataFrame,
    segment_names: Mapping[str, str] | None = None,
    note_names: Mapping[str, str] | None = None,
    role_names: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """The message table a page shows: the message (``#12``, or ``system 1``), role, tokens, segment, notes,
    preview; segments, notes and roles in the words given (a code without words shows as itself)."""
    segments = segment_names or {}
    roles = role_names or {}
    system = roles.get("system", "system")
    notes_text = {"last_user": "last user request", "internal": "internal", **(note_names or {})}
    notes = [
        ", ".join(
            notes_text[name] for name, present in (("last_user", last), ("internal", internal)) if present
        )
        for last, internal in zip(frame["last_user"], frame["internal"], strict=True)
    ]
    return pd.DataFrame(
        {
            "message": [
                f"{system} {label.split(' ', 1)[1]}" if label.startswith("system ") else label
                for label in frame["label"]
            ],
            "role": [roles.get(role, role) for role in frame["role"]],
            "tokens": frame["tokens"],
            "segment": [segments.get(segment, segment) for segment in frame["segment"]],
            "notes": notes,
            "preview": frame["preview"],
        }
    )


def messages_table(
    messages: Sequence[Message], counter: str | None = None, role_names: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """A plain list of messages (a dump's before/after, a request, a compacted context): index, role (in the
    words of ``role_names``), tokens (each message alone, by the compressor's ``counter``; left out without
    one), preview."""
    roles = role_names or {}
    columns: dict[str, list[Any]] = {
        "index": list(range(len(messages))),
        "role": [roles.get(m.role, m.role) for m in messages],
    }
    if counter is not None:
        priced = get_counter(counter)
        columns["tokens"] = [priced.message_tokens(m) for m in messages]
    columns["preview"] = [message_preview(m) for m in messages]
    return pd.DataFrame(columns)


def loaded_table(
    items: Iterable[LoadedConversation], origins: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """The conversations a session holds (LoadedConversation values), where each came from in ``origins``'
    words (an origin without words shows as itself)."""
    words = origins or {}
    rows = [
        {
            "conversation": item.label,
            "format": item.conversation.source_format,
            "messages": len(item.conversation.messages),
            "system": len(item.conversation.system),
            "tools": len(item.conversation.tools),
            "origin": words.get(item.origin, item.origin),
            "file": item.file,
        }
        for item in items
    ]
    return pd.DataFrame(
        rows, columns=["conversation", "format", "messages", "system", "tools", "origin", "file"]
    )


def attempts_table(attempts: Sequence[Attempt]) -> pd.DataFrame:
    """One row per model call of a compaction (compactor Attempt values)."""
    rows = [
        {
            "attempt": a.number,
            "messages": a.message_count,
            "request_tokens": a.request_tokens,
            "outcome": a.outcome,
            "error": a.error or "",
            "delay_seconds": a.delay_seconds,
            "budget_ratio": a.budget_ratio,
            "seconds": round(a.seconds, 3),
        }
        for a in attempts
    ]
    columns = [
        "attempt",
        "messages",
        "request_tokens",
        "outcome",
        "error",
        "delay_seconds",
        "budget_ratio",
        "seconds",
    ]
    return pd.DataFrame(rows, columns=columns)


def checklist_table(checklist: Sequence[tuple[str, bool]]) -> pd.DataFrame:
    """The snapshot's sections and whether the summary holds each (compressor.prompt.section_checklist)."""
    return pd.DataFrame(
        {
            "number": list(range(1, len(checklist) + 1)),
            "section": [title for title, _ in checklist],
            "present": [bool(present) for _, present in checklist],
        }
    )


#: What a table shows for a value that is not there (never "None").
MISSING = "—"


def _english_size(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def _cell(value: Any, words: CellWords) -> Any:
    if value is None:
        return MISSING
    if isinstance(value, list | tuple):
        return words.size(len(value), "item")
    if isinstance(value, dict):
        return words.size(len(value), "field")
    if isinstance(value, bool):
        return words.yes if value else words.no
    return readable(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class CellWords:
    """How a debug table words a flag and a nested value's size, in the page's language."""

    yes: str = "yes"
    no: str = "no"
    #: (count, "item" or "field") → "1 item", "3 fields"
    size: Callable[[int, str], str] = _english_size


def debug_table(records: Sequence[Mapping[str, Any]], words: CellWords | None = None) -> pd.DataFrame:
    """Debug-log records, one row each; nested values shown by their size, flags and sizes in ``words``."""
    said = words or CellWords()
    keys: list[str] = []
    for record in records:
        for key in record:
            if key not in keys and key not in ("processor", "session_id", "context_id"):
                keys.append(key)
    rows = [{key: _cell(record.get(key), said) for key in keys} for record in records]
    frame = pd.DataFrame(rows, columns=keys)
    for column in frame.columns:
        kinds = {type(value) for value in frame[column]}
        if len(kinds) > 1:  # numbers beside a dash: the column is text, each number written out
            frame[column] = [
                value if isinstance(value, str) else f"{value:,}" if isinstance(value, int) else str(value)
                for value in frame[column]
            ]
    if "timestamp" in frame.columns:
        frame["timestamp"] = [time_text(time_of(value), milliseconds=True) for value in frame["timestamp"]]
    return frame


def time_text(moment: datetime | None, *, milliseconds: bool = False) -> str:
    """A moment as tables write it (UTC), a dash when unknown."""
    if moment is None:
        return MISSING
    text = moment.strftime("%Y-%m-%d %H:%M:%S.%f" if milliseconds else "%Y-%m-%d %H:%M:%S")
    return text[:-3] if milliseconds else text


def time_of(value: object) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):  # a timestamp no calendar holds (±1e308)
            return None
    return None
