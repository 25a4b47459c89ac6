"""Loops and low gains: compaction attempts that reclaim little, come back at once or leave the window above
the trigger, a run-level storm of them, and where a circuit breaker would have stopped it.

Invariant: flags are codes with their numbers, read from the attempts alone (any value with the ``Attempt``
fields); the rules are named constants a caller can change, and the same attempts always give the same flags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

FlagCode = Literal["low_gain", "refires", "stays_above"]

#: Less than this share of the window handed back buys only a few calls before the trigger fires again; a
#: refused attempt (no benefit, failed call) hands back nothing and always counts as low gain.
LOW_GAIN_SHARE = 0.1
#: An attempt this many model calls or fewer after the previous one is the loop users report as "compacts
#: every turn" (claude-code#24179, adk-go#1431).
REFIRE_CALLS = 3
#: A breaker that stops compacting after this many flagged attempts in a row, as agents cap repeated
#: auto-compaction failures; the same length of streak makes a run-level storm.
BREAKER_AFTER = 3


class Attempt(Protocol):
    """What loop detection reads of a compaction attempt (``replay.CompactionEvent`` has these fields)."""

    @property
    def index(self) -> int: ...
    @property
    def step(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def context_tokens(self) -> int: ...  # the window before it
    @property
    def sent_tokens(self) -> int: ...  # the window after it (the one the call sends)
    @property
    def calls(self) -> int: ...
    @property
    def request_tokens(self) -> int: ...


@dataclass(frozen=True)
class LoopRules:
    low_gain_share: float = LOW_GAIN_SHARE
    refire_calls: int = REFIRE_CALLS
    breaker_after: int = BREAKER_AFTER

    def to_dict(self) -> dict[str, Any]:
        return {
            "low_gain_share": self.low_gain_share,
            "refire_calls": self.refire_calls,
            "breaker_after": self.breaker_after,
        }


@dataclass(frozen=True)
class LoopFlag:
    code: FlagCode
    values: dict[str, int | float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, **self.values}


@dataclass(frozen=True, kw_only=True)
class AttemptFlags:
    index: int
    step: int
    flags: tuple[LoopFlag, ...]

    @property
    def codes(self) -> tuple[FlagCode, ...]:
        return tuple(flag.code for flag in self.flags)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "step": self.step, "flags": [flag.to_dict() for flag in self.flags]}


@dataclass(frozen=True, kw_only=True)
class Storm:
    """A streak of flagged attempts at least ``breaker_after`` long, and what a breaker would have saved."""

    attempts: int  # attempts in the run
    flagged: int  # flagged attempts in the run
    longest_streak: int
    first_index: int  # the attempt that starts the first such streak
    breaker_index: int  # where a breaker after ``breaker_after`` flagged attempts in a row trips
    breaker_step: int
    stopped_attempts: int  # attempts after the trip it would have refused
    stopped_calls: int  # ... their compaction model calls
    stopped_request_tokens: int  # ... and the tokens those calls sent

    def to_dict(self) -> dict[str, Any]:
        return {
            "attempts": self.attempts,
            "flagged": self.flagged,
            "longest_streak": self.longest_streak,
            "first_index": self.first_index,
            "breaker_index": self.breaker_index,
            "breaker_step": self.breaker_step,
            "stopped_attempts": self.stopped_attempts,
            "stopped_calls": self.stopped_calls,
            "stopped_request_tokens": self.stopped_request_tokens,
        }


@dataclass(frozen=True, kw_only=True)
class LoopReport:
    rules: LoopRules
    attempts: tuple[AttemptFlags, ...]  # one per attempt, flagged or not
    storm: Storm | None

    @property
    def flagged(self) -> int:
        return sum(1 for attempt in self.attempts if attempt.flags)

    @property
    def clean(self) -> bool:
        return self.flagged == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "flagged": self.flagged,
            "attempts": [attempt.to_dict() for attempt in self.attempts],
            "storm": self.storm.to_dict() if self.storm is not None else None,
        }


def attempt_flags(
    attempt: Attempt, previous_step: int | None, threshold: int, rules: LoopRules
) -> tuple[LoopFlag, ...]:
    """The flags of one attempt: it reclaimed too little, it came too soon after the last, or it left the
    window at or above the trigger threshold (the next call compacts again)."""
    flags: list[LoopFlag] = []
    before, saved, share = _gain(attempt)
    if share < rules.low_gain_share:
        flags.append(
            LoopFlag(
                "low_gain",
                {
                    "saved_tokens": saved,
                    "window_tokens": before,
                    "share": round(share, 4),
                    "limit": rules.low_gain_share,
                },
            )
        )
    if previous_step is not None and _refires(attempt, previous_step, rules):
        flags.append(
            LoopFlag("refires", {"calls": attempt.step - previous_step, "limit": rules.refire_calls})
        )
    if attempt.sent_tokens >= threshold:
        flags.append(LoopFlag("stays_above", {"window_tokens": attempt.sent_tokens, "threshold": threshold}))
    return tuple(flags)


def _gain(attempt: Attempt) -> tuple[int, int, float]:
    """The window before the attempt, what it handed back (nothing unless it compacted) and that share."""
    before = attempt.context_tokens
    saved = before - attempt.sent_tokens if attempt.status == "compacted" else 0
    return before, saved, saved / before if before else 0.0


def _refires(attempt: Attempt, previous_step: int | None, rules: LoopRules) -> bool:
    return previous_step is not None and attempt.step - previous_step <= rules.refire_calls


def flagged_count(attempts: Sequence[Attempt], threshold: int, rules: LoopRules | None = None) -> int:
    """``detect_loops(attempts, threshold, rules).flagged`` without building the report (a fleet counts the flags
    of every setting of every run): an attempt is flagged when ``attempt_flags`` gives it any flag."""
    rules = rules or LoopRules()
    flagged = 0
    previous: int | None = None
    for attempt in attempts:
        if (
            _gain(attempt)[2] < rules.low_gain_share
            or _refires(attempt, previous, rules)
            or attempt.sent_tokens >= threshold
        ):
            flagged += 1
        previous = attempt.step
    return flagged


def detect_loops(attempts: Sequence[Attempt], threshold: int, rules: LoopRules | None = None) -> LoopReport:
    """Flags for every attempt of a run (in order) and the storm, if its flagged attempts form one."""
    rules = rules or LoopRules()
    flagged: list[AttemptFlags] = []
    previous: int | None = None
    for attempt in attempts:
        flags = attempt_flags(attempt, previous, threshold, rules)
        flagged.append(AttemptFlags(index=attempt.index, step=attempt.step, flags=flags))
        previous = attempt.step
    return LoopReport(rules=rules, attempts=tuple(flagged), storm=_storm(attempts, flagged, rules))


def _storm(attempts: Sequence[Attempt], flagged: Sequence[AttemptFlags], rules: LoopRules) -> Storm | None:
    streak = longest = 0
    first: int | None = None
    trip: int | None = None  # position of the attempt where the breaker trips
    for position, attempt in enumerate(flagged):
        streak = streak + 1 if attempt.flags else 0
        longest = max(longest, streak)
        if streak >= rules.breaker_after and trip is None:
            trip = position
            first = position - streak + 1
    if trip is None or first is None:
        return None
    after = attempts[trip + 1 :]
    return Storm(
        attempts=len(attempts),
        flagged=sum(1 for a in flagged if a.flags),
        longest_streak=longest,
        first_index=flagged[first].index,
        breaker_index=flagged[trip].index,
        breaker_step=flagged[trip].step,
        stopped_attempts=len(after),
        stopped_calls=sum(a.calls for a in after),
        stopped_request_tokens=sum(a.request_tokens for a in after),
    )
