"""``analyze()``: what openJiuwen would see and decide for one conversation under one set of settings.

Invariant: analysis reads a cached ``TokenProfile``, so calling it again with other settings costs
no tokenising; every number the span and trigger views show comes from the ``Analysis`` value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .census import describe_reading
from .config import CurrentRoundCompressorConfig
from .jsontext import json_text
from .messages import Conversation
from .overhead import HiddenOverhead
from .run_facts import CountedFacts, RunFacts, counted_facts, message_counts, run_facts
from .spans import Segment, Span, build_span, effective_keep_from
from .tokens import TokenCounter, TokenProfile, get_counter, profile
from .trigger import Decision, decide, min_target_for
from .windows import Capacity, resolve_context_max


@dataclass(frozen=True, slots=True)
class MessageRow:
    index: int
    role: str
    tokens: int
    segment: Segment
    internal: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "role": self.role,
            "tokens": self.tokens,
            "segment": self.segment,
            "internal": self.internal,
        }


@dataclass(frozen=True)
class Analysis:
    conversation: Conversation = field(repr=False)
    config: CurrentRoundCompressorConfig
    profile: TokenProfile = field(repr=False)
    capacity: Capacity
    last_user_index: int
    effective_keep: int
    span: Span
    decision: Decision
    min_target_tokens: int

    # -- convenience views ---------------------------------------------------------------------

    @property
    def counter(self) -> str:
        return self.profile.counter

    @property
    def facts(self) -> RunFacts:
        """What every analysis of this conversation reads, whatever the settings (kept on the conversation)."""
        return run_facts(self.conversation)

    @property
    def counted_facts(self) -> CountedFacts:
        return counted_facts(self.conversation, self.counter_value)

    @property
    def hidden_overhead(self) -> HiddenOverhead:
        """What the run's reported usage holds beyond the messages the file shows (see ``overhead``)."""
        return self.counted_facts.hidden_overhead

    @property
    def counter_value(self) -> TokenCounter:
        return get_counter(self.profile.counter)

    @property
    def context_max(self) -> int:
        return self.capacity.tokens

    @property
    def total_tokens(self) -> int:
        return self.profile.total.tokens

    @property
    def total_source(self) -> str:
        return self.profile.total.source

    @property
    def threshold(self) -> int:
        return self.decision.threshold

    @property
    def keep_requested(self) -> int:
        return self.config.keep_recent_messages

    @property
    def keep_moved_by_tool_boundary(self) -> bool:
        """True when a kept tool result pulled the tail start earlier than ``len - keep``."""
        return self.effective_keep > min(self.config.keep_recent_messages, len(self.conversation.messages))

    @property
    def naive_tail_start(self) -> int:
        """Where the tail would start without the tool boundary."""
        return max(len(self.conversation.messages) - self.config.keep_recent_messages, 0)

    @property
    def segment_tokens(self) -> dict[str, int]:
        """``count()`` of each span (each with its list overhead, as openJiuwen counts them)."""
        spans = {"prefix": self.span.prefix, "compress": self.span.compress, "tail": self.span.tail}
        spans["unanchored"] = self.span.unanchored
        return {name: self.profile.count_range(*bounds) for name, bounds in spans.items()}

    @property
    def system_tokens(self) -> int:
        return sum(self.profile.system_tokens)

    @cached_property
    def per_message(self) -> tuple[MessageRow, ...]:
        facts, tokens = self.facts, self.profile.tokens
        segments = self.span.segments(len(tokens))
        internal = map(bool, facts.internal)
        return tuple(map(MessageRow, range(len(tokens)), facts.roles, tokens, segments, internal))

    def message_dicts(self, begin: int = 0, end: int | None = None) -> list[dict[str, Any]]:
        """``[row.to_dict() for row in self.per_message[begin:end]]``, built without the rows."""
        facts, tokens = self.facts, self.profile.tokens
        end = len(tokens) if end is None else min(end, len(tokens))
        begin = min(max(begin, 0), end)
        return [
            {"index": i, "role": role, "tokens": count, "segment": segment, "internal": internal}
            for i, role, count, segment, internal in zip(
                range(begin, end),
                facts.roles[begin:end],
                tokens[begin:end],
                self.span.segments(end, begin),
                map(bool, facts.internal[begin:end]),
                strict=True,
            )
        ]

    def to_dict(self, *, include_messages: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.conversation.name,
            "format": self.conversation.source_format,
            "counter": self.counter,
            "messages": len(self.conversation.messages),
            "system_messages": len(self.conversation.system),
            "tools": len(self.conversation.tools),
            "total_tokens": self.total_tokens,
            "total_source": self.total_source,
            "usage_index": self.profile.total.usage_index,
            "context_max": self.context_max,
            "context_max_source": self.capacity.source,
            "model": self.capacity.model,
            "threshold": self.threshold,
            "min_target_tokens": self.min_target_tokens,
            "span": self.span.to_dict(),
            "span_counts": list(self.span.counts),
            "segment_tokens": self.segment_tokens,
            "keep_recent_messages": self.keep_requested,
            "effective_keep": self.effective_keep,
            "keep_moved_by_tool_boundary": self.keep_moved_by_tool_boundary,
            "last_user_index": self.last_user_index,
            "model_configured": self.config.model_configured,
            "trigger_context_ratio": self.config.trigger_context_ratio,
            "min_target_context_ratio": self.config.min_target_context_ratio,
            "decision": self.decision.to_dict(),
            "counts": message_counts(self.conversation).to_dict(),
            "recorded_compactions": [
                {
                    "index": compaction.index,
                    "source": compaction.source,
                    "summary_tokens": summary_tokens,
                    "tokens_before": compaction.tokens_before,
                    "tokens_after": compaction.tokens_after,
                }
                for compaction, summary_tokens in zip(
                    self.conversation.recorded_compactions, self.counted_facts.summary_tokens, strict=True
                )
            ],
            "reading": [describe_reading(reading) for reading in self.conversation.readings],
            "metadata": self.conversation.metadata,
            "hidden_overhead": self.hidden_overhead.to_dict(),
        }
        if include_messages:
            out["per_message"] = self.message_dicts()
        return out

    def json_chunks(self, rows_per_chunk: int = 4096) -> Iterator[str]:
        """``json_text(self.to_dict())`` in pieces, the per-message rows a batch at a time: a million rows
        are never all held as dicts, nor as one string. The pieces joined are exactly that text."""
        head = json_text(self.to_dict(include_messages=False))
        yield head[:-1] + ', "per_message": ['
        for begin in range(0, len(self.conversation.messages), rows_per_chunk):
            batch = self.message_dicts(begin, begin + rows_per_chunk)
            yield (", " if begin else "") + json_text(batch)[1:-1]
        yield "]}"


def run_model_of(conversation: Conversation) -> str | None:
    """The model the run's own file names (``metadata["model"]``), if any."""
    model = conversation.metadata.get("model")
    return model if isinstance(model, str) and model.strip() else None


def run_window_of(conversation: Conversation) -> int | None:
    """The context window the run's own file records its agent had (``metadata["context_window"]``), if any."""
    window = conversation.metadata.get("context_window")
    return window if type(window) is int and window > 0 else None


def analyze(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig | None = None,
    *,
    context_max: int | None = None,
    model: str | None = None,
    counter: str | TokenCounter = "cl100k_base",
) -> Analysis:
    """Span split, window total and trigger decision, as openJiuwen computes them (SPEC §2–8).

    ``model`` picks the capacity from the window table when ``context_max`` is not given; when neither
    is given, the config's model name is tried before the 200000 default.
    """
    config = config or CurrentRoundCompressorConfig()
    if model is None and config.model is not None:
        model = config.model.model_name
    capacity = resolve_context_max(
        context_max, model, run_model=run_model_of(conversation), run_window=run_window_of(conversation)
    )
    tokens = profile(conversation, counter)
    facts = run_facts(conversation)
    last_user = facts.last_user_index
    keep = effective_keep_from(facts.reach, config.keep_recent_messages)
    span = build_span(len(conversation.messages), last_user, keep)
    compress_tokens = tokens.count_range(*span.compress) if span.has_compressible else None
    decision = decide(
        tokens.total.tokens,
        capacity.tokens,
        config.trigger_context_ratio,
        config.min_target_context_ratio,
        compress_tokens,
    )
    return Analysis(
        conversation=conversation,
        config=config,
        profile=tokens,
        capacity=capacity,
        last_user_index=last_user,
        effective_keep=keep,
        span=span,
        decision=decision,
        min_target_tokens=min_target_for(capacity.tokens, config.min_target_context_ratio),
    )
