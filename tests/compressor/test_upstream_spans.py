"""openJiuwen's own span and trigger decisions on generated cases, reproduced exactly (SPEC §2–8)."""

from __future__ import annotations

from typing import Any

import pytest

from compressor.analysis import analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation
from tests.conftest import span_cases

CASES = span_cases()


def _run(case: dict[str, Any]) -> Any:
    conversation = Conversation.from_messages(case["conversation"]["messages"], case["conversation"]["tools"])
    config = CurrentRoundCompressorConfig(**case["config"])
    return analyze(conversation, config, context_max=case["context_max"], counter=case["counter"])


def test_the_fixture_covers_every_reason_and_both_counters() -> None:
    assert {c["expected"]["decision"]["reason"] for c in CASES} == {
        "below_threshold",
        "no_compressible_span",
        "target_below_min",
        "reached_threshold",
    }
    assert {c["counter"] for c in CASES} == {"cl100k_base", "string_length"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_span_matches_openjiuwen(case: dict[str, Any]) -> None:
    assert list(_run(case).span.counts) == case["expected"]["span"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_decision_matches_openjiuwen(case: dict[str, Any]) -> None:
    expected = case["expected"]["decision"]
    decision = _run(case).decision.to_dict()
    assert {key: decision.get(key) for key in expected} == expected
