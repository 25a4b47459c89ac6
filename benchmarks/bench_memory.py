"""Peak memory of inspecting a generated 50,000-message conversation, against the interpreter's own baseline;
and of ``compaction-lab inspect`` on two legal extremes: a million short messages and one long string.

Invariant: every figure is the peak resident set (VmHWM) of a fresh subprocess; the baseline one only
imports the package and loads the encoding, the measured one also loads, analyses and serialises the file.
``short-messages-jsonl`` is the same million messages as JSONL, one a line.
Run alone: ``.venv/bin/python benchmarks/bench_memory.py [generated] [short-messages] [short-messages-jsonl]
[long-string]``.
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
#: Issue 15's goal for the legal extremes: peak memory within this many times the file's size.
EXTREMES_GOAL = 4.0
SHORT_MESSAGES = 1_000_000
#: Words of the long string: ASCII and CJK mixed, as real transcripts are (CJK makes Python store 2 bytes a char).
LONG_WORDS = 6_000_000

# Run in the child: the same imports and encoding load in both runs, so only the inspection differs.
_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import compressor
import compressor.cli  # the CLI's own imports (argparse, httpx…) are in the baseline too, not charged to the file
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
if {command!r}:
    import io
    from compressor.cli import main

    class Sink(io.TextIOBase):
        # Counts what the CLI prints and lets it go, as a pipe or a terminal does: holding it would charge the
        # output (90 MB of JSON rows for a million messages) to the inspection.
        chars = 0

        def write(self, text):
            self.chars += len(text)
            return len(text)

    sink = Sink()
    code = main([*{command!r}.split(), {path!r}], out=sink, err=sink)
    rows = sink.chars if code == 0 else -1
elif {inspect!r}:
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


def write_short_messages(folder: Path, count: int = SHORT_MESSAGES) -> Path:
    """``count`` two-word messages, user and assistant in turn: the most messages per byte a run can hold."""
    path = folder / f"short-{count}.json"
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[")
        for number in range(count):
            role = "user" if number % 2 == 0 else "assistant"
            handle.write(("," if number else "") + json.dumps({"role": role, "content": f"ok {number}"}))
        handle.write("]")
    return path


def write_short_messages_jsonl(folder: Path, count: int = SHORT_MESSAGES) -> Path:
    """The messages of ``write_short_messages``, one JSON object a line (the same bytes less the brackets)."""
    path = folder / f"short-{count}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for number in range(count):
            role = "user" if number % 2 == 0 else "assistant"
            handle.write(json.dumps({"role": role, "content": f"ok {number}"}) + "\n")
    return path


def write_long_string(folder: Path, words: int = LONG_WORDS) -> Path:
    """One request and one reply holding a single string of ``words`` words (about 44 MB of UTF-8)."""
    import random

    rng = random.Random(3)
    vocabulary = "context summary compress span tail prefix trigger ratio 上下文 压缩".split()
    text = " ".join(rng.choice(vocabulary) for _ in range(words))
    path = folder / "one-long-string.json"
    document = [{"role": "user", "content": "Summarise this."}, {"role": "assistant", "content": text}]
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def measure_child(path: Path, *, inspect: bool, command: str = "") -> dict[str, Any]:
    """Peak RSS (bytes) and time of one fresh interpreter; ``inspect`` False gives the baseline; ``command``
    runs that CLI command on the file instead (e.g. "inspect --json")."""
    code = _CHILD.format(root=str(ROOT), path=str(path), inspect=inspect, command=command)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT, timeout=600
    )
    if done.returncode != 0:
        raise RuntimeError(f"memory probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def extremes(names: tuple[str, ...] = ("short-messages", "long-string")) -> dict[str, Any]:
    """``inspect`` and ``inspect --json`` on each legal extreme: peak over the baseline, per byte of the file."""
    writers = {
        "short-messages": write_short_messages,
        "short-messages-jsonl": write_short_messages_jsonl,
        "long-string": write_long_string,
    }
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as temp:
        for name in names:
            path = writers[name](Path(temp))
            size = os.path.getsize(path)
            base = measure_child(path, inspect=False)["peak_bytes"]
            loaded = measure_child(path, inspect=True)
            row: dict[str, Any] = {
                "file_mb": round(size / 1e6, 1),
                "goal": f"<= {EXTREMES_GOAL:g} x file size",
            }
            for phase in ("load_peak_bytes", "held_after_load_bytes", "peak_bytes"):
                label = {"peak_bytes": "analysed"}.get(phase, phase.removesuffix("_bytes"))
                row[f"{label}_ratio"] = round((loaded[phase] - base) / size, 2)
            for command in ("inspect", "inspect --json"):
                measured = measure_child(path, inspect=False, command=command)
                if measured["rows"] < 0:
                    raise RuntimeError(f"{command} failed on {path.name}")
                row[f"{command.replace(' --', '_')}_ratio"] = round((measured["peak_bytes"] - base) / size, 2)
                row[f"{command.replace(' --', '_')}_seconds"] = round(measured["seconds"], 2)
            row["met"] = max(row["inspect_ratio"], row["inspect_json_ratio"]) <= EXTREMES_GOAL
            results[name] = row
    return results


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
    chosen = tuple(sys.argv[1:]) or ("generated", "short-messages", "long-string")
    report: dict[str, Any] = {"generated": run()} if "generated" in chosen else {}
    report.update(extremes(tuple(name for name in chosen if name != "generated")))
    print(json.dumps(report, indent=2))
