"""Fleets for the fleet tests: small generated runs written as files, a corrupt one, and the bundled samples.

Invariant: the same call always writes the same bytes (seeded generator), so a test can change one file and
know what every other file holds.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.generate import conversation_dicts
from compressor.fleet import FleetGrid
from tests.conftest import REPO, TRANSCRIPTS

TAU_BENCH_5 = REPO / "dashboard" / "samples" / "openai-chat-tau-bench-airline-5.json"
TAU_BENCH = TRANSCRIPTS / "openai-chat-tau-bench-airline.json"
#: Small enough that the longer generated runs compact several times and the shortest never do.
CONTEXT_MAX = 6_000
GRID = FleetGrid(ratios=(0.5, 0.7, 0.9), keeps=(0, 3), min_targets=(0.1,), context_max=CONTEXT_MAX)


def write_run(path: Path, messages: int, seed: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversation_dicts(messages, seed=seed)), encoding="utf-8")
    return path


def write_fleet(folder: Path, count: int = 6) -> list[Path]:
    """``count`` generated runs of growing length in ``folder`` and one subfolder."""
    return [
        write_run(
            folder / ("nested" if number % 2 else "") / f"run-{number:03d}.json", 12 + 9 * number, number
        )
        for number in range(count)
    ]
