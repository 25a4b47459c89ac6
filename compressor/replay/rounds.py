"""The completed-rounds walk of a replay: reinjection.completed_rounds over held entries, from any state.

Invariant: walking ``entries[begin:end]`` from the state after ``begin - 1`` appends, in order, the rounds that
completed_rounds completes there (each with its reads' last results) and returns the walk's state after ``end``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..messages import ToolCall
from ..reinjection import ReinjectedFile

#: The completed-rounds walk's state after a position: (round start, pending call ids, rounds completed).
RoundState = tuple[int | None, frozenset[str] | None, int]


@dataclass(frozen=True, slots=True)
class Read:
    """A read call whose result names a file: one candidate for the recovered-context message (SPEC §12)."""

    key: tuple[int, int, int]  # (assistant entry, call number, result entry)
    path: str
    charge: int
    file: ReinjectedFile


@dataclass(frozen=True)
class OriginalRounds:
    """The completed rounds of the original context, and the walk's state after each of its positions."""

    rounds: tuple[tuple[Read, ...], ...]
    state_after: tuple[RoundState, ...]  # [p]: the walk's state after position p


class RoundSource(Protocol):
    """What the walk reads of a run index: each entry's role and call ids, the read calls, their snapshots."""

    roles: list[str]
    call_ids: list[tuple[str, ...]]
    tool_ids: list[str | None]
    read_calls: dict[int, tuple[tuple[int, ToolCall], ...]]

    def snapshot(self, caller: int, number: int, result: int) -> Read | None: ...


def walk_rounds(
    index: RoundSource,
    entries: Sequence[int],
    begin: int,
    end: int,
    start: int | None,
    pending: set[str] | None,
    rounds: list[tuple[Read, ...]],
    *,
    watch: int = -1,
    states: list[RoundState] | None = None,
) -> tuple[int | None, set[str] | None, RoundState | None]:
    """reinjection.completed_rounds over ``entries[begin:end]`` from a given state, appending each round's reads.

    Returns the state after ``end`` and the state after position ``watch`` (None when it was not walked).
    """
    roles, call_ids, tool_ids = index.roles, index.call_ids, index.tool_ids
    watched: RoundState | None = None
    for position in range(begin, end):
        entry = entries[position]
        role = roles[entry]
        if start is None or (role == "user" and pending is None):
            start = position
        if role == "assistant":
            ids = call_ids[entry]
            if ids:
                pending = set(ids)
            else:
                rounds.append(round_reads(index, entries, start, position + 1))
                start, pending = None, None
        elif role == "tool" and pending is not None:
            pending.discard(tool_ids[entry] or "")
            if not pending:
                rounds.append(round_reads(index, entries, start, position + 1))
                start, pending = None, None
        if position == watch or states is not None:
            state = (start, frozenset(pending) if pending is not None else None, len(rounds))
            if position == watch:
                watched = state
            if states is not None:
                states.append(state)
    return start, pending, watched


def round_reads(index: RoundSource, entries: Sequence[int], start: int, end: int) -> tuple[Read, ...]:
    """The read calls of one round in call order, each with its last result inside the round."""
    read_calls = index.read_calls
    callers = [entries[p] for p in range(start, end) if entries[p] in read_calls]
    if not callers:
        return ()
    tool_ids = index.tool_ids
    last: dict[str, int] = {}
    for position in range(start, end):
        call_id = tool_ids[entries[position]]
        if call_id is not None:
            last[call_id] = entries[position]
    reads: list[Read] = []
    for caller in callers:
        for number, call in read_calls[caller]:
            result = last.get(call.id)
            if result is not None:
                read = index.snapshot(caller, number, result)
                if read is not None:
                    reads.append(read)
    return tuple(reads)
