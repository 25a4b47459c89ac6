"""Scoring one compaction: a span against its summary, the live compactor's result (its shrunk span, what it
kept), the report over many, and the first block's decay through the later summaries."""

from __future__ import annotations

import asyncio
import json

from compressor.backends import OfflineBackend
from compressor.compactor import CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation, Message
from compressor.prompt import memory_message
from compressor.quality import NO_TEXT, ScoreReport, decay, score_result, score_span
from compressor.tokens import get_counter
from tests.compressor.quality.handmade import RETENTION, SPAN, SUMMARY
from tests.conftest import FakeModel


class TestScoreSpan:
    def test_the_hand_written_span(self) -> None:
        scored = score_span(SPAN, SUMMARY, offset=40, number=2, source="offline", origin="test")
        assert scored.retention is not None
        assert {c: (t.kept, t.total, t.exact) for c, t in scored.retention.by_category.items()} == RETENTION
        assert (scored.span, scored.index, scored.number, scored.reason) == ((40, 50), 40, 2, "")
        counter = get_counter("cl100k_base")
        assert scored.span_tokens == counter.count(SPAN)
        assert scored.summary_tokens == counter.tok(SUMMARY)
        assert scored.memory_tokens == counter.message_tokens(memory_message(SUMMARY))

    def test_no_text_no_retention_and_a_reason(self) -> None:
        scored = score_span(SPAN, "   ")
        assert scored.retention is None and scored.summary is None and scored.reason == NO_TEXT
        assert len(scored.ledger) == 25  # what it would have had to keep is still known
        assert score_span(SPAN, None, reason="sized_summary").reason == "sized_summary"

    def test_to_dict_is_the_cli_shape(self) -> None:
        data = score_span(SPAN, SUMMARY).to_dict()
        assert {
            "index",
            "source",
            "span",
            "span_tokens",
            "summary_tokens",
            "summary",
            "retention",
            "lost",
        } <= set(data)
        assert data["retention"]["commands"]["kept"] == 2 and data["overall"]["total"] == 25
        json.dumps(data)  # plain values only
        assert score_span(SPAN, None).to_dict()["retention"] is None


def _run() -> Conversation:
    messages: list[dict[str, object]] = [{"role": "system", "content": "You are a coding agent."}]
    messages.append({"role": "user", "content": "Fix the failing test in src/app.py. Never touch setup.cfg."})
    for i in range(6):
        messages.append(
            {
                "role": "assistant",
                "content": f"Step {i}: checking src/m{i}.py.",
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "name": "bash",
                        "arguments": json.dumps({"command": f"pytest -q tests/test_m{i}.py"}),
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "content": "x" * 2000 + f"\nAssertionError: m{i} is wrong\n1 failed in 0.{i}1s",
            }
        )
    messages.append({"role": "assistant", "content": "The bug is in src/m3.py."})
    return Conversation.from_messages(messages)


class TestScoreResult:
    def compact(self, backend: object) -> object:
        compressor = CurrentRoundCompressor(
            CurrentRoundCompressorConfig(keep_recent_messages=2, trigger_context_ratio=0.5),
            backend,  # type: ignore[arg-type]
            context_max=8000,
        )
        return asyncio.run(compressor.compact(_run(), force=True))

    def test_the_compressed_span_against_the_summary_the_tail_elsewhere(self) -> None:
        result = self.compact(OfflineBackend())
        scored = score_result(result)  # type: ignore[arg-type]
        prefix, compress, _ = result.span_counts  # type: ignore[attr-defined]
        assert scored.span == (prefix, prefix + compress) and scored.source == "result"
        assert scored.origin == "offline (extractive)" and scored.memory_tokens == result.memory_tokens  # type: ignore[attr-defined]
        assert scored.retention is not None
        tallies = scored.retention.by_category
        assert tallies["paths"].kept == tallies["paths"].total  # the offline block keeps every path
        assert tallies["commands"].exact == tallies["commands"].total > 0
        # The tail keeps the last step verbatim: what the span shares with it is not lost.
        assert all(item.status != "lost" for item in scored.retention.of("paths"))

    def test_a_failed_compaction_says_its_status(self) -> None:
        from compressor.errors import BackendError, ErrorKind

        failing = FakeModel([BackendError("boom", kind=ErrorKind.UNKNOWN)] * 5)
        scored = score_result(self.compact(failing))  # type: ignore[arg-type]
        assert scored.retention is None and scored.reason == "failed"


class TestDecay:
    def chain(self) -> list:  # type: ignore[type-arg]
        first = [Message(role="assistant", content="Edited src/a.py and src/b.py; see https://x.org/1.")]
        return [
            score_span(first, "Kept: src/a.py, src/b.py, https://x.org/1", number=0),
            score_span([memory_message("x")], "Still: src/a.py and x.org/1", number=1),
            score_span([memory_message("y")], "Nothing left", number=2),
        ]

    def test_the_first_blocks_kept_artifacts_through_the_later_summaries(self) -> None:
        found = decay(self.chain())
        assert found is not None and found.first == 0 and len(found.followed) == 3
        steps = [(s.number, s.overall.kept, s.overall.total) for s in found.steps]
        assert steps == [(1, 2, 3), (2, 0, 3)]

    def test_what_a_later_compaction_kept_verbatim_is_elsewhere(self) -> None:
        found = decay(self.chain(), ["", "", "the prefix still says src/b.py"])
        assert found is not None
        assert (found.steps[1].overall.kept, found.steps[1].overall.elsewhere) == (0, 1)

    def test_one_scored_compaction_has_no_decay(self) -> None:
        assert decay(self.chain()[:1]) is None


def test_a_report_adds_up_its_compactions() -> None:
    report = ScoreReport(
        compactions=(score_span(SPAN, SUMMARY), score_span(SPAN, SUMMARY, number=1), score_span(SPAN, None))
    )
    data = report.to_dict()
    assert data["overall"]["scored"] == 2 and data["overall"]["kept"] == 30 and data["overall"]["total"] == 50
    assert data["overall"]["retention"]["paths"]["total"] == 8
    assert data["decay"] is None and data["problems"] == []
