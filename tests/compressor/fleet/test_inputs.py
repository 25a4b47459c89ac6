"""The inputs of a fleet: folders walked recursively for every suffix a reader takes, files once each, missing
paths as one line, and the agents' standard places."""

from __future__ import annotations

from pathlib import Path

from compressor.fleet import discover


def touch(path: Path, text: str = "[]") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


class TestDiscover:
    def test_folders_are_walked_for_the_readers_suffixes(self, tmp_path: Path) -> None:
        for name in (
            "a.json",
            "deep/b.jsonl",
            "deep/er/c.traj",
            "d.db",
            "notes.txt",
            ".git/x.json",
            "e.JSON",
        ):
            touch(tmp_path / name)
        inputs, broken = discover([tmp_path])
        assert [Path(i.path).relative_to(tmp_path).as_posix() for i in inputs] == [
            "a.json",
            "d.db",
            "deep/b.jsonl",
            "deep/er/c.traj",
            "e.JSON",
        ]
        assert broken == []

    def test_a_file_named_twice_is_one_input(self, tmp_path: Path) -> None:
        one = touch(tmp_path / "a.json")
        inputs, _ = discover([one, tmp_path, one])
        assert [i.path for i in inputs] == [str(one)]
        assert inputs[0].size == 2 and inputs[0].mtime_ns == one.stat().st_mtime_ns

    def test_a_missing_path_is_broken(self, tmp_path: Path) -> None:
        inputs, broken = discover([tmp_path / "gone"])
        assert inputs == [] and [(Path(b.path).name, b.error) for b in broken] == [
            ("gone", "no such file or folder")
        ]

    def test_the_standard_places_under_a_home(self, tmp_path: Path) -> None:
        session = touch(tmp_path / ".claude" / "projects" / "p" / "s.jsonl", "{}")
        inputs, _ = discover([], standard=True, home=tmp_path, environ={})
        assert [(i.path, i.agent) for i in inputs] == [(str(session), "claude-code")]
