"""``compaction-lab fleet``: the JSON document, the readable report, the HTML report, and bad flags as one line."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from compressor.cli.main import main
from tests.conftest import TRANSCRIPTS

from .runs import TAU_BENCH_5, write_fleet


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    write_fleet(runs, 4)
    shutil.copy(TAU_BENCH_5, runs / "tau.json")
    (runs / "broken.json").write_text("{", encoding="utf-8")
    return runs


def test_json_has_runs_broken_settings_and_the_recommendation(folder: Path, tmp_path: Path) -> None:
    code, out, _ = run(
        "fleet",
        str(folder),
        "--catalog",
        str(tmp_path / "c"),
        "--jobs",
        "1",
        "--ratios",
        "0.6,0.8",
        "--keeps",
        "0,2",
        "--context-max",
        "6000",
        "--share",
        "0.5",
        "--json",
    )
    assert code == 0
    document = json.loads(out)
    assert {"runs", "broken", "settings", "recommendation"} <= set(document)
    assert len(document["runs"]) == 9 and [Path(b["path"]).name for b in document["broken"]] == [
        "broken.json"
    ]
    assert len(document["settings"]) == 4
    setting = document["settings"][0]
    assert {
        "compacting_share",
        "compactions",
        "peak_utilisation",
        "overflowing",
        "tokens",
        "loop_flags",
        "retention",
    } <= set(setting)
    assert set(setting["compactions"]) == {"p50", "p95", "max"}
    recommendation = document["recommendation"]
    assert recommendation["share"] == 0.5 and recommendation["trigger_context_ratio"] in (0.6, 0.8)
    assert all("recommended" in row for row in document["runs"])


def test_the_report_words_the_codes_and_writes_html(folder: Path, tmp_path: Path) -> None:
    report = tmp_path / "fleet.html"
    code, out, _ = run(
        "fleet",
        str(folder),
        "--catalog",
        str(tmp_path / "c"),
        "--jobs",
        "1",
        "--ratios",
        "0.7",
        "--keeps",
        "0",
        "--context-max",
        "6000",
        "--share",
        "0.5",
        "--html",
        str(report),
    )
    assert code == 0
    assert "recommendation: trigger 0.7" in out and "unreadable:" in out and "broken.json" in out
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "<script" not in page


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--ratios", "1.5"], "ratios"),
        (["--keeps", "x"], "--keeps"),
        (["--summary", "huge"], "summary"),
        (["--headroom", "1"], "--headroom"),
        (["--share", "0"], "--share"),
        (["--jobs", "0"], "--jobs"),
        (["--price-model", "no-such-model"], "--price-model"),
    ],
)
def test_a_bad_flag_is_one_line_and_exit_2(
    folder: Path, tmp_path: Path, flags: list[str], problem: str
) -> None:
    code, out, err = run("fleet", str(folder), "--catalog", str(tmp_path / "c"), *flags)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and problem in err


def test_a_price_model_bills_every_run_in_usd(folder: Path, tmp_path: Path) -> None:
    code, out, _ = run(
        "fleet",
        str(folder),
        "--catalog",
        str(tmp_path / "c"),
        "--jobs",
        "1",
        "--ratios",
        "0.6,0.8",
        "--keeps",
        "0",
        "--context-max",
        "6000",
        "--share",
        "0.5",
        "--price-model",
        "gpt-4o",
        "--json",
    )
    assert code == 0
    document = json.loads(out)
    assert document["recommendation"]["unit"] == "usd"
    assert [r["code"] for r in document["recommendation"]["reasons"]][2] == "cheapest_price"
    assert all(s["unit"] == "usd" and s["cost"] > 0 for s in document["settings"])


def test_no_path_and_no_runs_are_bad_input(tmp_path: Path) -> None:
    assert run("fleet", "--catalog", str(tmp_path / "c"))[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run("fleet", str(empty), "--catalog", str(tmp_path / "c"), "--jobs", "1")
    assert code == 2 and "no run files found" in err


def test_standard_reads_the_agents_own_folders_under_a_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    session = tmp_path / "home" / ".claude" / "projects" / "demo" / "session.jsonl"
    session.parent.mkdir(parents=True)
    shutil.copy(TRANSCRIPTS / "claude-code-session.jsonl", session)
    code, out, err = run(
        "fleet",
        "--standard",
        "--home",
        str(tmp_path / "home"),
        "--catalog",
        str(tmp_path / "c"),
        "--jobs",
        "1",
        "--ratios",
        "0.8",
        "--keeps",
        "0",
        "--json",
    )
    assert code == 0, err
    [only] = json.loads(out)["runs"]
    assert only["path"] == str(session) and only["agent"] == "claude-code"
