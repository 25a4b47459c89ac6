"""Scoring a ledger against a summary: each artifact kept (with how it matched), still in the kept messages, or
lost; counts per category and overall.

Invariant: ``kept + elsewhere + lost == total`` in every category; an artifact is "elsewhere" only when a kept
text was given and the summary lacks it; the overall figures add up the categories' counts (micro), and the
mean of the categories that have items is given beside them (macro).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..evidence.artifacts import CATEGORIES, Artifact, Category, Ledger
from ..evidence.matching import MatchKind, SummaryIndex, match, path_depths

Status = Literal["kept", "elsewhere", "lost"]


@dataclass(frozen=True, slots=True)
class ItemScore:
    """One artifact's fate: kept by the summary (``match`` says how), still in the kept messages, or lost."""

    artifact: Artifact
    status: Status
    match: MatchKind | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**self.artifact.to_dict(), "status": self.status, "match": self.match}


@dataclass(frozen=True, slots=True, kw_only=True)
class Tally:
    """Counts of one category (or of all): kept by the summary, of which exactly, elsewhere, lost."""

    total: int = 0
    kept: int = 0
    exact: int = 0
    elsewhere: int = 0

    @property
    def lost(self) -> int:
        return self.total - self.kept - self.elsewhere

    @property
    def ratio(self) -> float | None:
        """kept / total, or None when there is nothing to keep."""
        return self.kept / self.total if self.total else None

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            total=self.total + other.total,
            kept=self.kept + other.kept,
            exact=self.exact + other.exact,
            elsewhere=self.elsewhere + other.elsewhere,
        )

    def to_dict(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "kept": self.kept,
            "total": self.total,
            "exact": self.exact,
            "elsewhere": self.elsewhere,
            "lost": self.lost,
            "ratio": round(ratio, 4) if ratio is not None else None,
        }


def macro(tallies: Mapping[Category, Tally]) -> float | None:
    """The mean of the categories' ratios, over the categories that have items."""
    ratios = [r for r in (t.ratio for t in tallies.values()) if r is not None]
    return sum(ratios) / len(ratios) if ratios else None


@dataclass(frozen=True)
class Retention:
    """A ledger scored against one summary."""

    items: tuple[ItemScore, ...]

    @property
    def by_category(self) -> dict[Category, Tally]:
        counts = {category: [0, 0, 0, 0] for category in CATEGORIES}
        for item in self.items:
            row = counts[item.artifact.category]
            row[0] += 1
            row[1] += item.status == "kept"
            row[2] += item.match == "exact"
            row[3] += item.status == "elsewhere"
        return {
            category: Tally(total=t, kept=k, exact=e, elsewhere=w)
            for category, (t, k, e, w) in counts.items()
        }

    @property
    def overall(self) -> Tally:
        total = Tally()
        for tally in self.by_category.values():
            total = total + tally
        return total

    def of(self, category: Category, status: Status | None = None) -> tuple[ItemScore, ...]:
        return tuple(
            item
            for item in self.items
            if item.artifact.category == category and (status is None or item.status == status)
        )

    def lost(self) -> dict[Category, tuple[Artifact, ...]]:
        return {category: tuple(i.artifact for i in self.of(category, "lost")) for category in CATEGORIES}

    def to_dict(self) -> dict[str, Any]:
        by_category = self.by_category
        overall = self.overall.to_dict()
        mean = macro(by_category)
        overall["macro"] = round(mean, 4) if mean is not None else None
        return {
            "retention": {category: tally.to_dict() for category, tally in by_category.items()},
            "lost": {
                category: [item.to_dict() for item in self.of(category, "lost")] for category in CATEGORIES
            },
            "overall": overall,
        }


def score(ledger: Ledger, summary: str, *, kept_text: str = "") -> Retention:
    """Each artifact of ``ledger`` matched against ``summary``; ``kept_text`` (the messages the compaction kept)
    turns a miss into "elsewhere" when the artifact is still there."""
    index = SummaryIndex(summary)
    elsewhere = SummaryIndex(kept_text) if kept_text.strip() else None
    depths = path_depths(ledger.items)
    scored: list[ItemScore] = []
    for artifact in ledger.items:
        found = match(artifact, index, depths)
        if found is not None:
            scored.append(ItemScore(artifact, "kept", found))
        elif elsewhere is not None and match(artifact, elsewhere, depths) is not None:
            scored.append(ItemScore(artifact, "elsewhere"))
        else:
            scored.append(ItemScore(artifact, "lost"))
    return Retention(items=tuple(scored))
