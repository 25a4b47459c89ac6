"""Every agent end to end, as a user would try it: one home holding each agent's standard place with one session
(built from the formats' fixtures and their stores' real schemas), then ``runs``, ``inspect``, ``fleet`` and
``simulate`` on each; agents with no standard place are saved files in the home, read by path."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import main
from compressor.formats.places import find_sessions, left_out
from tests.compressor.formats import (
    test_amazon_q,
    test_crush,
    test_cursor,
    test_cursor_workspace,
    test_goose,
    test_opencode,
)
from tests.conftest import FIXTURES, fixture

FORMATS = FIXTURES / "formats"
VSCODE_USER = Path(".config/Code/User")
COPILOT_LOG = FORMATS / "copilot_chat" / "5b7d9f1b-3d5f-4b7d-9f1b-3d5f7b9d1f62.jsonl"
COPILOT_JSON = FORMATS / "copilot_chat" / "2d8e4f6a-0b1c-4d3e-9f5a-7b6c8d0e1f23.json"
CODEX = FORMATS / "codex" / "rollout-2025-10-14T09-00-00-0199e0a4-5b6c-7d8e-9f01-23456789abcd.jsonl"
CONTINUE = FORMATS / "continue" / "2f9b1c44-5e6a-4d7b-8c9d-0e1f2a3b4c5d.json"
QWEN = FORMATS / "qwen" / "3f6c2a1e-9b7d-4e5f-a1c2-d3e4f5a6b7c8.jsonl"
CURSOR_WORKSPACE = FORMATS / "cursor" / "workspace-2024.state.vscdb"
GEMINI = FORMATS / "gemini" / "session-2025-09-18T10-12-7c1e2d3f.json"
GOOSE_LEGACY = FORMATS / "goose" / "k7Qm2xTb.jsonl"
#: The variables that move an agent's folder: the test's home holds every folder, so none may point elsewhere.
AGENT_VARIABLES = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "XDG_DATA_HOME",
    "GOOSE_PATH_ROOT",
    "CONTINUE_GLOBAL_DIR",
)


@dataclass(frozen=True)
class Session:
    """One agent's session in the home: where it is, the agent ``runs`` names, and the conversations it holds."""

    agent: str
    path: Path
    conversations: int = 1
    standard: bool = True  # in the agent's standard place (else a file the user saved, read by path)
    key: str = ""  # the tests' name for it when its agent has a second place here ("goose-legacy")

    @property
    def name(self) -> str:
        return self.key or self.agent


def _copy(home: Path, source: Path, relative: str | Path) -> Path:
    target = home / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fixture(source), target)
    return target


def _folder(home: Path, relative: str) -> Path:
    folder = home / relative
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def build_home(home: Path) -> dict[str, Session]:
    """Every agent's standard place under ``home`` with one session (a store: one database), the files beside
    them that are no session (Continue's index, Copilot's older .json, Goose's imported .jsonl), and the saved
    runs of agents without a standard place, by agent."""
    sessions = [
        Session(
            "claude-code",
            _copy(
                home,
                FORMATS / "claude_code" / "session-with-api-errors.jsonl",
                ".claude/projects/-home-dev-app/7a1c.jsonl",
            ),
        ),
        Session("codex", _copy(home, CODEX, f".codex/sessions/2025/10/14/{CODEX.name}")),
        Session("gemini-cli", _copy(home, GEMINI, f".gemini/tmp/5f3a/chats/{GEMINI.name}")),
        Session("qwen-code", _copy(home, QWEN, f".qwen/projects/-home-dev-app/chats/{QWEN.name}")),
        *(
            Session(
                agent,
                _copy(
                    home,
                    FORMATS / folder / "api_conversation_history.json",
                    VSCODE_USER / "globalStorage" / extension / "tasks/1732/api_conversation_history.json",
                ),
            )
            for agent, folder, extension in (
                ("cline", "cline", "saoudrizwan.claude-dev"),
                ("roo-code", "roo_code", "rooveterinaryinc.roo-cline"),
                ("kilo-code", "kilo_code", "kilocode.kilo-code"),
            )
        ),
        Session("continue", _copy(home, CONTINUE, f".continue/sessions/{CONTINUE.name}")),
        Session(
            "copilot-chat",
            _copy(home, COPILOT_LOG, VSCODE_USER / "workspaceStorage/9c1e/chatSessions" / COPILOT_LOG.name),
        ),
        Session(
            "goose", test_goose.database(_folder(home, ".local/share/goose/sessions") / "sessions.db"), 2
        ),
        Session(
            "goose",
            _copy(home, GOOSE_LEGACY, f".config/goose/sessions/{GOOSE_LEGACY.name}"),
            key="goose-legacy",
        ),
        Session(
            "opencode",
            test_opencode.migrate(
                fixture(test_opencode.STORAGE), _folder(home, ".local/share/opencode") / "opencode.db"
            ),
            2,
        ),
        Session(
            "cursor",
            test_cursor.database(_folder(home, ".config/Cursor/User/globalStorage") / "state.vscdb"),
            2,
        ),
        Session(
            "cursor",
            _copy(home, CURSOR_WORKSPACE, ".config/Cursor/User/workspaceStorage/0c4a9e/state.vscdb"),
            4,
            key="cursor-workspace",
        ),
        *(
            Session(
                agent,
                test_amazon_q.database(
                    _folder(home, f".local/share/{agent}") / "data.sqlite3",
                    {"/home/dev/ledger": test_amazon_q.saved()},
                    kiro=agent == "kiro-cli",
                ),
            )
            for agent in ("amazon-q", "kiro-cli")
        ),
        Session(
            "crush", test_crush.database(_folder(home, "dev/app/.crush") / "crush.db"), 2, standard=False
        ),
        *(
            Session(
                agent,
                _copy(home, FORMATS / source, f"saved/{agent}.{source.rsplit('.')[-1]}"),
                standard=False,
            )
            for agent, source in (
                ("pydantic-ai", "pydantic_ai/support-run.json"),
                ("pydantic-ai-wrapped", "pydantic_ai/chat-session-wrapped.json"),
                ("goose-export", "goose/session-export-20251108_3.json"),
                ("ai-sdk", "ai_sdk/model-messages-v5.json"),
                ("ai-sdk-ui", "ai_sdk/ui-messages-v5.json"),
                ("codex-exec", "codex_exec/exec-legacy-csv-header.jsonl"),
                ("opencode-run", "opencode_run/run-format-json.jsonl"),
                ("opencode-export", "opencode_export/exported-session.json"),
            )
        ),
    ]
    # Beside them, what no listing may offer as a session: Continue's index of its sessions, the .json VS Code
    # kept beside the log that replaced it, the file Goose 1.10 imported into sessions.db and left behind, Qwen's
    # ledger.
    (home / ".continue/sessions/sessions.json").write_text(
        json.dumps(
            [{"sessionId": CONTINUE.stem, "title": "Fix the flaky test", "dateCreated": "1760000000000"}]
        )
    )
    by_agent = {session.name: session for session in sessions}
    shutil.copyfile(fixture(COPILOT_JSON), by_agent["copilot-chat"].path.with_suffix(".json"))
    shutil.copyfile(fixture(test_goose.SESSION), by_agent["goose"].path.parent / test_goose.SESSION.name)
    # A newer Cursor's workspace database, which keeps only the ids of chats globalStorage holds.
    test_cursor_workspace.newer_workspace(
        _folder(home, ".config/Cursor/User/workspaceStorage/7d2b11") / "state.vscdb"
    )
    # Qwen Code's prompt ledger beside its session (<id>.ledger.jsonl, sessionService.ts getPromptLedgerPath).
    ledger = by_agent["qwen-code"].path.with_suffix(".ledger.jsonl")
    ledger.write_text('{"v":1,"promptId":"p-1","state":"in_flight","at":1796160000000}\n')
    return by_agent


def point_at(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME at ``home``, and every agent's own variable at its folder there (XDG_DATA_HOME moves three)."""
    for name in AGENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(home / ".continue"))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Session]]:
    folder = tmp_path_factory.mktemp("home")
    return folder, build_home(folder)


@pytest.fixture
def pointed(
    home: tuple[Path, dict[str, Session]], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, dict[str, Session]]]:
    point_at(home[0], monkeypatch)
    yield home


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


STANDARD = (
    "claude-code",
    "codex",
    "gemini-cli",
    "qwen-code",
    "cline",
    "roo-code",
    "kilo-code",
    "continue",
    "copilot-chat",
    "goose",
    "goose-legacy",
    "opencode",
    "cursor",
    "cursor-workspace",
    "amazon-q",
    "kiro-cli",
)
SAVED = (
    "crush",
    "pydantic-ai",
    "pydantic-ai-wrapped",
    "goose-export",
    "ai-sdk",
    "ai-sdk-ui",
    "codex-exec",
    "opencode-run",
    "opencode-export",
)
EVERY = STANDARD + SAVED


def test_the_home_holds_every_agent_named_here(home: tuple[Path, dict[str, Session]]) -> None:
    sessions = home[1]
    assert sorted(sessions) == sorted(EVERY)
    assert sorted(a for a, s in sessions.items() if s.standard) == sorted(STANDARD)


@pytest.fixture(scope="module")
def listed(home: tuple[Path, dict[str, Session]]) -> list[dict[str, Any]]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        point_at(home[0], monkeypatch)
        code, out, err = cli("runs", "--json", "--limit", "1000")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


class TestRuns:
    def test_every_listed_path_is_one_agents_session_and_listed_once(
        self, home: tuple[Path, dict[str, Session]], listed: list[dict[str, Any]]
    ) -> None:
        """No index, no older copy, no imported file: each session once, under its own agent."""
        expected = sorted((s.agent, str(s.path)) for s in home[1].values() if s.standard)
        assert sorted((row["agent"], row["path"]) for row in listed) == expected

    @pytest.mark.parametrize("agent", STANDARD)
    def test_the_agents_session_is_listed_with_its_messages(
        self, agent: str, home: tuple[Path, dict[str, Session]], listed: list[dict[str, Any]]
    ) -> None:
        rows = [row for row in listed if row["path"] == str(home[1][agent].path)]
        assert len(rows) == 1 and rows[0]["agent"] == home[1][agent].agent
        assert "error" not in rows[0] and rows[0]["messages"] > 0


def test_each_file_in_the_places_is_listed_or_left_out_never_both(
    pointed: tuple[Path, dict[str, Session]],
) -> None:
    """What the fleet leaves out of a folder walk (``left_out``) is what the standard listing leaves out."""
    folder, sessions = pointed
    listed = {session.path for session in find_sessions()}
    standard = {s.path for s in sessions.values() if s.standard}
    files = {p for p in folder.rglob("*") if p.is_file() and not p.is_relative_to(folder / "saved")}
    files -= {p for p in files if p.is_relative_to(sessions["crush"].path.parent)}
    assert listed == standard and {p for p in files if left_out(p)} == files - listed


def test_the_help_names_every_agent_runs_lists(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli("--help")
    lines = capsys.readouterr().out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip().startswith("runs "))
    end = next(n for n in range(start + 1, len(lines)) if not lines[n].startswith(" " * 8))
    said = " ".join(line.strip() for line in lines[start:end])  # argparse wraps the help line
    agents = {key.removesuffix("-legacy").removesuffix("-workspace") for key in STANDARD}
    assert [agent for agent in sorted(agents) if agent not in said.split("places: ")[1]] == []


@pytest.mark.parametrize("agent", EVERY)
def test_inspect_prints_a_decision_for_each_conversation(
    agent: str, pointed: tuple[Path, dict[str, Session]]
) -> None:
    session = pointed[1][agent]
    code, out, err = cli("inspect", str(session.path))
    assert code == 0 and err == "", err
    decisions = [line for line in out.splitlines() if line.strip().startswith("decision")]
    assert len(decisions) == session.conversations


@pytest.mark.parametrize("agent", EVERY)
def test_simulate_runs_on_each_conversation(agent: str, pointed: tuple[Path, dict[str, Session]]) -> None:
    session = pointed[1][agent]
    for number in range(session.conversations):
        code, out, err = cli("simulate", str(session.path), "--conversation", str(number), "--json")
        assert code == 0, err
        document = json.loads(out)
        assert document["steps"] and document["settings"] and document["recommendation"]


def fleet_runs(home: Path, *argv: str) -> dict[str, Any]:
    catalog = home.parent / f"catalog-{len(argv)}"
    code, out, err = cli("fleet", *argv, "--catalog", str(catalog), "--jobs", "1", "--json")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


@pytest.fixture(scope="module")
def standard_fleet(home: tuple[Path, dict[str, Session]]) -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        point_at(home[0], monkeypatch)
        return fleet_runs(home[0], "--standard")


@pytest.fixture(scope="module")
def saved_fleet(home: tuple[Path, dict[str, Session]]) -> dict[str, Any]:
    folder, sessions = home
    with pytest.MonkeyPatch.context() as monkeypatch:
        point_at(folder, monkeypatch)
        return fleet_runs(folder, str(folder / "saved"), str(sessions["crush"].path))


@pytest.fixture(scope="module")
def home_fleet(home: tuple[Path, dict[str, Session]]) -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        point_at(home[0], monkeypatch)
        return fleet_runs(home[0], str(home[0]), "--ratios", "0.8")


class TestFleet:
    def test_the_home_given_as_a_path_is_every_session_once(
        self, home: tuple[Path, dict[str, Session]], home_fleet: dict[str, Any]
    ) -> None:
        """The whole home walked: no index read as a broken run, no older copy or imported file a second time."""
        assert home_fleet["broken"] == []
        catalogued = sorted({run["path"] for run in home_fleet["runs"]})
        assert catalogued == sorted(str(s.path) for s in home[1].values())
        assert len(home_fleet["runs"]) == sum(s.conversations for s in home[1].values())

    def test_the_standard_places_are_catalogued_with_nothing_broken(
        self, home: tuple[Path, dict[str, Session]], standard_fleet: dict[str, Any]
    ) -> None:
        assert standard_fleet["broken"] == []
        expected = sum(s.conversations for s in home[1].values() if s.standard)
        assert len(standard_fleet["runs"]) == expected
        assert standard_fleet["recommendation"]["trigger_context_ratio"] is not None

    @pytest.mark.parametrize("agent", STANDARD)
    def test_each_standard_session_is_catalogued_under_its_agent_with_a_recommendation(
        self, agent: str, home: tuple[Path, dict[str, Session]], standard_fleet: dict[str, Any]
    ) -> None:
        session = home[1][agent]
        runs = [run for run in standard_fleet["runs"] if run["path"] == str(session.path)]
        assert len(runs) == session.conversations
        assert {run["agent"] for run in runs} == {session.agent}
        assert all(run["messages"] > 0 and run["recommended"] is not None for run in runs)

    @pytest.mark.parametrize("agent", SAVED)
    def test_each_saved_run_is_catalogued_by_path(
        self, agent: str, home: tuple[Path, dict[str, Session]], saved_fleet: dict[str, Any]
    ) -> None:
        session = home[1][agent]
        assert saved_fleet["broken"] == []
        runs = [run for run in saved_fleet["runs"] if run["path"] == str(session.path)]
        assert len(runs) == session.conversations
        assert all(run["messages"] > 0 and run["recommended"] is not None for run in runs)
