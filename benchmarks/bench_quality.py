"""Scoring a 5,000-message span: its artifact ledger and the retention of a summary, against one first analyze()
of the same run.

Invariant: both sides start from freshly parsed messages (nothing tokenised or cached); the summary scored is the
offline backend's own for the span, made before any timing starts.
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
GOAL = 1.0  # cheaper than one first analyze() of the same run; in seconds: well under one


def run(repeat: int = 3) -> dict[str, Any]:
    from benchmarks.generate import conversation_dicts
    from compressor.analysis import analyze
    from compressor.backends.offline import offline_summary
    from compressor.messages import Conversation
    from compressor.quality import build_ledger, score

    dicts = conversation_dicts(MESSAGES)
    fresh: Iterator[Conversation] = iter([Conversation.from_messages(dicts) for _ in range(2 * repeat)])
    sample = Conversation.from_messages(dicts)
    summary = offline_summary([*sample.system, *sample.messages])
    items: list[int] = []

    def first_analysis() -> None:
        analyze(next(fresh), context_max=CONTEXT_MAX)

    def ledger_and_score() -> None:
        conversation = next(fresh)
        ledger = build_ledger(conversation.messages)
        score(ledger, summary)
        items.append(len(ledger))

    return ratio_result(
        baseline=f"one analyze() of the same {MESSAGES:,}-message run, first time, tokenising included",
        baseline_seconds=best_of(first_analysis, repeat),
        seconds=best_of(ledger_and_score, repeat),
        goal=GOAL,
        messages=MESSAGES,
        artifacts=items[-1],
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    began = time.perf_counter()
    print(json.dumps(run(), indent=2), f"\n{time.perf_counter() - began:.1f} s in all")
