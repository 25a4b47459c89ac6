"""The fleet's values: the grid's order and cache keys, an outcome's round trip through the catalog, progress
with its ETA, and the JSON document's shape."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compressor.fleet import FleetGrid, Progress
from compressor.fleet.values import outcome_from_json, outcome_json
from compressor.formats import load_conversation
from compressor.replay import sweep

from .runs import GRID, TAU_BENCH_5


class TestGrid:
    def test_settings_in_sweeps_order(self) -> None:
        conversation = load_conversation(TAU_BENCH_5.parent / "demo-conversation.json")
        swept = sweep(
            conversation,
            ratios=GRID.ratios,
            keeps=GRID.keeps,
            min_targets=GRID.min_targets,
            context_max=16_000,
            summary=GRID.summary,
        )
        assert GRID.settings == tuple(outcome.key for outcome in swept.outcomes)

    @pytest.mark.parametrize(
        "change",
        [
            {"counter": "o200k_base"},
            {"summary": "fixed:500"},
            {"price_model": "gpt-4o"},
            {"model": "gpt-4o"},
        ],
    )
    def test_a_play_key_changes_with_what_changes_an_outcome(self, change: dict[str, str]) -> None:
        other = replace(GRID, **change)
        assert other.play_key(6_000) != GRID.play_key(6_000)

    def test_a_play_key_does_not_change_with_the_grid_or_the_goal(self) -> None:
        other = replace(GRID, ratios=(0.6,), keeps=(9,), headroom=0.3, share=0.5)
        assert other.play_key(6_000) == GRID.play_key(6_000) != GRID.play_key(7_000)
        assert replace(GRID, summary="fixed:9").template_key(6_000) == GRID.template_key(6_000)


def test_an_outcome_round_trips_through_its_json() -> None:
    conversation = load_conversation(TAU_BENCH_5.parent / "demo-conversation.json")
    for outcome in sweep(
        conversation, ratios=(0.5, 0.9), keeps=(0, 4), context_max=16_000, summary="ratio:0.1"
    ).outcomes:
        assert outcome_from_json(outcome_json(outcome)) == outcome


@pytest.mark.parametrize(
    ("done", "total", "elapsed", "eta"),
    [
        (0, 100, 5.0, None),
        (25, 100, 5.0, 15.0),
        (100, 100, 9.0, 0.0),
    ],
)
def test_progress_eta_is_a_straight_line_on_bytes(
    done: int, total: int, elapsed: float, eta: float | None
) -> None:
    progress = Progress(phase="build", total=4, done=1, bytes_total=total, bytes_done=done, elapsed=elapsed)
    assert progress.eta_seconds == eta


def test_a_grid_without_settings_has_none() -> None:
    assert FleetGrid(ratios=(), keeps=(0,), min_targets=(0.1,)).settings == ()
