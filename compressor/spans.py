"""Real-user detection, keep-recent with tool boundaries, and the three spans (SPEC §2–4).

Invariant: prefix + compress + tail (+ the unanchored messages when there is no real user message)
always rebuild the context in order, and a kept tool result always keeps the assistant call that asked for it.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .messages import Message

Segment = Literal["prefix", "compress", "tail", "unanchored"]
Range = tuple[int, int]


def last_user_index(messages: Sequence[Message]) -> int:
    """Index of the last real user message, or -1."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].is_real_user:
            return index
    return -1


def _first_calls(messages: Sequence[Message]) -> dict[str, int]:
    """Each call id and the first assistant message that makes the call."""
    first_call_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.role == "assistant":
            for call_id in message.call_ids:
                first_call_at.setdefault(call_id, index)
    return first_call_at


def effective_keep(messages: Sequence[Message], keep: int) -> int:
    """How many trailing messages are kept once the tail is widened to hold each kept result's call.

    Works in one backward pass: the start only moves earlier, so each tool message is visited once.
    """
    if keep <= 0 or not messages:
        return max(keep, 0)
    first_call_at = _first_calls(messages)
    total = len(messages)
    start = max(total - keep, 0)
    scanned_from = total  # tool messages in [scanned_from, total) have been looked at
    while True:
        earliest = start
        for index in range(start, scanned_from):
            message = messages[index]
            if message.role == "tool" and message.tool_call_id is not None:
                call_at = first_call_at.get(message.tool_call_id)
                if call_at is not None and call_at < earliest:
                    earliest = call_at
        scanned_from = start
        if earliest == start:
            return total - start
        start = earliest


def call_reach(messages: Sequence[Message]) -> Sequence[int]:
    """For each start ``s`` (0..len), the earliest message a kept tool result from ``s`` on needs: the first
    assistant call of any result at or after ``s``, or ``len(messages)`` when none needs an earlier one.

    Does not depend on the keep count, so it is built once per conversation (see ``run_facts``); 8 bytes a
    start in an array, built in place (a list and its tuple copy were the peak of inspecting a million messages).
    """
    first_call_at = _first_calls(messages)
    total = len(messages)
    reach = array("q", [total]) * (total + 1)
    earliest = total
    for index in range(total - 1, -1, -1):
        message = messages[index]
        if message.role == "tool" and message.tool_call_id is not None:
            call_at = first_call_at.get(message.tool_call_id)
            if call_at is not None and call_at < earliest:
                earliest = call_at
        reach[index] = earliest
    return reach


def effective_keep_from(reach: Sequence[int], keep: int) -> int:
    """``effective_keep(messages, keep)`` from ``call_reach(messages)``: each step is one look-up.

    The tail start moves to the earliest call its results need until no result needs an earlier one.
    """
    total = len(reach) - 1
    if keep <= 0 or total <= 0:
        return max(keep, 0)
    start = max(total - keep, 0)
    while reach[start] < start:
        start = reach[start]
    return total - start


@dataclass(frozen=True)
class Span:
    """The split of the context into half-open ranges (SPEC §4)."""

    prefix: Range
    compress: Range
    tail: Range
    #: messages before the tail that belong to no span (only when there is no real user message)
    unanchored: Range

    @property
    def counts(self) -> tuple[int, int, int]:
        return (
            self.prefix[1] - self.prefix[0],
            self.compress[1] - self.compress[0],
            self.tail[1] - self.tail[0],
        )

    @property
    def has_compressible(self) -> bool:
        return self.compress[1] > self.compress[0]

    def segment_of(self, index: int) -> Segment:
        if self.prefix[0] <= index < self.prefix[1]:
            return "prefix"
        if self.compress[0] <= index < self.compress[1]:
            return "compress"
        if self.tail[0] <= index < self.tail[1]:
            return "tail"
        return "unanchored"

    def segments(self, end: int, begin: int = 0) -> list[Segment]:
        """``[segment_of(i) for i in range(begin, end)]``, built a range at a time."""
        out: list[Segment] = ["unanchored"] * max(end - begin, 0)
        # Lowest precedence first, so where ranges overlap the one segment_of tests first wins.
        ranges: tuple[tuple[Segment, Range], ...] = (
            ("tail", self.tail),
            ("compress", self.compress),
            ("prefix", self.prefix),
        )
        for name, (start, stop) in ranges:
            start, stop = max(start, begin), min(stop, end)
            if stop > start:
                out[start - begin : stop - begin] = [name] * (stop - start)
        return out

    def to_dict(self) -> dict[str, list[int]]:
        out = {"prefix": list(self.prefix), "compress": list(self.compress), "tail": list(self.tail)}
        if self.unanchored[1] > self.unanchored[0]:
            out["unanchored"] = list(self.unanchored)
        return out


def build_span(total: int, last_user: int, keep: int) -> Span:
    """The three spans of a context of ``total`` messages, given the effective keep count."""
    split = max(total - keep, 0)
    if last_user < 0:
        return Span((0, 0), (0, 0), (split, total), (0, split))
    start = last_user + 1
    if split <= start:
        return Span((0, start), (start, start), (start, total), (0, 0))
    return Span((0, start), (start, split), (split, total), (0, 0))
