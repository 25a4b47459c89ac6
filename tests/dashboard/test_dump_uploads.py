"""Uploaded dumps keep each debug log with the dump it describes: a zip by its folders, loose files by pairing
each log with its dump; what cannot be placed is reported, never dropped or overwritten in silence."""

from __future__ import annotations

import io
import warnings
import zipfile
from pathlib import Path

from compressor.dumps import index_dumps, read_dump
from dashboard.dump_uploads import LOOSE, review_folder, save_uploads
from tests.dashboard.conftest import OPENJIUWEN_DUMPS

FOLDERS = ("compact000", "compact001", "compact015")


def sample_files() -> list[tuple[str, bytes]]:
    """openJiuwen's three sample dumps and their three debug logs, as six loose uploads (logs share a name)."""
    files: list[tuple[str, bytes]] = []
    for folder in FOLDERS:
        for path in sorted((OPENJIUWEN_DUMPS / folder).iterdir()):
            files.append((path.name, path.read_bytes()))
    return files


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def own_records(folder: str) -> list[dict[str, object]]:
    """The records a sample dump's own log holds, as read next to it in the samples."""
    return list(read_dump(next((OPENJIUWEN_DUMPS / folder).glob("*.json"))).debug_records)


class TestLooseFiles:
    def test_each_of_three_same_named_logs_stays_with_its_dump(self, tmp_path: Path) -> None:
        saved = save_uploads(tmp_path, sample_files())
        review = review_folder(tmp_path)
        index = index_dumps(review)
        assert len(index.dumps) == 3 and index.broken == []
        for row in index.dumps:
            record = read_dump(row["path"])
            assert record.debug_records == tuple(own_records(record.context_id))
        assert saved.problems == []
        (note,) = saved.notes
        assert note.startswith("3 debug logs are called CurrentRoundCompressor.jsonl")

    def test_uploads_one_at_a_time_pair_up_all_the_same(self, tmp_path: Path) -> None:
        for file in sample_files():
            save_uploads(tmp_path, [file])
        for row in index_dumps(review_folder(tmp_path)).dumps:
            record = read_dump(row["path"])
            assert record.debug_records == tuple(own_records(record.context_id))

    def test_a_log_that_describes_no_uploaded_dump_is_reported(self, tmp_path: Path) -> None:
        log = OPENJIUWEN_DUMPS / "compact000" / "CurrentRoundCompressor.jsonl"
        saved = save_uploads(tmp_path, [(log.name, log.read_bytes())])
        (problem,) = saved.problems
        assert problem.startswith("CurrentRoundCompressor.jsonl: describes none of the uploaded dumps")

    def test_other_files_are_refused_and_nothing_leaves_the_folder(self, tmp_path: Path) -> None:
        base = tmp_path / "session"
        saved = save_uploads(base, [("notes.txt", b"x"), ("../../escape.json", b"{}")])
        assert saved.problems == ["notes.txt: skipped, not a .json dump or a .jsonl debug log"]
        assert not (tmp_path / "escape.json").exists()
        assert [path.name for path in (review_folder(base) / LOOSE).iterdir()] == ["escape.json"]


class TestZip:
    def test_a_zip_keeps_its_folders_so_same_named_logs_stay_apart(self, tmp_path: Path) -> None:
        members = {
            f"openjiuwen-dumps/{folder}/{path.name}": path.read_bytes()
            for folder in FOLDERS
            for path in (OPENJIUWEN_DUMPS / folder).iterdir()
        }
        saved = save_uploads(tmp_path, [("samples.zip", zipped(members))])
        assert saved.problems == []
        index = index_dumps(review_folder(tmp_path))
        assert len(index.dumps) == 3
        for row in index.dumps:
            record = read_dump(row["path"])
            assert Path(row["path"]).parent.name == record.context_id
            assert record.debug_records == tuple(own_records(record.context_id))

    def test_a_member_path_cannot_climb_out(self, tmp_path: Path) -> None:
        base = tmp_path / "session"
        save_uploads(base, [("evil.zip", zipped({"../../../outside.json": b"{}", "a/./../b.json": b"{}"}))])
        assert not (tmp_path / "outside.json").exists() and not (base / "b.json").exists()
        written = [path.relative_to(base) for path in base.rglob("*.json")]
        assert all(path.parts[0] in ("review", "staging") for path in written)

    def test_a_path_held_twice_is_reported_and_the_first_kept(self, tmp_path: Path) -> None:
        dump = next((OPENJIUWEN_DUMPS / "compact000").glob("*.json"))
        archive = io.BytesIO()
        with warnings.catch_warnings(), zipfile.ZipFile(archive, "w") as handle:
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate it is told to write
            handle.writestr(f"s/{dump.name}", dump.read_bytes())
            handle.writestr(f"s/{dump.name}", b"{}")
        saved = save_uploads(tmp_path, [("twice.zip", archive.getvalue())])
        assert saved.problems == [
            f"twice.zip/s/{dump.name}: a second member with this path; the first one is kept"
        ]
        index = index_dumps(review_folder(tmp_path))
        assert len(index.dumps) == 1 and index.broken == []

    def test_two_zips_of_one_name_are_kept_apart(self, tmp_path: Path) -> None:
        save_uploads(tmp_path, [("a.zip", zipped({"x.json": b"{}"}))])
        save_uploads(tmp_path, [("a.zip", zipped({"x.json": b"[]"}))])
        assert sorted(path.name for path in review_folder(tmp_path).iterdir() if path.name != LOOSE) == [
            "a",
            "a-2",
        ]
