"""Finding the sessions agents wrote in their standard places, and ``compaction-lab runs`` listing them."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from compressor.cli import main
from compressor.formats import load_conversations
from compressor.formats.places import PLACES, find_sessions, left_out
from tests.compressor.formats import test_cursor, test_cursor_workspace
from tests.compressor.formats.test_opencode import STORAGE, migrate
from tests.conftest import FIXTURES, TRANSCRIPTS, fixture


def home_with_sessions(home: Path) -> dict[str, Path]:
    claude = home / ".claude/projects/-work-app/0b1c.jsonl"
    codex = home / ".codex/sessions/2026/11/30/rollout-2026-11-30T10-00-00-abc.jsonl"
    gemini = home / ".gemini/tmp/5f3a/chats/session-2026-11-29T09-00-abc.json"
    cline = (
        home
        / ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1732/api_conversation_history.json"
    )
    for path in (claude, codex, gemini, cline):
        path.parent.mkdir(parents=True)
    shutil.copyfile(fixture(TRANSCRIPTS / "claude-code-session.jsonl"), claude)
    codex.write_text('{"x": 1}\n')
    gemini.write_text("{}")
    cline.write_text("[]")
    (home / ".claude/projects/-work-app/notes.txt").write_text("not a session")
    for age, path in enumerate((claude, codex, gemini, cline)):
        stamp = 1_764_000_000 - age * 3600
        os.utime(path, (stamp, stamp))
    return {"claude-code": claude, "codex": codex, "gemini-cli": gemini, "cline": cline}


class TestFindSessions:
    def test_every_agent_in_its_place_newest_first(self, tmp_path: Path) -> None:
        made = home_with_sessions(tmp_path)
        found = find_sessions(tmp_path, environ={})
        assert [(s.agent, s.path) for s in found] == list(made.items())

    def test_an_agents_own_variable_moves_its_folder(self, tmp_path: Path) -> None:
        elsewhere = tmp_path / "codex-home" / "sessions" / "2026" / "rollout-x.jsonl"
        elsewhere.parent.mkdir(parents=True)
        elsewhere.write_text("{}\n")
        found = find_sessions(tmp_path / "empty-home", environ={"CODEX_HOME": str(tmp_path / "codex-home")})
        assert [(s.agent, s.path) for s in found] == [("codex", elsewhere)]

    def test_a_symlink_leaving_the_folder_is_not_followed(self, tmp_path: Path) -> None:
        outside = tmp_path / "secret.jsonl"
        outside.write_text("{}\n")
        projects = tmp_path / "home/.claude/projects/p"
        projects.mkdir(parents=True)
        (projects / "link.jsonl").symlink_to(outside)
        assert find_sessions(tmp_path / "home", environ={}) == []

    def test_no_folders_no_sessions(self, tmp_path: Path) -> None:
        assert find_sessions(tmp_path, environ={}) == []

    def test_every_place_names_an_agent_and_what_to_list(self) -> None:
        assert all(
            place.agent and (place.patterns or place.stores or place.store_patterns) for place in PLACES
        )


OPENCODE_DATA = ".local/share/opencode"


class TestOpenCodePlace:
    """OpenCode keeps every session in one store (``storage/`` of JSON files, or ``opencode.db`` once it has
    migrated them); a session info file in ``storage/session/`` describes a session, it is no conversation."""

    def storage(self, home: Path) -> Path:
        storage = home / OPENCODE_DATA / "storage"
        shutil.copytree(fixture(STORAGE), storage)
        return storage

    def test_the_storage_folder_is_one_readable_run_holding_each_session_once(self, tmp_path: Path) -> None:
        storage = self.storage(tmp_path)
        found = find_sessions(tmp_path, environ={})
        assert [(s.agent, s.path) for s in found] == [("opencode", storage)]
        conversations = load_conversations(found[0].path)
        ids = [c.metadata["session_id"] for c in conversations]
        assert len(ids) == 2 and len(set(ids)) == 2
        files = [p for p in storage.rglob("*") if p.is_file()]
        assert found[0].size == sum(p.stat().st_size for p in files)
        newest = max(p.stat().st_mtime for p in (storage, *storage.rglob("*")))
        assert found[0].modified.timestamp() == pytest.approx(newest, abs=1e-3)

    def test_the_database_stands_for_the_storage_it_was_migrated_from(self, tmp_path: Path) -> None:
        storage = self.storage(tmp_path)
        database = migrate(storage, tmp_path / OPENCODE_DATA / "opencode.db")
        found = find_sessions(tmp_path, environ={})
        assert [(s.agent, s.path) for s in found] == [("opencode", database)]
        assert len(load_conversations(found[0].path)) == 2

    def test_the_databases_write_ahead_log_counts_in_its_size_and_time(self, tmp_path: Path) -> None:
        storage = self.storage(tmp_path)
        database = migrate(storage, tmp_path / OPENCODE_DATA / "opencode.db")
        alone = find_sessions(tmp_path, environ={})[0]
        log = database.with_name("opencode.db-wal")
        log.write_bytes(b"x" * 4096)  # what SQLite has not checkpointed into the database yet
        later = database.stat().st_mtime + 60
        os.utime(log, (later, later))
        found = find_sessions(tmp_path, environ={})[0]
        assert found.size == alone.size + 4096 == database.stat().st_size + 4096
        assert found.modified.timestamp() == pytest.approx(later, abs=1e-3)

    def test_session_info_files_alone_are_no_runs(self, tmp_path: Path) -> None:
        storage = self.storage(tmp_path)
        shutil.rmtree(storage / "message")
        shutil.rmtree(storage / "part")
        assert find_sessions(tmp_path, environ={}) == []

    def test_xdg_data_home_moves_the_folder(self, tmp_path: Path) -> None:
        data = tmp_path / "data"
        (data / "opencode").mkdir(parents=True)
        database = migrate(fixture(STORAGE), data / "opencode" / "opencode.db")
        found = find_sessions(tmp_path / "home", environ={"XDG_DATA_HOME": str(data)})
        assert [(s.agent, s.path) for s in found] == [("opencode", database)]

    def test_runs_reads_the_store_and_lists_no_info_file(self, tmp_path: Path) -> None:
        storage = self.storage(tmp_path)
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [row["path"] for row in rows] == [str(storage)]
        assert rows[0]["messages"] > 0 and "error" not in rows[0]


QWEN_SESSION = FIXTURES / "formats" / "qwen" / "3f6c2a1e-9b7d-4e5f-a1c2-d3e4f5a6b7c8.jsonl"


def qwen_side_files(chats: Path, session: str) -> list[Path]:
    """What Qwen Code keeps beside a session in its chats folder (QwenLM/qwen-code ``sessionService.ts``:
    ``getPromptLedgerPath`` → ``<id>.ledger.jsonl``, an append-only JSONL of ``{v, promptId, state | terminal, at}``
    records; ``<id>.worktree.json``, ``<id>.pr.json``); only ``<id>.jsonl`` names a session (``SESSION_FILE_PATTERN``)."""
    ledger = chats / f"{session}.ledger.jsonl"
    ledger.write_text(
        '{"v":1,"promptId":"p-1","state":"in_flight","at":1796160000000}\n'
        '{"v":1,"promptId":"p-1","terminal":"completed","stopReason":"stop","at":1796160004210}\n'
    )
    pr = chats / f"{session}.pr.json"
    pr.write_text('{"number":12,"url":"https://github.com/o/r/pull/12","createdAt":"2026-11-30T10:00:00Z"}')
    notes = chats / "notes.jsonl"  # a JSONL not named as Qwen names a session
    notes.write_text('{"note": "not a session"}\n')
    return [ledger, pr, notes]


class TestQwenPlace:
    def chats(self, home: Path) -> tuple[Path, list[Path]]:
        chats = home / ".qwen/projects/-home-dev-app/chats"
        chats.mkdir(parents=True)
        session = chats / QWEN_SESSION.name
        shutil.copyfile(fixture(QWEN_SESSION), session)
        return session, qwen_side_files(chats, QWEN_SESSION.stem)

    def test_only_the_session_is_listed_not_the_files_beside_it(self, tmp_path: Path) -> None:
        session, _ = self.chats(tmp_path)
        assert [(s.agent, s.path) for s in find_sessions(tmp_path, environ={})] == [("qwen-code", session)]

    def test_runs_lists_no_side_file_as_an_unreadable_session(self, tmp_path: Path) -> None:
        session, _ = self.chats(tmp_path)
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [(row["path"], row["messages"]) for row in rows] == [(str(session), 15)]

    def test_a_folder_walk_leaves_the_side_files_out_too(self, tmp_path: Path) -> None:
        session, beside = self.chats(tmp_path)
        assert [path.name for path in beside if left_out(path)] == [
            f"{QWEN_SESSION.stem}.ledger.jsonl",
            "notes.jsonl",
        ]
        assert not left_out(session)

    def test_another_agents_chats_folder_keeps_its_own_names(self, tmp_path: Path) -> None:
        gemini = tmp_path / ".gemini/tmp/5f3a/chats/session-2026-11-29T09-00-abc.jsonl"
        elsewhere = tmp_path / "exports/p/chats/run-1.jsonl"  # no Qwen folder above it
        assert not left_out(gemini) and not left_out(elsewhere)

    def archived(self, projects: Path) -> tuple[Path, list[Path]]:
        """A session the person archived: Qwen Code moves it, with its side files, to ``chats/archive/``
        (``sessionService.ts`` ``getArchiveChatsDir``: ``<chats>/archive/<id>.jsonl``)."""
        archive = projects / "-home-dev-app/chats/archive"
        archive.mkdir(parents=True)
        session = archive / QWEN_SESSION.name
        shutil.copyfile(fixture(QWEN_SESSION), session)
        return session, qwen_side_files(archive, QWEN_SESSION.stem)

    def test_an_archived_session_is_listed_and_its_side_files_are_not(self, tmp_path: Path) -> None:
        session, beside = self.archived(tmp_path / ".qwen/projects")
        assert [(s.agent, s.path) for s in find_sessions(tmp_path, environ={})] == [("qwen-code", session)]
        assert [path.name for path in beside if left_out(path)] == [
            f"{QWEN_SESSION.stem}.ledger.jsonl",
            "notes.jsonl",
        ]

    @pytest.mark.parametrize("variable", ["QWEN_RUNTIME_DIR", "QWEN_HOME"])
    def test_its_variables_move_the_folder(self, tmp_path: Path, variable: str) -> None:
        """Qwen Code keeps sessions below its runtime folder: ``QWEN_RUNTIME_DIR``, else ``QWEN_HOME``, else
        ``~/.qwen`` (``config/storage.ts`` ``getRuntimeBaseDir``, ``getGlobalQwenDir``)."""
        self.chats(tmp_path)  # the home's own folder is not where Qwen Code looks then
        moved = tmp_path / "qwen-runtime"
        session, _ = self.archived(moved / "projects")
        found = find_sessions(tmp_path, environ={variable: str(moved)})
        assert [(s.agent, s.path) for s in found] == [("qwen-code", session)]

    def test_the_runtime_folder_comes_before_the_home_one(self, tmp_path: Path) -> None:
        runtime, home = tmp_path / "runtime", tmp_path / "qwen-home"
        session, _ = self.archived(runtime / "projects")
        self.archived(home / "projects")
        environ = {"QWEN_RUNTIME_DIR": str(runtime), "QWEN_HOME": str(home)}
        assert [s.path for s in find_sessions(tmp_path, environ=environ)] == [session]

    def test_runs_reads_an_archived_session(self, tmp_path: Path) -> None:
        session, _ = self.archived(tmp_path / ".qwen/projects")
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [(row["path"], row["messages"]) for row in rows] == [(str(session), 15)]


GEMINI_SUBAGENT = FIXTURES / "formats" / "gemini" / "7d2e4c1a-5b6f-4e8d-9a0b-1c2d3e4f5a6b.jsonl"
GEMINI_PARENT = "0ab84937-9fe7-4284-986a-33c832af0b6a"


class TestGeminiPlace:
    """Where Gemini CLI keeps sessions as of google-gemini/gemini-cli 5411f113cafae26161b4969b0237b8e1e024e2c2:
    ``<home>/.gemini/tmp/<project>/chats/``, the home being ``GEMINI_CLI_HOME`` when it is set
    (``packages/core/src/utils/paths.ts`` ``homedir``), and a subagent's session below its parent's,
    ``chats/<parent session id>/<session id>.jsonl`` (``services/chatRecordingService.ts`` ``initialize``)."""

    def subagent(self, home: Path) -> Path:
        session = home / f".gemini/tmp/9da8b3df/chats/{GEMINI_PARENT}" / GEMINI_SUBAGENT.name
        session.parent.mkdir(parents=True)
        shutil.copyfile(fixture(GEMINI_SUBAGENT), session)
        return session

    def test_a_subagents_session_is_listed(self, tmp_path: Path) -> None:
        session = self.subagent(tmp_path)
        assert [(s.agent, s.path) for s in find_sessions(tmp_path, environ={})] == [("gemini-cli", session)]

    def test_runs_reads_a_subagents_session(self, tmp_path: Path) -> None:
        session = self.subagent(tmp_path)
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [(row["path"], row["messages"]) for row in rows] == [(str(session), 5)]

    def test_gemini_cli_home_moves_the_folder(self, tmp_path: Path) -> None:
        self.subagent(tmp_path)  # the home's own folder is not where Gemini CLI looks then
        session = self.subagent(tmp_path / "gemini-home")
        found = find_sessions(tmp_path, environ={"GEMINI_CLI_HOME": str(tmp_path / "gemini-home")})
        assert [(s.agent, s.path) for s in found] == [("gemini-cli", session)]


CLINE_SESSION = FIXTURES / "formats" / "cline" / "1796161295367_z8gc0.messages.json"
CLINE_TASK = FIXTURES / "formats" / "cline" / "api_conversation_history_native.json"


class TestClinePlace:
    """Where Cline keeps sessions outside VS Code's storage, as of cline/cline 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4:
    the data folder is ``CLINE_DATA_DIR``, else ``$CLINE_DIR/data``, else ``~/.cline/data``; sessions go to
    ``CLINE_SESSION_DATA_DIR``, else its ``sessions/`` (``sdk/packages/shared/src/storage/paths.ts``), tasks to its
    ``tasks/<id>/`` (``apps/vscode/src/sdk/legacy-state-reader.ts``)."""

    def session(self, sessions: Path) -> Path:
        path = sessions / "1796161295367_z8gc0" / CLINE_SESSION.name
        path.parent.mkdir(parents=True)
        shutil.copyfile(fixture(CLINE_SESSION), path)
        return path

    @pytest.mark.parametrize(
        ("variable", "below"),
        [("CLINE_SESSION_DATA_DIR", ""), ("CLINE_DATA_DIR", "sessions"), ("CLINE_DIR", "data/sessions")],
    )
    def test_each_variable_moves_the_sessions_folder(self, tmp_path: Path, variable: str, below: str) -> None:
        self.session(tmp_path / ".cline/data/sessions")  # not where Cline looks then
        moved = tmp_path / "elsewhere"
        path = self.session(moved / below if below else moved)
        found = find_sessions(tmp_path, environ={variable: str(moved)})
        assert [(s.agent, s.path) for s in found] == [("cline", path)]

    def test_the_sessions_variable_comes_before_the_data_folder(self, tmp_path: Path) -> None:
        path = self.session(tmp_path / "sessions-only")
        self.session(tmp_path / "data/sessions")
        environ = {
            "CLINE_SESSION_DATA_DIR": str(tmp_path / "sessions-only"),
            "CLINE_DATA_DIR": str(tmp_path / "data"),
        }
        assert [s.path for s in find_sessions(tmp_path, environ=environ)] == [path]

    def test_a_task_in_the_data_folder_is_listed_and_read(self, tmp_path: Path) -> None:
        task = tmp_path / ".cline/data/tasks/1796160000000" / "api_conversation_history.json"
        task.parent.mkdir(parents=True)
        shutil.copyfile(fixture(CLINE_TASK), task)
        assert [(s.agent, s.path) for s in find_sessions(tmp_path, environ={})] == [("cline", task)]
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [row["path"] for row in rows] == [str(task)] and rows[0]["messages"] > 0


class TestCursorWorkspacePlace:
    """One database a workspace (``workspaceStorage/<hash>/state.vscdb``), each listed when it keeps chats."""

    def workspaces(self, home: Path) -> tuple[Path, Path, Path]:
        storage = home / ".config/Cursor/User/workspaceStorage"
        for name in ("3f1a", "9b2c", "c07e"):
            (storage / name).mkdir(parents=True)
        older = test_cursor_workspace.copied(storage / "3f1a/state.vscdb")
        upgraded = test_cursor_workspace.with_empty_newer_table(storage / "9b2c/state.vscdb")
        newer = test_cursor_workspace.newer_workspace(storage / "c07e/state.vscdb")
        (storage / "3f1a/workspace.json").write_text('{"folder": "file:///home/dev/app"}')
        for age, path in enumerate((older, upgraded, newer)):
            os.utime(path, (1_764_000_000 - age, 1_764_000_000 - age))
        return older, upgraded, newer

    def test_each_workspace_database_keeping_chats_is_listed(self, tmp_path: Path) -> None:
        older, upgraded, _ = self.workspaces(tmp_path)
        found = find_sessions(tmp_path, environ={})
        assert [(s.agent, s.path) for s in found] == [("cursor", older), ("cursor", upgraded)]

    def test_runs_reads_each_of_them(self, tmp_path: Path) -> None:
        self.workspaces(tmp_path)
        out, err = io.StringIO(), io.StringIO()
        assert main(["runs", "--home", str(tmp_path), "--json"], out=out, err=err) == 0
        assert [json.loads(line)["messages"] for line in out.getvalue().splitlines()] == [14, 14]

    def test_a_folder_walk_leaves_out_the_ones_keeping_none(self, tmp_path: Path) -> None:
        older, upgraded, newer = self.workspaces(tmp_path)
        assert [left_out(path) for path in (older, upgraded, newer)] == [False, False, True]

    def test_the_global_database_is_listed_beside_them(self, tmp_path: Path) -> None:
        older, upgraded, _ = self.workspaces(tmp_path)
        folder = tmp_path / ".config/Cursor/User/globalStorage"
        folder.mkdir(parents=True)
        database = test_cursor.database(folder / "state.vscdb")
        found = {s.path for s in find_sessions(tmp_path, environ={})}
        assert found == {older, upgraded, database}


class TestRunsCommand:
    def run(self, *argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    def test_json_rows_with_messages_or_the_reason_a_file_is_unreadable(self, tmp_path: Path) -> None:
        made = home_with_sessions(tmp_path)
        code, out, _ = self.run("runs", "--home", str(tmp_path), "--json")
        rows = [json.loads(line) for line in out.splitlines()]
        assert code == 0 and [row["path"] for row in rows] == [str(p) for p in made.values()]
        assert rows[0]["agent"] == "claude-code" and rows[0]["messages"] == 80
        assert rows[1]["messages"] is None and rows[1]["error"].startswith(str(made["codex"]))

    def test_the_table_and_the_empty_case(self, tmp_path: Path) -> None:
        home_with_sessions(tmp_path / "home")
        code, out, _ = self.run("runs", "--home", str(tmp_path / "home"), "--limit", "1")
        assert code == 0 and "claude-code" in out and "80 messages" in out and "… and 3 older" in out
        code, out, _ = self.run("runs", "--home", str(tmp_path / "nobody"))
        assert code == 0 and out.startswith("no agent sessions found")
