"""The tail an OpenCode compaction keeps (``tail_start_id`` on its ``compaction`` part), read again after its summary.

Invariant: after a completed compaction that names a kept tail, the summary is followed by copies of the messages
read from ``tail_start_id`` up to the compaction request, so from the summary on the messages are the window sent.

Since anomalyco/opencode PR #21822 (April 2026) a compaction may keep the newest turns verbatim: ``compaction.ts``
(``select``) summarises only the head and writes the first kept message's id (a turn's user message, or a split
point inside the turn) into the request's ``compaction`` part as ``tail_start_id``. The kept messages are not
written again: ``MessageV2.filterCompacted`` (``message-v2.ts``, read at anomalyco/opencode 007a9409, the version
the source index holds) walks the session back from the newest message, past the request whose summary finished without
error, on to ``tail_start_id``, so every later request re-sends them in their stored place, before the request and
its summary. PR #25851 (2026-05-05) moved them after the summary (request, summary, kept tail, what follows; read
in forks' message-v2.ts that carry it, as the index holds no later anomalyco commit), and the released versions
still send them so (#26830, which would have dropped the tail, was reverted by #27145 before a release). A session
file does not say which version wrote it, and both orders send the same messages (the same tokens), so every such
compaction is read in the current order. A ``tail_start_id`` not found before the request keeps nothing here
(OpenCode then sends the session uncut, which a recorded compaction cannot say). The copies carry no usage (they
are no model call again) and ``metadata["kept_by_compaction"]`` names the compaction request.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compressor.formats.building import kept_copy
from compressor.messages import Message
from compressor.run_records import KEPT_BY_COMPACTION


def tail_start(parts: Iterable[tuple[Any, dict[str, Any]]]) -> str | None:
    """The ``tail_start_id`` of a user message's ``compaction`` part, if it names one."""
    for _, part in parts:
        if part.get("type") == "compaction":
            start = part.get("tail_start_id")
            return start if isinstance(start, str) and start else None
    return None


def completes(info: dict[str, Any]) -> bool:
    """Whether an assistant message is a summary ``filterCompacted`` counts: marked, finished and not errored."""
    return info.get("summary") is True and bool(info.get("finish")) and not info.get("error")


def kept_copies(messages: list[Message], start: int, end: int, request: str) -> list[Message]:
    """Copies of the messages read from ``start`` up to ``end`` (the request), marked as kept by ``request``;
    a copy an earlier compaction made is left out, as OpenCode re-sends the stored messages only."""
    return [
        kept_copy(message, request)
        for message in messages[start:end]
        if KEPT_BY_COMPACTION not in (message.metadata or {})
    ]
