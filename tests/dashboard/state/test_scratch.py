"""Temporary folders: a session's goes when the session ends, a dead server's when the next one starts, and
nothing else is ever removed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from streamlit.testing.v1 import AppTest

from dashboard.state import keys, scratch
from tests.dashboard.conftest import APP, APP_TIMEOUT, OPENJIUWEN_DUMPS, end_session, no_exception


def dead_pid() -> int:
    """The pid of a process that has finished (and been reaped)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


class TestDeadServers:
    def test_the_folders_of_servers_no_longer_running_are_removed(self, tmp_path: Path) -> None:
        dead = tmp_path / f"{scratch.SERVER_PREFIX}{dead_pid()}-abc123"
        (dead / "session-x" / "uploads").mkdir(parents=True)
        (dead / "session-x" / "uploads" / "dump.json").write_text("{}")
        ours = tmp_path / f"{scratch.SERVER_PREFIX}{os.getpid()}-def456"
        ours.mkdir()
        other = tmp_path / "compaction-lab-notes"  # not a server folder: never touched
        other.mkdir()
        assert scratch.remove_dead_servers(tmp_path) == [dead]
        assert not dead.exists() and ours.exists() and other.exists()

    def test_a_link_named_like_a_server_folder_is_not_followed(self, tmp_path: Path) -> None:
        target = tmp_path / "keep"
        target.mkdir()
        (target / "file").write_text("x")
        (tmp_path / f"{scratch.SERVER_PREFIX}{dead_pid()}-link").symlink_to(target)
        scratch.remove_dead_servers(tmp_path)
        assert (target / "file").exists()


def upload_dumps() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page("views/dumps.py").run()
    at.radio(key=keys.W_DUMP_SOURCE).set_value("upload").run()
    folder = OPENJIUWEN_DUMPS / "compact015"
    files = [(path.name, path.read_bytes(), "application/json") for path in sorted(folder.iterdir())]
    at.file_uploader(key=keys.W_DUMP_UPLOAD).set_value(files).run()
    no_exception(at)
    return at


def session_folders() -> set[Path]:
    return {path for path in scratch_server().iterdir() if path.name.startswith("session-")}


def scratch_server() -> Path:
    found = [
        path
        for path in Path(tempfile.gettempdir()).iterdir()
        if path.name.startswith(f"{scratch.SERVER_PREFIX}{os.getpid()}-")
    ]
    assert len(found) == 1, found
    return found[0]


class TestSessionFolders:
    def test_when_the_session_ends_its_folder_goes(self) -> None:
        upload_dumps()
        (folder,) = session_folders()
        assert list(folder.rglob("*.json")), "the uploaded dump was saved in the session's folder"
        end_session()  # Streamlit releases a session's resources when it disconnects or closes
        assert not folder.exists()
        assert scratch_server().exists()  # the server's own folder stays while the server runs

    def test_after_a_reconnect_the_uploads_are_saved_again(self) -> None:
        at = upload_dumps()
        end_session()
        at.run()
        no_exception(at)
        assert "1 of 1 dump shown, in 1 folder" in [c.value for c in at.caption]
