"""Roots for what the dump index reads (issue 15): only regular files inside the folder are opened; a link that
leaves the folder, a FIFO or a device named ``*.json``, a dangling link are listed as broken with the reason,
at once (a FIFO is never waited on), and nothing of an outside file reaches the listing."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compressor.dumps import DumpIndexCache, index_dumps, read_dump, write_dump
from compressor.dumps.debuglog import read_debug_log
from compressor.dumps.files import UnreadableFile, inside, read_regular
from compressor.errors import DumpFormatError
from tests.compressor.test_dumps import our_record

#: Long enough for any honest index of a handful of files; a blocked FIFO read would never end.
PROMPTLY = 20.0


def within(seconds: float, work: Callable[[], Any]) -> Any:
    """``work()``, which must finish within ``seconds`` (run in a thread, so a hang fails the test); what it
    raised is raised here."""
    outcome: list[tuple[Any, BaseException | None]] = []

    def run() -> None:
        try:
            outcome.append((work(), None))
        except BaseException as error:  # handed to the test's thread
            outcome.append((None, error))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s (blocked on a FIFO?)"
    result, error = outcome[0]
    if error is not None:
        raise error
    return result


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """(the dump folder, a folder outside it holding a dump whose session must never show up)."""
    root, outside = tmp_path / "dumps", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    write_dump(root, our_record())
    record = our_record(timestamp=1_800_000_500.0)
    record["session_id"] = "outside-session"
    write_dump(outside, record)
    return root, outside


def broken(index: Any) -> dict[str, str]:
    return {Path(item["path"]).name: item["error"] for item in index.broken}


class TestLinks:
    def test_a_link_to_a_file_outside_is_broken_and_not_read(self, places: tuple[Path, Path]) -> None:
        root, outside = places
        (target,) = outside.glob("*.json")
        (root / "elsewhere.json").symlink_to(target)
        index = index_dumps(root, cache=DumpIndexCache())
        assert [row["session_id"] for row in index.dumps] == ["session one"]
        assert "outside the folder" in broken(index)["elsewhere.json"]

    def test_a_relative_link_climbing_out_with_dot_dot_is_refused_too(
        self, places: tuple[Path, Path]
    ) -> None:
        root, outside = places
        (target,) = outside.glob("*.json")
        (root / "climb.json").symlink_to(Path("..") / "outside" / target.name)
        assert "outside the folder" in broken(index_dumps(root, cache=DumpIndexCache()))["climb.json"]

    def test_a_link_to_a_file_inside_the_folder_is_read(self, places: tuple[Path, Path]) -> None:
        root, _ = places
        (own,) = root.glob("*.json")
        (root / "alias.json").symlink_to(own.name)
        index = index_dumps(root, cache=DumpIndexCache())
        assert sorted(Path(row["path"]).name for row in index.dumps) == sorted(["alias.json", own.name])

    def test_a_linked_folder_is_not_followed(self, places: tuple[Path, Path]) -> None:
        root, outside = places
        (root / "more").symlink_to(outside, target_is_directory=True)
        index = index_dumps(root, cache=DumpIndexCache())
        assert [row["session_id"] for row in index.dumps] == ["session one"] and index.broken == []

    def test_a_dangling_link_says_so(self, places: tuple[Path, Path]) -> None:
        root, _ = places
        (root / "gone.json").symlink_to(root / "never-there.json")
        assert "link to nothing" in broken(index_dumps(root, cache=DumpIndexCache()))["gone.json"]

    def test_a_debug_log_linked_from_outside_is_not_read(self, tmp_path: Path) -> None:
        record = our_record(
            with_extension=False
        )  # openJiuwen's own dump: retries come from the debug log only
        folder = tmp_path / "openjiuwen"
        write_dump(folder, record)
        log = tmp_path / "elsewhere.jsonl"
        log.write_text(
            '{"timestamp": 1.0, "event": "threshold_check", "session_id": "session one", "context_id": "ctx/1"}\n'
            '{"timestamp": 2.0, "event": "compression_retry", "session_id": "session one", "context_id": "ctx/1"}\n',
            encoding="utf-8",
        )
        (folder / "CurrentRoundCompressor.jsonl").symlink_to(log)
        (row,) = index_dumps(folder, cache=DumpIndexCache()).dumps
        assert row["retries"] is None  # the outside log was not consulted
        record_read = read_dump(row["path"])
        assert record_read.retries is None and record_read.debug_records == ()

    def test_inside_resolves_every_link(self, tmp_path: Path) -> None:
        (tmp_path / "a").mkdir()
        (tmp_path / "a" / "f").write_text("x")
        (tmp_path / "b").symlink_to(tmp_path / "a", target_is_directory=True)
        assert inside(tmp_path / "a", tmp_path / "b" / "f")
        assert inside(tmp_path / "a", tmp_path / "a" / ".." / "b")  # b resolves to a, the root itself
        assert inside(tmp_path / "a", tmp_path / "a")
        assert not inside(tmp_path / "b" / "f", tmp_path / "a")


class TestOnlyRegularFiles:
    def test_a_fifo_named_like_a_dump_is_broken_at_once(self, places: tuple[Path, Path]) -> None:
        root, _ = places
        os.mkfifo(root / "pipe.json")
        index = within(PROMPTLY, lambda: index_dumps(root, cache=DumpIndexCache()))
        assert "not a regular file" in broken(index)["pipe.json"]
        assert [row["session_id"] for row in index.dumps] == ["session one"]

    def test_reading_a_fifo_as_a_dump_or_a_log_never_waits(self, tmp_path: Path) -> None:
        os.mkfifo(tmp_path / "pipe.json")
        os.mkfifo(tmp_path / "CurrentRoundCompressor.jsonl")

        def read_dump_error() -> str:
            with pytest.raises(DumpFormatError) as caught:
                read_dump(tmp_path / "pipe.json")
            return str(caught.value)

        assert "a FIFO" in within(PROMPTLY, read_dump_error)
        assert within(PROMPTLY, lambda: read_debug_log(tmp_path / "CurrentRoundCompressor.jsonl")) == []

    def test_a_fifo_debug_log_beside_openjiuwen_dumps_never_blocks_the_index(self, tmp_path: Path) -> None:
        write_dump(tmp_path, our_record(with_extension=False))
        os.mkfifo(tmp_path / "CurrentRoundCompressor.jsonl")
        (row,) = within(PROMPTLY, lambda: index_dumps(tmp_path, cache=DumpIndexCache())).dumps
        assert row["retries"] is None

    @pytest.mark.parametrize(
        ("make", "words"),
        [
            (lambda path: path.mkdir(), "a directory"),
            (lambda path: os.mkfifo(path), "a FIFO"),
        ],
        ids=["directory", "fifo"],
    )
    def test_read_regular_names_what_it_refused(
        self, make: Callable[[Path], None], words: str, tmp_path: Path
    ) -> None:
        make(tmp_path / "thing")
        with pytest.raises(UnreadableFile, match=words):
            within(PROMPTLY, lambda: read_regular(tmp_path / "thing"))

    def test_read_regular_refuses_a_file_over_its_limit(self, tmp_path: Path) -> None:
        (tmp_path / "big").write_bytes(b"x" * 3 * 2**20)
        with pytest.raises(UnreadableFile, match="over the 1 MiB limit"):
            read_regular(tmp_path / "big", limit=2**20)
        assert read_regular(tmp_path / "big") == b"x" * 3 * 2**20

    def test_a_character_device_named_like_a_dump_is_broken(self, tmp_path: Path) -> None:
        if not Path("/dev/zero").exists():  # pragma: no cover - every Linux and macOS has it
            pytest.fail("/dev/zero is missing")
        (tmp_path / "zero.json").symlink_to("/dev/zero")
        index = within(PROMPTLY, lambda: index_dumps(tmp_path, cache=DumpIndexCache()))
        assert "outside the folder" in broken(index)["zero.json"]
        with pytest.raises(DumpFormatError, match="character device"):
            within(PROMPTLY, lambda: read_dump(tmp_path / "zero.json"))
