"""The Kilo Code CLI's database (``~/.local/share/kilo/kilo.db``, OpenCode's schema): read as the OpenCode session
it is, labelled Kilo's, and found in Kilo's own standard place (before, no place pointed there)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from compressor.formats import load_conversations
from compressor.formats.places import find_sessions
from tests.compressor.formats.test_opencode import STORAGE, migrate
from tests.conftest import FIXTURES, fixture

DATABASE = FIXTURES / "formats" / "kilo_code" / "kilo.db"


def test_the_session_kilo_wrote_reads_with_its_compaction() -> None:
    (run,) = load_conversations(fixture(DATABASE))
    assert run.source_format == "opencode" and run.metadata["model"] == "fake/fake-gpt-4o"
    assert [(m.role, m.internal) for m in run.messages] == [
        ("user", False),
        ("assistant", False),
        ("tool", False),
        ("user", True),
        ("assistant", False),
        ("user", True),
        ("assistant", False),
    ]
    (compaction,) = run.recorded_compactions
    assert compaction.index == 4 and compaction.tokens_before == 4189


def test_kilos_database_is_found_in_its_standard_place(tmp_path: Path) -> None:
    folder = tmp_path / ".local/share/kilo"
    folder.mkdir(parents=True)
    shutil.copyfile(fixture(DATABASE), folder / "kilo.db")
    found = find_sessions(tmp_path, environ={})
    assert [(s.agent, s.path.name) for s in found] == [("kilo-code", "kilo.db")]


class TestWhoseSessionItIs:
    """Kilo names its database ``kilo.db`` (``kilo-<channel>.db`` for a preview channel) and adds tables of its own
    (``kilo_board``, ``kilo_board_message``) to OpenCode's: either says the sessions are Kilo's, not OpenCode's."""

    def test_the_session_kilo_wrote_is_labelled_kilo_s(self) -> None:
        (run,) = load_conversations(fixture(DATABASE))
        assert run.metadata["agent"] == "kilo-code"
        assert run.metadata["version"] == "7.7.9"  # Kilo's own version, as the session row keeps it

    @pytest.mark.parametrize("name", ["sessions-backup.db", "opencode.db"])
    def test_a_copy_under_another_name_is_still_kilo_s_by_its_tables(self, tmp_path: Path, name: str) -> None:
        copy = tmp_path / name
        shutil.copyfile(fixture(DATABASE), copy)
        assert [run.metadata["agent"] for run in load_conversations(copy)] == ["kilo-code"]
        assert [run.metadata["agent"] for run in load_conversations(copy.read_bytes(), name=name)] == [
            "kilo-code"
        ]

    def test_a_preview_channel_s_database_is_kilo_s_by_its_name(self, tmp_path: Path) -> None:
        database = migrate(STORAGE, tmp_path / "kilo-beta.db")  # OpenCode's tables only
        assert {run.metadata["agent"] for run in load_conversations(database)} == {"kilo-code"}

    def test_an_opencode_database_stays_opencode_s(self, tmp_path: Path) -> None:
        database = migrate(STORAGE, tmp_path / "opencode.db")
        with sqlite3.connect(database) as connection:
            assert not [
                row for row in connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'kilo%'")
            ]
        assert {run.metadata["agent"] for run in load_conversations(database)} == {"opencode"}
