"""The Fleet page through AppTest, on the 200-conversation tau-bench file and a corrupt file in one root: the
build runs in the background, the recommendation and the tables are the library's own, and a run opens on
Span & trigger with the fleet's setting."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.fleet import Catalog, FleetGrid, InlineExecutor, run_fleet
from compressor.replay import ratio_steps
from dashboard import roots
from dashboard.state import fleet as fleet_state
from dashboard.state import keys
from tests.conftest import TRANSCRIPTS
from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception, texts

PAGE = "views/fleet.py"
TAU = TRANSCRIPTS / "openai-chat-tau-bench-airline.json"


def w(name: str) -> str:
    return keys.page_widget("fleet", name)


@pytest.fixture
def fleet_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "root"
    (root / "runs").mkdir(parents=True)
    shutil.copy(TAU, root / "runs" / TAU.name)
    (root / "runs" / "cut.json").write_text('[{"role": "user", "content": "cut', encoding="utf-8")
    monkeypatch.setenv(roots.ROOTS_ENV, str(root))
    monkeypatch.setenv("COMPACTION_LAB_CATALOG", str(tmp_path / "catalog"))
    monkeypatch.setenv(fleet_state.JOBS_ENV, "1")
    monkeypatch.delenv("API_KEY", raising=False)
    yield root


def built(fleet_root: Path) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page(PAGE).run()
    no_exception(at)
    at.text_input(key=w("folder")).input("runs")
    at.button(key=w("build")).click().run()
    job = at.session_state[keys.K_FLEET_JOB]
    job.thread.join(timeout=120)  # the build runs in a thread of this process
    assert not job.running
    at.run()
    no_exception(at)
    return at


def test_the_tau_bench_file_opens_with_a_recommendation(fleet_root: Path, tmp_path: Path) -> None:
    at = built(fleet_root)
    job = at.session_state[keys.K_FLEET_JOB]
    fleet = job.fleet
    assert fleet is not None and len(fleet.runs) == 200
    grid = FleetGrid(ratios=ratio_steps(0.5, 0.95, 0.05), keeps=(0, 2, 4, 8), min_targets=(0.1,))
    expected = run_fleet([fleet_root / "runs"], grid, Catalog(tmp_path / "other"), InlineExecutor())
    assert fleet.recommendation == expected.recommendation and fleet.settings == expected.settings
    ratio, keep, target = expected.recommendation.setting or (None, None, None)
    shown = texts(at)
    assert (  # named as Tune and the sidebar name the setting
        f"Use trigger_context_ratio {ratio:g}, keep_recent_messages {keep}, min_target_context_ratio {target:g}."
        in shown
    )
    assert next(m.value for m in at.metric if m.label == "Runs") == "200"
    assert [m.value for m in at.metric if m.label == "Unreadable"] == ["1"]
    tables = [frame.value for frame in at.dataframe]
    assert any("cut.json" in str(table.to_dict()) for table in tables)  # the unreadable file, with its reason
    runs = next(table for table in tables if "Model calls" in table.columns)
    assert len(runs) == 200 and runs["Messages"].sum() == sum(r.messages for r in fleet.runs)


def test_the_runs_table_filters_in_the_catalog(fleet_root: Path) -> None:
    at = built(fleet_root)
    fleet = at.session_state[keys.K_FLEET_JOB].fleet
    at.number_input(key=w("min_tokens")).set_value(3000).run()
    no_exception(at)
    expected = sum(1 for run in fleet.runs if run.context_tokens >= 3000)
    assert f"{min(expected, 200):,} of {expected:,} matching runs shown" in texts(at)


def test_a_run_opens_on_span_and_trigger_with_the_fleets_setting(fleet_root: Path) -> None:
    at = built(fleet_root)
    fleet = at.session_state[keys.K_FLEET_JOB].fleet
    ratio, keep, target = fleet.recommendation.setting
    at.button(key=w("open_span")).click().run()
    no_exception(at)
    assert at.session_state[keys.W_TRIGGER] == ratio
    assert at.session_state[keys.W_KEEP] == keep
    assert at.session_state[keys.W_MIN_TARGET] == target
    assert at.session_state[keys.W_CAPACITY_MODE] == "number"
    selected = at.session_state[keys.W_CONVERSATION]
    assert selected.startswith("fleet:") and TAU.name in selected
    assert [title.value for title in at.title] == ["Span & trigger"]


def test_a_build_can_be_cancelled_and_what_it_wrote_stays(fleet_root: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page(PAGE).run()
    at.text_input(key=w("folder")).input("runs")
    at.button(key=w("build")).click().run()
    job = at.session_state[keys.K_FLEET_JOB]
    job.cancel.set()
    job.thread.join(timeout=120)
    at.run()
    no_exception(at)
    # the build stops after the file it is reading (the large one is read first): the rest waits for the next build
    assert job.fleet is not None and job.fleet.counts.cancelled
    assert "Cancelled" in texts(at)


def test_before_a_build_the_page_says_what_to_do_and_offers_the_bundled_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(roots.ROOTS_ENV, raising=False)  # the default roots: dumps/ first, then the samples
    monkeypatch.setenv("COMPACTION_LAB_CATALOG", str(tmp_path / "catalog"))
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page(PAGE).run()
    no_exception(at)
    assert roots.configured_roots()[0].name == "dumps"
    assert at.selectbox(key=w("root")).value == roots.configured_roots().index(roots.SAMPLES_DIR)
    assert "then press Build and sweep." in texts(at)


def test_a_folder_without_runs_says_so_and_draws_no_empty_chart(
    fleet_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fleet_root / "dumps").mkdir()
    (fleet_root / "dumps" / "notes.json").write_text('{"not": "a conversation"}', encoding="utf-8")
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    at.switch_page(PAGE).run()
    at.text_input(key=w("folder")).input("dumps")
    at.button(key=w("build")).click().run()
    job = at.session_state[keys.K_FLEET_JOB]
    job.thread.join(timeout=120)
    at.run()
    no_exception(at)
    assert [m.value for m in at.metric if m.label == "Runs"] == ["0"]
    assert any(info.value.startswith("No run was found there") for info in at.info)
    assert "1 file could not be read as runs" in [e.label for e in at.expander]
    assert "Recommendation" not in [header.value for header in at.subheader]
    assert len(at.get("plotly_chart")) == 0
