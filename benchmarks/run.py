"""``make bench``: each figure is a ratio against a baseline measured in the same run (machines are noisy).

Writes benchmarks/results.json and prints a table. Run: ``.venv/bin/python benchmarks/run.py [name ...]``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.generate import conversation_dicts  # noqa: E402
from benchmarks.timing import best_of  # noqa: E402

Result = dict[str, Any]
BENCHMARKS: dict[str, Callable[[], Result]] = {}


def benchmark(name: str) -> Callable[[Callable[[], Result]], Callable[[], Result]]:
    def register(function: Callable[[], Result]) -> Callable[[], Result]:
        BENCHMARKS[name] = function
        return function

    return register


@benchmark("tokenising")
def tokenising() -> Result:
    """First analysis of a fresh 10,000-message conversation vs raw tiktoken on the same texts."""
    from compressor.analysis import analyze
    from compressor.messages import Conversation
    from compressor.tokens import get_counter, load_encoding

    dicts = conversation_dicts(10_000)
    encoding = load_encoding("cl100k_base")
    counter = get_counter("cl100k_base")
    sample = Conversation.from_messages(dicts)
    texts = [f"<|start|>{m.role}\n{m.text}<|end|>" for m in sample.messages]
    texts += [counter.tool_calls_json(m) for m in sample.messages if m.tool_calls]

    def raw() -> None:
        for text in texts:
            encoding.encode(text, disallowed_special=())

    fresh = [Conversation.from_messages(dicts) for _ in range(5)]  # parsing is not part of the measure
    pending = iter(fresh)

    def first_analysis() -> None:
        analyze(next(pending), context_max=200_000)

    baseline = best_of(raw)
    measured = best_of(first_analysis)
    return {
        "baseline": "raw tiktoken encode of the same texts",
        "baseline_seconds": baseline,
        "seconds": measured,
        "ratio": measured / baseline,
        "goal": "<= 1.3",
        "met": measured / baseline <= 1.3,
    }


@benchmark("reanalysis")
def reanalysis() -> Result:
    """Re-analysis after a settings change on the same 10,000-message conversation (no re-tokenising)."""
    from compressor.analysis import analyze
    from compressor.config import CurrentRoundCompressorConfig
    from compressor.messages import Conversation
    from compressor.tokens import load_encoding

    dicts = conversation_dicts(10_000)
    conversation = Conversation.from_messages(dicts)
    encoding = load_encoding("cl100k_base")
    texts = [f"<|start|>{m.role}\n{m.text}<|end|>" for m in conversation.messages]
    baseline = best_of(lambda: [encoding.encode(t, disallowed_special=()) for t in texts], repeat=3)
    analyze(conversation, context_max=200_000)  # warm
    settings = iter(
        CurrentRoundCompressorConfig(trigger_context_ratio=r, keep_recent_messages=k)
        for r, k in [(0.5, 2), (0.6, 4), (0.7, 6), (0.75, 8), (0.9, 10)] * 2
    )
    measured = best_of(lambda: analyze(conversation, next(settings), context_max=200_000).to_dict(), repeat=5)
    ratio = measured / baseline
    return {
        "baseline": "raw tiktoken encode of the same texts",
        "baseline_seconds": baseline,
        "seconds": measured,
        "ratio": ratio,
        "goal": "<= 0.05 or <= 20 ms",
        "met": ratio <= 0.05 or measured <= 0.020,
    }


@benchmark("dump_index")
def dump_index() -> Result:
    """Indexing 2,000 generated dumps: a warm re-index against a cold one (see bench_dumps.py)."""
    from benchmarks.bench_dumps import run as run_dump_index

    return run_dump_index()


@benchmark("inspect_memory")
def inspect_memory() -> Result:
    """Peak memory of inspecting a 50,000-message conversation, per byte of its file (see bench_memory.py)."""
    from benchmarks.bench_memory import run as run_inspect_memory

    return run_inspect_memory()


@benchmark("sweep")
def sweep_settings() -> Result:
    """100 settings of a 5,000-message run against one first analyze() of it (see bench_sweep.py)."""
    from benchmarks.bench_sweep import run as run_sweep

    return run_sweep()


@benchmark("costs")
def costs_and_baselines() -> Result:
    """The cost ledger, loop flags and both baselines on top of that 100-setting sweep (see bench_costs.py)."""
    from benchmarks.bench_costs import run as run_costs

    return run_costs()


@benchmark("fleet_build")
def fleet_build() -> Result:
    """A cold catalog build of 1,000 generated runs (~50 MB) vs raw tiktoken / cores (see bench_fleet.py)."""
    from benchmarks.bench_fleet import run_build_and_sweep

    return run_build_and_sweep()[0]


@benchmark("fleet_sweep")
def fleet_sweep() -> Result:
    """A new 100-setting grid swept over that catalog vs the cold build (see bench_fleet.py)."""
    from benchmarks.bench_fleet import run_build_and_sweep

    return run_build_and_sweep()[1]


@benchmark("fleet_memory")
def fleet_memory() -> Result:
    """Peak memory of building and sweeping 1,000 and 4,000 runs (see bench_fleet.py)."""
    from benchmarks.bench_fleet import run_memory

    return run_memory()


@benchmark("dashboard_rerun")
def dashboard_rerun() -> Result:
    """A Span & trigger page rerun after a slider change on a 5,000-message run (see bench_dashboard.py)."""
    from benchmarks.bench_dashboard import run as run_dashboard_rerun

    return run_dashboard_rerun()


@benchmark("perceived_demo")
def perceived_demo() -> Result:
    """Chromium: a trigger-slider key press to its new decision on the demo run, against an empty rerun."""
    from benchmarks.bench_browser import run as run_perceived

    return run_perceived("demo")


@benchmark("perceived_5000")
def perceived_5000() -> Result:
    """The same on a 5,000-message run (measured in the same browser session; see bench_browser.py)."""
    from benchmarks.bench_browser import run as run_perceived

    return run_perceived("5000")


@benchmark("quality_score")
def quality_score() -> Result:
    """The artifact ledger and retention of a 5,000-message span against one first analyze() (see bench_quality.py)."""
    from benchmarks.bench_quality import run as run_quality_score

    return run_quality_score()


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    results: dict[str, Result] = {}
    print(f"{'benchmark':<22} {'ratio':>8} {'goal':>20} {'met':>5} {'seconds':>10} {'baseline s':>11}")
    for name in names:
        result = BENCHMARKS[name]()
        results[name] = result
        print(
            f"{name:<22} {result['ratio']:>8.3f} {result['goal']:>20} {'yes' if result['met'] else 'NO':>5} "
            f"{result['seconds']:>10.4f} {result['baseline_seconds']:>11.4f}"
        )
    out = ROOT / "benchmarks" / "results.json"
    previous = json.loads(out.read_text()) if out.exists() else {}
    previous.update(results)
    fd, temp = tempfile.mkstemp(dir=out.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        json.dump(previous, handle, indent=2)
    os.replace(temp, out)
    print(f"written to {out.relative_to(ROOT)}")
    return 0 if all(r["met"] for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
