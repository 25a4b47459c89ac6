"""Every protocol tag, line prefix, environment variable and processor id of the compressor, spelled once.

Invariant: these strings are openJiuwen's (SPEC §2, §10, §12, §13); other modules import them, never retype them,
and read a memory block's summary with ``memory_summary``.
"""

from __future__ import annotations

import re

#: The processor id openJiuwen writes into dump names, dump records and debug-log names.
PROCESSOR_TYPE = "CurrentRoundCompressor"

#: The memory block that replaces a compressed span (SPEC §10.6).
MEMORY_OPEN = "<memory_block_current>"
MEMORY_CLOSE = "</memory_block_current>"
_SUMMARY = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.DOTALL)


def memory_summary(content: object) -> str | None:
    """The summary a memory-block turn holds (its ``<summary>`` text, else the whole turn); None for other content."""
    if not isinstance(content, str) or not content.lstrip().startswith(MEMORY_OPEN):
        return None
    found = _SUMMARY.search(content)
    return found.group(1) if found else content


#: The recovered-context message that re-adds recently read files (SPEC §12), and its older spelling.
RECOVERED_OPEN = "<recovered_context>"
RECOVERED_CLOSE = "</recovered_context>"
LEGACY_REINJECTION = "[STATE_REINJECTION]"
#: How the recovered-context message names each file it carries.
FILE_LINE = "Recently read file: "
#: The two blocks a compaction reply holds (SPEC §10.5).
COVERAGE_TAG = "coverage_check"
SNAPSHOT_TAG = "state_snapshot"

#: A user message whose (left-stripped) text starts with one of these was written by the framework,
#: not by a person (SPEC §2).
INTERNAL_PREFIXES: tuple[str, ...] = (
    "<system-reminder>",
    MEMORY_OPEN,
    "<memory_block_dialogue>",
    "<memory_block_round>",
    "<memory_block_session>",
    RECOVERED_OPEN,
    LEGACY_REINJECTION,
)
#: The prefixes of a reinjected-state message, as a dump's ``context_after`` shows it.
REINJECTION_PREFIXES: tuple[str, ...] = (RECOVERED_OPEN, LEGACY_REINJECTION)

#: Where openJiuwen writes compression dumps and its debug log when no directory is configured.
DUMP_DIR_ENV = "OPENJIUWEN_COMPRESSION_DUMP_DIR"
DEBUG_DIR_ENV = "OPENJIUWEN_CONTEXT_DEBUG_DIR"
