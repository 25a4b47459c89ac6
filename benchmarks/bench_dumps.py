"""Indexing a folder of 2,000 dumps: a cold index (nothing cached) against a warm re-index of the same folder.

Invariant: the files are real compactions of generated runs (offline backend, written by ``write_dump``), made
before any timing starts; cold uses a fresh ``DumpIndexCache`` each time, warm reuses one already filled.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.timing import best_of, ratio_result

ROOT = Path(__file__).resolve().parent.parent
DUMPS = 2_000
BASE_RUNS = 40
GOAL = 0.10


def base_records(count: int = BASE_RUNS) -> list[dict[str, Any]]:
    """Dump records of ``count`` offline compactions of generated runs of 12 to 59 messages."""
    from benchmarks.generate import conversation_dicts
    from compressor.backends import OfflineBackend
    from compressor.compactor import CurrentRoundCompressor
    from compressor.config import CurrentRoundCompressorConfig
    from compressor.messages import Conversation

    config = CurrentRoundCompressorConfig(keep_recent_messages=3)
    records: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-dump-base-") as staging:
        for seed in range(count):
            conversation = Conversation.from_messages(
                conversation_dicts(12 + (seed * 7) % 48, seed=seed), name=f"run-{seed}"
            )
            compressor = CurrentRoundCompressor(
                config, OfflineBackend(), context_max=200_000, dump_dir=staging, session_id=f"bench-{seed}"
            )
            result = asyncio.run(compressor.compact(conversation, force=True))
            if result.dump_path is not None:
                records.append(json.loads(Path(result.dump_path).read_text(encoding="utf-8")))
    if len(records) < count // 2:
        raise RuntimeError(f"only {len(records)} of {count} generated runs compacted; the corpus is too thin")
    return records


def fill_folder(folder: Path, count: int = DUMPS) -> int:
    """``count`` dumps: three in four ours (with ``compaction_lab``), one in four openJiuwen's own shape with
    its retries in the debug log. Returns the bytes written."""
    from compressor.dumps import EXTENSION_KEY, write_dump
    from compressor.dumps.debuglog import DebugLog

    bases = base_records()
    written = 0
    for n in range(count):
        record = dict(bases[n % len(bases)])
        record["session_id"] = f"session-{n % 97}"
        record["context_id"] = f"context-{n}"
        record["timestamp"] = 1_800_000_000 + n * 0.25
        if n % 4 == 3:
            del record[EXTENSION_KEY]
            log = DebugLog(folder, session_id=record["session_id"], context_id=record["context_id"])
            log.record("threshold_check", total_tokens=1, hit=True)
        written += write_dump(folder, record).stat().st_size
    return written


def run() -> dict[str, Any]:
    from compressor.dumps import DumpIndexCache, index_dumps

    with tempfile.TemporaryDirectory(prefix="bench-dumps-") as temp:
        folder = Path(temp)
        size = fill_folder(folder)
        cold_index = index_dumps(folder, cache=DumpIndexCache())
        if len(cold_index.dumps) != DUMPS or cold_index.broken:
            raise RuntimeError(
                f"indexed {len(cold_index.dumps)} dumps and {len(cold_index.broken)} broken files"
            )
        cold = best_of(lambda: index_dumps(folder, cache=DumpIndexCache()), repeat=3)
        cache = DumpIndexCache()
        first = index_dumps(folder, cache=cache)
        warm = best_of(lambda: index_dumps(folder, cache=cache), repeat=5)
        if index_dumps(folder, cache=cache) != first or cache.files_read != DUMPS:
            raise RuntimeError("the warm index differs from the cold one, or parsed files again")
    return ratio_result(
        baseline=f"cold index of {DUMPS:,} dumps (fresh cache)",
        baseline_seconds=cold,
        seconds=warm,
        goal=GOAL,
        folder_mb=round(size / 1e6, 1),
    )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    began = time.perf_counter()
    print(json.dumps(run(), indent=2), f"\n{time.perf_counter() - began:.1f} s in all")
