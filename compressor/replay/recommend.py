"""``recommend()``: the setting to use from a sweep, with the reasons for the choice.

Invariant: the choice depends only on the sweep's outcomes and the headroom; ties are broken in a fixed order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .sweep import Sweep
from .values import Outcome


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
