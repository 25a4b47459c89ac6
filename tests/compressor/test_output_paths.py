"""Outputs that cannot be written (issue 15): ``--out``, ``--html`` and ``--otel`` into a read-only folder, under a
file, onto a directory or onto a full disk (a file-size limit, and ``/dev/full``) give one line naming the path and
exit 2 — never a traceback, never a partial file or a leftover temp — and an existing file there is left as it was.
A device or a FIFO (``/dev/null``, a pipe) is written into, never replaced by a file."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from compressor.cli import EXIT_BAD_INPUT, main
from tests.support.privileges import unprivileged

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "dashboard" / "samples" / "demo-conversation.json"

#: Each writing command with the flag that names its output file.
COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "compact --out": lambda target: ["compact", str(DEMO), "--force", "--out", str(target)],
    "simulate --html": lambda target: [
        "simulate",
        str(DEMO),
        "--summary",
        "ratio:0.1",
        "--html",
        str(target),
    ],
    "export --otel": lambda target: ["export", str(DEMO), "--otel", str(target)],
}


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def assert_one_line_naming(err: str, target: Path, words: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"compaction-lab: {target}: ") and words in lines[0]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("command", list(COMMANDS))
class TestUnwritableOutputs:
    def test_a_read_only_folder(self, command: str, shared_tmp: Path) -> None:
        run(COMMANDS[command](shared_tmp / "warm.out"))  # imports and encodings loaded while privileged
        folder = shared_tmp / "readonly"
        folder.mkdir()
        folder.chmod(0o555)
        target = folder / "result.out"
        # the input is read as ``nobody`` too: a copy where that user can read it (a checkout may sit in a private folder)
        source = shared_tmp / DEMO.name
        source.write_bytes(DEMO.read_bytes())
        source.chmod(0o644)
        argv = [str(source) if arg == str(DEMO) else arg for arg in COMMANDS[command](target)]
        with unprivileged():
            code, _, err = run(argv)
        assert code == EXIT_BAD_INPUT
        assert_one_line_naming(err, target, "Permission denied")
        assert list(folder.iterdir()) == []

    def test_a_folder_that_cannot_be_made(self, command: str, tmp_path: Path) -> None:
        blocker = tmp_path / "file"
        blocker.write_text("not a folder", encoding="utf-8")
        target = blocker / "sub" / "result.out"
        code, _, err = run(COMMANDS[command](target))
        assert code == EXIT_BAD_INPUT
        assert_one_line_naming(err, target, "cannot write there")
        assert blocker.read_text(encoding="utf-8") == "not a folder"

    def test_a_directory_as_the_target(self, command: str, tmp_path: Path) -> None:
        target = tmp_path / "already-a-folder"
        target.mkdir()
        (target / "inside.txt").write_text("kept", encoding="utf-8")
        code, _, err = run(COMMANDS[command](target))
        assert code == EXIT_BAD_INPUT
        assert_one_line_naming(err, target, "is a directory")
        assert [p.name for p in target.iterdir()] == ["inside.txt"] and leftovers(tmp_path) == []


# In a child: a file-size limit makes the kernel refuse the bytes partway through, as a full disk does.
_FULL_DISK = r"""
import io, json, resource, signal, sys
sys.path.insert(0, {repo!r})
from compressor.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # report EFBIG instead of killing the process
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
out, err = io.StringIO(), io.StringIO()
code = main({argv!r}, out=out, err=err)
print(json.dumps({{"code": code, "err": err.getvalue()}}))
"""


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_full_disk_leaves_the_old_file_and_no_temp(command: str, tmp_path: Path) -> None:
    target = tmp_path / "result.out"
    target.write_text("the previous result", encoding="utf-8")
    argv = COMMANDS[command](target)
    code = _FULL_DISK.format(repo=str(REPO), limit=100, argv=argv)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["code"] == EXIT_BAD_INPUT
    assert_one_line_naming(outcome["err"], target, "too large")
    assert target.read_text(encoding="utf-8") == "the previous result"
    assert leftovers(tmp_path) == []


def device(folder: Path, name: str) -> Path:
    """``/dev/<name>`` to write to: as root a private node of it in ``folder`` (a writer that renamed over the target
    would otherwise replace the machine's own device); as anyone else the real one (which they cannot replace)."""
    if os.geteuid() != 0:
        return Path("/dev") / name
    real = os.stat(Path("/dev") / name)
    node = folder / name
    os.mknod(node, stat.S_IFCHR | 0o666, real.st_rdev)
    return node


@pytest.mark.parametrize("command", list(COMMANDS))
class TestDevicesAndPipes:
    def test_dev_full_is_one_line_and_stays_a_device(self, command: str, tmp_path: Path) -> None:
        target = device(tmp_path, "full")
        code, _, err = run(COMMANDS[command](target))
        assert code == EXIT_BAD_INPUT
        assert_one_line_naming(err, target, "No space left on device")
        assert stat.S_ISCHR(os.lstat(target).st_mode) and leftovers(target.parent) == []

    def test_dev_null_takes_the_output_and_stays_a_device(self, command: str, tmp_path: Path) -> None:
        target = device(tmp_path, "null")
        code, _, err = run(COMMANDS[command](target))
        assert (code, err) == (0, "")
        assert stat.S_ISCHR(os.lstat(target).st_mode) and leftovers(target.parent) == []

    def test_a_fifo_gets_the_whole_output_and_stays_a_fifo(self, command: str, tmp_path: Path) -> None:
        target = tmp_path / "pipe.out"
        os.mkfifo(target)
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(target.read_bytes()), daemon=True)
        reader.start()
        code, _, err = run(COMMANDS[command](target))
        reader.join(timeout=30)
        assert (code, err) == (0, "") and stat.S_ISFIFO(os.lstat(target).st_mode)
        document = received[0] if received else b""
        assert json.loads(document) if document.startswith(b"{") else document.rstrip().endswith(b"</html>")
        assert leftovers(tmp_path) == []
