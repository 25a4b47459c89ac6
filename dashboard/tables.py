"""Tables the pages show, as pure functions from compressor values to pandas DataFrames.

Invariant: every number in a table is copied from a compressor value (Analysis, CompactionResult, dump
rows); tables only select, rename, order, filter and page, and never render anything themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from compressor.analysis import Analysis
from compressor.compaction_result import Attempt
from compressor.dumps import DumpRecord, DumpSummary
from compressor.dumps.reader import DumpSpan
from compressor.messages import Message
from compressor.replay import CompactionEvent, Sweep
from compressor.tokens import get_counter

from .sources import LoadedConversation

PREVIEW_CHARS = 120
SEGMENTS: tuple[str, ...] = ("system", "prefix", "compress", "tail", "unanchored")

SPAN_COLUMNS = ["position", "index", "label", "role", "tokens", "segment", "internal", "last_user", "preview"]
DUMP_COLUMNS = [
    "time",
    "session",
    "context",
    "tokens_before",
    "tokens_after",
    "reduction",
    "reduction_ratio",
    "target_tokens",
    "context_max",
    "prefix",
    "compress",
    "tail",
    "retries",
    "backend",
    "source",
    "processor",
    "file",
    "path",
]


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line of at most ``limit`` characters (whitespace collapsed), ending in … when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def message_preview(message: Message, limit: int = PREVIEW_CHARS) -> str:
    text = message.text
    if not text.strip() and message.tool_calls:
        text = " ".join(f"{call.name}({call.arguments})" for call in message.tool_calls)
    return preview(text, limit)


def span_frame(analysis: Analysis) -> pd.DataFrame:
    """One row per message of the window: system messages first, then the context with its segment."""
    conversation = analysis.conversation
    system, context = conversation.system, conversation.messages
    rows = analysis.per_message
    last_user = analysis.last_user_index
    return _frame(
        index=[None] * len(system) + [row.index for row in rows],
        labels=[f"system {n}" for n in range(1, len(system) + 1)] + [f"#{row.index}" for row in rows],
        roles=[m.role for m in system] + [row.role for row in rows],
        tokens=[*analysis.profile.system_tokens, *analysis.profile.tokens],
        segments=["system"] * len(system) + [row.segment for row in rows],
        internal=[False] * len(system) + [row.internal for row in rows],
        last_user=[False] * len(system) + [row.index == last_user for row in rows],
        previews=[message_preview(m) for m in (*system, *context)],
    )


def _frame(
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
) -> pd.DataFrame:
    """The message table a page shows: index, role, tokens, segment, notes, preview."""
    segments = segment_names or {}
    notes_text = {"last_user": "last user request", "internal": "internal", **(note_names or {})}
    notes = [
        ", ".join(
            notes_text[name] for name, present in (("last_user", last), ("internal", internal)) if present
        )
        for last, internal in zip(frame["last_user"], frame["internal"], strict=True)
    ]
    return pd.DataFrame(
        {
            "index": frame["index"],
            "role": frame["role"],
            "tokens": frame["tokens"],
            "segment": [segments.get(segment, segment) for segment in frame["segment"]],
            "notes": notes,
            "preview": frame["preview"],
        }
    )


def messages_table(messages: Sequence[Message], counter: str | None = None) -> pd.DataFrame:
    """A plain list of messages (a dump's before/after, a request, a compacted context): index, role,
    tokens (each message alone, by the compressor's ``counter``; left out without one), preview."""
    columns: dict[str, list[Any]] = {
        "index": list(range(len(messages))),
        "role": [m.role for m in messages],
    }
    if counter is not None:
        priced = get_counter(counter)
        columns["tokens"] = [priced.message_tokens(m) for m in messages]
    columns["preview"] = [message_preview(m) for m in messages]
    return pd.DataFrame(columns)


def loaded_table(items: Iterable[LoadedConversation]) -> pd.DataFrame:
    """The conversations a session holds (LoadedConversation values)."""
    rows = [
        {
            "conversation": item.label,
            "format": item.conversation.source_format,
            "messages": len(item.conversation.messages),
            "system": len(item.conversation.system),
            "tools": len(item.conversation.tools),
            "origin": item.origin,
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


def _cell(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return f"{len(value)} items"
    if isinstance(value, dict):
        return f"{len(value)} fields"
    return value


def debug_table(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Debug-log records, one row each; nested values shown by their size."""
    keys: list[str] = []
    for record in records:
        for key in record:
            if key not in keys and key not in ("processor", "session_id", "context_id"):
                keys.append(key)
    rows = [{key: _cell(record.get(key)) for key in keys} for record in records]
    frame = pd.DataFrame(rows, columns=keys)
    if "timestamp" in frame.columns:
        frame["timestamp"] = [_time(value) for value in frame["timestamp"]]
    return frame


def _time(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return datetime.fromtimestamp(float(value), tz=UTC)
    return None


def dump_frame(rows: Iterable[Mapping[str, Any] | DumpSummary]) -> pd.DataFrame:
    """The dump listing (``DumpIndex.dumps`` rows, or ``DumpSummary`` values), newest first."""
    out: list[dict[str, Any]] = []
    for item in rows:
        row = item.to_dict() if isinstance(item, DumpSummary) else dict(item)
        path = str(row.get("path", ""))
        out.append(
            {
                "time": _time(row.get("timestamp")),
                "session": row.get("session_id", ""),
                "context": row.get("context_id", ""),
                "tokens_before": row.get("tokens_before"),
                "tokens_after": row.get("tokens_after"),
                "reduction": row.get("reduction"),
                "reduction_ratio": row.get("reduction_ratio"),
                "target_tokens": row.get("target_tokens"),
                "context_max": row.get("context_max"),
                "prefix": row.get("prefix_count"),
                "compress": row.get("compress_count"),
                "tail": row.get("tail_count"),
                "retries": row.get("retries"),
                "backend": row.get("backend") or "",
                "source": row.get("source", ""),
                "processor": row.get("processor_type", ""),
                "file": path.replace("\\", "/").rsplit("/", 1)[-1],
                "path": path,
            }
        )
    frame = pd.DataFrame(out, columns=DUMP_COLUMNS)
    frame["time"] = pd.to_datetime(frame["time"], utc=True)
    frame["retries"] = frame["retries"].astype("Int64")
    for column in ("tokens_before", "tokens_after", "reduction", "target_tokens", "context_max"):
        frame[column] = frame[column].astype("Int64")
    frame["reduction_ratio"] = frame["reduction_ratio"].astype("float64")
    return frame.sort_values("time", ascending=False, kind="stable").reset_index(drop=True)


def filter_dumps(
    frame: pd.DataFrame,
    *,
    sessions: Sequence[str] = (),
    min_ratio: float = 0.0,
    text: str = "",
    retried_only: bool = False,
) -> pd.DataFrame:
    """Rows matching every given filter (an empty filter matches all)."""
    mask = pd.Series(True, index=frame.index)
    if sessions:
        mask &= frame["session"].isin(list(sessions))
    if min_ratio > 0:
        mask &= frame["reduction_ratio"].fillna(0.0) >= min_ratio
    needle = text.strip().lower()
    if needle:
        haystack = frame["file"].str.lower() + " " + frame["context"].astype(str).str.lower()
        mask &= haystack.str.contains(needle, regex=False)
    if retried_only:
        mask &= frame["retries"].fillna(0) > 0
    return frame[mask].reset_index(drop=True)


def page_count(rows: int, page_size: int) -> int:
    return max(math.ceil(rows / page_size), 1)


def page_of(frame: pd.DataFrame, page: int, page_size: int) -> pd.DataFrame:
    """Rows of a 1-based page (clamped to the pages there are)."""
    page = min(max(page, 1), page_count(len(frame), page_size))
    start = (page - 1) * page_size
    return frame.iloc[start : start + page_size]


def dump_span_frame(record: DumpRecord, span: DumpSpan) -> pd.DataFrame:
    """``span_frame``'s columns for a dump's context before, from its span (``DumpRecord.span``): the tokens
    of each message and the segment the dump's own span counts give it."""
    system, context = record.system_messages, record.before
    return _frame(
        index=[None] * len(system) + list(range(len(context))),
        labels=[f"system {n}" for n in range(1, len(system) + 1)] + [f"#{i}" for i in range(len(context))],
        roles=[m.role for m in (*system, *context)],
        tokens=[*span.system_tokens, *span.tokens],
        segments=["system"] * len(system) + list(span.segments),
        internal=[m.is_internal for m in (*system, *context)],
        last_user=[False] * (len(system) + len(context)),
        previews=[message_preview(m) for m in (*system, *context)],
    )


def _status(status: str, reason: str) -> str:
    return status


def compactions_frame(
    events: Sequence[CompactionEvent], outcome_text: Callable[[str, str], str] = _status
) -> pd.DataFrame:
    """One row per compaction attempt of a replayed run, its outcome worded by ``outcome_text(status, reason)``."""
    rows = [
        {
            "message": event.index,
            "outcome": outcome_text(event.status, event.reason),
            "span": " / ".join(str(count) for count in event.span),
            "compress": event.compress_tokens,
            "before": event.tokens_before,
            "after": event.tokens_after,
            "memory": event.memory_tokens,
            "reinjection": event.reinjection_tokens,
            "request": event.request_tokens,
            "calls": event.calls,
            "files": ", ".join(event.reinjected_files),
        }
        for event in events
    ]
    columns = [
        "message",
        "outcome",
        "span",
        "compress",
        "before",
        "after",
        "memory",
        "reinjection",
        "request",
        "calls",
        "files",
    ]
    return pd.DataFrame(rows, columns=columns)


def sweep_frame(sweep: Sweep) -> pd.DataFrame:
    """One row per setting of a sweep, its outcome's ``to_dict()`` (the Tune page's CSV download)."""
    return pd.DataFrame([outcome.to_dict() for outcome in sweep.outcomes])
