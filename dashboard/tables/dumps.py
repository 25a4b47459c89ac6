"""The dump listing of Dump review: one row per dump, grouped by folder, filtered and paged; a dump's context
before, message by message; and how an over-time chart orders dumps written in one batch.

Invariant: a value a column cannot hold (a 10^40 count, NaN, a timestamp no calendar holds) is missing, never
an error; rows keep the dump's own numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

import pandas as pd

from compressor.dumps import DumpRecord, DumpSummary
from compressor.dumps.reader import DumpSpan

from .messages import MISSING, frame_of_messages, message_preview, time_of, time_text

DUMP_COLUMNS = [
    "folder",
    "sequence",
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
    "took",
    "backend",
    "source",
    "processor",
    "file",
    "path",
]


_INT64 = 2**63 - 1


def _count(value: Any) -> int | None:
    """A whole number a table column can hold; None for anything else (a 10^40 count, NaN, text)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -_INT64 <= value <= _INT64 else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) <= _INT64:
        return int(value)
    return None


def _share(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def folder_of(path: str, base: str | None) -> str:
    """The folder of a dump below ``base`` (POSIX, "." for ``base`` itself); without a base, its folder's name
    (a page never shows a server path). Server paths are POSIX: a backslash is part of a name (a byte that is
    not UTF-8, shown escaped, or a literal one), never a separator."""
    parent = PurePosixPath(path).parent
    if base:
        try:
            return parent.relative_to(PurePosixPath(base)).as_posix()
        except ValueError:
            return parent.name or "."
    return parent.name or "."


def dump_frame(rows: Iterable[Mapping[str, Any] | DumpSummary], base: str | None = None) -> pd.DataFrame:
    """The dump listing (``DumpIndex.dumps`` rows, or ``DumpSummary`` values), grouped by folder below ``base``
    and newest first in each; ``sequence`` numbers the dumps in time order (1 is the oldest)."""
    out: list[dict[str, Any]] = []
    for item in rows:
        row = item.to_dict() if isinstance(item, DumpSummary) else dict(item)
        path = str(row.get("path", ""))
        out.append(
            {
                "folder": folder_of(path, base),
                "sequence": 0,
                "time": time_of(row.get("timestamp")),
                "session": str(row.get("session_id", "")),
                "context": str(row.get("context_id", "")),
                **{column: _count(row.get(column)) for column in _COUNT_COLUMNS},
                "reduction_ratio": _share(row.get("reduction_ratio")),
                "prefix": _count(row.get("prefix_count")),
                "compress": _count(row.get("compress_count")),
                "tail": _count(row.get("tail_count")),
                "retries": _count(row.get("retries")),
                "took": _share(row.get("seconds")),  # seconds, from its debug log
                "backend": row.get("backend") or "",
                "source": row.get("source", ""),
                "processor": row.get("processor_type", ""),
                "file": PurePosixPath(path).name,
                "path": path,
            }
        )
    frame = pd.DataFrame(out, columns=DUMP_COLUMNS)
    frame["time"] = pd.to_datetime(frame["time"], utc=True)
    for column in (*_COUNT_COLUMNS, "prefix", "compress", "tail", "retries"):
        frame[column] = frame[column].astype("Int64")
    frame["reduction_ratio"] = frame["reduction_ratio"].astype("float64")
    frame["took"] = frame["took"].astype("float64")
    in_time = frame.sort_values(["time", "path"], kind="stable", na_position="first")
    frame.loc[in_time.index, "sequence"] = range(1, len(frame) + 1)
    frame["sequence"] = frame["sequence"].astype("int64")
    ordered = frame.sort_values(["folder", "sequence"], ascending=[True, False], kind="stable")
    return ordered.reset_index(drop=True)


_COUNT_COLUMNS = ("tokens_before", "tokens_after", "reduction", "target_tokens", "context_max")
#: Dumps written closer together than this on average are plotted by their order, not their time.
COLLAPSED_SECONDS = 1.0


def time_axis(frame: pd.DataFrame) -> str:
    """How an over-time chart orders the dumps: by "time", or by "sequence" when the timestamps collapse
    (dumps written in one batch, a second or less apart on average, or without a usable time)."""
    times = frame["time"].dropna()
    if len(times) < len(frame) or len(frame) < 2:
        return "sequence"
    spread = (times.max() - times.min()).total_seconds()
    return "time" if spread >= COLLAPSED_SECONDS * (len(frame) - 1) else "sequence"


def dump_table(frame: pd.DataFrame, *, here: str = ".") -> pd.DataFrame:
    """The listing as a page shows it: time as text (a dash when unknown), no server path, and the reviewed
    folder itself named ``here`` (a word, not ".")."""
    shown = frame.drop(columns=["path"])
    shown["time"] = [
        MISSING if pd.isna(value) else time_text(value.to_pydatetime()) for value in frame["time"]
    ]
    shown["folder"] = [here if folder == "." else folder for folder in frame["folder"]]
    # the saved share in percent, for a column written "46.9%" as every page writes a share (``SHARE_FORMAT``)
    shown["reduction_ratio"] = frame["reduction_ratio"] * 100
    return shown


#: How a table writes a share held in percent (``dump_table``'s saved share): one decimal, like ``percent()``.
SHARE_FORMAT = "%.1f%%"


def filter_dumps(
    frame: pd.DataFrame,
    *,
    sessions: Sequence[str] = (),
    min_ratio: float = 0.0,
    text: str = "",
    retried_only: bool = False,
    folders: Sequence[str] = (),
) -> pd.DataFrame:
    """Rows matching every given filter (an empty filter matches all)."""
    mask = pd.Series(True, index=frame.index)
    if folders:
        mask &= frame["folder"].isin(list(folders))
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
    return frame_of_messages(
        index=[None] * len(system) + list(range(len(context))),
        labels=[f"system {n}" for n in range(1, len(system) + 1)] + [f"#{i}" for i in range(len(context))],
        roles=[m.role for m in (*system, *context)],
        tokens=[*span.system_tokens, *span.tokens],
        segments=["system"] * len(system) + list(span.segments),
        internal=[m.is_internal for m in (*system, *context)],
        last_user=[False] * (len(system) + len(context)),
        previews=[message_preview(m) for m in (*system, *context)],
    )
