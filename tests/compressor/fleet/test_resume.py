"""A build killed with SIGKILL in the middle leaves a catalog that opens, holds every batch it committed, and
resumes where it stopped: the next build processes only the files no committed batch names."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from compressor.fleet import Catalog
from tests.conftest import REPO

from .runs import write_run

FILES = 150
#: Long enough for the build to take several seconds in one process (a batch is committed every 2 s).
MESSAGES = 220
DEADLINE = 120.0


def command(folder: Path, catalog: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "compressor",
        "fleet",
        str(folder),
        "--catalog",
        str(catalog),
        "--jobs",
        "1",
        "--ratios",
        "0.8",
        "--keeps",
        "0",
        "--context-max",
        "20000",
        "--json",
    ]


def committed(catalog: Path) -> int:
    return sum(
        1 for path in (catalog / "files").glob("part-*.parquet") if not path.name.endswith("00000000.parquet")
    )


def test_kill_9_during_a_build_leaves_a_catalog_that_opens_and_resumes(tmp_path: Path) -> None:
    folder, root = tmp_path / "runs", tmp_path / "catalog"
    for number in range(FILES):
        write_run(folder / f"run-{number:03d}.json", MESSAGES, number)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    build = subprocess.Popen(
        command(folder, root), cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    began = time.monotonic()
    while committed(root) < 1:  # poll for the first committed batch
        assert build.poll() is None, "the build ended before a batch was committed"
        assert time.monotonic() - began < DEADLINE
        time.sleep(0.02)
    build.send_signal(signal.SIGKILL)
    build.wait(timeout=DEADLINE)
    assert build.returncode == -signal.SIGKILL

    catalog = Catalog(root)
    done = catalog.query("SELECT count(*) FROM files WHERE error IS NULL")[0][0]
    runs = catalog.query("SELECT count(*) FROM fleet_runs")[0][0]
    assert 0 < done < FILES, "the kill came after the build had finished: the test proves nothing"
    assert runs == done

    resumed = subprocess.run(
        command(folder, root),
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE * 3,
        check=True,
    )
    fleet = json.loads(resumed.stdout)
    assert fleet["counts"]["processed"] == FILES - done
    assert fleet["counts"]["reused"] == done
    assert len(fleet["runs"]) == FILES and fleet["broken"] == []
    assert list(root.rglob("*.tmp")) == []
