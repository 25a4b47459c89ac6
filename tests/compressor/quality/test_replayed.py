"""The compactions of a replay: contexts rebuilt from the simulation's own events, offline summaries rebuilt and
checked against its counts, sized summaries without text, and the first memory block's decay."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation
from compressor.quality import MISMATCH, SIZED, score_replay
from compressor.replay import simulate

CONFIG = CurrentRoundCompressorConfig(keep_recent_messages=2, trigger_context_ratio=0.6)


def long_run(rounds: int = 36) -> Conversation:
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    for n in range(rounds):
        if n % 12 == 0:
            messages.append(
                {"role": "user", "content": f"Task {n // 12}: fix module m{n} and never touch setup.cfg."}
            )
        messages.append(
            {
                "role": "assistant",
                "content": f"Checking src/pkg/m{n}.py.",
                "tool_calls": [
                    {
                        "id": f"c{n}",
                        "type": "function",
                        "name": "bash",
                        "arguments": json.dumps({"command": f"pytest -q tests/test_m{n}.py"}),
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"c{n}",
                "content": "log line\n" * 120 + f"AssertionError: m{n} broken\n1 failed in 0.{n % 9}s",
            }
        )
    messages.append({"role": "assistant", "content": "All done."})
    return Conversation.from_messages(messages)


class TestOfflineReplay:
    def test_every_compaction_is_rebuilt_and_scored(self) -> None:
        run = long_run()
        simulation = simulate(run, CONFIG, context_max=12_000, summary="offline")
        compacted = [e for e in simulation.events if e.status == "compacted"]
        assert len(compacted) >= 3
        report = score_replay(run, simulation)
        assert len(report.compactions) == len(simulation.events)
        for scored, event in zip(report.compactions, simulation.events, strict=True):
            assert scored.reason != MISMATCH
            assert scored.index == event.index and scored.source == "replay" and scored.origin == "offline"
            if event.status == "compacted":
                assert scored.retention is not None and scored.summary_tokens == event.summary_tokens
                assert scored.span[1] - scored.span[0] == event.span[1]
                paths = scored.retention.by_category["paths"]
                assert paths.kept + paths.elsewhere == paths.total  # the offline block keeps every path

    def test_the_first_blocks_decay_through_the_later_ones(self) -> None:
        run = long_run()
        report = score_replay(run, simulate(run, CONFIG, context_max=12_000, summary="offline"))
        assert report.decay is not None
        scored = [c for c in report.compactions if c.retention is not None]
        assert [s.number for s in report.decay.steps] == [c.number for c in scored[1:]]
        first = report.decay.steps[0]
        assert first.overall.kept + first.overall.elsewhere > 0


def test_sized_summaries_have_no_text_but_a_ledger() -> None:
    run = long_run()
    report = score_replay(run, simulate(run, CONFIG, context_max=12_000, summary="fixed:300"))
    assert report.compactions and all(c.retention is None and c.reason == SIZED for c in report.compactions)
    assert all(len(c.ledger) > 0 for c in report.compactions)
    assert report.decay is None


@dataclass(frozen=True)
class _Simulation:
    summary: str
    counter: str
    events: tuple[object, ...]
    read_tools: tuple[str, ...] = ("read_file",)


def test_events_that_do_not_fit_the_run_are_a_mismatch_not_a_guess() -> None:
    run = long_run()
    real = simulate(run, CONFIG, context_max=12_000, summary="offline")
    wrong = replace(real.events[0], span=(1, 2, 3))
    report = score_replay(run, _Simulation("offline", real.counter, (wrong, *real.events[1:])))  # type: ignore[arg-type]
    assert {c.reason for c in report.compactions} == {MISMATCH}
    assert all(c.retention is None for c in report.compactions)
