"""Compactions as OpenTelemetry GenAI spans: recorded and simulated ones, valid OTLP JSON, reproducible ids."""

from __future__ import annotations

import io
import json
from pathlib import Path

from compressor.cli import main
from compressor.config import CurrentRoundCompressorConfig
from compressor.export import compactions_of, otel_document
from compressor.messages import Conversation, RecordedCompaction
from compressor.replay import simulate
from dashboard.roots import SAMPLES_DIR

DEMO = SAMPLES_DIR / "demo-conversation.json"


def recorded_run() -> Conversation:
    return Conversation.from_messages(
        [
            {"role": "user", "content": "port the parser"},
            {"role": "assistant", "content": "working"},
            {"role": "user", "content": "This session is being continued… summary: parser half done"},
            {"role": "assistant", "content": "carrying on"},
        ],
        name="recorded",
        metadata={"model": "claude-sonnet-4-5"},
        recorded_compactions=[
            RecordedCompaction(
                index=2, source="claude-code", summary="parser half done", tokens_before=150_000
            )
        ],
    )


def attributes(span: dict) -> dict:
    return {item["key"]: next(iter(item["value"].values())) for item in span["attributes"]}


class TestDocument:
    def test_a_recorded_compaction_becomes_a_span_with_its_summary(self) -> None:
        run = recorded_run()
        document = otel_document([(run, compactions_of(run))], start_ns=1_000, version="0.1.0")
        (span,) = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
        found = attributes(span)
        assert span["name"] == "compaction" and len(span["traceId"]) == 32 and len(span["spanId"]) == 16
        assert found["gen_ai.conversation.id"] == "recorded"
        assert found["gen_ai.request.model"] == "claude-sonnet-4-5"
        assert found["compaction_lab.origin"] == "recorded"
        assert found["compaction_lab.tokens_before"] == "150000"  # OTLP JSON int64 is a string
        (message,) = json.loads(found["gen_ai.output.messages"])
        assert message["parts"] == [
            {
                "type": "compaction",
                "origin": "recorded",
                "source": "claude-code",
                "content": "parser half done",
            }
        ]

    def test_simulated_compactions_follow_the_replay(self) -> None:
        from compressor.formats import load_conversation

        run = load_conversation(DEMO)
        simulation = simulate(run, CurrentRoundCompressorConfig(), context_max=16_000, summary="ratio:0.1")
        exported = compactions_of(run, simulation)
        assert [c.index for c in exported] == [e.index for e in simulation.events]
        assert [c.tokens_after for c in exported] == [e.tokens_after for e in simulation.events]

    def test_ids_are_reproducible(self) -> None:
        run = recorded_run()
        first = otel_document([(run, compactions_of(run))], start_ns=5, version="x")
        again = otel_document([(run, compactions_of(run))], start_ns=5, version="x")
        assert first == again


class TestCommand:
    def test_writes_the_file_and_says_how_many(self, tmp_path: Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        target = tmp_path / "spans.json"
        code = main(["export", str(DEMO), "--otel", str(target), "--context-max", "16000"], out=out, err=err)
        assert code == 0, err.getvalue()
        spans = json.loads(target.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
        words = f"{len(spans)} compaction span{'' if len(spans) == 1 else 's'} from 1 conversation"
        assert spans and out.getvalue().startswith(words)

    def test_recorded_only_on_a_file_without_recorded_compactions_writes_none(self, tmp_path: Path) -> None:
        target = tmp_path / "spans.json"
        code = main(
            ["export", str(DEMO), "--otel", str(target), "--recorded-only"],
            out=io.StringIO(),
            err=io.StringIO(),
        )
        assert code == 0
        assert json.loads(target.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"] == []
