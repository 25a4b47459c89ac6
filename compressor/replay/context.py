"""The context a replay holds: entry ids with prefix sums, a rearranged (frozen) part followed by plain originals.

Invariant: position ``p >= plain_from`` is original ``p - shift`` (``shift = len(entries) - materialised``); only
the originals up to ``materialised`` are appended to ``entries``, the rest are implied, and the prefix sums
``cumulative`` always match ``entries``.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

from ..tokens import LIST_OVERHEAD
from .index import RunIndex
from .recovered import RecoveredFiles

#: The held context as ``HeldContext.snapshot`` copies it (its recovered files' walk included).
Snapshot = tuple[Any, ...]


class HeldContext:
    """The compacted context of a replay, as entry ids and prefix sums (see the module docstring)."""

    index: RunIndex
    keep: int
    keep_starts: tuple[int, ...]

    def _reset_context(self) -> None:
        self.entries: list[int] = []
        self.cumulative: list[int] = [0]
        self.materialised = 0  # originals [o0, materialised) are appended to entries
        self.plain_from = 0  # entries from here on are originals in order
        self.last_user = -1  # position of the last real user message among the entries
        self.frozen_last_user = -1  # the same, inside the frozen part
        self.compacted = False
        self._frozen_index: dict[int, int] = {}  # entry → position, for the frozen part
        self.files = RecoveredFiles(self.index)

    def snapshot(self) -> Snapshot:
        """A copy of the held context that ``restore`` puts back exactly (nothing shared that either mutates)."""
        return (
            self.entries[:],
            self.cumulative[:],
            self.materialised,
            self.plain_from,
            self.last_user,
            self.frozen_last_user,
            self.compacted,
            dict(self._frozen_index),
            self.files.snapshot(),
        )

    def restore(self, state: Snapshot) -> None:
        (
            entries,
            cumulative,
            materialised,
            plain_from,
            last_user,
            frozen_last_user,
            compacted,
            frozen,
            files,
        ) = state
        self.entries, self.cumulative = entries[:], cumulative[:]
        self.materialised, self.plain_from, self.compacted = materialised, plain_from, compacted
        self.last_user, self.frozen_last_user = last_user, frozen_last_user
        self._frozen_index = dict(frozen)
        self.files.restore(files)

    def _cumulative_at(self, position: int) -> int:
        held = len(self.entries)
        if position <= held:
            return self.cumulative[position]
        original = self.index.original_cumulative
        return (
            self.cumulative[-1] + original[position - held + self.materialised] - original[self.materialised]
        )

    def _materialise(self, upto: int) -> None:
        start = self.materialised
        if start >= upto:
            return
        index, entries = self.index, self.entries
        shift = len(entries) - start
        entries.extend(range(start, upto))
        sums = accumulate(index.tokens[start:upto], initial=self.cumulative[-1])
        next(sums)
        self.cumulative.extend(sums)
        user = index.last_user_upto[upto]
        if user >= start:
            self.last_user = user + shift
        self.materialised = upto

    def _split(self, step: int, size: int, shift: int) -> int:
        """Where the tail starts: spans.effective_keep over the current context (SPEC §3)."""
        keep = self.keep
        if keep <= 0 or size == 0:
            return max(size - max(keep, 0), 0)
        o0 = self.plain_from - shift
        if self.keep_starts[step] >= o0:  # the tail lies among the originals in order: as in the original run
            return self.keep_starts[step] + shift
        index, entries = self.index, self.entries
        tool_ids = index.tool_ids
        held = len(entries)
        start = max(size - keep, 0)
        scanned = size
        while True:
            earliest = start
            for position in range(start, scanned):
                call_id = tool_ids[entries[position] if position < held else position - shift]
                if call_id is not None:
                    at = self._call_position(call_id, o0, shift)
                    if at is not None and at < earliest:
                        earliest = at
            scanned = start
            if earliest == start:
                return start
            start = earliest

    def _call_position(self, call_id: str, o0: int, shift: int) -> int | None:
        """Position of the first assistant in the context whose calls include ``call_id``."""
        frozen = self._frozen_index
        for site in self.index.call_sites.get(call_id, ()):
            if site >= o0:
                return site + shift
            at = frozen.get(site)
            if at is not None:
                return at
        return None

    def _list_tokens(self, start: int, end: int) -> int:
        """count() of the held context's positions [start, end), from the prefix sums (SPEC §5: 0 when empty)."""
        if end <= start:
            return 0
        return self.cumulative[end] - self.cumulative[start] + LIST_OVERHEAD

    def _replace(self, start: int, split: int, added: list[int]) -> None:
        """context = context[:start] + added + context[split:]; everything up to here becomes the frozen part."""
        self.files.sync(self.entries, self.materialised, self.plain_from, self.last_user)
        entries, cumulative, tokens = self.entries, self.cumulative, self.index.tokens
        positions, frozen_end = self._frozen_index, self.plain_from
        if start < frozen_end:
            for entry in entries[start:frozen_end]:
                del positions[entry]
        else:
            positions.update(zip(entries[frozen_end:start], range(frozen_end, start), strict=True))
        tail = entries[split:]
        positions.update(zip((*added, *tail), range(start, start + len(added) + len(tail)), strict=True))
        del entries[start:]
        del cumulative[start + 1 :]
        for entry in (*added, *tail):
            entries.append(entry)
            cumulative.append(cumulative[-1] + tokens[entry])
        self.compacted = True
        self.plain_from = len(entries)
        self.frozen_last_user = self.last_user
        self.files.rearranged(start)
