"""The recovered-context message of a simulated compaction (SPEC §12), kept up to date as compactions go.

Invariant: ``message()`` returns the entry build_reinjection(context, prefix + memory + tail) would build; rounds
and visible paths are only ever extended, and the original run's rounds are reused wherever the walk agrees.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..reinjection import MAX_FILES, TOTAL_CHAR_BUDGET, completed_rounds
from ..skills import select_skills
from .index import RunIndex
from .rounds import OriginalRounds, Read, RoundState, walk_rounds


class RecoveredFiles:
    """Completed rounds and visible file paths of a context made of a rearranged part and plain originals.

    The context is ``entries``; from ``plain_from`` on, position ``p`` holds original ``p - shift`` with
    ``shift = len(entries) - materialised``. ``last_user`` is the position of the last real user message.
    """

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        # Completed rounds, walked lazily up to round_at, and the walk's state there.
        self.round_at = 0
        self.round_start: int | None = None
        self.pending: set[str] | None = None
        self.rounds: list[tuple[Read, ...]] = []
        self.at_last_user: RoundState = (None, None, 0)
        # Paths visible in the prefix, and the reads of rounds wholly inside it (both only ever grow).
        self.visible: set[str] = set()
        self.visible_at = 0
        self.settled: list[tuple[int, Read]] = []
        self.settled_rounds = 0

    def snapshot(self) -> tuple[Any, ...]:
        """A copy of the walk that ``restore`` puts back exactly (``visible`` is replaced, never changed in place)."""
        pending = set(self.pending) if self.pending is not None else None
        return (
            self.round_at,
            self.round_start,
            pending,
            self.rounds[:],
            self.at_last_user,
            self.visible,
            self.visible_at,
            self.settled[:],
            self.settled_rounds,
        )

    def restore(self, state: tuple[Any, ...]) -> None:
        round_at, round_start, pending, rounds, at_last_user, visible, visible_at, settled, settled_rounds = (
            state
        )
        self.round_at, self.round_start = round_at, round_start
        self.pending = set(pending) if pending is not None else None
        self.rounds, self.at_last_user = rounds[:], at_last_user
        self.visible, self.visible_at = visible, visible_at
        self.settled, self.settled_rounds = settled[:], settled_rounds

    def sync(self, entries: Sequence[int], materialised: int, plain_from: int, last_user: int) -> None:
        """Bring the completed rounds up to the whole context.

        Messages the compactions rearranged are walked one by one; as soon as the walk's state matches the
        original run's at the same original message, the rest is the original's rounds, taken as they are.
        """
        size = len(entries)
        position = self.round_at
        if position >= size:
            return
        index = self.index
        walked = index.original_rounds()
        shift = size - materialised
        start, pending = self.round_start, self.pending
        while position < size:
            if position >= plain_from:
                before = walked.state_after[position - shift - 1] if position > shift else (None, None, 0)
                begun = before[0]
                if pending == before[1] and (
                    (begun is None and start is None)
                    or (begun is not None and begun + shift >= plain_from and start == begun + shift)
                ):
                    self._splice(walked, position, size, shift, before[2], last_user)
                    return
            start, pending, watched = walk_rounds(
                index, entries, position, position + 1, start, pending, self.rounds, watch=last_user
            )
            if watched is not None:
                self.at_last_user = watched
            position += 1
        self.round_start, self.pending, self.round_at = start, pending, size

    def _splice(
        self, walked: OriginalRounds, position: int, size: int, shift: int, count: int, last_user: int
    ) -> None:
        """Take the original run's rounds for positions ``[position, size)`` (all plain originals)."""
        base = len(self.rounds)
        end_start, end_pending, end_count = walked.state_after[size - shift - 1]
        self.rounds.extend(walked.rounds[count:end_count])
        self.round_start = None if end_start is None else end_start + shift
        self.pending = set(end_pending) if end_pending is not None else None
        self.round_at = size
        if position <= last_user < size:
            user_start, user_pending, user_count = walked.state_after[last_user - shift]
            self.at_last_user = (
                None if user_start is None else user_start + shift,
                user_pending,
                base + user_count - count,
            )

    def rearranged(self, start: int) -> None:
        """The context changed from ``start`` on (a compaction): walk it again from the state the prefix left."""
        round_start, pending, count = self.at_last_user
        del self.rounds[count:]
        self.round_start = round_start
        self.pending = set(pending) if pending is not None else None
        self.round_at = start

    def message(
        self,
        entries: Sequence[int],
        materialised: int,
        plain_from: int,
        last_user: int,
        start: int,
        split: int,
        memory: int,
    ) -> int | None:
        """The recovered-context entry for keeping ``entries[:start]``, ``memory`` and ``entries[split:]``, or None."""
        index = self.index
        self.sync(entries, materialised, plain_from, last_user)
        shift = len(entries) - materialised
        visible = self.visible
        grown: set[str] = set()
        if self.visible_at < start:
            for entry in entries[self.visible_at : min(start, plain_from)]:
                path = index.result_path(entry)
                if path is not None and path not in visible:
                    grown.add(path)
            plain_at = max(self.visible_at, plain_from)
            if plain_at < start:
                grown |= index.paths_between(plain_at - shift, start - shift, visible | grown)
            self.visible_at = start
        if grown:
            visible = self.visible = visible | grown
            self.settled = [(number, read) for number, read in self.settled if read.path not in visible]
        settled_count = self.at_last_user[2]  # rounds completed before the last user message never change
        rounds, settled = self.rounds, self.settled
        for number in range(self.settled_rounds, settled_count):
            if rounds[number]:  # most rounds read no file
                settled.extend((number, read) for read in rounds[number] if read.path not in visible)
        self.settled_rounds = max(self.settled_rounds, settled_count)
        in_tail: set[str] | None = None  # the paths the tail's results name, once a candidate needs them
        seen: set[str] = set()
        selected: list[Read] = []
        budget = TOTAL_CHAR_BUDGET
        for read in self._candidates(settled_count):
            path = read.path
            if path in visible or path in seen:
                continue
            if in_tail is None:
                in_tail = {named for e in entries[split:] if (named := index.result_path(e)) is not None}
            if path in in_tail:
                continue
            seen.add(path)
            selected.append(read)
            budget -= read.charge
            if len(selected) >= MAX_FILES or budget <= 0:
                break
        skills = self._skills(entries, start, split, memory) if index.loads_skills else ()
        return index.reinjection(selected, skills) if selected or skills else None

    def _skills(self, entries: Sequence[int], start: int, split: int, memory: int) -> tuple[str, ...]:
        """The skills section, read from the whole context (only runs that load skills get here)."""
        index = self.index
        context = [index.message(entry) for entry in entries]
        kept = [*context[:start], index.message(memory), *context[split:]]
        return select_skills(context, completed_rounds(context), kept)

    def _candidates(self, settled_count: int) -> Iterator[Read]:
        """Reads newest round first and in call order inside a round; settled ones are pre-filtered."""
        rounds = self.rounds
        for number in range(len(rounds) - 1, settled_count - 1, -1):
            yield from rounds[number]
        settled = self.settled
        end = len(settled)
        while end > 0:
            number = settled[end - 1][0]
            begin = end
            while begin > 0 and settled[begin - 1][0] == number:
                begin -= 1
            for position in range(begin, end):
                yield settled[position][1]
            end = begin
