"""The tables of what compactions kept: per category, the lost items with the message each came from, one row
per dump of a folder, one row per recorded compaction of a run.

Invariant: pure — every column holds a library number or words made by ``i18n.quality`` in the given language.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from compressor.quality import CATEGORIES, ScoredCompaction, ScoreReport

from .i18n.catalog import percent
from .i18n.quality import badge, category_name, kept_items, match_name, status_name


def category_frame(scored: ScoredCompaction, language: str) -> pd.DataFrame:
    """One row per category that had anything to keep: kept, still elsewhere, lost, of how many."""
    rows = []
    if scored.retention is not None:
        for category, tally in scored.retention.by_category.items():
            if tally.total:
                rows.append(
                    {
                        "category": category_name(category, language),
                        "kept": tally.kept,
                        "elsewhere": tally.elsewhere,
                        "lost": tally.lost,
                        "total": tally.total,
                        "share": percent(tally.ratio or 0.0),
                    }
                )
    return pd.DataFrame(rows, columns=["category", "kept", "elsewhere", "lost", "total", "share"])


def lost_frame(scored: ScoredCompaction, language: str) -> pd.DataFrame:
    """Every lost item, category by category: its words, the message it came from, how often it was named."""
    rows = []
    if scored.retention is not None:
        for category, items in scored.retention.lost().items():
            for item in items:
                rows.append(
                    {
                        "category": category_name(category, language),
                        "item": item.text,
                        "message": item.index,
                        "mentions": item.mentions,
                    }
                )
    return pd.DataFrame(rows, columns=["category", "item", "message", "mentions"])


def items_frame(scored: ScoredCompaction, language: str) -> pd.DataFrame:
    """Every item of the ledger with its fate in words: kept (and how it matched), still elsewhere, or lost."""
    rows = []
    if scored.retention is not None:
        for item in scored.retention.items:
            rows.append(
                {
                    "category": category_name(item.artifact.category, language),
                    "item": item.artifact.text,
                    "status": status_name(item.status, language),
                    "match": match_name(item.match, language),
                    "message": item.artifact.index,
                }
            )
    return pd.DataFrame(rows, columns=["category", "item", "status", "match", "message"])


def lost_count(scored: ScoredCompaction) -> int:
    return scored.retention.overall.lost if scored.retention is not None else 0


def dumps_frame(names: Sequence[str], scores: Sequence[ScoredCompaction], language: str) -> pd.DataFrame:
    """One row per dump: its name, the badge, how many items it lost, and the lost items' words."""
    rows = []
    for name, scored in zip(names, scores, strict=True):
        lost = (
            []
            if scored.retention is None
            else [a.text for c in CATEGORIES for a in scored.retention.lost()[c]]
        )
        rows.append(
            {
                "dump": name,
                "retention": badge(scored, language),
                "lost": lost_count(scored),
                "item": " · ".join(lost),
            }
        )
    return pd.DataFrame(rows, columns=["dump", "retention", "lost", "item"])


def recorded_frame(report: ScoreReport, language: str) -> pd.DataFrame:
    """One row per recorded compaction: where its summary sits, who wrote it, its sizes and what it kept."""
    rows = [
        {
            "number": scored.number + 1,
            "summary_at": scored.index,
            "origin": scored.origin,
            "span_tokens": scored.span_tokens,
            "summary_tokens": scored.summary_tokens,
            "retention": badge(scored, language),
            "kept": kept_items(scored, language),
        }
        for scored in report.compactions
    ]
    columns = ["number", "summary_at", "origin", "span_tokens", "summary_tokens", "retention", "kept"]
    return pd.DataFrame(rows, columns=columns)
