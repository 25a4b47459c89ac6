"""A window total taken apart, the way Claude Code's ``/context`` shows it: system, tools, hidden overhead, prefix,
span, tail and what is free, against the trigger threshold, the minimum span and the capacity.

Invariant: the parts add up to the window total the trigger reads (a counter's drift from reported usage is a part
of its own, "drift", and is never hidden inside another); every number is copied from an ``Analysis`` or a replay
``Step``, nothing is tokenised here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .glossary import PartCode
from .tokens import LIST_OVERHEAD

if TYPE_CHECKING:
    from .analysis import Analysis
    from .replay.values import Step


def share(part: int, whole: int) -> float:
    """``part / whole`` rounded to four places (0.0 for an empty whole), the one rounding of every share shown."""
    return round(part / whole, 4) if whole > 0 else 0.0


@dataclass(frozen=True, kw_only=True)
class WindowBreakdown:
    """One window total in parts (drawing order), with the limits it is read against."""

    parts: tuple[tuple[PartCode, int], ...]
    total_tokens: int
    total_source: str  # "counted" or "usage" (``compressor.tokens.WindowTotal``)
    capacity: int
    threshold: int
    min_span: int
    span_tokens: int | None  # None when the trigger never reached the span check
    hit: bool

    @property
    def free_tokens(self) -> int:
        return max(self.capacity - self.total_tokens, 0)

    @property
    def over_tokens(self) -> int:
        """How far the window is over the capacity (0 when it fits)."""
        return max(self.total_tokens - self.capacity, 0)

    @property
    def until_compaction_tokens(self) -> int:
        return max(self.threshold - self.total_tokens, 0)

    @property
    def left_share(self) -> float:
        """The "% left" figure: free tokens as a share of the capacity."""
        return share(self.free_tokens, self.capacity)

    @property
    def until_compaction_share(self) -> float:
        """The "% until compaction" figure: what the window may still grow before the trigger, of the capacity."""
        return share(self.until_compaction_tokens, self.capacity)

    @property
    def used_share(self) -> float:
        return share(self.total_tokens, self.capacity)

    def part(self, code: PartCode) -> int:
        return sum(tokens for name, tokens in self.parts if name == code)

    def has(self, code: PartCode) -> bool:
        """Whether the breakdown knows this part (a replayed call below the threshold has no span)."""
        return any(name == code for name, _ in self.parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "parts": {name: tokens for name, tokens in self.parts},
            "total_tokens": self.total_tokens,
            "total_source": self.total_source,
            "capacity": self.capacity,
            "threshold": self.threshold,
            "min_span": self.min_span,
            "span_tokens": self.span_tokens,
            "hit": self.hit,
            "free_tokens": self.free_tokens,
            "over_tokens": self.over_tokens,
            "until_compaction_tokens": self.until_compaction_tokens,
            "left_share": self.left_share,
            "until_compaction_share": self.until_compaction_share,
        }


def _with_drift(named: Sequence[tuple[PartCode, int]], total: int) -> tuple[tuple[PartCode, int], ...]:
    """The named parts and, when they do not add up to ``total``, the difference as "drift" (signed)."""
    drift = total - sum(tokens for _, tokens in named)
    return (*named, ("drift", drift)) if drift else tuple(named)


def of_analysis(analysis: Analysis) -> WindowBreakdown:
    """The window the trigger read for this analysis, part by part.

    Counted: the system messages (with the window's own list overhead when no span takes it), the tools, and each
    segment's messages; the span is its ``count()``, the number the trigger checks. With reported usage the hidden
    overhead is the run's measured one, and what the counter and the report disagree on is "drift".
    """
    profile, span = analysis.profile, analysis.span
    cumulative = profile.cumulative

    def raw(bounds: tuple[int, int]) -> int:
        return cumulative[bounds[1]] - cumulative[bounds[0]] if bounds[1] > bounds[0] else 0

    span_tokens = analysis.profile.count_range(*span.compress) if span.has_compressible else 0
    system = sum(profile.system_tokens)
    counted = analysis.total_source == "counted"
    hidden = 0 if counted else analysis.hidden_overhead.tokens
    window_framing = LIST_OVERHEAD if counted and (profile.system_tokens or profile.tokens) else 0
    if span_tokens:
        window_framing -= LIST_OVERHEAD if counted else 0  # the span's count() carries the list overhead
    named: list[tuple[PartCode, int]] = [
        ("system", system + max(window_framing, 0)),
        ("tools", profile.tools_tokens),
        ("hidden", hidden),
        ("prefix", raw(span.prefix)),
        ("span", span_tokens),
        ("tail", raw(span.tail)),
    ]
    if span.unanchored[1] > span.unanchored[0]:
        named.append(("unanchored", raw(span.unanchored)))
    decision = analysis.decision
    return WindowBreakdown(
        parts=_with_drift(named, analysis.total_tokens),
        total_tokens=analysis.total_tokens,
        total_source=analysis.total_source,
        capacity=analysis.context_max,
        threshold=analysis.threshold,
        min_span=analysis.min_target_tokens,
        span_tokens=decision.target_tokens,
        hit=decision.hit,
    )


def of_step(
    step: Step,
    *,
    capacity: int,
    min_span: int,
    system_tokens: int,
    tools_tokens: int,
    usage_hidden_tokens: int = 0,
) -> WindowBreakdown:
    """The window one replayed model call read, before any compaction at it.

    A replay keeps no messages per call, so the prefix and tail are one part ("rest", the messages outside the
    span, memory blocks included); ``system_tokens``/``tools_tokens`` are the run's own (they never change), and
    ``usage_hidden_tokens`` the hidden overhead a usage-anchored window holds (a counted one says its own).
    """
    hidden = step.hidden_tokens if step.total_source == "counted" else usage_hidden_tokens
    span_tokens = step.compress_tokens or 0
    fixed = system_tokens + tools_tokens + hidden + span_tokens
    named: list[tuple[PartCode, int]] = [
        ("system", system_tokens),
        ("tools", tools_tokens),
        ("hidden", hidden),
    ]
    if step.compress_tokens is not None:  # the replay sizes the span only once the threshold is reached
        named.append(("span", span_tokens))
    named.append(("rest", max(step.context_tokens - fixed, 0)))
    return WindowBreakdown(
        parts=_with_drift(named, step.context_tokens),
        total_tokens=step.context_tokens,
        total_source=step.total_source,
        capacity=capacity,
        threshold=step.threshold,
        min_span=min_span,
        span_tokens=step.compress_tokens,
        hit=step.reason == "reached_threshold",
    )


@dataclass(frozen=True, kw_only=True)
class RunPeaks:
    """A replayed run's largest windows: the one the trigger read (the threshold's quantity) and the one sent."""

    read_tokens: int
    read_index: int | None  # message index of the call, None for a run without calls
    sent_tokens: int
    sent_index: int | None
    capacity: int
    threshold: int

    @property
    def read_share(self) -> float:
        return share(self.read_tokens, self.capacity)

    @property
    def sent_share(self) -> float:
        return share(self.sent_tokens, self.capacity)

    @property
    def crossed(self) -> bool:
        """True when the window the trigger read reached the threshold at some call."""
        return self.read_index is not None and self.read_tokens >= self.threshold

    def to_dict(self) -> dict[str, Any]:
        return {
            "read_tokens": self.read_tokens,
            "read_index": self.read_index,
            "read_share": self.read_share,
            "sent_tokens": self.sent_tokens,
            "sent_index": self.sent_index,
            "sent_share": self.sent_share,
            "capacity": self.capacity,
            "threshold": self.threshold,
        }


def run_peaks(steps: Sequence[Step], *, capacity: int, threshold: int) -> RunPeaks:
    """The peaks of a replay's steps (the first call wins a tie)."""
    read = max(steps, key=lambda step: step.context_tokens, default=None)
    sent = max(steps, key=lambda step: step.sent_tokens, default=None)
    return RunPeaks(
        read_tokens=read.context_tokens if read is not None else 0,
        read_index=read.index if read is not None else None,
        sent_tokens=sent.sent_tokens if sent is not None else 0,
        sent_index=sent.index if sent is not None else None,
        capacity=capacity,
        threshold=threshold,
    )
