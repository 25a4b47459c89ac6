"""The inputs of a fleet: folders walked recursively for every suffix a reader takes, files once each, missing
paths as one line, and the agents' standard places."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from compressor.fleet import Catalog, FleetGrid, InlineExecutor, discover, run_fleet
from compressor.formats import load_conversations
from compressor.tokens import profile
from tests.conftest import FIXTURES, fixture

from .runs import write_run


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

    def test_a_fleet_catalog_inside_a_walked_folder_is_no_input(self, tmp_path: Path) -> None:
        """The catalog's shards are Parquet, a suffix the readers take (Hub datasets of runs): its folder is left out."""
        run = write_run(tmp_path / "runs" / "a.json", 12, seed=1)
        grid = FleetGrid(ratios=(0.6,), keeps=(0,), min_targets=(0.1,), context_max=4_000)
        run_fleet([run], grid, Catalog(tmp_path / "runs" / "catalog"), InlineExecutor())
        assert list((tmp_path / "runs" / "catalog").rglob("*.parquet"))
        inputs, broken = discover([tmp_path])
        assert [Path(i.path).relative_to(tmp_path).as_posix() for i in inputs] == [
            "runs/a.json"
        ] and broken == []

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

    def test_a_link_leaving_the_folder_is_broken_and_never_read(self, tmp_path: Path) -> None:
        outside = touch(tmp_path / "outside" / "secret.json", '[{"role": "user", "content": "secret"}]')
        folder = tmp_path / "runs"
        touch(folder / "kept.json")
        (folder / "out.json").symlink_to(outside)
        (folder / "climbs.json").symlink_to(Path("..") / "outside" / "secret.json")
        (folder / "inside.json").symlink_to(folder / "kept.json")
        os.mkfifo(folder / "pipe.json")
        inputs, broken = discover([folder])
        assert sorted(Path(i.path).name for i in inputs) == ["inside.json", "kept.json"]
        assert sorted((Path(b.path).name, b.error) for b in broken) == [
            ("climbs.json", "links outside the folder; not read"),
            ("out.json", "links outside the folder; not read"),
            ("pipe.json", "is not a regular file"),
        ]

    def test_the_standard_places_under_a_home(self, tmp_path: Path) -> None:
        session = touch(tmp_path / ".claude" / "projects" / "p" / "s.jsonl", "{}")
        inputs, _ = discover([], standard=True, home=tmp_path, environ={})
        assert [(i.path, i.agent) for i in inputs] == [(str(session), "claude-code")]

    def test_a_copilot_sessions_older_json_beside_its_log_is_not_read_twice(self, tmp_path: Path) -> None:
        """VS Code 1.109+ writes ``<id>.jsonl`` beside the ``<id>.json`` it replaces: one session, one input,
        as the standard places list it (``formats.places``); a .json alone, or named outright, is read."""
        sessions = tmp_path / "User" / "workspaceStorage" / "9c1e" / "chatSessions"
        old, log, alone = (touch(sessions / name, "{}") for name in ("5b7d.json", "5b7d.jsonl", "2d8e.json"))
        elsewhere = [touch(tmp_path / "exports" / name, "{}") for name in ("5b7d.json", "5b7d.jsonl")]
        inputs, broken = discover([tmp_path])
        assert sorted(i.path for i in inputs) == sorted(map(str, (log, alone, *elsewhere))) and broken == []
        assert [i.path for i in discover([old])[0]] == [str(old)]

    def test_cursors_state_database_is_found_in_a_folder(self, tmp_path: Path) -> None:
        database = touch(tmp_path / "Cursor" / "User" / "globalStorage" / "state.vscdb", "")
        assert [i.path for i in discover([tmp_path])[0]] == [str(database)]

    def test_what_an_agent_left_beside_its_store_or_an_index_is_no_run(self, tmp_path: Path) -> None:
        """Goose's imported <id>.jsonl beside sessions.db, OpenCode's storage/ beside the opencode.db it moved
        into, Continue's sessions.json index: left out as the standard places leave them out; each is read where
        it stands alone, or named outright."""
        goose = tmp_path / "goose" / "sessions"
        database, imported = touch(goose / "sessions.db", ""), touch(goose / "20250918_143012.jsonl", "{}")
        opencode = tmp_path / "opencode"
        shutil.copytree(fixture(STORES / "opencode" / "storage"), opencode / "storage")
        migrated = touch(opencode / "opencode.db", "")
        index = touch(tmp_path / ".continue" / "sessions" / "sessions.json")
        session = touch(tmp_path / ".continue" / "sessions" / "2f9b.json", "{}")
        inputs, broken = discover([tmp_path])
        assert sorted(i.path for i in inputs) == sorted(map(str, (database, migrated, session)))
        assert broken == []
        assert [i.path for i in discover([imported])[0]] == [str(imported)]
        assert [i.path for i in discover([opencode / "storage"])[0]] == [str(opencode / "storage")]
        assert [i.path for i in discover([index])[0]] == [str(index)]
        database.unlink()
        migrated.unlink()
        alone = sorted(i.path for i in discover([tmp_path])[0])
        assert alone == sorted(map(str, (imported, opencode / "storage", session)))


STORES = FIXTURES / "formats"


@pytest.fixture
def stores(tmp_path: Path) -> Path:
    """A plain run beside an OpenHands SDK conversation (so the folder is a folder of SDK conversations too), and
    an OpenCode data folder (storage/ inside) deeper down."""
    root = tmp_path / "agents"
    shutil.copytree(fixture(STORES / "opencode"), root / "deep" / "opencode-data")
    shutil.copytree(fixture(STORES / "openhands_sdk" / "conversation"), root / "sdk-run")
    write_run(root / "plain.json", 20, 1)
    return root


class TestStoreFolders:
    def test_a_store_folder_is_one_input_and_is_not_walked_into(self, stores: Path) -> None:
        inputs, broken = discover([stores])
        assert [Path(i.path).relative_to(stores).as_posix() for i in inputs] == [
            "deep/opencode-data/storage",
            "plain.json",
            "sdk-run",
        ]
        assert broken == []
        sdk = next(i for i in inputs if i.path.endswith("sdk-run"))
        files = [p for p in (stores / "sdk-run").rglob("*") if p.is_file()]
        assert sdk.size == sum(p.stat().st_size for p in files)

    def test_a_store_given_itself_is_one_input(self, stores: Path) -> None:
        inputs, _ = discover([stores / "sdk-run"])
        assert [i.path for i in inputs] == [str(stores / "sdk-run")]

    def test_a_changed_file_inside_a_store_changes_the_input(self, stores: Path) -> None:
        (before,) = discover([stores / "sdk-run"])[0]
        event = sorted((stores / "sdk-run" / "events").iterdir())[0]
        event.write_text(event.read_text(encoding="utf-8") + " ", encoding="utf-8")
        (after,) = discover([stores / "sdk-run"])[0]
        assert after.size == before.size + 1

    def test_a_fleet_catalogues_a_stores_conversations_as_the_loader_reads_them(
        self, stores: Path, tmp_path: Path
    ) -> None:
        grid = FleetGrid(ratios=(0.6,), keeps=(0,), min_targets=(0.1,), context_max=4_000)
        fleet = run_fleet([stores], grid, Catalog(tmp_path / "catalog"), InlineExecutor())
        assert fleet.broken == () and len(fleet.runs) == 1 + sum(
            len(load_conversations(store))
            for store in (stores / "deep" / "opencode-data" / "storage", stores / "sdk-run")
        )
        for store in (stores / "deep" / "opencode-data" / "storage", stores / "sdk-run"):
            loaded = load_conversations(store)
            rows = [row for row in fleet.runs if row.path == str(store)]
            assert [(row.messages, row.format) for row in rows] == [
                (len(c.messages), c.source_format) for c in loaded
            ]
            assert all(
                row.context_tokens == profile(c).context_tokens for row, c in zip(rows, loaded, strict=True)
            )
