"""Timing helpers shared by the benchmarks: best-of-n wall time and the common result shape.

Invariant: every benchmark reports a ratio against a baseline measured in the same run, never a bare time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(function: Callable[[], Any], repeat: int = 5) -> float:
    """The fastest of ``repeat`` runs, in seconds: the least disturbed by other load on the machine."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def ratio_result(
    *, baseline: str, baseline_seconds: float, seconds: float, goal: float, **extra: Any
) -> dict[str, Any]:
    """The result every benchmark returns: measured / baseline against an upper goal."""
    ratio = seconds / baseline_seconds
    return {
        "baseline": baseline,
        "baseline_seconds": baseline_seconds,
        "seconds": seconds,
        "ratio": ratio,
        "goal": f"<= {goal:g}",
        "met": ratio <= goal,
        **extra,
    }
