"""A sweep's setting may take another setting's play (``Player.play_grid``: a higher ratio whose threshold every
attempt of a lower one's play reached, a larger keep every span of a smaller one's play left a tail that long): every
outcome and every attempt equals the setting's own play, on the sample transcripts, messy runs and generated runs.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from compressor.messages import Conversation
from compressor.replay import sweep
from compressor.replay.index import run_index
from compressor.replay.player import Played, Player
from compressor.replay.strategies import PlayerOptions, make_player
from compressor.replay.values import SummaryModel
from compressor.tokens import get_counter
from tests.compressor.test_simulate import generated, messy, transcripts

RATIOS = (0.3, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 0.95)
KEEPS = (0, 1, 2, 3, 4, 5, 6, 8, 10)
TARGETS = (0.0, 0.05, 0.15)


class Counting(Player):
    """The openJiuwen player, counting the settings it plays itself."""

    played = 0

    def play(self, trigger_ratio: float, keep: int, min_target_ratio: float) -> Played:
        self.played += 1
        return super().play(trigger_ratio, keep, min_target_ratio)


def own_plays(
    conversation: Conversation, *, context_max: int, summary: str, counter: str, hidden: int
) -> dict[tuple[float, int, float], Played]:
    """Every setting played on its own (no attempt shared, no play taken from another setting)."""
    index = run_index(conversation, get_counter(counter))
    options = PlayerOptions(hidden_overhead=hidden)
    player = make_player("openjiuwen", index, context_max, SummaryModel.parse(summary), options)
    return {(r, k, m): player.play(r, k, m) for m in TARGETS for k in KEEPS for r in RATIOS}


def assert_follows(
    conversation: Conversation,
    *,
    context_max: int,
    summary: str = "ratio:0.1",
    counter: str = "cl100k_base",
    hidden: int = 0,
    ratios: Sequence[float] = RATIOS,
) -> int:
    """``play_grid`` gives each setting's own outcome and attempts; returns the settings it played itself."""
    index = run_index(conversation, get_counter(counter))
    player = Counting(index, context_max, SummaryModel.parse(summary), hidden_overhead=hidden, share=True)
    own = own_plays(conversation, context_max=context_max, summary=summary, counter=counter, hidden=hidden)
    for target in TARGETS:
        grid = player.play_grid(ratios, KEEPS, target)
        assert list(grid) == [(r, k) for k in KEEPS for r in ratios]
        for (ratio, keep), played in grid.items():
            expected = own[(ratio, keep, target)]
            assert played.outcome == expected.outcome, (conversation.name, ratio, keep, target)
            assert played.compactions == expected.compactions, (conversation.name, ratio, keep, target)
    return player.played


class TestFollowers:
    @pytest.mark.parametrize("summary", ["ratio:0.1", "fixed:300", "ratio:0.5"])
    def test_generated_runs(self, summary: str) -> None:
        played = settings = 0
        for count, seed in ((60, 1), (140, 2), (300, 3), (400, 4)):
            played += assert_follows(generated(count, seed), context_max=16_000, summary=summary)
            settings += len(RATIOS) * len(KEEPS) * len(TARGETS)
        # settings do follow others: fewer were played than the grid holds
        assert played < settings * 0.9

    @pytest.mark.parametrize("seed", range(6))
    def test_messy_runs(self, seed: int) -> None:
        for hidden in (0, 40):
            assert_follows(
                messy(seed, 220),
                context_max=5_000,
                counter="string_length",
                summary="fixed:30",
                hidden=hidden,
            )

    def test_sample_transcripts(self) -> None:
        for conversation in transcripts():
            for context_max in (8_000, 30_000):
                assert_follows(conversation, context_max=context_max)

    def test_offline_summaries(self) -> None:
        assert_follows(generated(120, 3), context_max=8_000, summary="offline", ratios=(0.5, 0.6, 0.9))

    def test_a_player_that_does_not_follow_plays_every_setting(self) -> None:
        index = run_index(generated(300, 3), get_counter("cl100k_base"))
        player = Counting(index, 16_000, SummaryModel.parse("ratio:0.1"), share=True)
        player.follows = False
        player.play_grid(RATIOS, KEEPS, 0.05)
        assert player.played == len(RATIOS) * len(KEEPS)

    @pytest.mark.parametrize("strategy", ["masking", "hybrid"])
    def test_the_baselines_play_every_setting(self, strategy: str) -> None:
        index = run_index(generated(300, 3), get_counter("cl100k_base"))
        player = make_player(strategy, index, 16_000, SummaryModel.parse("ratio:0.1"), PlayerOptions())
        assert not player.follows

    def test_sweep_takes_the_grid_in_its_order(self) -> None:
        conversation = generated(300, 5)
        swept = sweep(
            conversation,
            ratios=RATIOS,
            keeps=KEEPS,
            min_targets=TARGETS,
            context_max=16_000,
            summary="ratio:0.1",
        )
        own = own_plays(
            conversation, context_max=16_000, summary="ratio:0.1", counter="cl100k_base", hidden=0
        )
        assert [o.key for o in swept.outcomes] == [(r, k, m) for m in TARGETS for k in KEEPS for r in RATIOS]
        for outcome, attempts in zip(swept.outcomes, swept.attempts, strict=True):
            assert outcome == own[outcome.key].outcome
            assert attempts == own[outcome.key].compactions
