"""``sweep()`` over trigger ratio × keep × min target: every setting played back on one shared run index.

Invariant: every setting of a sweep is played back on one shared run index (counts, prefix sums, uncompacted
windows computed once), and its outcome equals ``simulate(...).outcome`` for the same setting.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..analysis import run_model_of, run_window_of
from ..backends import Backend
from ..errors import ConfigError
from ..messages import Conversation
from ..reinjection import READ_FILE_TOOLS
from ..tokens import TokenCounter, get_counter
from ..windows import Capacity, resolve_context_max
from .index import run_index
from .masking import MASK_KEEP_RESULTS
from .strategies import PlayerOptions, make_player
from .values import CompactionEvent, Outcome, SummaryModel

Metric = Literal[
    "compactions",
    "compaction_input_tokens",
    "peak_utilisation",
    "peak_tokens",
    "steps_over_capacity",
    "agent_input_tokens",
    "first_trigger_index",
    "refused",
]


@dataclass(frozen=True)
class Sweep:
    """Outcomes of every setting of a grid, ordered min target, then keep, then ratio."""

    ratios: tuple[float, ...]
    keeps: tuple[int, ...]
    min_targets: tuple[float, ...]
    outcomes: tuple[Outcome, ...]
    capacity: Capacity
    counter: str
    summary: str
    source: str
    steps: int
    hidden_overhead: int = 0
    read_tools: tuple[str, ...] = READ_FILE_TOOLS
    strategy: str = "openjiuwen"
    keep_results: int = MASK_KEEP_RESULTS
    #: every setting's compaction attempts, in the order of ``outcomes`` (empty for a sweep made by hand)
    attempts: tuple[tuple[CompactionEvent, ...], ...] = field(default=(), repr=False, compare=False)

    @property
    def context_max(self) -> int:
        return self.capacity.tokens

    def outcome(self, ratio: float, keep: int, min_target: float) -> Outcome | None:
        for outcome in self.outcomes:
            if outcome.key == (ratio, keep, min_target):
                return outcome
        return None

    def attempts_of(self, outcome: Outcome) -> tuple[CompactionEvent, ...]:
        """The compaction attempts of one of the sweep's settings (none known for a sweep made by hand)."""
        for position, candidate in enumerate(self.outcomes):
            if candidate is outcome or candidate.key == outcome.key:
                return self.attempts[position] if position < len(self.attempts) else ()
        return ()

    def grid(self, metric: Metric, min_target: float | None = None) -> list[list[float | int | None]]:
        """``metric`` as rows of keeps × columns of ratios, for one min target (the first by default)."""
        target = self.min_targets[0] if min_target is None else min_target
        by_key = {outcome.key: outcome for outcome in self.outcomes}
        return [
            [_metric(by_key.get((ratio, keep, target)), metric) for ratio in self.ratios]
            for keep in self.keeps
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "counter": self.counter,
            "summary": self.summary,
            "context_max": self.context_max,
            "context_max_source": self.capacity.source,
            "steps": self.steps,
            "hidden_overhead": self.hidden_overhead,
            "read_tools": list(self.read_tools),
            "strategy": self.strategy,
            "keep_results": self.keep_results,
            "ratios": list(self.ratios),
            "keeps": list(self.keeps),
            "min_targets": list(self.min_targets),
            "settings": [outcome.to_dict() for outcome in self.outcomes],
        }


def _metric(outcome: Outcome | None, metric: Metric) -> float | int | None:
    if outcome is None:
        return None
    value: float | int | None = getattr(outcome, metric)
    return value


def validate_grid(
    ratios: Iterable[float], keeps: Iterable[int], min_targets: Iterable[float]
) -> tuple[tuple[float, ...], tuple[int, ...], tuple[float, ...]]:
    """The grid sorted and without repeats; a value out of range raises ConfigError naming it."""
    ratio_values = tuple(sorted({float(r) for r in ratios}))
    keep_values = tuple(sorted({int(k) for k in keeps}))
    target_values = tuple(sorted({float(m) for m in min_targets}))
    if not ratio_values or not keep_values or not target_values:
        raise ConfigError("sweep: ratios, keeps and min_targets each need at least one value")
    for ratio in ratio_values:
        if not 0.0 < ratio < 1.0:
            raise ConfigError(f"ratios: {ratio:g} is not a trigger_context_ratio (0 < r < 1)")
    for keep in keep_values:
        if keep < 0:
            raise ConfigError(f"keeps: {keep} is not a keep_recent_messages value (≥ 0)")
    for target in target_values:
        if not 0.0 <= target < 1.0:
            raise ConfigError(f"min_targets: {target:g} is not a min_target_context_ratio (0 ≤ r < 1)")
    return ratio_values, keep_values, target_values


def sweep(
    conversation: Conversation,
    *,
    ratios: Sequence[float],
    keeps: Sequence[int] = (0,),
    min_targets: Sequence[float] = (0.1,),
    context_max: int | None = None,
    model: str | None = None,
    counter: str | TokenCounter = "cl100k_base",
    summary: str | SummaryModel = "offline",
    hidden_overhead: int = 0,
    read_tools: Collection[str] = READ_FILE_TOOLS,
    strategy: str = "openjiuwen",
    keep_results: int = MASK_KEEP_RESULTS,
) -> Sweep:
    """Play the run back under every setting of the grid (see ``simulate`` for what each number means).

    Counts, prefix sums and the uncompacted windows are computed once per run and counter; each setting then
    costs O(1) per model call below its threshold; ``hidden_overhead`` and ``read_tools`` as in ``simulate``. A live
    backend is refused: it would call the model once per
    compaction per setting — sweep with a simulated summary and simulate the chosen setting live. ``strategy`` and
    ``keep_results`` sweep a baseline (``replay.strategies``); keep is openJiuwen's keep_recent_messages.
    """
    ratio_values, keep_values, target_values = validate_grid(ratios, keeps, min_targets)
    if isinstance(summary, Backend):
        raise ConfigError(
            "summary: sweep takes offline, fixed:N or ratio:X; simulate one setting to call a model"
        )
    summary_model = SummaryModel.parse(summary)
    if summary_model.kind == "live":
        raise ConfigError(
            "summary: sweep takes offline, fixed:N or ratio:X; simulate one setting to call a model"
        )
    capacity = resolve_context_max(
        context_max, model, run_model=run_model_of(conversation), run_window=run_window_of(conversation)
    )
    token_counter = get_counter(counter) if isinstance(counter, str) else counter
    tools = tuple(read_tools)
    index = run_index(conversation, token_counter, tools)
    options = PlayerOptions(hidden_overhead=hidden_overhead, keep_results=keep_results, share=True)
    player = make_player(strategy, index, capacity.tokens, summary_model, options)
    # a setting may take another's play (``Player.play_grid``); then the order above
    by_key = {
        (ratio, keep, target): run
        for target in target_values
        for (ratio, keep), run in player.play_grid(ratio_values, keep_values, target).items()
    }
    played = [
        by_key[(ratio, keep, target)]
        for target in target_values
        for keep in keep_values
        for ratio in ratio_values
    ]
    return Sweep(
        ratios=ratio_values,
        keeps=keep_values,
        min_targets=target_values,
        outcomes=tuple(run.outcome for run in played),
        capacity=capacity,
        counter=token_counter.name,
        summary=summary_model.label,
        source=conversation.name,
        steps=len(index.call_points),
        hidden_overhead=hidden_overhead,
        read_tools=tools,
        strategy=strategy,
        keep_results=keep_results,
        attempts=tuple(run.compactions for run in played),
    )
