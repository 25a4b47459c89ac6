"""What a compaction kept: the artifact ledger of the messages it replaced, retention per category and overall,
scored wherever compactions appear (a span, the live result, dumps, an agent's recorded compactions, a replay),
the first memory block's decay, and optional probe grading through a model.

Invariant: everything here is deterministic and offline except probe grading, which calls only the Backend it
is given; results are frozen values with ``to_dict()`` that name categories, statuses and reasons by code.
"""

from ..evidence.artifacts import CATEGORIES, EVIDENCE, PROSE, Artifact, Category, Ledger
from ..evidence.ledger import build_ledger
from ..evidence.matching import MATCH_KINDS, MatchKind, SummaryIndex, match
from .compactions import (
    NO_TEXT,
    Decay,
    DecayStep,
    ScoredCompaction,
    ScoreReport,
    decay,
    score_result,
    score_span,
)
from .probes import (
    DIMENSIONS,
    PROBE_KINDS,
    Probe,
    ProbeCost,
    ProbeGrade,
    ProbeReport,
    estimate_probe_cost,
    grade_probes,
    make_probes,
)
from .replayed import LIVE, MISMATCH, REFUSED, SIZED, score_replay
from .resummarised import LIVE_FAILED, offline_block, score_live, score_offline
from .retention import ItemScore, Retention, Status, Tally, score
from .sites import (
    Site,
    dump_site,
    dump_sites,
    recorded_sites,
    recorded_spans,
    report_of,
    score_dump,
    score_dumps,
    score_recorded,
    score_site,
)

__all__ = [
    "CATEGORIES",
    "DIMENSIONS",
    "EVIDENCE",
    "LIVE",
    "LIVE_FAILED",
    "MATCH_KINDS",
    "MISMATCH",
    "NO_TEXT",
    "PROBE_KINDS",
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
    "Probe",
    "ProbeCost",
    "ProbeGrade",
    "ProbeReport",
    "Retention",
    "ScoreReport",
    "ScoredCompaction",
    "Site",
    "Status",
    "SummaryIndex",
    "Tally",
    "build_ledger",
    "decay",
    "dump_site",
    "dump_sites",
    "estimate_probe_cost",
    "grade_probes",
    "make_probes",
    "match",
    "offline_block",
    "recorded_sites",
    "recorded_spans",
    "report_of",
    "score",
    "score_dump",
    "score_dumps",
    "score_live",
    "score_offline",
    "score_recorded",
    "score_replay",
    "score_result",
    "score_site",
    "score_span",
]
