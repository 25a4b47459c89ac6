"""What a compaction kept: the artifact ledger of the messages it replaced, retention per category and overall,
scored wherever compactions appear (a span, the live result, dumps, an agent's recorded compactions, a replay),
the first memory block's decay, and optional probe grading through a model.

Invariant: everything here is deterministic and offline except probe grading, which calls only the Backend it
is given; results are frozen values with ``to_dict()`` that name categories, statuses and reasons by code.
"""

from .artifacts import CATEGORIES, EVIDENCE, PROSE, Artifact, Category, Ledger
from .compactions import (
    NO_TEXT,
    Decay,
    DecayStep,
    ScoredCompaction,
    ScoreReport,
    decay,
    recorded_spans,
    score_recorded,
    score_result,
    score_span,
)
from .dumped import score_dump, score_dumps
from .ledger import build_ledger
from .matching import MATCH_KINDS, MatchKind, SummaryIndex, match
from .replayed import LIVE, MISMATCH, REFUSED, SIZED, score_replay
from .retention import ItemScore, Retention, Status, Tally, score

__all__ = [
    "CATEGORIES",
    "EVIDENCE",
    "LIVE",
    "MATCH_KINDS",
    "MISMATCH",
    "NO_TEXT",
    "PROSE",
    "REFUSED",
    "SIZED",
    "Artifact",
    "Category",
    "Decay",
    "DecayStep",
    "ItemScore",
    "Ledger",
    "MatchKind",
    "Retention",
    "ScoreReport",
    "ScoredCompaction",
    "Status",
    "SummaryIndex",
    "Tally",
    "build_ledger",
    "decay",
    "match",
    "recorded_spans",
    "score",
    "score_dump",
    "score_dumps",
    "score_recorded",
    "score_replay",
    "score_result",
    "score_span",
]
