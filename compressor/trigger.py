"""The ordered trigger decision (SPEC §8): below_threshold, no_compressible_span, target_below_min, hit.

Invariant: the first failing check decides; ``target_tokens`` is known only from check 4 on and
``min_target_tokens`` is recorded only when check 4 fails, exactly as openJiuwen's debug record has them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Reason = Literal["below_threshold", "no_compressible_span", "target_below_min", "reached_threshold"]

#: Plain words for each reason, for the CLI and the dashboard.
REASON_TEXT: dict[str, str] = {
    "below_threshold": "the window is below the trigger threshold",
    "no_compressible_span": "there is nothing to compress after the last user request",
    "target_below_min": "the span to compress is smaller than the minimum worth compressing",
    "reached_threshold": "the window reached the threshold and the span is big enough: compaction fires",
}


def threshold_for(context_max: int, trigger_context_ratio: float) -> int:
    return max(int(context_max * trigger_context_ratio), 1)


def min_target_for(context_max: int, min_target_context_ratio: float) -> int:
    return int(context_max * min_target_context_ratio)


@dataclass(frozen=True)
class Decision:
    total_tokens: int
    context_max: int
    threshold: int
    hit: bool
    reason: Reason
    target_tokens: int | None = None
    min_target_tokens: int | None = None

    def record(self) -> dict[str, Any]:
        """The ``threshold_check`` debug-record fields openJiuwen writes for this decision."""
        out: dict[str, Any] = {
            "total_tokens": self.total_tokens,
            "context_max": self.context_max,
            "threshold": self.threshold,
            "hit": self.hit,
            "reason": self.reason,
        }
        if self.target_tokens is not None:
            out["target_tokens"] = self.target_tokens
        if self.min_target_tokens is not None:
            out["min_target_tokens"] = self.min_target_tokens
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.record(),
            "target_tokens": self.target_tokens,
            "min_target_tokens": self.min_target_tokens,
        }

    def explain(self) -> str:
        """One sentence with the exact numbers."""
        total, threshold = f"{self.total_tokens:,}", f"{self.threshold:,}"
        if self.reason == "below_threshold":
            return f"No compaction: {total} tokens is below the threshold of {threshold}."
        if self.reason == "no_compressible_span":
            return (
                f"No compaction: {total} tokens reached the threshold of {threshold}, "
                "but nothing lies between the last user request and the kept tail."
            )
        if self.reason == "target_below_min":
            return (
                f"No compaction: {total} tokens reached the threshold of {threshold}, but the span holds "
                f"{self.target_tokens:,} tokens, under the minimum of {self.min_target_tokens:,}."
            )
        return (
            f"Compaction fires: {total} tokens reached the threshold of {threshold} "
            f"and the span holds {self.target_tokens:,} tokens."
        )


def decide(
    total_tokens: int,
    context_max: int,
    trigger_context_ratio: float,
    min_target_context_ratio: float,
    compress_tokens: int | None,
) -> Decision:
    """``compress_tokens`` is ``count(compress)``, or None when the span has nothing to compress."""
    threshold = threshold_for(context_max, trigger_context_ratio)
    if total_tokens < threshold:
        return Decision(total_tokens, context_max, threshold, False, "below_threshold")
    if compress_tokens is None:
        return Decision(total_tokens, context_max, threshold, False, "no_compressible_span")
    min_target = min_target_for(context_max, min_target_context_ratio)
    if compress_tokens < min_target:
        return Decision(
            total_tokens, context_max, threshold, False, "target_below_min", compress_tokens, min_target
        )
    return Decision(total_tokens, context_max, threshold, True, "reached_threshold", compress_tokens)
