"""Compactions as OpenTelemetry GenAI spans (OTLP JSON), so trace viewers such as Langfuse or Phoenix show them.

Invariant: one CLIENT span per compaction, named ``compaction``, under one trace per conversation; the summary
goes out as a ``compaction`` part of ``gen_ai.output.messages`` (a custom part type: the GenAI conventions leave
part types open); span and trace ids are derived from the conversation and the compaction, so an export is
reproducible; no secret-bearing field (endpoint, key) is ever written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..messages import Conversation
from ..replay import Simulation

Origin = Literal["recorded", "simulated"]

#: OTLP's SpanKind CLIENT: a call out to a model.
_CLIENT = 3
_STATUS_OK, _STATUS_ERROR = 1, 2


@dataclass(frozen=True, kw_only=True)
class ExportedCompaction:
    """What one compaction says, whichever way it was made (recorded in the file, or simulated here)."""

    origin: Origin
    source: str  # the agent that recorded it, or the summary model of the simulation
    index: int  # message index in the conversation
    compacted: bool
    reason: str = ""
    summary: str | None = None
    summary_tokens: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    request_tokens: int | None = None
    span: tuple[int, int, int] | None = None


def compactions_of(
    conversation: Conversation, simulation: Simulation | None = None
) -> list[ExportedCompaction]:
    """The compactions the file records, then those a simulation made (refused ones included), in message order."""
    out = [
        ExportedCompaction(
            origin="recorded",
            source=compaction.source,
            index=compaction.index,
            compacted=True,
            summary=compaction.summary,
            tokens_before=compaction.tokens_before,
            tokens_after=compaction.tokens_after,
        )
        for compaction in conversation.recorded_compactions
    ]
    for event in simulation.events if simulation is not None else ():
        out.append(
            ExportedCompaction(
                origin="simulated",
                source=simulation.summary if simulation is not None else "",
                index=event.index,
                compacted=event.status == "compacted",
                reason=event.reason,
                summary_tokens=event.summary_tokens,
                tokens_before=event.tokens_before,
                tokens_after=event.tokens_after,
                request_tokens=event.request_tokens,
                span=event.span,
            )
        )
    return sorted(out, key=lambda compaction: (compaction.index, compaction.origin))


def _id(length: int, *parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()[:length]


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # OTLP JSON writes 64-bit integers as strings
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _attributes(pairs: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [{"key": key, "value": _value(value)} for key, value in pairs if value is not None]


def _span(
    conversation: Conversation, position: int, compaction: ExportedCompaction, start_ns: int
) -> dict[str, Any]:
    trace_id = _id(32, "trace", conversation.name)
    part: dict[str, Any] = {"type": "compaction", "origin": compaction.origin, "source": compaction.source}
    if compaction.summary is not None:
        part["content"] = compaction.summary
    output = [{"role": "assistant", "parts": [part], "finish_reason": "stop"}]
    span_counts = compaction.span or (None, None, None)
    attributes = _attributes(
        [
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.conversation.id", conversation.name or "conversation"),
            (
                "gen_ai.request.model",
                conversation.metadata.get("model") if compaction.origin == "recorded" else None,
            ),
            ("gen_ai.usage.input_tokens", compaction.request_tokens),
            ("gen_ai.usage.output_tokens", compaction.summary_tokens),
            ("gen_ai.output.messages", json.dumps(output, ensure_ascii=False)),
            ("compaction_lab.origin", compaction.origin),
            ("compaction_lab.message_index", compaction.index),
            ("compaction_lab.compacted", compaction.compacted),
            ("compaction_lab.reason", compaction.reason or None),
            ("compaction_lab.tokens_before", compaction.tokens_before),
            ("compaction_lab.tokens_after", compaction.tokens_after),
            ("compaction_lab.span.prefix", span_counts[0]),
            ("compaction_lab.span.compress", span_counts[1]),
            ("compaction_lab.span.tail", span_counts[2]),
        ]
    )
    # One millisecond per compaction, in message order: the export has no clock of the run to read.
    start = start_ns + position * 1_000_000
    return {
        "traceId": trace_id,
        "spanId": _id(16, "span", conversation.name, compaction.origin, compaction.index, position),
        "name": "compaction",
        "kind": _CLIENT,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": attributes,
        "status": {"code": _STATUS_OK if compaction.compacted else _STATUS_ERROR},
    }


def otel_document(
    runs: Sequence[tuple[Conversation, Sequence[ExportedCompaction]]], *, start_ns: int, version: str
) -> dict[str, Any]:
    """An OTLP JSON ``{"resourceSpans": …}`` document holding every compaction of every run."""
    spans = [
        _span(conversation, position, compaction, start_ns)
        for conversation, compactions in runs
        for position, compaction in enumerate(compactions)
    ]
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes([("service.name", "compaction-lab")])},
                "scopeSpans": [{"scope": {"name": "compaction-lab", "version": version}, "spans": spans}],
            }
        ]
    }
