"""A Cline session folder with its compaction sidecar, as cline/cline writes it since d5db7eb (2026-07-07,
'Preserve canonical session history during compaction'): ``<id>.messages.json`` keeps the whole history,
``<id>.compaction.json`` the window the compaction left (``sdk/packages/core/src/session/models/
session-compaction.ts`` at 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4: ``SessionCompactionStateSchema``, and
``projectSessionCompactionState``: the sidecar's messages, then the history from ``source_message_count`` on).

The fixture (tests/fixtures/formats/cline_sidecar, README) is Cline's own session at that commit: its canonical
history (``fixtures/session/session.messages.json``) and, as the sidecar's messages, the compacted list of the same
session (``fixtures/session/agentic.compaction.json``: the summary and "hello"; its reply is the history's last
message). Before, the folder was no store and the history file alone was read: no compaction recorded."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from compressor.cli import main
from compressor.errors import ConversationFormatError
from compressor.fleet import discover
from compressor.formats import load_conversation, load_conversations
from compressor.formats.places import find_sessions
from tests.conftest import FIXTURES, fixture

SESSION_ID = "1784094124598_rruoq"
FOLDER = FIXTURES / "formats" / "cline_sidecar" / SESSION_ID
HISTORY = FOLDER / f"{SESSION_ID}.messages.json"
SIDECAR = FOLDER / f"{SESSION_ID}.compaction.json"
PLAIN = FIXTURES / "formats" / "cline" / "1796161295367_z8gc0.messages.json"


def copied(tmp_path: Path, *, sidecar: dict[str, object] | None = None) -> Path:
    folder = tmp_path / SESSION_ID
    shutil.copytree(fixture(FOLDER), folder)
    if sidecar is not None:
        state = json.loads(SIDECAR.read_text())
        (folder / SIDECAR.name).write_text(json.dumps({**state, **sidecar}))
    return folder


class TestTheWindowClineSends:
    def test_the_run_then_the_compaction_then_the_window(self) -> None:
        run = load_conversation(fixture(FOLDER))
        whole = load_conversation(fixture(HISTORY))
        (compaction,) = run.recorded_compactions
        assert run.source_format == "cline" and run.metadata["session_id"] == SESSION_ID
        # The history before source_message_count (31: up to and with "hello"), read as the history file reads.
        assert [m.text for m in run.messages[: compaction.index]] == [m.text for m in whole.messages[:-1]]
        summary, hello, reply = run.messages[compaction.index :]
        assert summary.internal and summary.text.startswith("Context summary:\n\n## Goal")
        assert (hello.text, hello.internal) == ("hello", False)
        assert reply.role == "assistant" and reply.text == whole.messages[-1].text
        assert compaction.tokens_before == 21919

    def test_the_history_file_alone_is_still_the_whole_history(self) -> None:
        assert not load_conversation(fixture(HISTORY)).recorded_compactions

    def test_a_count_past_the_history_is_a_sidecar_cline_ignores(self, tmp_path: Path) -> None:
        run = load_conversation(copied(tmp_path, sidecar={"source_message_count": 40}))
        assert not run.recorded_compactions
        assert len(run.messages) == len(load_conversation(fixture(HISTORY)).messages)

    def test_an_unhashed_state_whose_boundary_is_another_message_is_ignored(self, tmp_path: Path) -> None:
        folder = copied(
            tmp_path, sidecar={"source_prefix_hash": "", "source_last_message_key": "id:msg_other"}
        )
        assert not load_conversation(folder).recorded_compactions
        folder = copied(tmp_path / "kept", sidecar={"source_prefix_hash": ""})  # its key names message 31
        assert len(load_conversation(folder).recorded_compactions) == 1

    def test_a_subagents_file_beside_it_is_read_too(self, tmp_path: Path) -> None:
        folder = copied(tmp_path)
        child = json.loads(HISTORY.read_text()) | {"agent": "subagent", "sessionId": f"{SESSION_ID}__sub"}
        (folder / "sub.messages.json").write_text(json.dumps(child))
        runs = load_conversations(folder)
        assert [len(r.recorded_compactions) for r in runs] == [1, 0]


class TestBadSidecar:
    @pytest.mark.parametrize(
        ("change", "said"),
        [
            ({"version": 2}, "compaction.json.version: is not 1"),
            ({"source_message_count": "31"}, "compaction.json.source_message_count: is not a whole number"),
            ({"messages": {}}, "compaction.json.messages: is not a list of messages"),
        ],
    )
    def test_one_line_naming_the_file_and_field(
        self, tmp_path: Path, change: dict[str, object], said: str
    ) -> None:
        with pytest.raises(ConversationFormatError) as raised:
            load_conversations(copied(tmp_path, sidecar=change))
        message = str(raised.value)
        assert said in message and "\n" not in message


class TestListedOnce:
    def test_runs_lists_the_folder_not_its_history_file(self, tmp_path: Path) -> None:
        sessions = tmp_path / ".cline/data/sessions"
        sessions.mkdir(parents=True)
        folder = copied(sessions)
        (folder / f"{SESSION_ID}.json").write_text(json.dumps({"version": 1, "status": "completed"}))
        plain = (
            sessions / PLAIN.name.removesuffix(".messages.json") / PLAIN.name
        )  # a session with no sidecar stays its file
        plain.parent.mkdir()
        shutil.copyfile(fixture(PLAIN), plain)
        found = sorted(str(s.path) for s in find_sessions(tmp_path, environ={}))
        assert found == [str(folder), str(plain)]
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        rows = {row["path"]: row for row in map(json.loads, out.getvalue().splitlines())}
        assert rows.keys() == {str(folder), str(plain)} and rows[str(folder)]["messages"] == 34

    def test_a_fleet_walk_takes_the_folder_as_one_input(self, tmp_path: Path) -> None:
        folder = copied(tmp_path)
        inputs, broken = discover([tmp_path])
        assert [i.path for i in inputs] == [str(folder)] and not broken
