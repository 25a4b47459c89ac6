"""Tables the pages show, as pure functions from compressor values to pandas DataFrames: ``messages``,
``dumps`` (the Dump review listing) and ``runs`` (replays and sweeps).

Invariant: every number in a table is copied from a compressor value (Analysis, CompactionResult, dump
rows); tables only select, rename, order, filter and page, and never render anything themselves.
"""

from .dumps import (
    COLLAPSED_SECONDS,
    DUMP_COLUMNS,
    SHARE_FORMAT,
    dump_frame,
    dump_span_frame,
    dump_table,
    filter_dumps,
    folder_of,
    page_count,
    page_of,
    time_axis,
)
from .messages import (
    MISSING,
    PREVIEW_CHARS,
    SPAN_COLUMNS,
    CellWords,
    attempts_table,
    checklist_table,
    debug_table,
    loaded_table,
    message_preview,
    message_table,
    messages_table,
    preview,
    span_frame,
)
from .runs import COST_COLUMNS, COST_MONEY, compaction_costs_frame, compactions_frame, sweep_frame

__all__ = [
    "COLLAPSED_SECONDS",
    "COST_COLUMNS",
    "COST_MONEY",
    "DUMP_COLUMNS",
    "MISSING",
    "PREVIEW_CHARS",
    "SHARE_FORMAT",
    "SPAN_COLUMNS",
    "CellWords",
    "attempts_table",
    "checklist_table",
    "compaction_costs_frame",
    "compactions_frame",
    "debug_table",
    "dump_frame",
    "dump_span_frame",
    "dump_table",
    "filter_dumps",
    "folder_of",
    "loaded_table",
    "message_preview",
    "message_table",
    "messages_table",
    "page_count",
    "page_of",
    "preview",
    "span_frame",
    "sweep_frame",
    "time_axis",
]
