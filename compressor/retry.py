"""Retry policy as pure functions with named constants (SPEC §11).

Invariant: context overflow shrinks the span at most ``len(OVERFLOW_BUDGET_RATIOS)`` times; transient
errors are retried at most ``MAX_TRANSIENT_RETRIES`` times with exponential backoff; nothing else retries;
a wait that would reach the deadline of all of a compaction's calls is not waited (``wait_fits``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import TRANSIENT_KINDS, ErrorKind

#: Budget ratios of context_max for the 1st, 2nd and 3rd shrink after a context overflow.
OVERFLOW_BUDGET_RATIOS: tuple[float, ...] = (0.85, 0.65, 0.5)
MAX_TRANSIENT_RETRIES = 2
BACKOFF_BASE_SECONDS = 0.05
#: A server's Retry-After is honoured up to this long; beyond it we would rather fail than hang.
MAX_RETRY_AFTER_SECONDS = 120.0


def is_transient(kind: ErrorKind) -> bool:
    return kind in TRANSIENT_KINDS


def should_retry(kind: ErrorKind, transient_retries_used: int) -> bool:
    """Whether a transient failure gets another try (overflow has its own shrink policy)."""
    return is_transient(kind) and transient_retries_used < MAX_TRANSIENT_RETRIES


def retry_delay(retry_number: int, retry_after: float | None = None) -> float:
    """Seconds to wait before transient retry ``retry_number`` (1-based); a longer Retry-After wins."""
    delay = BACKOFF_BASE_SECONDS * 2 ** (retry_number - 1)
    if retry_after is not None and retry_after > delay:
        return min(retry_after, MAX_RETRY_AFTER_SECONDS)
    return delay


#: A compaction's calls, retries and waits together take at most this many deadlines of one call: SPEC §11's
#: first call and its two transient retries, each of which may use a whole one (openJiuwen retries a timeout).
DEADLINE_CALLS = 1 + MAX_TRANSIENT_RETRIES


def whole_deadline(call_deadline: float) -> float:
    """Seconds all the calls of one compaction may take together, retries and waits included."""
    return call_deadline * DEADLINE_CALLS


def compaction_deadline(call_deadline: object) -> float | None:
    """``whole_deadline`` of a backend's deadline of one call; None for a backend without one (offline, replay)."""
    if isinstance(call_deadline, int | float) and not isinstance(call_deadline, bool) and call_deadline > 0:
        return whole_deadline(float(call_deadline))
    return None


def wait_fits(delay: float, remaining: float | None) -> bool:
    """Whether waiting ``delay`` seconds still leaves time for another call before the deadline (None: no deadline).

    A Retry-After past the deadline is never slept on: the call would have no time left once it is over.
    """
    return remaining is None or delay < remaining


def past_deadline(message: str, delay: float, retry_after: float | None, deadline: float) -> str:
    """Why a transient failure is not retried: the wait it needs would end past the deadline of all the calls."""
    asked = (
        f"the endpoint asked to wait {retry_after:g} s"
        if retry_after is not None and retry_after >= delay
        else f"a retry after {delay:g} s"
    )
    return f"{message} ({asked}, past the deadline of {deadline:g} s for all calls and waits together: not retried)"


def overflow_budget(context_max: int, ratio: float) -> int:
    return max(int(context_max * ratio), 1)


@dataclass(frozen=True)
class Shrink:
    """How many of the compress messages to keep in the next request (the rest join the tail)."""

    keep: int
    budget: int
    room: int


def shrink_keep(compress_costs: Sequence[int], budget: int, fixed: int) -> Shrink:
    """openJiuwen's shrink: fit messages in order into ``budget - fixed``; ``keep == 0`` means give up.

    ``compress_costs[i]`` is ``count([message_i])`` (the message alone, with its list overhead).
    """
    room = budget - fixed
    if room <= 0:
        return Shrink(0, budget, room)
    used = 0
    fitted = 0
    for cost in compress_costs:
        if used + cost > room:
            break
        used += cost
        fitted += 1
    if fitted == len(compress_costs):
        keep = len(compress_costs) - 1
    elif fitted == 0 and len(compress_costs) >= 2:
        keep = 1
    else:
        keep = fitted
    return Shrink(max(keep, 0), budget, room)
