"""The evidence in a stretch of messages: file paths, commands, errors, identifiers, numbers, tools, rules, to-dos
and decisions — recognised, collected into a ledger, and matched against a summary's text.

Invariant: pure text analysis, below both the offline summariser (which keeps the evidence) and ``quality`` (which
scores what a compaction kept), so the two agree on what a path or a command is.
"""

from .artifacts import CATEGORIES, EVIDENCE, PROSE, Artifact, Category, Ledger
from .ledger import build_ledger
from .matching import MATCH_KINDS, MatchKind, SummaryIndex, match

__all__ = [
    "CATEGORIES",
    "EVIDENCE",
    "MATCH_KINDS",
    "PROSE",
    "Artifact",
    "Category",
    "Ledger",
    "MatchKind",
    "SummaryIndex",
    "build_ledger",
    "match",
]
