"""Reading the runs people have, on the pages: the Load page words each loaded run's readings and counts and
scores the agent's own compactions, offers the agents' sessions found inside the roots, and Tune and Demo show
compactions on the Cline and legacy SWE-agent kinds of run; a run that cannot compact says why in one sentence."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from compressor.census import count_messages
from compressor.formats.loader import load_conversation
from compressor.replay import simulate
from dashboard import roots
from dashboard.state import keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception, texts

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
CLINE = FORMATS / "cline" / "api_conversation_history.json"
SWE_AGENT = FORMATS / "swe_agent_text" / "pydicom__pydicom-1458.traj"
CLAUDE_CODE = FORMATS / "claude_code" / "session-with-compaction.jsonl"
#: A context_max each run outgrows (Cline's counts 4,202 tokens, the SWE-agent run 8,683): the trigger fires.
CONTEXT_MAX = {CLINE: 3_000, SWE_AGENT: 6_000}


def upload(at: AppTest, path: Path) -> AppTest:
    at = at.switch_page("views/load.py").run()
    at.file_uploader(key=keys.W_UPLOAD).set_value(
        [(path.name, path.read_bytes(), "application/octet-stream")]
    )
    return at.run()


def with_context_max(at: AppTest, context_max: int) -> AppTest:
    at.number_input(key=keys.W_CONTEXT_MAX).set_value(context_max)
    return at.run()


def charts(at: AppTest) -> list[dict[str, Any]]:
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def compaction_markers(at: AppTest) -> list[Any]:
    return [
        x
        for chart in charts(at)
        for trace in chart["data"]
        if trace.get("meta") == "compaction"
        for x in trace["x"]
    ]


class TestReadings:
    def test_a_cline_run_is_read_in_words_with_its_counts(self, app: AppTest) -> None:
        at = upload(app, CLINE)
        no_exception(at)
        page = texts(at)
        assert "How the file was read" in page
        assert "12 tool results arrived as user text and were read as tool results" in page
        assert "10 user turns were written by the agent's harness and were read as internal" in page
        counts = count_messages(load_conversation(CLINE))
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["Real user requests"] == str(counts.real_user) == "5"
        assert metrics["Tool results"] == str(counts.tool) == "12"
        assert "Tool calls without a result" not in metrics  # none unmatched: not listed

    def test_the_readings_read_in_chinese_with_one_and_many(self, app: AppTest) -> None:
        at = upload(app, SWE_AGENT)
        at.radio(key=keys.W_LANG).set_value("zh").run()
        no_exception(at)
        page = texts(at)
        assert "略去了 1 个示范轮次" in page
        assert "11 条工具结果以用户文本形式到达，已读作工具结果" in page

    def test_the_agents_own_compactions_are_scored(self, app: AppTest) -> None:
        at = upload(app, CLAUDE_CODE)
        no_exception(at)
        assert "The agent's own compactions, scored" in texts(at)
        frame = next(f.value for f in at.dataframe if "summary_at" in f.value.columns)
        recorded = load_conversation(CLAUDE_CODE).recorded_compactions
        assert frame["summary_at"].tolist() == [c.index for c in recorded]
        assert frame["origin"].tolist() == [c.source for c in recorded]


class TestSessionPicker:
    def test_sessions_inside_the_roots_are_offered_newest_first(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        home = tmp_path / "home"
        folder = home / ".claude" / "projects" / "demo"
        folder.mkdir(parents=True)
        older, newer = folder / "older.jsonl", folder / "newer.jsonl"
        for path, stamp in ((older, 1_700_000_000), (newer, 1_800_000_000)):
            path.write_bytes(CLAUDE_CODE.read_bytes())
            os.utime(path, (stamp, stamp))
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
        monkeypatch.setenv(roots.ROOTS_ENV, str(home))
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run().switch_page("views/load.py").run()
        no_exception(at)
        picker = at.selectbox(key=keys.page_widget("load", "session"))
        assert [str(o).split(" · ")[0] for o in picker.options] == ["claude-code", "claude-code"]
        assert str(picker.options[0]).endswith(".claude/projects/demo/newer.jsonl")
        at = at.button(key=keys.page_widget("load", "open_session")).click().run()
        no_exception(at)
        assert str(at.selectbox(key=keys.W_CONVERSATION).value).endswith("newer.jsonl#0")

    def test_a_place_outside_the_roots_is_never_listed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        home = tmp_path / "home"
        (home / ".claude" / "projects" / "demo").mkdir(parents=True)
        (home / ".claude" / "projects" / "demo" / "s.jsonl").write_bytes(CLAUDE_CODE.read_bytes())
        elsewhere = tmp_path / "root"
        elsewhere.mkdir()
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
        monkeypatch.setenv(roots.ROOTS_ENV, str(elsewhere))
        at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run().switch_page("views/load.py").run()
        no_exception(at)
        assert "No agent session folder lies inside the allowed roots." in texts(at)
        assert not [s for s in at.selectbox if s.key == keys.page_widget("load", "session")]


@pytest.mark.parametrize("path", [CLINE, SWE_AGENT], ids=["cline", "swe-agent"])
class TestTheseRunsCompact:
    def test_tune_shows_compactions(self, app: AppTest, path: Path) -> None:
        at = with_context_max(upload(app, path), CONTEXT_MAX[path]).switch_page("views/tune.py").run()
        no_exception(at)
        run = simulate(load_conversation(path), context_max=CONTEXT_MAX[path], summary="ratio:0.1")
        assert run.outcome.compactions > 0
        assert compaction_markers(at)
        assert "This run cannot compact" not in texts(at)

    def test_demo_shows_compactions(self, app: AppTest, path: Path) -> None:
        at = with_context_max(upload(app, path), CONTEXT_MAX[path]).switch_page("views/demo.py").run()
        no_exception(at)
        assert compaction_markers(at)


class TestARunThatCannotCompact:
    def test_tune_says_why_in_one_sentence(self, app: AppTest) -> None:
        turns = [{"role": role, "content": f"{role} {n}"} for n in range(3) for role in ("user", "assistant")]
        only_requests = {"messages": turns}  # a chat: every model call answers the request just made
        at = app.switch_page("views/load.py").run()
        at.file_uploader(key=keys.W_UPLOAD).set_value(
            [("requests.json", json.dumps(only_requests).encode(), "application/json")]
        )
        at = with_context_max(at.run(), 1_000).switch_page("views/tune.py").run()
        no_exception(at)
        assert any(
            w.value.startswith("This run cannot compact: every model call comes straight") for w in at.warning
        )
        assert "lower trigger ratios" not in texts(at)
