"""The base of the lean read-only sequences a run is held in (parsed values, packed messages).

Invariant: such a sequence equals any other sequence (a list, a tuple, another lean one) holding equal items in
the same order, as a list would; like a list, it is not hashable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class LeanSequence(Sequence[Any]):
    """A read-only sequence compared item by item with any other sequence (strings and bytes are not one)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]
