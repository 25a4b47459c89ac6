"""A reader's last step: its messages and what it learned about them (metadata, the agent's own compactions, the
readings it made) as one Conversation.

Invariant: like ``building.build_conversation``, ``assemble`` returns a validated value or raises a FormatProblem;
readings with a zero count are dropped, so a reading always says something that happened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from compressor.formats.problems import FormatProblem, Loc, problem_from_validation
from compressor.messages import Conversation, Message, Reading, RecordedCompaction, ToolDef


class Tally:
    """Reading codes counted as a reader goes, with an optional detail per code."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._details: dict[str, Counter[str]] = {}
        self._notes: dict[str, str] = {}

    def add(self, code: str, count: int = 1, *, detail: str = "", note: str = "") -> None:
        """``detail`` names a kind of thing counted (details are listed with their counts); ``note`` is said once."""
        if count <= 0:
            return
        self._counts[code] += count
        if detail:
            self._details.setdefault(code, Counter())[detail] += count
        if note:
            self._notes[code] = note

    def note(self, code: str, detail: str) -> None:
        """A reading that is one fact (e.g. the model the file names) rather than a count of things."""
        self._counts[code] = 1
        self._notes[code] = detail

    def readings(self) -> list[Reading]:
        out: list[Reading] = []
        for code, count in self._counts.items():
            kinds = self._details.get(code)
            detail = ", ".join(f"{kind} ×{n}" for kind, n in sorted(kinds.items())) if kinds else ""
            out.append(Reading(code=code, count=count, detail=self._notes.get(code, detail)))
        return out


def reported_before(entries: Sequence[tuple[dict[str, Any], Any]], entry: int) -> int | None:
    """The total tokens the last assistant message before ``entries[entry]`` reported (a compaction's window
    before), or None when none did; entries are a reader's (message data, location) pairs."""
    for data, _ in reversed(entries[:entry]):
        usage = data.get("usage_metadata")
        if data.get("role") == "assistant" and usage:
            return int(usage["total_tokens"])
    return None


def internal_turns(messages: Iterable[Message]) -> int:
    return sum(1 for message in messages if message.role == "user" and message.internal)


def assemble(
    messages: list[Message],
    tools: list[ToolDef],
    *,
    name: str,
    source_format: str,
    loc: Loc | None = None,
    metadata: dict[str, Any] | None = None,
    compactions: Iterable[RecordedCompaction] = (),
    readings: Iterable[Reading] = (),
) -> Conversation:
    """One conversation; compaction indices count over ``messages`` (leading system messages included)."""
    if not messages:
        raise FormatProblem(loc or Loc(), "holds no messages")
    try:
        return Conversation.from_messages(
            messages,
            tools,
            name=name,
            source_format=source_format,
            metadata=metadata,
            recorded_compactions=compactions,
            readings=[reading for reading in readings if reading.count > 0],
        )
    except ValidationError as error:
        raise problem_from_validation(error, loc or Loc()) from None


def fill_unanswered(
    messages: list[Message], compactions: list[RecordedCompaction], result: str
) -> tuple[list[Message], list[RecordedCompaction], int]:
    """Give each tool call the file holds no result for a stand-in ``result``, after the results of its reply.

    Compaction indices move with the messages they point at; returns the messages, the compactions and how many
    results were filled in (0: the inputs are returned as they are).
    """
    answered = {message.tool_call_id for message in messages if message.role == "tool"}
    out: list[Message] = []
    moved: dict[int, int] = {}
    waiting: list[Message] = []  # stand-ins for the latest reply, placed after the results that follow it
    for index, message in enumerate(messages):
        if waiting and message.role != "tool":
            out.extend(waiting)
            waiting = []
        moved[index] = len(out)
        out.append(message)
        for call in message.tool_calls or ():
            if call.id not in answered:
                waiting.append(Message(role="tool", tool_call_id=call.id, name=call.name, content=result))
    out.extend(waiting)
    filled = len(out) - len(messages)
    if not filled:
        return messages, compactions, 0
    return out, [c.model_copy(update={"index": moved[c.index]}) for c in compactions], filled
