"""``compaction-lab score``: the JSON shape of issue 11, the table, dumps, offline and live re-summaries, probe
estimates, and bad input as one line with exit 2."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from compressor.cli import main
from compressor.quality import CATEGORIES
from tests.conftest import OPENJIUWEN_DUMPS, REPO, TRANSCRIPTS
from tests.support.openai_server import ScriptedServer

ENGRAM = str(TRANSCRIPTS / "engram-claude-code-diffusion.jsonl")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def no_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("API_BASE", "API_KEY", "MODEL_NAME"):
        monkeypatch.delenv(name, raising=False)


class TestRecorded:
    def test_json_has_the_issues_shape(self) -> None:
        code, out, err = run("score", ENGRAM, "--json")
        assert code == 0 and err == ""
        document = json.loads(out)
        assert len(document["compactions"]) == 3 and document["summary"] == "recorded"
        first = document["compactions"][0]
        assert {
            "index",
            "source",
            "span",
            "span_tokens",
            "summary_tokens",
            "summary",
            "retention",
            "lost",
        } <= set(first)
        assert first["index"] == 300 and first["span"] == [0, 300] and first["source"] == "recorded"
        assert set(first["retention"]) == set(CATEGORIES)
        assert first["retention"]["paths"]["kept"] == 38 and first["retention"]["paths"]["total"] == 83
        assert all({"text", "index"} <= set(item) for item in first["lost"]["paths"])
        assert document["overall"]["retention"]["commands"] == {
            "kept": 1,
            "total": 162,
            "exact": 0,
            "elsewhere": 0,
            "lost": 161,
            "ratio": 0.0062,
        }
        assert document["decay"]["steps"][0]["number"] == 1

    def test_the_table(self) -> None:
        code, out, _ = run("score", ENGRAM)
        assert code == 0
        assert "3 compactions, summary: recorded" in out
        assert "86/220" in out and "commands kept verbatim: 0/162" in out
        assert "decay of what compaction 0 kept" in out and "lost in 0, paths:" in out


def test_offline_keeps_the_evidence_within_claudes_size() -> None:
    code, out, _ = run("score", ENGRAM, "--summary", "offline", "--json")
    document = json.loads(out)
    overall = document["overall"]
    assert code == 0 and document["summary"] == "offline"
    assert overall["retention"]["paths"]["kept"] == overall["retention"]["paths"]["total"] == 220
    assert overall["retention"]["commands"]["exact"] / overall["retention"]["commands"]["total"] >= 0.5
    assert overall["memory_tokens"] <= 10_500  # Claude's three summaries
    assert {c["source"] for c in document["compactions"]} == {"offline"}


class TestDumps:
    def test_a_folder_scores_every_dump(self) -> None:
        code, out, _ = run("score", str(OPENJIUWEN_DUMPS), "--json")
        document = json.loads(out)
        assert code == 0 and len(document["compactions"]) == 3
        assert {c["source"] for c in document["compactions"]} == {"dump"}

    def test_one_dump_file(self) -> None:
        path = sorted(OPENJIUWEN_DUMPS.glob("compact000/*.json"))[0]
        code, out, _ = run("score", str(path), "--json")
        assert code == 0 and len(json.loads(out)["compactions"]) == 1

    def test_our_demo_dumps_as_a_table(self) -> None:
        code, out, _ = run("score", str(REPO / "dumps" / "demo"))
        assert code == 0 and "dumps/demo  [3 compactions, summary: recorded]" in out


class TestLive:
    def test_without_an_endpoint_it_is_bad_input(self) -> None:
        code, out, err = run("score", ENGRAM, "--summary", "live")
        assert code == 2 and out == "" and err.count("\n") == 1 and "--api-base" in err

    def test_each_recorded_span_goes_to_the_endpoint(self) -> None:
        replies = [
            f"<state_snapshot>Part {n}: edited /Users/sjonas/diffusion/plan.md</state_snapshot>"
            for n in range(3)
        ]
        with ScriptedServer(replies) as server:
            code, out, _ = run(
                "score", ENGRAM, "--summary", "live", "--api-base", server.url, "--model", "m", "--json"
            )
            assert server.calls == 3
        compactions = json.loads(out)["compactions"]
        assert code == 0 and [c["summary"] for c in compactions] == [r[16:-17] for r in replies]
        assert {c["source"] for c in compactions} == {"live"} and compactions[0]["retention"]["paths"][
            "kept"
        ] >= 1

    def test_a_run_without_compactions_makes_no_call(self, tmp_path: Path) -> None:
        run_file = tmp_path / "run.json"
        run_file.write_text(
            json.dumps(
                [
                    {"role": "user", "content": "Fix src/a.py."},
                    {"role": "assistant", "content": "Editing src/a.py."},
                ]
            ),
            encoding="utf-8",
        )
        # A run without recorded compactions has nothing to score: no call is made.
        with ScriptedServer([]) as server:
            code, out, err = run(
                "score",
                str(run_file),
                "--summary",
                "live",
                "--api-base",
                server.url,
                "--model",
                "m",
                "--json",
            )
            assert server.calls == 0
        assert code == 0 and json.loads(out)["compactions"] == [] and "no recorded compactions" in err


class TestProbes:
    DUMP = sorted(OPENJIUWEN_DUMPS.glob("compact000/*.json"))[0]

    def test_estimated_before_anything_is_spent(self) -> None:
        code, out, _ = run("score", str(OPENJIUWEN_DUMPS), "--probes", "--json")
        probes = json.loads(out)["probes"]
        assert code == 0 and probes["estimate"]["calls"] > 0 and probes["compactions"] == []
        code, out, _ = run("score", str(OPENJIUWEN_DUMPS), "--probes")
        assert "(add --yes to run it)" in out

    def test_with_yes_each_probe_is_answered_twice_and_graded(self) -> None:
        _, out, _ = run("score", str(self.DUMP), "--probes", "--json")
        calls = json.loads(out)["probes"]["estimate"]["calls"]
        scores = {
            side: dict.fromkeys(
                (
                    "accuracy",
                    "context_awareness",
                    "artifact_trail",
                    "completeness",
                    "continuity",
                    "instruction_following",
                ),
                3,
            )
            for side in ("1", "2")
        }
        script = ["an answer", "another answer", json.dumps(scores)] * (calls // 3)
        with ScriptedServer(script) as server:
            code, out, err = run(
                "score",
                str(self.DUMP),
                "--probes",
                "--yes",
                "--api-base",
                server.url,
                "--model",
                "m",
                "--json",
            )
            assert server.calls == calls
        (graded,) = json.loads(out)["probes"]["compactions"]
        assert code == 0, err
        assert graded["overall"] == {"before": 3.0, "after": 3.0, "share_of_ceiling": 1.0}

    def test_yes_without_an_endpoint_is_bad_input(self) -> None:
        code, _, err = run("score", str(self.DUMP), "--probes", "--yes")
        assert code == 2 and "--api-base" in err


def test_a_missing_file_is_one_line() -> None:
    code, out, err = run("score", "/nonexistent/run.jsonl")
    assert code == 2 and out == "" and err.count("\n") == 1
