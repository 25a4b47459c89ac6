"""Conversation loaders: one module per input format, detected from the content.

Invariant: every loader returns Conversation values or raises ConversationFormatError on one line;
input files are only ever read. Formats: openJiuwen and OpenAI message lists and ``{"messages", "tools"}``
objects, JSONL of messages, Anthropic Messages, Claude Code sessions, SWE-agent ``.traj``, ``traj`` records.
"""

from __future__ import annotations

from compressor.formats.loader import FORMAT_NAMES, load_conversation, load_conversations
from compressor.formats.source import MAX_DEPTH, MAX_FILE_BYTES, Source

__all__ = [
    "FORMAT_NAMES",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "Source",
    "load_conversation",
    "load_conversations",
]
