"""The strategies a replay can play a run with: openJiuwen's current-round compressor and two baselines.

Invariant: one ordered table walked once (``STRATEGIES``); ``openjiuwen`` is the engine the reference tests
hold number for number to openJiuwen, the baselines reuse its trigger, context and cache accounting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..errors import ConfigError
from .index import RunIndex
from .masking import MASK_KEEP_RESULTS, HybridPlayer, MaskingPlayer
from .player import Player
from .values import LiveCompaction, SummaryModel

StrategyName = Literal["openjiuwen", "masking", "hybrid"]


@dataclass(frozen=True, kw_only=True)
class PlayerOptions:
    record: bool = False
    live: LiveCompaction | None = None
    hidden_overhead: int = 0
    keep_results: int = MASK_KEEP_RESULTS  # the baselines: tool results left unmasked
    share: bool = False  # openjiuwen: settings played on one player share their alike attempts (a sweep)


PlayerMaker = Callable[[RunIndex, int, SummaryModel, PlayerOptions], Player]


def _openjiuwen(index: RunIndex, context_max: int, model: SummaryModel, options: PlayerOptions) -> Player:
    return Player(
        index,
        context_max,
        model,
        record=options.record,
        live=options.live,
        hidden_overhead=options.hidden_overhead,
        share=options.share,
    )


def _masking(kind: type[MaskingPlayer]) -> PlayerMaker:
    def make(index: RunIndex, context_max: int, model: SummaryModel, options: PlayerOptions) -> Player:
        return kind(
            index,
            context_max,
            model,
            keep_results=options.keep_results,
            record=options.record,
            hidden_overhead=options.hidden_overhead,
        )

    return make


#: name → how to build its player; the first is the default.
STRATEGIES: dict[str, PlayerMaker] = {
    "openjiuwen": _openjiuwen,  # SPEC §8–§12: summarise the current round
    "masking": _masking(MaskingPlayer),  # replace old tool results by a placeholder, no model call
    "hybrid": _masking(HybridPlayer),  # mask first, summarise when masking is not enough
}
BASELINES: tuple[str, ...] = ("masking", "hybrid")


def make_player(
    strategy: str, index: RunIndex, context_max: int, model: SummaryModel, options: PlayerOptions
) -> Player:
    maker = STRATEGIES.get(strategy)
    if maker is None:
        raise ConfigError(f"strategy: unknown {strategy!r}; use {', '.join(STRATEGIES)}")
    if strategy != "openjiuwen" and options.live is not None:
        raise ConfigError(
            f"strategy: {strategy} is a baseline; it takes offline, fixed:N or ratio:X summaries"
        )
    return maker(index, context_max, model, options)
