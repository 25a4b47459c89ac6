"""Sweeping 100 settings of a 5,000-message run against one first analyze() of the same run.

Invariant: both sides start from a freshly parsed conversation (nothing tokenised or cached), so the sweep pays
for its own tokenising exactly as the baseline does; parsing the JSON is outside both measures.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.timing import best_of, ratio_result

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = 5_000
CONTEXT_MAX = 200_000
RATIOS = tuple(round(0.5 + 0.05 * n, 2) for n in range(10))  # 0.5 … 0.95
KEEPS = tuple(range(10))  # 0 … 9
SUMMARY = "ratio:0.1"
GOAL = 3.0


def run(repeat: int = 3) -> dict[str, Any]:
    from benchmarks.generate import conversation_dicts
    from compressor.analysis import analyze
    from compressor.messages import Conversation
    from compressor.replay import sweep

    dicts = conversation_dicts(MESSAGES)
    fresh: Iterator[Conversation] = iter([Conversation.from_messages(dicts) for _ in range(2 * repeat)])

    def first_analysis() -> None:
        analyze(next(fresh), context_max=CONTEXT_MAX)

    def first_sweep() -> None:
        swept = sweep(next(fresh), ratios=RATIOS, keeps=KEEPS, context_max=CONTEXT_MAX, summary=SUMMARY)
        if len(swept.outcomes) != len(RATIOS) * len(KEEPS):
            raise RuntimeError(f"the sweep returned {len(swept.outcomes)} settings")

    return ratio_result(
        baseline=f"one analyze() of the same {MESSAGES:,}-message run, first time, tokenising included",
        baseline_seconds=best_of(first_analysis, repeat),
        seconds=best_of(first_sweep, repeat),
        goal=GOAL,
        settings=len(RATIOS) * len(KEEPS),
        summary=SUMMARY,
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    began = time.perf_counter()
    print(json.dumps(run(), indent=2), f"\n{time.perf_counter() - began:.1f} s in all")
