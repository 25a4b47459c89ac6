"""What a compaction did to the context, part by part: prefix · compressed span · tail → prefix · memory ·
reinjection · tail, as the compactor (``CompactionResult``) or the replay (``CompactionEvent``) counted it.

Invariant: the parts come from the compaction's own counts; nothing is counted again here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

Part = Literal["prefix", "compressed", "memory", "reinjection", "tail"]


class CountedCompaction(Protocol):
    @property
    def prefix_tokens(self) -> int: ...
    @property
    def compress_tokens(self) -> int: ...
    @property
    def memory_tokens(self) -> int: ...
    @property
    def reinjection_tokens(self) -> int: ...
    @property
    def tail_tokens(self) -> int: ...


@dataclass(frozen=True, kw_only=True)
class BeforeAfter:
    """The parts of the context before and after one compaction, in drawing order (the tail last in both)."""

    before: tuple[tuple[Part, int], ...]
    after: tuple[tuple[Part, int], ...]

    @classmethod
    def of(cls, compaction: CountedCompaction) -> BeforeAfter:
        # The zero memory and reinjection parts before the tail keep the order of the parts the same in both bars.
        return cls(
            before=(
                ("prefix", compaction.prefix_tokens),
                ("compressed", compaction.compress_tokens),
                ("memory", 0),
                ("reinjection", 0),
                ("tail", compaction.tail_tokens),
            ),
            after=(
                ("prefix", compaction.prefix_tokens),
                ("memory", compaction.memory_tokens),
                ("reinjection", compaction.reinjection_tokens),
                ("tail", compaction.tail_tokens),
            ),
        )
