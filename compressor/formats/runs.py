"""What the event-stream readers (OpenHands, OpenCode, ATIF, OTel traces) share: one run assembled message by
message, with the readings it made, the compactions the agent recorded and what the file says about the run.

Invariant: every message goes through ``build_message`` (so a bad field names its location); a recorded
compaction points at the message that carries its summary; ``conversation()`` raises a FormatProblem, never a
pydantic error, and writes each reading once.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from compressor.formats.building import build_message, is_number
from compressor.formats.problems import FormatProblem, Loc, problem_from_validation
from compressor.messages import Conversation, Message, Reading, RecordedCompaction, ToolDef


def json_text(value: Any) -> str:
    """Tool arguments or outputs as the JSON text a model saw (a string stays as it is)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def token_count(value: Any) -> int | None:
    """A token count as an int, or None when the field is absent or not a number (counts are never required)."""
    if is_number(value) and value >= 0:
        return int(value)
    if isinstance(value, str) and value.isdigit():  # OTLP JSON writes 64-bit integers as strings
        return int(value)
    return None


def call_usage(prompt: Any, completion: Any, **extra: Any) -> dict[str, Any] | None:
    """``usage_metadata`` for one model call: ``total_tokens`` is its prompt plus completion, the window it used."""
    prompt_tokens, completion_tokens = token_count(prompt), token_count(completion)
    if prompt_tokens is None:
        return None
    usage: dict[str, Any] = {
        "input_tokens": prompt_tokens,
        "output_tokens": completion_tokens or 0,
        "total_tokens": prompt_tokens + (completion_tokens or 0),
    }
    usage.update({key: value for key, value in extra.items() if value is not None})
    return usage


@dataclass
class RunBuilder:
    """One conversation being read; ``skip`` notes what was left out, by kind, for the reading."""

    name: str
    source_format: str
    messages: list[Message] = field(default_factory=list)
    tools: list[ToolDef] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    compactions: list[RecordedCompaction] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    extra_readings: list[Reading] = field(default_factory=list)

    def add(self, data: dict[str, Any], loc: Loc) -> Message:
        message = build_message(data, loc)
        self.messages.append(message)
        return message

    def skip(self, kind: str) -> None:
        self.skipped[kind] += 1

    def last_assistant_total(self) -> int | None:
        """The reported window of the latest assistant message so far (a compaction's ``tokens_before``)."""
        for message in reversed(self.messages):
            if message.role == "assistant" and message.reported_total_tokens is not None:
                return message.reported_total_tokens
        return None

    def record_compaction(
        self,
        summary: str,
        *,
        index: int | None = None,
        tokens_before: int | None = None,
        tokens_after: int | None = None,
    ) -> None:
        """A compaction the agent made, its summary carried by message ``index`` (default: the latest one)."""
        where = len(self.messages) - 1 if index is None else index
        self.compactions.append(
            RecordedCompaction(
                index=max(where, 0),
                source=self.source_format,
                summary=summary,
                tokens_before=tokens_before,
                tokens_after=tokens_after,
            )
        )

    def readings(self) -> list[Reading]:
        out: list[Reading] = []
        internal = sum(1 for message in self.messages if message.role == "user" and message.internal)
        if internal:
            out.append(Reading(code="internal_user_turns", count=internal))
        if self.compactions:
            out.append(Reading(code="recorded_compactions", count=len(self.compactions)))
        if self.skipped:
            detail = ", ".join(f"{kind} ×{count}" for kind, count in sorted(self.skipped.items()))
            out.append(Reading(code="events_skipped", count=sum(self.skipped.values()), detail=detail))
        model = self.metadata.get("model")
        if isinstance(model, str) and model:
            out.append(Reading(code="model_from_file", detail=model))
        return [*out, *self.extra_readings]

    def conversation(self, loc: Loc | None = None) -> Conversation:
        if not self.messages:
            raise FormatProblem(loc or Loc(), "holds no messages")
        try:
            return Conversation.from_messages(
                self.messages,
                self.tools,
                name=self.name,
                source_format=self.source_format,
                metadata=self.metadata,
                recorded_compactions=self.compactions,
                readings=self.readings(),
            )
        except ValidationError as error:
            raise problem_from_validation(error, loc or Loc()) from None
