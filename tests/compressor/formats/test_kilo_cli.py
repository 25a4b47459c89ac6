"""The Kilo Code CLI's database (``~/.local/share/kilo/kilo.db``, OpenCode's schema): read as the OpenCode session
it is, and found in Kilo's own standard place (before, no place pointed there)."""

from __future__ import annotations

import shutil
from pathlib import Path

from compressor.formats import load_conversations
from compressor.formats.places import find_sessions
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
