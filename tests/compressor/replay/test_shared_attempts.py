"""A sweep's settings share the compaction attempts they make alike (``Compacting._attempt``): every outcome and
every attempt equals what a player that computes each attempt itself gives, on the sample transcripts, messy
runs and generated runs, for whole grids and every summary size model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from compressor.messages import Conversation
from compressor.replay import sweep
from compressor.replay.index import run_index
from compressor.replay.player import Played, Player
from compressor.replay.strategies import PlayerOptions, make_player
from compressor.replay.values import SummaryModel
from compressor.tokens import get_counter
from tests.compressor.test_simulate import generated, messy, transcripts

RATIOS = (0.3, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 0.95)
KEEPS = (0, 1, 2, 3, 5, 8)
TARGETS = (0.0, 0.05, 0.15)
SMALL_GRID = ((0.5, 0.6, 0.7, 0.8, 0.9), (0, 1, 3, 8), (0.0, 0.15))


def played(
    conversation: Conversation,
    *,
    share: bool,
    context_max: int,
    summary: str,
    counter: str = "cl100k_base",
    hidden: int = 0,
    grid: tuple[Sequence[float], Sequence[int], Sequence[float]] = (RATIOS, KEEPS, TARGETS),
) -> tuple[Player, list[Played]]:
    index = run_index(conversation, get_counter(counter))
    player = make_player(
        "openjiuwen",
        index,
        context_max,
        SummaryModel.parse(summary),
        PlayerOptions(hidden_overhead=hidden, share=share),
    )
    ratios, keeps, targets = grid
    plays = [player.play(r, k, m) for m in targets for k in keeps for r in ratios]
    return player, plays


def assert_same(conversation: Conversation, **kwargs: Any) -> Player:
    """The sharing player gives every outcome and attempt of the plain one; returns the sharing player."""
    shared_player, shared = played(conversation, share=True, **kwargs)
    _, plain = played(conversation, share=False, **kwargs)
    for one, other in zip(shared, plain, strict=True):
        assert one.outcome == other.outcome, (conversation.name, one.outcome.key)
        assert one.compactions == other.compactions, (conversation.name, one.outcome.key)
    return shared_player


class TestSharedAttempts:
    @pytest.mark.parametrize("summary", ["ratio:0.1", "fixed:300", "ratio:0.5"])
    def test_generated_runs(self, summary: str) -> None:
        attempts = shared = 0
        for count, seed in ((60, 1), (140, 2), (300, 3)):
            conversation = generated(count, seed)
            player = assert_same(conversation, context_max=16_000, summary=summary)
            _, plays = played(conversation, share=False, context_max=16_000, summary=summary)
            attempts += sum(len(play.compactions) for play in plays)
            assert player.shared is not None
            shared += len(player.shared)
        # the settings do share: fewer attempts were computed than were made
        assert 0 < shared < attempts * 0.9

    @pytest.mark.parametrize("seed", range(6))
    def test_messy_runs(self, seed: int) -> None:
        for hidden in (0, 40):
            assert_same(
                messy(seed, 220),
                context_max=5_000,
                counter="string_length",
                summary="fixed:30",
                hidden=hidden,
            )

    def test_sample_transcripts(self) -> None:
        for conversation in transcripts():
            for context_max in (8_000, 30_000):
                assert_same(conversation, context_max=context_max, summary="ratio:0.1", grid=SMALL_GRID)

    def test_offline_summaries(self) -> None:
        # the offline backend reads each request: a short run and a few ratios
        assert_same(
            generated(120, 3), context_max=8_000, summary="offline", grid=((0.5, 0.9), (0, 2, 5), (0.05,))
        )

    def test_sweep_shares_and_one_setting_does_not(self) -> None:
        conversation = generated(300, 5)
        swept = sweep(
            conversation,
            ratios=RATIOS,
            keeps=KEEPS,
            min_targets=TARGETS,
            context_max=16_000,
            summary="ratio:0.1",
        )
        _, plain = played(conversation, share=False, context_max=16_000, summary="ratio:0.1")
        by_key = {play.outcome.key: play for play in plain}
        for outcome, attempts in zip(swept.outcomes, swept.attempts, strict=True):
            assert outcome == by_key[outcome.key].outcome
            assert attempts == by_key[outcome.key].compactions
        index = run_index(conversation, get_counter("cl100k_base"))
        assert Player(index, 16_000, SummaryModel.parse("ratio:0.1")).shared is None

    @pytest.mark.parametrize("budget", [0, 400])
    def test_past_its_budget_a_sweep_computes_the_attempts_again(self, budget: int) -> None:
        conversation = generated(300, 3)
        index = run_index(conversation, get_counter("cl100k_base"))
        model = SummaryModel.parse("ratio:0.1")
        player = make_player("openjiuwen", index, 16_000, model, PlayerOptions(share=True))
        player.shared_budget = budget
        shared = [player.play(r, k, m) for m in TARGETS for k in KEEPS for r in RATIOS]
        _, plain = played(conversation, share=False, context_max=16_000, summary="ratio:0.1")
        for one, other in zip(shared, plain, strict=True):
            assert one.outcome == other.outcome
            assert one.compactions == other.compactions
        assert player.shared is not None
        kept = sum(len(state[0]) for _, _, state in player.shared.values())
        assert kept == player.shared_positions <= budget
        assert (len(player.shared) > 0) == (budget > 0)
