"""Writers clean up after writers that died (issue 15): a temp file left by a killed dump writer or a killed
``--out`` is removed by the next writer to that folder — only our own temp-name pattern, only once it is older
than STALE_TEMP_SECONDS, only regular files — and no key is ever written to a temp file."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compressor.cli import EXIT_OK, main
from compressor.dumps import TEMP_PREFIX, write_dump
from compressor.dumps.files import STALE_TEMP_SECONDS, remove_stale_temps, temp_pattern
from compressor.dumps.writer import TEMP_NAMES, TEMP_SUFFIX
from tests.compressor.test_dumps import our_record

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-canary-temp-4e1b7c9d2a6f8035"


def backdate(path: Path, seconds: float = STALE_TEMP_SECONDS + 60) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past), follow_symlinks=False)


# A writer that dies (SIGKILL, as the OOM killer or a kill -9 would) with its temp file made and half written.
_KILLED_WRITER = r"""
import os, signal, sys, tempfile
sys.path.insert(0, {repo!r})
from compressor.dumps.writer import TEMP_PREFIX, TEMP_SUFFIX
fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir={folder!r})
os.write(fd, b'{{"processor_type": "CurrentRound')
print(name, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


class TestStaleDumpTemps:
    def test_the_temp_of_a_killed_writer_is_removed_by_the_next_writer(self, tmp_path: Path) -> None:
        done = subprocess.run(
            [sys.executable, "-c", _KILLED_WRITER.format(repo=str(REPO), folder=str(tmp_path))],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == -signal.SIGKILL
        left = Path(done.stdout.strip())
        assert left.exists() and TEMP_NAMES.fullmatch(left.name)
        write_dump(tmp_path, our_record())
        assert left.exists()  # too fresh: it could belong to a writer still at work
        backdate(left)
        write_dump(tmp_path, our_record())
        assert not left.exists()
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)] == []

    @pytest.mark.parametrize(
        ("name", "removed"),
        [
            (f"{TEMP_PREFIX}abcd1234{TEMP_SUFFIX}", True),
            (f"{TEMP_PREFIX}a_b_c_d_{TEMP_SUFFIX}", True),
            (f"{TEMP_PREFIX}abc{TEMP_SUFFIX}", False),  # not what mkstemp makes
            (f"{TEMP_PREFIX}ABCD1234{TEMP_SUFFIX}", False),
            (f"{TEMP_PREFIX}abcd1234{TEMP_SUFFIX}.keep", False),
            (f"x{TEMP_PREFIX}abcd1234{TEMP_SUFFIX}", False),
            ("notes.tmp", False),
            ("1800000000000_x_y.json", False),
        ],
    )
    def test_only_our_own_old_temp_names_go(self, name: str, removed: bool, tmp_path: Path) -> None:
        path = tmp_path / name
        path.write_text("{}", encoding="utf-8")
        backdate(path)
        write_dump(tmp_path, our_record())
        assert path.exists() is not removed

    def test_links_and_folders_with_a_temp_name_are_left_alone(self, tmp_path: Path) -> None:
        victim = tmp_path / "precious.txt"
        victim.write_text("keep me", encoding="utf-8")
        link = tmp_path / f"{TEMP_PREFIX}linklink{TEMP_SUFFIX}"
        link.symlink_to(victim)
        folder = tmp_path / f"{TEMP_PREFIX}folder00{TEMP_SUFFIX}"
        folder.mkdir()
        for path in (victim, link, folder):
            backdate(path)
        write_dump(tmp_path, our_record())
        assert link.is_symlink() and folder.is_dir() and victim.read_text(encoding="utf-8") == "keep me"

    def test_cleaning_never_raises(self, tmp_path: Path) -> None:
        assert remove_stale_temps(tmp_path / "missing", TEMP_NAMES) == 0
        assert remove_stale_temps(tmp_path, temp_pattern(".x-", ".tmp"), older_than=0) == 0

    def test_a_record_holding_the_key_never_reaches_a_temp_file(self, tmp_path: Path) -> None:
        with pytest.raises(OSError):
            write_dump(tmp_path, our_record(marker=KEY), secrets=[KEY])
        assert list(tmp_path.iterdir()) == []


class TestStaleOutputTemps:
    def test_the_temp_of_a_killed_out_write_is_removed_by_the_next_one(self, tmp_path: Path) -> None:
        source = tmp_path / "run.json"
        source.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
        target = tmp_path / "result.json"
        stale = tmp_path / ".result.json.k1ll3d_0.tmp"
        fresh = tmp_path / ".result.json.w0rking1.tmp"
        other = tmp_path / ".other.json.k1ll3d_0.tmp"
        for path in (stale, fresh, other):
            path.write_text("{", encoding="utf-8")
        backdate(stale)
        backdate(other)
        code = main(["compact", str(source), "--out", str(target)], out=io.StringIO(), err=io.StringIO())
        assert code == EXIT_OK and target.exists()
        assert not stale.exists() and fresh.exists() and other.exists()  # only temps of this output's name

    def test_a_key_in_the_input_is_scrubbed_before_the_out_file_is_written(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("API_KEY", KEY)
        source = tmp_path / "run.json"
        source.write_text(json.dumps([{"role": "user", "content": f"my key is {KEY}"}]), encoding="utf-8")
        out = io.StringIO()
        code = main(["compact", str(source), "--backend", "offline", "--out", str(tmp_path / "r.json"), "--json"],
                    out=out, err=io.StringIO())  # fmt: skip
        assert code == EXIT_OK
        written = (tmp_path / "r.json").read_text(encoding="utf-8")
        assert KEY not in written and "[redacted]" in written and KEY not in out.getvalue()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "run.json"]
