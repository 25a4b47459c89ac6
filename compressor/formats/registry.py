"""The formats the loader knows, in the order it tries them: the first reader whose ``looks_like`` holds reads.

Invariant: one ordered table for JSON objects, arrays and JSONL lines alike; adding a format is one module with
a ``Reader`` and one line here. Specific shapes come before general ones (a message list matches many files).
"""

from __future__ import annotations

from compressor.formats import chat, claude_code, records, swe_agent
from compressor.formats.shape import Reader, Shape

READERS: tuple[Reader, ...] = (
    swe_agent.READER,
    records.READER,
    chat.OBJECT_READER,
    claude_code.READER,
    chat.MESSAGES_READER,
    chat.NUMBERED_READER,
)


def reader_for(shape: Shape) -> Reader | None:
    """The first reader that recognises ``shape``, or None."""
    return next((reader for reader in READERS if reader.looks_like(shape)), None)
