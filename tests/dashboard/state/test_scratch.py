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
from tests.dashboard.conftest import APP, APP_TIMEOUT, OPENJIUWEN_DUMPS, end_session, no_exception, run_script


def dead_pid() -> int:
    """The pid of a process that has finished (and been reaped)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def _server_folder_name() -> None:
    import streamlit as st

    from dashboard.state import scratch

    folder = scratch.server_folder()
    st.session_state["name"], st.session_state["path"] = folder.name, str(folder)


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

    def test_a_folder_whose_pid_another_process_has_now_is_removed(self, tmp_path: Path) -> None:
        start = scratch.process_start(os.getpid())
        assert start is not None and start.isdigit()  # Linux: /proc gives the start time
        reused = tmp_path / f"{scratch.SERVER_PREFIX}{os.getpid()}-{int(start) + 1}-abc123"
        reused.mkdir()  # an earlier server that had this process's pid
        ours = tmp_path / f"{scratch.SERVER_PREFIX}{os.getpid()}-{start}-def456"
        ours.mkdir()
        parent = os.getppid()  # alive, and started before this process
        theirs = tmp_path / f"{scratch.SERVER_PREFIX}{parent}-{scratch.process_start(parent)}-ghi789"
        theirs.mkdir()
        older = tmp_path / f"{scratch.SERVER_PREFIX}{parent}-jkl012"  # a name without the start time
        older.mkdir()
        assert scratch.remove_dead_servers(tmp_path) == [reused]
        assert ours.exists() and theirs.exists() and older.exists()

    def test_this_servers_folder_names_its_start(self, tmp_path: Path) -> None:
        at = AppTest.from_function(_server_folder_name).run()
        assert not at.exception
        name = at.session_state["name"]
        assert name.startswith(f"{scratch.SERVER_PREFIX}{os.getpid()}-{scratch.process_start(os.getpid())}-")
        copy = tmp_path / name  # the same name elsewhere: the next server start would keep it
        copy.mkdir()
        assert scratch.remove_dead_servers(tmp_path) == [] and copy.exists()

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

    def test_a_fleet_zip_is_unpacked_in_the_session_folder_and_goes_with_it(self) -> None:
        def unpack() -> None:
            import io
            import json
            import zipfile

            import streamlit as st

            from dashboard.state import fleet

            archive = io.BytesIO()
            with zipfile.ZipFile(archive, "w") as handle:
                handle.writestr("runs/a.json", json.dumps([{"role": "user", "content": "hi"}]))
            st.session_state["unpacked"] = str(fleet.unpack_zip("runs.zip", archive.getvalue()))

        at = run_script(unpack)
        unpacked = Path(at.session_state["unpacked"])
        (folder,) = session_folders()
        assert folder in unpacked.parents and [p.name for p in unpacked.iterdir()] == ["00000-a.json"]
        end_session()
        assert not unpacked.exists() and not folder.exists()

    def test_a_fleet_zip_member_that_lies_about_its_size_is_one_error(self) -> None:
        def unpack() -> None:
            import io
            import struct
            import zipfile

            import streamlit as st

            from compressor.errors import CompressorError
            from dashboard.state import fleet

            archive = io.BytesIO()
            with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
                handle.writestr("a.json", b"0" * 2**20)
            data = bytearray(archive.getvalue())
            data[22:26] = struct.pack("<I", 100)  # the local header and the central directory say 100 bytes
            central = data.rfind(b"PK\x01\x02")
            data[central + 24 : central + 28] = struct.pack("<I", 100)
            try:
                fleet.unpack_zip("lies.zip", bytes(data))
            except CompressorError as error:
                st.session_state["error"] = str(error)

        at = run_script(unpack)
        assert at.session_state["error"].startswith("lies.zip: a.json: cannot be unpacked (Bad CRC-32")
