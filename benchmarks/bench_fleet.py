"""A fleet of generated runs (1,000 files, about 50 MB): the cold catalog build against raw tiktoken on the same
texts divided by the cores used, a warm sweep of a new 100-setting grid against the cold build, and the peak
memory of building and sweeping 1,000 and 4,000 runs.

Invariant: the fleet is the same bytes every time (seeded), written to a temporary folder; the raw baseline
encodes exactly the texts the counter prices (``TokenCounter.pieces`` of every message) in one process.
Run: ``.venv/bin/python benchmarks/bench_fleet.py [build|sweep|memory]`` or through ``benchmarks/run.py``;
``parts`` (diagnostics, no goal) prints the CPU seconds of each part of the build and of the warm sweep, ``pool``
(diagnostics) the wall time of both with the process pool and the CPU seconds of the parent and of the workers.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
import zlib
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNS = 1_000
#: Small enough that a realistic share of the runs compacts (the long tail), as 16k-window models would.
CONTEXT_MAX = 16_000
#: The setting the cold build sweeps (the catalog build proper: read, count, one setting).
BUILD_GRID = {"ratios": (0.8,), "keeps": (0,), "min_targets": (0.1,)}
#: A grid the catalog has never seen: 10 ratios x 10 keeps.
NEW_GRID = {
    "ratios": tuple(round(0.5 + 0.05 * n, 2) for n in range(10)),
    "keeps": tuple(range(1, 11)),
    "min_targets": (0.15,),
}
BUILD_GOAL, SWEEP_GOAL, MEMORY_GOAL_MB = 1.3, 0.05, 1024
MEMORY_RUNS = (1_000, 4_000)


def write_fleet(folder: Path, runs: int, seed: int = 11) -> int:
    """``runs`` generated runs of lognormal length (about 50 KB each), one file each; returns the bytes written."""
    from benchmarks.generate import conversation_dicts

    rng = random.Random(seed)
    total = 0
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(runs):
        text = json.dumps(conversation_dicts(max(int(rng.lognormvariate(3.7, 0.6)), 6), seed=number))
        (folder / f"run-{number:05d}.json").write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def raw_seconds(folder: Path) -> float:
    """One process encoding every text the counter prices, nothing else (loading is outside the measure)."""
    from compressor.formats import load_conversations
    from compressor.tokens import get_counter, load_encoding

    counter, encoding = get_counter("cl100k_base"), load_encoding("cl100k_base")
    texts: list[str] = []
    for path in sorted(folder.iterdir()):
        for conversation in load_conversations(path):
            for message in [*conversation.system, *conversation.messages]:
                texts.extend(counter.pieces(message)[0])
    began = time.perf_counter()
    for text in texts:
        encoding.encode(text, disallowed_special=())
    return time.perf_counter() - began


def grid(**cells: Any) -> Any:
    from compressor.fleet import FleetGrid

    return FleetGrid(summary="ratio:0.1", context_max=CONTEXT_MAX, **cells)


def cold_and_warm(folder: Path, catalog_dir: Path) -> dict[str, Any]:
    """The cold build (fresh catalog) and a warm sweep of a new grid over it, in this process's executor."""
    from compressor.fleet import Catalog, build_catalog, discover, make_executor, run_fleet

    catalog = Catalog(catalog_dir)
    executor = make_executor()
    try:
        inputs, _ = discover([folder])
        began = time.perf_counter()
        counts = build_catalog(catalog, inputs, grid(**BUILD_GRID), executor)
        cold = time.perf_counter() - began
        began = time.perf_counter()
        fleet = run_fleet([folder], grid(**NEW_GRID), catalog, executor)
        warm = time.perf_counter() - began
    finally:
        executor.close()
    compacting = max(row.compacting_share for row in fleet.settings)
    return {
        "cold": cold,
        "warm": warm,
        "workers": executor.workers,
        "processed": counts.processed,
        "swept": fleet.counts.swept,
        "runs": len(fleet.runs),
        "compacting_share_max": round(compacting, 3),
    }


def peak_mb(runs: int) -> dict[str, float]:
    """Peak RSS of a fresh interpreter building and sweeping ``runs`` runs: itself, and its largest worker."""
    code = (
        "import json, resource, sys, tempfile; from pathlib import Path\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from benchmarks.bench_fleet import cold_and_warm, write_fleet\n"
        "with tempfile.TemporaryDirectory() as d:\n"
        f"    write_fleet(Path(d) / 'runs', {runs})\n"
        "    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "    cold_and_warm(Path(d) / 'runs', Path(d) / 'catalog')\n"
        "    print(json.dumps({'self': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,\n"
        "                      'worker': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, 'base': base}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    peaks = json.loads(done.stdout.strip().splitlines()[-1])
    return {name: round(value / 1024, 1) for name, value in peaks.items()}  # ru_maxrss is in KiB on Linux


@cache
def run_build_and_sweep() -> tuple[dict[str, Any], dict[str, Any]]:
    """Measured once per process: ``run.py`` asks for the build and the sweep as two results."""
    from benchmarks.timing import ratio_result

    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp) / "runs"
        size = write_fleet(folder, RUNS)
        raw = raw_seconds(folder)
        measured = cold_and_warm(folder, Path(temp) / "catalog")
    cores = measured["workers"]
    build = ratio_result(
        baseline=f"raw single-process tiktoken of the same texts / {cores} cores",
        baseline_seconds=raw / cores,
        seconds=measured["cold"],
        goal=BUILD_GOAL,
        runs=RUNS,
        fleet_mb=round(size / 1e6, 1),
        raw_seconds=round(raw, 3),
        cores=cores,
    )
    sweep = ratio_result(
        baseline="the cold build of the same fleet",
        baseline_seconds=measured["cold"],
        seconds=measured["warm"],
        goal=SWEEP_GOAL,
        settings=len(NEW_GRID["ratios"]) * len(NEW_GRID["keeps"]),
        runs_played=measured["swept"],
        compacting_share_max=measured["compacting_share_max"],
        context_max=CONTEXT_MAX,
    )
    return build, sweep


def run_memory() -> dict[str, Any]:
    peaks = {runs: peak_mb(runs) for runs in MEMORY_RUNS}
    # parent + every worker at its own peak: an upper bound of the process tree's peak
    from compressor.fleet.executors import cores

    bound = {runs: peak["self"] + cores() * peak["worker"] for runs, peak in peaks.items()}
    worst = max(bound.values())
    return {
        "baseline": f"{MEMORY_GOAL_MB} MB",
        "baseline_seconds": float(MEMORY_GOAL_MB),
        "seconds": worst,
        "ratio": worst / MEMORY_GOAL_MB,
        "goal": "<= 1",
        "met": worst <= MEMORY_GOAL_MB,
        "measured": "peak RSS MB: parent + cores x largest worker, building and sweeping a fresh fleet",
        **{f"runs_{runs}_mb": {**peaks[runs], "bound": round(bound[runs], 1)} for runs in MEMORY_RUNS},
    }


def where_time_goes(runs: int = RUNS) -> dict[str, Any]:
    """Diagnostics, not a measure with a goal: the CPU seconds of each part of the cold build and of the warm
    sweep, in this process (inline, the same library calls the workers make), for an account of the time."""
    from compressor.analysis import analyze, run_model_of
    from compressor.fleet import (
        Catalog,
        FleetGrid,
        build_catalog,
        discover,
        make_executor,
        plays,
        sweeps,
        work,
    )
    from compressor.fleet.rows import message_lines, outcome_lines
    from compressor.formats import load_conversations
    from compressor.replay import resolve_price, sweep
    from compressor.replay.index import run_index
    from compressor.tokens import get_counter, profile
    from compressor.windows import resolve_context_max

    clock = time.process_time
    build: dict[str, float] = dict.fromkeys(("hash", "load", "count", "analyze", "play", "rows", "kept"), 0.0)
    warm: dict[str, float] = dict.fromkeys(("rebuild", "index", "rounds", "replay", "bills", "rows"), 0.0)
    cold = grid(**BUILD_GRID)
    counter = get_counter(cold.counter)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp) / "runs"
        write_fleet(folder, runs)
        for path in sorted(folder.iterdir()):
            began = clock()
            work.file_hash(str(path))
            build["hash"] += clock() - began
            began = clock()
            conversations = load_conversations(path)
            build["load"] += clock() - began
            for conversation in conversations:
                capacity = resolve_context_max(
                    cold.context_max, cold.model, run_model=run_model_of(conversation)
                )
                began = clock()
                profile(conversation, counter)
                build["count"] += clock() - began
                began = clock()
                analyze(conversation, context_max=capacity.tokens, counter=counter)
                build["analyze"] += clock() - began
                began = clock()
                plays.play(conversation, cold, capacity.tokens, cold.settings, template=True)
                build["play"] += clock() - began
                began = clock()
                message_lines(conversation, "run", cold.counter)
                build["rows"] += clock() - began
                began = clock()
                zlib.compress(work.kept_json(conversation), work.KEPT_LEVEL)
                build["kept"] += clock() - began
        catalog, executor = Catalog(Path(temp) / "catalog"), make_executor(jobs=1)
        inputs, _ = discover([folder])
        began = clock()
        build_catalog(catalog, inputs, cold, executor)
        build_total = clock() - began
        new: FleetGrid = grid(**NEW_GRID)
        rows, _ = sweeps.fleet_runs(catalog, [entry.path for entry in inputs], new)
        collected = sweeps.Collected(rows, new)
        sweeps._from_catalog(catalog, collected)
        sweeps._fill_untouched(collected)
        todo = [run for run in range(len(rows)) if collected.missing(run)]
        played = 0
        for task in sweeps._sweep_tasks(catalog, collected, todo):
            began = clock()
            conversation = work.rebuild(task.kept, new.counter, task.counts)
            warm["rebuild"] += clock() - began
            began = clock()
            index = run_index(conversation, counter)
            warm["index"] += clock() - began
            began = clock()
            index.original_rounds()
            warm["rounds"] += clock() - began
            settings = task.settings
            began = clock()
            swept = sweep(
                conversation,
                ratios=sorted({s[0] for s in settings}),
                keeps=sorted({s[1] for s in settings}),
                min_targets=sorted({s[2] for s in settings}),
                context_max=task.context_max,
                counter=new.counter,
                summary=new.summary,
            )
            warm["replay"] += clock() - began
            played += len(swept.outcomes)
            began = clock()
            price = resolve_price(conversation, price_model=new.price_model, model=new.model).price
            outcomes, bills = plays.billed_outcomes(swept, settings, price)
            warm["bills"] += clock() - began
            began = clock()
            outcome_lines(task.run_id, new.play_key(task.context_max), settings, outcomes, bills)
            warm["rows"] += clock() - began
        began = clock()
        sweeps.run_fleet([folder], new, catalog, executor)
        warm_total = clock() - began
    return {
        "measured": "CPU seconds in one process (inline), per part; the totals are build_catalog and run_fleet",
        "runs": runs,
        "build": {**{k: round(v, 3) for k, v in build.items()}, "total": round(build_total, 3)},
        "warm_sweep": {
            **{k: round(v, 3) for k, v in warm.items()},
            "runs_swept": len(todo),
            "settings_played": played,
            "total": round(warm_total, 3),
        },
    }


def where_the_cores_go(runs: int = RUNS) -> dict[str, Any]:
    """Diagnostics, not a measure with a goal: the cold build and the warm sweep with the process pool (an executor
    each), their wall time and the CPU seconds of this process (catalog writes, results, figures: on the cores the
    workers use) and of the workers. On a shared machine the CPU seconds vary less than the wall time."""
    import resource

    from compressor.fleet import Catalog, build_catalog, discover, make_executor, run_fleet
    from compressor.tokens import get_counter

    def cpu(who: int) -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    out: dict[str, Any] = {"measured": "wall and CPU seconds, this process and its workers (reaped at close)"}
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp) / "runs"
        write_fleet(folder, runs)
        get_counter(grid(**BUILD_GRID).counter)  # loaded before the pool forks, as for the build measure
        catalog = Catalog(Path(temp) / "catalog")
        for phase, cells in (("cold_build", BUILD_GRID), ("warm_sweep", NEW_GRID)):
            executor = make_executor()
            inputs, _ = discover([folder])
            own, workers = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
            began = time.perf_counter()
            try:
                if phase == "cold_build":
                    build_catalog(catalog, inputs, grid(**cells), executor)
                else:
                    run_fleet([folder], grid(**cells), catalog, executor)
                wall = time.perf_counter() - began
            finally:
                executor.close()
            out[phase] = {
                "wall": round(wall, 3),
                "parent_cpu": round(cpu(resource.RUSAGE_SELF) - own, 3),
                "workers_cpu": round(cpu(resource.RUSAGE_CHILDREN) - workers, 3),
                "workers": executor.workers,
            }
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    which = argv or ["build", "memory"]
    out: dict[str, Any] = {}
    if "build" in which or "sweep" in which:
        out["fleet_build"], out["fleet_sweep"] = run_build_and_sweep()
    if "memory" in which:
        out["fleet_memory"] = run_memory()
    if "parts" in which:
        out["fleet_parts"] = where_time_goes()
    if "pool" in which:
        out["fleet_pool"] = where_the_cores_go()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
