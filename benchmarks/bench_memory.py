"""Peak memory of inspecting a generated 50,000-message conversation, against the interpreter's own baseline.

Invariant: both figures are the peak resident set (VmHWM) of a fresh subprocess; the baseline one only
imports the package and loads the encoding, the measured one also loads, analyses and serialises the file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = 50_000
GOAL = 3.0

# Run in the child: the same imports and encoding load in both runs, so only the inspection differs.
_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import compressor
from compressor.analysis import analyze
from compressor.formats import load_conversation
from compressor.tokens import get_counter


def peak_bytes():
    # VmHWM is this process image's own peak. ru_maxrss is not: Linux carries the pre-exec peak over, and a
    # child spawned by a big parent (run.py after other benchmarks) would inherit the parent's size.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def resident_bytes():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


get_counter("cl100k_base").tok("warm up the encoding")
began = time.perf_counter()
phases = {{}}
if {inspect!r}:
    conversation = load_conversation({path!r})
    phases = {{"load_peak_bytes": peak_bytes(), "held_after_load_bytes": resident_bytes()}}
    analysis = analyze(conversation, context_max=200_000)
    rows = len(analysis.to_dict()["per_message"])
else:
    rows = 0
print(json.dumps({{"peak_bytes": peak_bytes(), "seconds": time.perf_counter() - began, "rows": rows, **phases}}))
"""


def write_conversation(folder: Path, count: int = MESSAGES) -> Path:
    """The generated run as one openJiuwen JSON file (UTF-8, non-ASCII kept as is, like openJiuwen writes)."""
    from benchmarks.generate import conversation_dicts

    path = folder / f"generated-{count}.json"
    with path.open("w", encoding="utf-8") as handle:
        json.dump(conversation_dicts(count), handle, ensure_ascii=False)
    return path


def measure_child(path: Path, *, inspect: bool) -> dict[str, Any]:
    """Peak RSS (bytes) and time of one fresh interpreter; ``inspect`` False gives the baseline."""
    code = _CHILD.format(root=str(ROOT), path=str(path), inspect=inspect)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT, timeout=600
    )
    if done.returncode != 0:
        raise RuntimeError(f"memory probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as temp:
        path = write_conversation(Path(temp))
        size = os.path.getsize(path)
        began = time.perf_counter()
        baseline = measure_child(path, inspect=False)
        baseline_seconds = time.perf_counter() - began
        began = time.perf_counter()
        inspected = measure_child(path, inspect=True)
        seconds = time.perf_counter() - began
    if inspected["rows"] != MESSAGES:
        raise RuntimeError(f"the inspection saw {inspected['rows']} messages, expected {MESSAGES}")
    base = baseline["peak_bytes"]
    ratio = (inspected["peak_bytes"] - base) / size
    # Where the peak comes from: the load alone, and what a loaded conversation keeps resident.
    phases = {
        f"{name.removesuffix('_bytes')}_ratio": round((inspected[name] - base) / size, 3)
        for name in ("load_peak_bytes", "held_after_load_bytes")
        if inspected.get(name) is not None
    }
    return {
        "baseline": "peak RSS of an interpreter that imported compressor and loaded cl100k_base",
        "baseline_seconds": baseline_seconds,
        "seconds": seconds,
        "ratio": ratio,
        "goal": f"<= {GOAL:g} x file size",
        "met": ratio <= GOAL,
        "file_mb": round(size / 1e6, 2),
        "baseline_peak_mb": round(baseline["peak_bytes"] / 1e6, 1),
        "inspect_peak_mb": round(inspected["peak_bytes"] / 1e6, 1),
        "inspect_seconds": round(inspected["seconds"], 3),
        **phases,
    }


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(run(), indent=2))
