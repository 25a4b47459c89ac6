"""Retry policy tables (SPEC §11)."""

from __future__ import annotations

import pytest

from compressor.errors import ErrorKind
from compressor.retry import (
    DEADLINE_CALLS,
    compaction_deadline,
    overflow_budget,
    retry_delay,
    should_retry,
    shrink_keep,
    wait_fits,
)


@pytest.mark.parametrize(
    "kind,used,expected",
    [
        (ErrorKind.RATE_LIMIT, 0, True),
        (ErrorKind.RATE_LIMIT, 2, False),
        (ErrorKind.TIMEOUT, 1, True),
        (ErrorKind.SERVER_UNSTABLE, 1, True),
        (ErrorKind.UNKNOWN, 0, True),
        (ErrorKind.AUTHENTICATION, 0, False),
        (ErrorKind.API_REQUEST_ERROR, 0, False),
        (ErrorKind.CONTEXT_OVERFLOW, 0, False),
    ],
)
def test_should_retry(kind: ErrorKind, used: int, expected: bool) -> None:
    assert should_retry(kind, used) is expected


@pytest.mark.parametrize(
    "n,retry_after,expected", [(1, None, 0.05), (2, None, 0.1), (1, 0.01, 0.05), (2, 3.0, 3.0)]
)
def test_retry_delay(n: int, retry_after: float | None, expected: float) -> None:
    assert retry_delay(n, retry_after) == pytest.approx(expected)


@pytest.mark.parametrize(
    "delay,remaining,fits",
    [(0.05, None, True), (120.0, None, True), (0.05, 10.0, True), (9.99, 10.0, True), (10.0, 10.0, False),
     (240.0, 10.0, False), (0.05, 0.0, False), (0.05, -1.0, False)],
)  # fmt: skip
def test_a_wait_fits_only_before_the_deadline(delay: float, remaining: float | None, fits: bool) -> None:
    assert wait_fits(delay, remaining) is fits


@pytest.mark.parametrize(
    "call,whole",
    [(10.0, 30.0), (0.5, 1.5), (None, None), (0, None), (-1.0, None), (True, None), ("10", None)],
)
def test_the_calls_together_get_three_deadlines_of_one(call: object, whole: float | None) -> None:
    assert DEADLINE_CALLS == 3  # the first call and SPEC §11's two transient retries
    assert compaction_deadline(call) == whole


def test_budget_is_at_least_one() -> None:
    assert overflow_budget(100000, 0.85) == 85000
    assert overflow_budget(1, 0.5) == 1


@pytest.mark.parametrize(
    "costs,budget,fixed,keep",
    [
        ([10, 10, 10], 100, 0, 2),  # all fit: keep all but the last
        ([10, 10, 10], 25, 0, 2),  # two fit
        ([50, 10], 30, 0, 1),  # none fit, two or more: keep one
        ([50], 30, 0, 0),  # none fit, only one: give up
        ([10, 10], 10, 10, 0),  # no room at all
        ([5], 100, 0, 0),  # one message that fits: all but the last is none
    ],
)
def test_shrink_keep(costs: list[int], budget: int, fixed: int, keep: int) -> None:
    assert shrink_keep(costs, budget, fixed).keep == keep
