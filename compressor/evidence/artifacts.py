"""The values of an artifact ledger: its categories, one artifact with where it came from, and the ledger.

Invariant: an artifact is frozen and names its category by code; a ledger holds each (category, key) once,
grouped in ``CATEGORIES`` order and, within a category, by first mention.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

Category = Literal[
    "paths", "commands", "errors", "identifiers", "numbers", "tools", "constraints", "todos", "decisions"
]
#: Every category, in the order ledgers, scores and tables list them.
CATEGORIES: tuple[Category, ...] = (
    "paths",
    "commands",
    "errors",
    "identifiers",
    "numbers",
    "tools",
    "constraints",
    "todos",
    "decisions",
)
#: The evidence the offline backend keeps first; the rest is prose or bookkeeping.
EVIDENCE: tuple[Category, ...] = ("paths", "commands", "errors", "identifiers")
#: Categories matched as prose: case and whitespace folded, or paraphrased on one line.
PROSE: tuple[Category, ...] = ("constraints", "todos", "decisions")


@dataclass(frozen=True, slots=True, kw_only=True)
class Artifact:
    """One thing a compaction should keep: its category, its text as written, the key it is compared by,
    and where it came from (message indexes in the conversation the ledger was built on)."""

    category: Category
    text: str
    key: str
    index: int  # the message of its first mention
    last_index: int  # the message of its latest mention
    mentions: int = 1  # messages mentioning it (for tools: calls made)
    failures: int = 0  # tools only: calls whose result was an error

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "category": self.category,
            "text": self.text,
            "key": self.key,
            "index": self.index,
            "last_index": self.last_index,
            "mentions": self.mentions,
        }
        if self.category == "tools":
            out["failures"] = self.failures
        return out


@dataclass(frozen=True)
class Ledger:
    """The artifacts of the messages ``[start, end)`` of a conversation, by category."""

    start: int
    end: int
    items: tuple[Artifact, ...]

    def of(self, category: Category) -> tuple[Artifact, ...]:
        return tuple(item for item in self.items if item.category == category)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
        for item in self.items:
            counts[item.category] += 1
        return counts

    def __len__(self) -> int:
        return len(self.items)

    def to_dict(self) -> dict[str, Any]:
        return {
            "span": [self.start, self.end],
            "counts": self.counts(),
            "items": {category: [item.to_dict() for item in self.of(category)] for category in CATEGORIES},
        }

    @classmethod
    def of_items(cls, start: int, end: int, items: Iterable[Artifact]) -> Ledger:
        order = {category: number for number, category in enumerate(CATEGORIES)}
        # Stable: artifacts of one message keep the order they were found in.
        ranked = sorted(items, key=lambda item: (order[item.category], item.index))
        return cls(start=start, end=end, items=tuple(ranked))
