"""Loop and low-gain flags read from the attempts alone, the storm they make, and where a breaker stops it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from compressor.cost import LoopRules, detect_loops
from compressor.cost.loops import attempt_flags


@dataclass(frozen=True)
class Made:
    """Just the fields loop detection reads (``replay.CompactionEvent`` has them all)."""

    index: int
    step: int
    context_tokens: int
    sent_tokens: int
    status: str = "compacted"
    calls: int = 1
    request_tokens: int = 1_000


THRESHOLD = 8_000
RULES = LoopRules()  # 10 % of the window, 3 calls, 3 in a row


class TestOneAttempt:
    @pytest.mark.parametrize(
        ("attempt", "previous", "codes"),
        [
            (Made(10, 5, 9_000, 3_000), None, ()),
            (Made(10, 5, 9_000, 8_200), None, ("low_gain", "stays_above")),  # 800 of 9,000 back: 8.9 %
            (Made(10, 5, 9_000, 8_100), None, ("stays_above",)),  # exactly 10 % back is not low gain
            (Made(10, 5, 9_000, 7_900), None, ()),  # 12.2 % back, below the threshold
            (Made(10, 5, 9_000, 3_000), 2, ("refires",)),  # three calls after the last attempt
            (Made(10, 5, 9_000, 3_000), 1, ()),  # four calls after: not a loop
            (Made(10, 5, 9_000, 9_000, status="skipped"), None, ("low_gain", "stays_above")),
        ],
    )
    def test_flags(self, attempt: Made, previous: int | None, codes: tuple[str, ...]) -> None:
        assert tuple(flag.code for flag in attempt_flags(attempt, previous, THRESHOLD, RULES)) == codes

    def test_the_numbers_come_with_the_codes(self) -> None:
        low, above = attempt_flags(Made(10, 5, 9_000, 8_200), None, THRESHOLD, RULES)
        assert low.values == {"saved_tokens": 800, "window_tokens": 9_000, "share": 0.0889, "limit": 0.1}
        assert above.values == {"window_tokens": 8_200, "threshold": 8_000}
        (again,) = attempt_flags(Made(10, 5, 9_000, 3_000), 4, THRESHOLD, RULES)
        assert again.to_dict() == {"code": "refires", "calls": 1, "limit": 3}


class TestStorm:
    def test_three_flagged_attempts_in_a_row_are_a_storm_and_trip_the_breaker(self) -> None:
        attempts = [
            Made(10, 2, 9_000, 3_000),  # clean
            Made(20, 8, 9_000, 8_500),  # low gain, above
            Made(22, 9, 8_600, 8_500),  # + refires
            Made(24, 10, 8_600, 8_500),  # third in a row: the breaker trips here
            Made(26, 11, 8_600, 8_500, request_tokens=900),
            Made(28, 12, 8_600, 8_500, calls=2, request_tokens=1_800),
        ]
        report = detect_loops(attempts, THRESHOLD)
        assert report.flagged == 5 and not report.clean
        storm = report.storm
        assert storm is not None
        assert (storm.attempts, storm.flagged, storm.longest_streak) == (6, 5, 5)
        assert (storm.first_index, storm.breaker_index, storm.breaker_step) == (20, 24, 10)
        assert (storm.stopped_attempts, storm.stopped_calls, storm.stopped_request_tokens) == (2, 3, 2_700)

    def test_flags_apart_are_no_storm(self) -> None:
        attempts = [Made(10, 2, 9_000, 8_500), Made(30, 9, 9_000, 3_000), Made(50, 20, 9_000, 8_500)]
        report = detect_loops(attempts, THRESHOLD)
        assert report.flagged == 2 and report.storm is None

    def test_rules_can_be_changed(self) -> None:
        attempts = [Made(10, 2, 9_000, 8_500), Made(12, 3, 9_000, 8_500)]
        assert detect_loops(attempts, THRESHOLD).storm is None
        assert detect_loops(attempts, THRESHOLD, LoopRules(breaker_after=2)).storm is not None

    def test_no_attempts_no_flags(self) -> None:
        report = detect_loops([], THRESHOLD)
        assert report.clean and report.storm is None
        assert report.to_dict()["attempts"] == []
