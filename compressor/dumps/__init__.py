"""Compression dumps (SPEC §13): writing them atomically, reading one, indexing a folder, and the debug log.

Invariant: a dump appears whole or not at all, and reading never raises past ``DumpFormatError``.
"""

from .costs import (
    DumpCallTokens,
    DumpCost,
    DumpCostTotal,
    DumpTiming,
    dump_call_tokens,
    dump_cost,
    dump_timing,
    price_dump_call,
    total_cost,
)
from .debuglog import (
    DEBUG_DIR_ENV,
    DebugLog,
    debug_log_name,
    read_debug_log,
    resolve_debug_dir,
    span_built_fields,
)
from .index import DEFAULT_CACHE, DumpIndex, DumpIndexCache, index_dumps
from .reader import DumpRecord, DumpSummary, debug_window, read_dump
from .writer import (
    DUMP_DIR_ENV,
    EXTENSION_KEY,
    OPENJIUWEN_KEYS,
    TEMP_PREFIX,
    DumpWriteError,
    LabExtension,
    benefit_of,
    build_dump_record,
    dump_file_name,
    package_version,
    resolve_dump_dir,
    write_dump,
)

__all__ = [
    "DEBUG_DIR_ENV",
    "DEFAULT_CACHE",
    "DUMP_DIR_ENV",
    "EXTENSION_KEY",
    "OPENJIUWEN_KEYS",
    "TEMP_PREFIX",
    "DebugLog",
    "DumpCallTokens",
    "DumpCost",
    "DumpCostTotal",
    "DumpIndex",
    "DumpIndexCache",
    "DumpRecord",
    "DumpSummary",
    "DumpTiming",
    "DumpWriteError",
    "LabExtension",
    "benefit_of",
    "build_dump_record",
    "debug_log_name",
    "debug_window",
    "dump_call_tokens",
    "dump_cost",
    "dump_file_name",
    "dump_timing",
    "index_dumps",
    "package_version",
    "price_dump_call",
    "read_debug_log",
    "read_dump",
    "resolve_debug_dir",
    "resolve_dump_dir",
    "span_built_fields",
    "total_cost",
    "write_dump",
]
