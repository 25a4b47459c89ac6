"""What a Claude Code 2.1 compaction kept of the history (``compactMetadata.preservedSegment``), and where it goes.

Invariant: the messages a compaction kept are read again, in their order, right after the line Claude Code hangs them
off, so from a compaction's summary on the messages are the window the agent sent; a segment whose links do not lead
from its tail back to its head is read as keeping nothing, as Claude Code itself then resumes without it.

Claude Code 2.1 may keep the newest part of the history verbatim when it compacts (``/compact`` and auto-compaction
in 2.1.2xx, a partial compaction): the window after it is the summary, then those messages, then what follows. The
kept lines are not written again: they stay where they were, before the ``compact_boundary`` line, which names them
by ``preservedSegment {headUuid, anchorUuid, tailUuid}``: the segment is the ``parentUuid`` chain from ``tailUuid``
back to ``headUuid``, and on resume Claude Code hangs ``headUuid`` off ``anchorUuid`` (the summary, or the boundary
itself when the kept messages come before the summary) and what hung off the anchor off ``tailUuid``. The lines of
one reply and the tool results hanging off them are kept with it (the window had the whole reply). The kept replies
were model calls made before the compaction, with its usage; read again they are no calls, so their copies carry no
usage (Claude Code zeroes it on resume for the same reason) and ``metadata["kept_by_compaction"]`` names the boundary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from compressor.formats import claude_branches
from compressor.formats.building import kept_copy
from compressor.formats.claude_turns import COMPACT_METADATA
from compressor.messages import Message

#: Where a compaction boundary names the messages it kept.
PRESERVED_SEGMENT = "preservedSegment"


@dataclass(frozen=True)
class Kept:
    """The lines one compaction kept: its boundary's ``uuid``, the line they hang off and their ``uuid``."""

    boundary: str
    anchor: str
    lines: frozenset[str]


def kept_segments(lines: Iterable[Any], *, sidechain: bool = False) -> list[Kept]:
    """Every compaction's kept lines, in file order; a segment its links do not join is left out."""
    nodes = claude_branches.linked_lines(lines, sidechain=sidechain)
    found: list[Kept] = []
    for uuid, line in nodes.items():
        if line.get("type") != "system" or line.get("subtype") != "compact_boundary":
            continue
        meta = line.get(COMPACT_METADATA)
        segment = meta.get(PRESERVED_SEGMENT) if isinstance(meta, dict) else None
        if not isinstance(segment, dict):
            continue
        head, anchor, tail = (segment.get(key) for key in ("headUuid", "anchorUuid", "tailUuid"))
        if (
            not (isinstance(head, str) and isinstance(anchor, str) and isinstance(tail, str))
            or anchor not in nodes
        ):
            continue
        walked = _walk(nodes, tail, head)
        if walked:
            found.append(Kept(uuid, anchor, frozenset(claude_branches.with_parallel_lines(nodes, walked))))
    return found


def _walk(nodes: dict[str, dict[str, Any]], tail: str, head: str) -> set[str]:
    """The lines from ``tail`` back to ``head`` by ``parentUuid``; empty when the links never reach ``head``."""
    walked: set[str] = set()
    current: str | None = tail
    while current is not None and current in nodes and current not in walked:
        walked.add(current)
        if current == head:
            return walked
        current = claude_branches.parent(nodes[current], logical=False)
    return set()


def with_kept(
    messages: list[Message], segments: list[Kept], marks: dict[str, int]
) -> tuple[list[Message], int]:
    """``messages`` with each segment's kept messages read again after its anchor, and how many were; ``marks``
    gives where each boundary line stood (the index of the message read next after it)."""
    inserts: dict[int, list[Message]] = {}
    for segment in segments:
        at = marks.get(segment.anchor)
        if at is None:
            anchored = [i for i, message in enumerate(messages) if _uuid(message) == segment.anchor]
            at = anchored[-1] + 1 if anchored else None
        if at is None:
            continue  # the summary it hangs off was not read (Claude Code resumes without the segment too)
        kept = [message for message in messages[:at] if _uuid(message) in segment.lines]
        inserts.setdefault(at, []).extend(kept_copy(message, segment.boundary) for message in kept)
    if not inserts:
        return messages, 0
    out: list[Message] = []
    for index in range(len(messages) + 1):
        out.extend(inserts.get(index, ()))
        if index < len(messages):
            out.append(messages[index])
    return out, sum(len(copies) for copies in inserts.values())


def _uuid(message: Message) -> Any:
    return (message.model_extra or {}).get("uuid")
