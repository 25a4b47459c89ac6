"""The command line words its counts as English does: "1 call", "3 calls", never "call(s)"."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from compressor.cli import fleet as fleet_cli
from compressor.cli import main
from compressor.cli import simulate as simulate_cli
from compressor.cost import LoopFlag
from compressor.fleet.values import FleetReason, Hurt


@pytest.mark.parametrize(
    "templates",
    [simulate_cli.FLAG_WORDS, fleet_cli.FLEET_WORDS, fleet_cli.HURT_WORDS],
    ids=["flags", "fleet", "hurt"],
)
def test_no_template_hedges_its_plural(templates: dict[str, str]) -> None:
    assert not [text for text in templates.values() if "(s)" in text]


@pytest.mark.parametrize(("n", "word"), [(1, "1 call"), (3, "3 calls"), (1200, "1,200 calls")])
def test_a_loop_flag_and_a_hurt_run_count_their_calls(n: int, word: str) -> None:
    flag = LoopFlag("refires", {"calls": n, "limit": 2})
    assert simulate_cli.flag_text(flag) == f"fires again {word} after the last attempt (limit 2)"
    hurt = Hurt(code="overflows", values={"steps_over_capacity": n, "peak_utilisation": 1.25})
    assert fleet_cli.hurt_text(hurt, "tokens") == f"{word} over capacity (peak 125.0%)"


def test_the_fleet_recommendation_counts_flagged_runs_and_attempts() -> None:
    assert fleet_cli.reason_text(FleetReason(code="loop_flagged", values={"runs": 1}), 0.1) == (
        "with it a loop flag on 1 run"
    )
    assert fleet_cli.reason_text(FleetReason(code="loop_flagged", values={"runs": 4}), 0.1) == (
        "with it a loop flag on 4 runs"
    )
    assert (
        fleet_cli.hurt_text(Hurt(code="loop_flagged", values={"flagged": 2}), "usd")
        == "a loop flag on 2 attempts"
    )


def test_inspect_counts_its_turns_in_words(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text(
        json.dumps(
            [
                {"role": "user", "content": "list the files"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": "c1", "name": "ls", "arguments": "{}"}],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": "c2", "name": "ls", "arguments": "{}"}],
                },
            ]
        ),
        encoding="utf-8",
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["inspect", str(run)], out=out, err=err) == 0, err.getvalue()
    assert "1 tool result for 2 tool calls (1 call unanswered)" in out.getvalue()
