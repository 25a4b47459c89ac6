"""Whole runs that openJiuwen itself replayed end to end: ``simulate()`` must match them step by step.

Each case of ``upstream_whole_run_minimal.json`` (see tests/fixtures/upstream/README.md) was replayed by openJiuwen
0.1.19.post2: messages added one by one, the window materialised before every assistant message, compactions
applied, later messages appended after them. The scripted summariser below answers by the fixture's rule, and
``simulate`` calls it through the live path exactly as openJiuwen called its model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from compressor.backends.base import ModelReply
from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation, Message, ToolDef
from compressor.replay import Simulation, simulate
from tests.conftest import UPSTREAM, fixture


def whole_run_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(
        fixture(UPSTREAM / "upstream_whole_run_minimal.json").read_text()
    )["cases"]
    return cases


@dataclass
class ScriptedSummariser:
    """The fixture's summariser: a request of ``n`` messages (prompt included) gets a snapshot of
    ``base + (step × n) % modulo`` words ``fact{(7n + j) % 101}``; every request is remembered by its size."""

    words: tuple[int, int, int]
    label: str = "scripted summariser"
    kind: str = "fake"
    requests: list[int] = field(default_factory=list)

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        n = len(messages)
        self.requests.append(n)
        base, step, modulo = self.words
        body = " ".join(f"fact{(n * 7 + j) % 101}" for j in range(base + (step * n) % modulo))
        return ModelReply(
            content=f"<coverage_check>\n1. {n} messages reviewed\n</coverage_check>\n"
            f"<state_snapshot>\n### 1. Active Task\n{body}\n</state_snapshot>"
        )


def replay(case: dict[str, Any]) -> tuple[Simulation, ScriptedSummariser]:
    conversation = Conversation.from_messages(
        case["conversation"]["messages"], case["conversation"].get("tools", []), name=case["id"]
    )
    base, step, modulo = case["summariser"]["words"]
    model = ScriptedSummariser((base, step, modulo))
    config = CurrentRoundCompressorConfig(**case["config"])
    simulation = simulate(
        conversation, config, context_max=case["context_max"], counter=case["counter"], summary=model
    )
    return simulation, model


def step_table(simulation: Simulation) -> list[dict[str, Any]]:
    """Each call point in the fixture's words: what the trigger read, and what the compaction there did."""
    events = {event.index: event for event in simulation.events}
    rows: list[dict[str, Any]] = []
    for step in simulation.steps:
        row: dict[str, Any] = {
            "i": step.index,
            "total": step.context_tokens,
            "threshold": step.threshold,
            "reason": step.reason,
            "target": step.compress_tokens,
            "messages": step.messages,
        }
        event = events.get(step.index)
        if event is not None:
            row.update(
                outcome=event.status if event.status == "compacted" else event.reason,
                calls=event.calls,
                span=list(event.span),
                tokens_before=event.tokens_before,
                tokens_after=event.tokens_after,
                memory_tokens=event.memory_tokens,
                reinjection_tokens=event.reinjection_tokens,
                reinjected=list(event.reinjected_files),
                sent=step.sent_tokens,
            )
        rows.append(row)
    return rows


COMPARED = (
    "i",
    "total",
    "threshold",
    "reason",
    "target",
    "messages",
    "outcome",
    "calls",
    "span",
    "tokens_before",
    "tokens_after",
    "memory_tokens",
    "reinjection_tokens",
    "reinjected",
    "sent",
)


def expected_table(expected: dict[str, Any]) -> list[dict[str, Any]]:
    return [{key: step[key] for key in COMPARED if key in step} for step in expected["steps"]]


def openjiuwen_replay(case: dict[str, Any]) -> dict[str, Any]:
    """What openJiuwen's replay did; case F's usage after its compaction is dropped, as SPEC §6b replays it."""
    expected: dict[str, Any] = case.get("expected_usage_dropped_after_compaction", case["expected"])
    return expected


CASES = whole_run_cases()


class TestTheFixture:
    def test_has_the_seven_minimal_runs(self) -> None:
        assert [case["id"][0] for case in CASES] == ["A", "B", "D", "E", "F", "G", "H"]

    def test_case_f_keeps_the_stale_usage_only_in_openjiuwens_literal_replay(self) -> None:
        (case,) = [case for case in CASES if case["id"].startswith("F")]
        assert (
            case["expected"]["compactions"] != case["expected_usage_dropped_after_compaction"]["compactions"]
        )


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
class TestStepByStep:
    def test_every_call_point(self, case: dict[str, Any]) -> None:
        simulation, _ = replay(case)
        assert step_table(simulation) == expected_table(openjiuwen_replay(case))

    def test_compactions_and_the_final_window(self, case: dict[str, Any]) -> None:
        simulation, model = replay(case)
        expected = openjiuwen_replay(case)
        assert [event.index for event in simulation.events if event.status == "compacted"] == expected[
            "compactions"
        ]
        assert simulation.outcome.final_tokens == expected["final_tokens"]
        assert simulation.outcome.final_messages == expected["final_messages"]
        assert model.requests == expected["requests"]


class TestUsageAfterACompaction:
    """Cause F (SPEC §6b): usage recorded after a compaction was measured on the uncompacted run."""

    def test_the_replay_counts_the_window_instead(self) -> None:
        (case,) = [case for case in CASES if case["id"].startswith("F")]
        simulation, _ = replay(case)
        after = [step for step in simulation.steps if step.index > simulation.events[0].index]
        assert after and all(step.total_source == "counted" for step in after)
        literal = case["expected"]
        assert [event.index for event in simulation.events] != literal["compactions"]
