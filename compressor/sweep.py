"""``sweep()`` over trigger ratio × keep × min target, and ``recommend()`` a setting from it.

Invariant: every setting of a sweep is played back on one shared run index (counts, prefix sums, uncompacted
windows computed once), and its outcome equals ``simulate(...).outcome`` for the same setting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .backends import Backend
from .errors import ConfigError
from .messages import Conversation
from .outcome import Outcome, SummaryModel
from .playback import Player
from .runindex import run_index
from .tokens import TokenCounter, get_counter
from .windows import Capacity, resolve_context_max

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

    @property
    def context_max(self) -> int:
        return self.capacity.tokens

    def outcome(self, ratio: float, keep: int, min_target: float) -> Outcome | None:
        for outcome in self.outcomes:
            if outcome.key == (ratio, keep, min_target):
                return outcome
        return None

    def grid(self, metric: Metric, min_target: float | None = None) -> list[list[float | int | None]]:
        """``metric`` as rows of keeps × columns of ratios, for one min target (the first by default)."""
        target = self.min_targets[0] if min_target is None else min_target
        by_key = {outcome.key: outcome for outcome in self.outcomes}
        return [
            [_metric(by_key.get((ratio, keep, target)), metric) for ratio in self.ratios] for keep in self.keeps
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "counter": self.counter,
            "summary": self.summary,
            "context_max": self.context_max,
            "context_max_source": self.capacity.source,
            "steps": self.steps,
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
) -> Sweep:
    """Play the run back under every setting of the grid (see ``simulate`` for what each number means).

    Counts, prefix sums and the uncompacted windows are computed once per run and counter; each setting then
    costs O(1) per model call below its threshold. A live backend is refused: it would call the model once per
    compaction per setting — sweep with a simulated summary and simulate the chosen setting live.
    """
    ratio_values, keep_values, target_values = validate_grid(ratios, keeps, min_targets)
    if isinstance(summary, Backend):
        raise ConfigError("summary: sweep takes offline, fixed:N or ratio:X; simulate one setting to call a model")
    summary_model = SummaryModel.parse(summary)
    if summary_model.kind == "live":
        raise ConfigError("summary: sweep takes offline, fixed:N or ratio:X; simulate one setting to call a model")
    capacity = resolve_context_max(context_max, model)
    token_counter = get_counter(counter) if isinstance(counter, str) else counter
    index = run_index(conversation, token_counter)
    player = Player(index, capacity.tokens, summary_model)
    outcomes = tuple(
        player.play(ratio, keep, target).outcome
        for target in target_values
        for keep in keep_values
        for ratio in ratio_values
    )
    return Sweep(
        ratios=ratio_values,
        keeps=keep_values,
        min_targets=target_values,
        outcomes=outcomes,
        capacity=capacity,
        counter=token_counter.name,
        summary=summary_model.label,
        source=conversation.name,
        steps=len(index.call_points),
    )


# -- recommendation --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recommendation:
    """The setting to use (None when none qualifies) and the plain sentences that explain the choice."""

    headroom: float
    setting: Outcome | None
    reasoning: tuple[str, ...]
    qualifying: int
    considered: int

    @property
    def trigger_context_ratio(self) -> float | None:
        return self.setting.trigger_context_ratio if self.setting else None

    @property
    def keep_recent_messages(self) -> int | None:
        return self.setting.keep_recent_messages if self.setting else None

    @property
    def min_target_context_ratio(self) -> float | None:
        return self.setting.min_target_context_ratio if self.setting else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "headroom": self.headroom,
            "trigger_context_ratio": self.trigger_context_ratio,
            "keep_recent_messages": self.keep_recent_messages,
            "min_target_context_ratio": self.min_target_context_ratio,
            "setting": self.setting.to_dict() if self.setting else None,
            "reasoning": list(self.reasoning),
            "qualifying": self.qualifying,
            "considered": self.considered,
        }


def _describe(outcome: Outcome) -> str:
    return (
        f"trigger_context_ratio {outcome.trigger_context_ratio:g}, keep_recent_messages "
        f"{outcome.keep_recent_messages}, min_target_context_ratio {outcome.min_target_context_ratio:g}"
    )


def recommend(swept: Sweep, *, headroom: float = 0.1) -> Recommendation:
    """The highest trigger ratio whose peak stays at or below ``1 - headroom`` of context_max.

    Ties at that ratio go to the fewest compactions, then the cheapest compaction calls, then the fewest
    tokens the agent sends, then the smaller keep and min target (a stable, explainable order).
    """
    if not 0.0 <= headroom < 1.0:
        raise ConfigError(f"headroom: {headroom:g} must be a share of context_max, 0 ≤ h < 1")
    outcomes = swept.outcomes
    limit = 1.0 - headroom
    limit_tokens = int(swept.context_max * limit)
    if swept.steps == 0:
        return Recommendation(headroom, None, (
            "The run has no assistant messages, so there is no model call to simulate and nothing to recommend.",
        ), 0, len(outcomes))
    qualifying = [o for o in outcomes if o.peak_tokens <= swept.context_max * limit]
    if not qualifying:
        lowest = min(outcomes, key=lambda o: (o.peak_tokens, o.compactions, o.compaction_input_tokens))
        return Recommendation(headroom, None, (
            f"No setting keeps the context at or below {limit:.0%} of context_max ({limit_tokens:,} tokens) "
            f"at every model call.",
            f"The lowest peak is {lowest.peak_tokens:,} tokens ({lowest.peak_utilisation:.1%}), with {_describe(lowest)}.",
            "CurrentRoundCompressor only compacts the work after the latest user request; what came before it "
            "stays, so try lower trigger ratios, a lower min_target_context_ratio, fewer kept messages, "
            "less headroom or a larger context.",
        ), 0, len(outcomes))
    best_ratio = max(o.trigger_context_ratio for o in qualifying)
    at_ratio = [o for o in qualifying if o.trigger_context_ratio == best_ratio]
    at_ratio.sort(key=lambda o: (o.compactions, o.compaction_input_tokens, o.agent_input_tokens,
                                 o.keep_recent_messages, o.min_target_context_ratio))
    chosen = at_ratio[0]
    reasoning = [
        f"{len(qualifying)} of {len(outcomes)} settings keep the context at or below {limit:.0%} of context_max "
        f"({limit_tokens:,} tokens) at every model call.",
        f"The highest trigger_context_ratio among them is {best_ratio:g}: compaction waits longest, so the agent "
        "keeps the most of its raw work in context.",
    ]
    if len(at_ratio) > 1:
        reasoning.append(
            f"Of the {len(at_ratio)} settings at that ratio, keep_recent_messages {chosen.keep_recent_messages} with "
            f"min_target_context_ratio {chosen.min_target_context_ratio:g} needs the fewest compactions "
            f"({chosen.compactions}) and the least compaction input ({chosen.compaction_input_tokens:,} tokens)."
        )
    elif chosen.compactions:
        reasoning.append(
            f"It needs {chosen.compactions} compaction(s), sending {chosen.compaction_input_tokens:,} tokens "
            "to the compaction model."
        )
    if chosen.compactions == 0:
        reasoning.append("With it, compaction never fires on this run: the context stays within the limit without it.")
    reasoning.append(
        f"Its context peaks at {chosen.peak_tokens:,} tokens ({chosen.peak_utilisation:.1%} of context_max), and the "
        f"agent sends {chosen.agent_input_tokens:,} input tokens over the run instead of "
        f"{chosen.agent_input_tokens_uncompacted:,} without compaction."
    )
    return Recommendation(headroom, chosen, tuple(reasoning), len(qualifying), len(outcomes))
