"""The quality package's face: its public names, pinned, and importing it in either order with the backends
(the offline backend reads the ledger; replay scoring and probes call backends) works in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

import compressor.quality as quality
from tests.conftest import REPO

PUBLIC = {
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
}


def test_the_public_names_are_pinned() -> None:
    assert set(quality.__all__) == PUBLIC
    assert all(hasattr(quality, name) for name in quality.__all__)


@pytest.mark.parametrize(
    "first",
    [
        "compressor.quality",
        "compressor.backends",
        "compressor.backends.offline",
        "compressor.quality.probes",
        "compressor.quality.replayed",
        "compressor",
    ],
)
def test_any_import_order_works(first: str) -> None:
    code = f"import {first}; import compressor.quality, compressor.backends; print(compressor.quality.score_replay)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
