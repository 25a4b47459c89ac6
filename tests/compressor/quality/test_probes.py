"""Probe grading: questions from a ledger, the cost estimated before any call, answers before and after graded
blind, through a scripted local server (never a network); failures become reason codes."""

from __future__ import annotations

import asyncio
import json

from compressor.backends import make_backend
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.messages import Message
from compressor.prompt import memory_message
from compressor.quality import DIMENSIONS, build_ledger, estimate_probe_cost, grade_probes, make_probes
from compressor.quality.probes import _blind_order, read_verdict
from tests.compressor.quality.handmade import SPAN, SUMMARY
from tests.support.openai_server import ScriptedServer

BEFORE = [Message(role="system", content="agent"), *SPAN]
AFTER = [Message(role="system", content="agent"), memory_message(SUMMARY)]


def verdict(first: int, second: int) -> str:
    return json.dumps({"1": dict.fromkeys(DIMENSIONS, first), "2": dict.fromkeys(DIMENSIONS, second)})


def backend_at(url: str):  # type: ignore[no-untyped-def]
    return make_backend(
        "openai", client_config=ModelClientConfig(api_base=url), request=ModelRequestConfig(model="m")
    )


class TestProbes:
    def test_one_probe_per_topic_with_artifacts_and_always_the_next_step(self) -> None:
        probes = make_probes(build_ledger(SPAN))
        assert [(p.kind, p.topic) for p in probes] == [
            ("recall", "constraints"),
            ("recall", "errors"),
            ("recall", "numbers"),
            ("recall", "identifiers"),
            ("artifact", "paths"),
            ("artifact", "commands"),
            ("continuation", "next"),
            ("continuation", "todos"),
            ("decision", "decisions"),
        ]
        assert make_probes(build_ledger([])) == make_probes(build_ledger([]))
        assert [p.topic for p in make_probes(build_ledger([]))] == ["next"]

    def test_references_are_the_newest_artifacts_of_the_topic(self) -> None:
        paths = next(p for p in make_probes(build_ledger(SPAN)) if p.topic == "paths")
        assert paths.references[0].key == "CHANGELOG.md"


def test_the_cost_is_known_before_any_call() -> None:
    probes = make_probes(build_ledger(SPAN))
    cost = estimate_probe_cost(probes, BEFORE, AFTER)
    assert cost.probes == 9 and cost.calls == 27 and cost.input_tokens > 0
    assert cost.to_dict() == {
        "probes": 9,
        "calls": 27,
        "input_tokens": cost.input_tokens,
        "output_tokens": 9 * (2 * 400 + 200),
    }


class TestGrading:
    def test_answers_graded_blind_and_mapped_back(self) -> None:
        probes = make_probes(build_ledger(SPAN))[:2]
        script = [reply for _ in probes for reply in ("before answer", "after answer", verdict(5, 2))]
        with ScriptedServer(script) as server:
            report = asyncio.run(grade_probes(probes, BEFORE, AFTER, answerer=backend_at(server.url)))
            requests = [r.body for r in server.requests]
        assert len(requests) == 6
        for probe, grade in zip(probes, report.grades, strict=True):
            swapped = _blind_order(probe)
            assert grade.reason == "" and grade.before_answer == "before answer"
            assert set(grade.before.values()) == {2 if swapped else 5}
            assert set(grade.after.values()) == {5 if swapped else 2}
        judge = requests[2]["messages"][0]["content"]
        assert "before answer" in judge and "after answer" in judge and "compaction" not in judge.lower()
        assert requests[0]["messages"][-1]["content"].startswith(probes[0].question)
        assert report.to_dict()["overall"]["before"] is not None

    def test_a_failed_answer_or_an_unreadable_verdict_is_a_reason(self) -> None:
        probes = make_probes(build_ledger(SPAN))[:2]
        script = [{"raise": "down", "status_code": 500}, "b", "a", "no json here"]
        with ScriptedServer(script) as server:
            report = asyncio.run(grade_probes(probes, BEFORE, AFTER, answerer=backend_at(server.url)))
        assert [g.reason for g in report.grades] == ["answer_failed", "verdict_unreadable"]
        assert report.overall("before") is None


def test_verdicts_are_read_strictly() -> None:
    assert read_verdict("here: " + verdict(4, 3) + " done") == (
        dict.fromkeys(DIMENSIONS, 4),
        dict.fromkeys(DIMENSIONS, 3),
    )
    assert (
        read_verdict(json.dumps({"1": dict.fromkeys(DIMENSIONS, 9), "2": dict.fromkeys(DIMENSIONS, 1)}))
        is None
    )
    assert read_verdict(json.dumps({"1": {"accuracy": 3}})) is None
    assert read_verdict("{broken") is None
