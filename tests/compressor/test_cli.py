"""The ``compaction-lab`` command: inspect, compact and dumps, good and bad input."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import main
from tests.conftest import SAMPLES
from tests.support.openai_server import ScriptedServer, refused_url

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "dashboard" / "samples" / "demo-conversation.json"
TRANSCRIPTS = SAMPLES / "transcripts"
REQUIRED_INSPECT_KEYS = {
    "source",
    "messages",
    "total_tokens",
    "total_source",
    "context_max",
    "threshold",
    "min_target_tokens",
    "span",
    "effective_keep",
    "last_user_index",
    "model_configured",
    "decision",
    "per_message",
}
REQUIRED_COMPACT_KEYS = {
    "status",
    "reason",
    "decision",
    "span",
    "attempts",
    "calls",
    "tokens_before",
    "tokens_after",
    "reinjection_tokens",
    "summary",
    "messages",
    "dump_path",
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class TestInspect:
    def test_table_names_the_numbers(self) -> None:
        code, out, err = run("inspect", str(DEMO), "--context-max", "16000", "--keep-recent", "3")
        assert code == 0 and err == ""
        assert "threshold" in out and "12,800" in out and "decision" in out

    def test_json_is_one_object_per_conversation(self) -> None:
        code, out, _ = run(
            "inspect", str(TRANSCRIPTS / "swe-agent-function-calling.traj"), str(DEMO), "--json"
        )
        lines = [json.loads(line) for line in out.splitlines()]
        assert code == 0 and len(lines) == 2
        for line in lines:
            assert set(line) >= REQUIRED_INSPECT_KEYS
            assert set(line["span"]) >= {"prefix", "compress", "tail"}
            assert set(line["decision"]) >= {"hit", "reason", "target_tokens"}
            assert set(line["per_message"][0]) == {"index", "role", "tokens", "segment", "internal"}

    def test_several_conversations_in_one_file(self) -> None:
        code, out, _ = run(
            "inspect", str(REPO / "dashboard" / "samples" / "openai-chat-tau-bench-airline-5.json"), "--json"
        )
        assert code == 0 and len(out.splitlines()) == 5

    def test_bad_files_get_one_line_each_and_the_rest_still_run(self, tmp_path: Path) -> None:
        truncated = tmp_path / "truncated.json"
        truncated.write_text('{"messages": [')
        empty = tmp_path / "empty.json"
        empty.write_text("")
        before = digest(truncated)
        code, out, err = run("inspect", str(truncated), str(DEMO), str(empty), "--json")
        assert code == 2
        assert len(out.splitlines()) == 1
        lines = err.splitlines()
        assert len(lines) == 2 and "truncated.json" in lines[0] and "empty.json" in lines[1]
        assert "Traceback" not in err
        assert digest(truncated) == before

    def test_missing_file(self) -> None:
        code, _, err = run("inspect", "/nonexistent/run.json")
        assert code == 2 and "run.json" in err and len(err.splitlines()) == 1

    def test_out_of_range_setting_is_one_line(self) -> None:
        code, _, err = run("inspect", str(DEMO), "--trigger-ratio", "1.5")
        assert code == 2 and "trigger_context_ratio" in err and len(err.splitlines()) == 1

    def test_python_dash_m_is_the_same_command(self) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "compressor", "inspect", str(DEMO), "--json"],
            capture_output=True,
            text=True,
            check=False,
            cwd=REPO,
        )
        assert done.returncode == 0
        assert json.loads(done.stdout)["source"] == "demo-conversation"


class TestCompact:
    def test_offline_json(self, tmp_path: Path) -> None:
        before = digest(DEMO)
        out_file = tmp_path / "after.json"
        code, out, _ = run(
            "compact",
            str(DEMO),
            "--backend",
            "offline",
            "--context-max",
            "16000",
            "--force",
            "--keep-recent",
            "3",
            "--dump-dir",
            str(tmp_path / "dumps"),
            "--out",
            str(out_file),
            "--json",
        )
        result: dict[str, Any] = json.loads(out)
        assert code == 0 and set(result) >= REQUIRED_COMPACT_KEYS
        assert result["status"] == "compacted" and result["tokens_after"] < result["tokens_before"]
        assert Path(result["dump_path"]).exists()
        assert json.loads(out_file.read_text())["messages"][1:] == result["messages"]
        assert digest(DEMO) == before

    def test_replay_of_a_dump(self) -> None:
        dump = next((SAMPLES / "openjiuwen-dumps" / "compact000").glob("*.json"))
        code, out, _ = run("compact", str(DEMO), "--backend", f"replay:{dump}", "--force", "--json")
        result = json.loads(out)
        assert (
            code == 0
            and result["summary"] == json.loads(dump.read_text())["compression_response"]["extracted_summary"]
        )

    def test_against_an_endpoint(self) -> None:
        reply = "<coverage_check>ok</coverage_check><state_snapshot>endpoint summary</state_snapshot>"
        with ScriptedServer([reply]) as server:
            code, out, _ = run(
                "compact", str(DEMO), "--api-base", server.url, "--model", "m", "--force", "--json"
            )
        assert code == 0 and json.loads(out)["summary"] == "endpoint summary"
        assert server.requests[0].body["model"] == "m"

    def test_a_failed_compaction_exits_3(self) -> None:
        code, out, _ = run(
            "compact", str(DEMO), "--api-base", refused_url(), "--model", "m", "--force", "--timeout", "2"
        )
        assert code == 3 and "failed" in out.lower()

    def test_skipped_exits_0(self) -> None:
        code, out, _ = run("compact", str(DEMO), "--backend", "offline", "--context-max", "1000000", "--json")
        assert code == 0 and json.loads(out)["status"] == "skipped"

    def test_bad_input_exits_2(self, tmp_path: Path) -> None:
        bad = tmp_path / "bad.json"
        bad.write_bytes(b"\xff\xfe not utf-8")
        code, _, err = run("compact", str(bad), "--backend", "offline")
        assert code == 2 and "bad.json" in err and len(err.splitlines()) == 1

    def test_unknown_backend_is_bad_input(self) -> None:
        code, _, err = run("compact", str(DEMO), "--backend", "magic")
        assert code == 2 and "magic" in err


class TestDumps:
    def test_index_of_openjiuwen_dumps(self) -> None:
        code, out, _ = run("dumps", str(SAMPLES / "openjiuwen-dumps"), "--json")
        index = json.loads(out)
        assert code == 0 and len(index["dumps"]) == 3 and index["broken"] == []
        row = index["dumps"][0]
        for key in (
            "path",
            "timestamp",
            "session_id",
            "processor_type",
            "tokens_before",
            "tokens_after",
            "reduction_ratio",
            "target_tokens",
            "context_max",
            "prefix_count",
            "compress_count",
            "tail_count",
            "retries",
            "seconds",
        ):
            assert key in row

    def test_the_table_says_how_long_each_took(self) -> None:
        code, out, _ = run("dumps", str(SAMPLES / "openjiuwen-dumps"))
        index = json.loads(run("dumps", str(SAMPLES / "openjiuwen-dumps"), "--json")[1])
        took = [f"took {row['seconds']:.2f} s" for row in index["dumps"]]
        assert code == 0 and all(words in out for words in took) and "retries 1, took 0.08 s" in out

    def test_table_lists_broken_files(self, tmp_path: Path) -> None:
        (tmp_path / "123_CurrentRoundCompressor_x.json").write_text("{")
        code, out, _ = run("dumps", str(tmp_path))
        assert code == 0 and "unreadable" in out

    def test_not_a_directory(self) -> None:
        code, _, err = run("dumps", str(DEMO))
        assert code == 2 and "not a directory" in err


@pytest.mark.parametrize(
    "argv", [["--help"], ["inspect", "--help"], ["compact", "--help"], ["dumps", "--help"]]
)
def test_help_works(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run(*argv)
    assert exit_.value.code == 0
