"""``recommend()``: the setting to use from a sweep, with the reasons for the choice as codes and numbers.

Invariant: the choice depends only on the sweep's outcomes and the headroom; ties are broken in a fixed order;
the library says *why* as ``Reason`` codes with their numbers, and every renderer words the same codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import ConfigError
from .sweep import Sweep
from .values import Outcome

ReasonCode = Literal[
    "no_steps",  # the run has no model call: nothing to simulate
    "none_qualify",  # no setting keeps the headroom (limit, limit_tokens)
    "lowest_peak",  # the lowest peak of the grid and its setting
    "only_after_request",  # what can be tried when none qualifies
    "qualifying",  # how many settings keep the headroom (qualifying, considered, limit, limit_tokens)
    "highest_ratio",  # the highest trigger ratio among them (ratio)
    "tie_break",  # several settings share that ratio: how the pick won (tied, keep, min_target, …)
    "compaction_cost",  # the pick's compactions and what they send (compactions, compaction_input_tokens)
    "never_fires",  # with the pick, compaction never fires on this run
    "peak",  # the pick's peak and the agent's input with and without compaction
]


@dataclass(frozen=True)
class Reason:
    """One reason for the choice: a code and the numbers a renderer needs to word it."""

    code: ReasonCode
    values: dict[str, int | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, **self.values}


@dataclass(frozen=True, kw_only=True)
class Recommendation:
    """The setting to use (None when none qualifies) and the reasons for the choice."""

    headroom: float
    setting: Outcome | None
    reasons: tuple[Reason, ...]
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

    @property
    def codes(self) -> tuple[ReasonCode, ...]:
        return tuple(reason.code for reason in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "headroom": self.headroom,
            "trigger_context_ratio": self.trigger_context_ratio,
            "keep_recent_messages": self.keep_recent_messages,
            "min_target_context_ratio": self.min_target_context_ratio,
            "setting": self.setting.to_dict() if self.setting else None,
            "reasons": [reason.to_dict() for reason in self.reasons],
            "qualifying": self.qualifying,
            "considered": self.considered,
        }


def _setting(outcome: Outcome) -> dict[str, int | float]:
    return {
        "ratio": outcome.trigger_context_ratio,
        "keep": outcome.keep_recent_messages,
        "min_target": outcome.min_target_context_ratio,
    }


def recommend(swept: Sweep, *, headroom: float = 0.1) -> Recommendation:
    """The highest trigger ratio whose peak stays at or below ``1 - headroom`` of context_max.

    Ties at that ratio go to the fewest compactions, then the cheapest compaction calls, then the fewest
    tokens the agent sends, then the smaller keep and min target (a stable, explainable order).
    """
    if not 0.0 <= headroom < 1.0:
        raise ConfigError(f"headroom: {headroom:g} must be a share of context_max, 0 ≤ h < 1")
    outcomes = swept.outcomes
    limit = 1.0 - headroom
    bound = {"limit": limit, "limit_tokens": int(swept.context_max * limit)}
    if swept.steps == 0:
        return Recommendation(
            headroom=headroom, setting=None, reasons=(Reason("no_steps"),), qualifying=0, considered=len(outcomes)
        )
    qualifying = [o for o in outcomes if o.peak_tokens <= swept.context_max * limit]
    if not qualifying:
        lowest = min(outcomes, key=lambda o: (o.peak_tokens, o.compactions, o.compaction_input_tokens))
        reasons = (
            Reason("none_qualify", bound),
            Reason(
                "lowest_peak",
                {"peak_tokens": lowest.peak_tokens, "peak_utilisation": lowest.peak_utilisation, **_setting(lowest)},
            ),
            Reason("only_after_request"),
        )
        return Recommendation(headroom=headroom, setting=None, reasons=reasons, qualifying=0, considered=len(outcomes))
    best_ratio = max(o.trigger_context_ratio for o in qualifying)
    at_ratio = sorted(
        (o for o in qualifying if o.trigger_context_ratio == best_ratio),
        key=lambda o: (o.compactions, o.compaction_input_tokens, o.agent_input_tokens,
                       o.keep_recent_messages, o.min_target_context_ratio),
    )
    chosen = at_ratio[0]
    cost: dict[str, int | float] = {
        "compactions": chosen.compactions, "compaction_input_tokens": chosen.compaction_input_tokens
    }
    reasons_list = [
        Reason("qualifying", {"qualifying": len(qualifying), "considered": len(outcomes), **bound}),
        Reason("highest_ratio", {"ratio": best_ratio}),
    ]
    if len(at_ratio) > 1:
        reasons_list.append(Reason("tie_break", {"tied": len(at_ratio), **_setting(chosen), **cost}))
    elif chosen.compactions:
        reasons_list.append(Reason("compaction_cost", cost))
    if chosen.compactions == 0:
        reasons_list.append(Reason("never_fires"))
    reasons_list.append(
        Reason(
            "peak",
            {
                "peak_tokens": chosen.peak_tokens,
                "peak_utilisation": chosen.peak_utilisation,
                "agent_input_tokens": chosen.agent_input_tokens,
                "agent_input_tokens_uncompacted": chosen.agent_input_tokens_uncompacted,
            },
        )
    )
    return Recommendation(
        headroom=headroom, setting=chosen, reasons=tuple(reasons_list), qualifying=len(qualifying),
        considered=len(outcomes),
    )
