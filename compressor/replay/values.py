"""The values a simulation returns: the summary model, each model-call step, each compaction, each setting's outcome.

Invariant: values are frozen and carry only numbers and labels; ``to_dict()`` is what the CLI prints as JSON
and what the dashboard renders, so both show the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..backends import Backend
from ..errors import ConfigError
from ..messages import Message
from .index import TotalSource

SummaryKind = Literal["offline", "fixed", "ratio", "live"]


# -- summary models --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryModel:
    """How a simulated compaction's summary is sized: the offline backend, N tokens, a share X, or a live model."""

    kind: SummaryKind
    tokens: int = 0  # fixed:N
    ratio: float = 0.0  # ratio:X
    backend: Backend | None = None

    @property
    def label(self) -> str:
        if self.kind == "fixed":
            return f"fixed:{self.tokens}"
        if self.kind == "ratio":
            return f"ratio:{self.ratio:g}"
        if self.kind == "live":
            return f"live:{self.backend.label if self.backend is not None else '?'}"
        return "offline"

    @classmethod
    def parse(cls, spec: str | Backend | SummaryModel) -> SummaryModel:
        """``"offline"``, ``"fixed:N"`` (N ≥ 1 tokens), ``"ratio:X"`` (0 < X ≤ 1) or a Backend to call."""
        if isinstance(spec, SummaryModel):
            return spec
        if not isinstance(spec, str):
            return cls("live", backend=spec)
        text = spec.strip().lower()
        if text == "offline":
            return cls("offline")
        kind, _, value = text.partition(":")
        if kind == "fixed":
            try:
                tokens = int(value)
            except ValueError:
                tokens = 0
            if tokens < 1:
                raise ConfigError(f"summary: {spec!r} needs a whole number of tokens ≥ 1, e.g. fixed:1500")
            return cls("fixed", tokens=tokens)
        if kind == "ratio":
            try:
                ratio = float(value)
            except ValueError:
                ratio = -1.0
            if not 0.0 < ratio <= 1.0:
                raise ConfigError(f"summary: {spec!r} needs a share 0 < X ≤ 1 of the span, e.g. ratio:0.1")
            return cls("ratio", ratio=ratio)
        raise ConfigError(f"summary: unknown model {spec!r}; use offline, fixed:N or ratio:X")


# -- per-step values -------------------------------------------------------------------------------


#: What happened at a model-call point: nothing, a compaction, a compaction attempt that was refused, or (the
#: masking baselines) old tool results masked without a model call.
StepEvent = Literal["none", "compacted", "skipped", "masked"]
#: How an attempt changes the context: openJiuwen's summary call, or masking old tool results (no call).
AttemptKind = Literal["summary", "masking"]
#: A compaction attempt's status; a skipped one says why in ``reason`` (``no_benefit``, ``empty_summary`` or
#: the compactor's reason code for a failed live call).
EventStatus = Literal["compacted", "skipped"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One model-call point: what the trigger read, what it decided, and what was sent to the model."""

    index: int  # index in conversation.messages of the assistant message this call produced
    context_tokens: int  # the window total the trigger read (before any compaction at this step)
    total_source: TotalSource
    sent_tokens: int  # the window total sent to the model (after the compaction, when one happened)
    uncompacted_tokens: int  # the window total of the original run at this point
    #: tokens of the window the file does not show (``simulate(hidden_overhead=…)``), added to a counted window;
    #: 0 on a usage-anchored one, whose reported usage was measured on the real window and so holds them already
    hidden_tokens: int = 0
    threshold: int
    event: StepEvent
    reason: str  # the trigger's reason (SPEC §8)
    skip_reason: str = ""  # why a compaction attempted here was refused ("" unless event == "skipped")
    messages: int  # context messages sent
    compress_tokens: int | None = None
    summary_tokens: int = 0
    memory_tokens: int = 0
    reinjection_tokens: int = 0
    compaction_request_tokens: int = 0
    #: of ``sent_tokens``, what the call read from the prefix cache (see ``compressor.cost.ledger``)
    cached_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "context_tokens": self.context_tokens,
            "total_source": self.total_source,
            "sent_tokens": self.sent_tokens,
            "uncompacted_tokens": self.uncompacted_tokens,
            "hidden_tokens": self.hidden_tokens,
            "threshold": self.threshold,
            "event": self.event,
            "reason": self.reason,
            "skip_reason": self.skip_reason,
            "messages": self.messages,
            "compress_tokens": self.compress_tokens,
            "summary_tokens": self.summary_tokens,
            "memory_tokens": self.memory_tokens,
            "reinjection_tokens": self.reinjection_tokens,
            "compaction_request_tokens": self.compaction_request_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass(frozen=True, kw_only=True)
class CompactionEvent:
    """One compaction attempt: the span it took, what it cost and what it left (refused ones included).

    ``prefix_tokens`` and ``tail_tokens`` are ``count(prefix)`` and ``count(tail)`` of the messages the span keeps
    before and after the memory block, each counted as its own list (SPEC §5: 0 when empty, else Σ + 3), as
    ``CompactionResult`` reports them; a refused attempt reports the span it would have kept.

    The cache fields feed ``compressor.cost``: ``previous_tokens`` is what the cache still offers this call (the
    previous call's window), ``preserved_tokens`` the part of the new window still cached (tools, system, hidden
    overhead, kept prefix), ``sent_tokens`` the agent's window right after this attempt. A masking attempt
    (``kind="masking"``) makes no call; its ``span`` is (first masked position, masked results, kept results).
    """

    index: int
    status: EventStatus
    reason: str = ""  # why it was skipped; "" when it compacted
    context_tokens: int
    span: tuple[int, int, int]  # prefix, compress, tail message counts
    compress_tokens: int
    summary_tokens: int
    memory_tokens: int
    reinjection_tokens: int
    reinjected_files: tuple[str, ...]
    request_tokens: int
    calls: int
    tokens_before: int  # count(context) before, as the benefit check reads it
    tokens_after: int
    prefix_tokens: int
    tail_tokens: int
    kind: AttemptKind = "summary"
    step: int = 0  # the model call's number in the run (0-based)
    sent_tokens: int = 0
    previous_tokens: int = 0
    preserved_tokens: int = 0
    request_cached_tokens: int = 0  # of request_tokens, read from the agent's cache
    output_tokens: int = 0  # the summary the call returned (a live reply's reported or counted output)
    retries: int = 0  # live calls beyond the first
    backoff_seconds: float | None = None  # slept between live calls; None for a simulated summary
    masked_results: int = 0

    @property
    def saved_tokens(self) -> int:
        return self.tokens_before - self.tokens_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "status": self.status,
            "reason": self.reason,
            "context_tokens": self.context_tokens,
            "span": {"prefix": self.span[0], "compress": self.span[1], "tail": self.span[2]},
            "compress_tokens": self.compress_tokens,
            "summary_tokens": self.summary_tokens,
            "prefix_tokens": self.prefix_tokens,
            "memory_tokens": self.memory_tokens,
            "reinjection_tokens": self.reinjection_tokens,
            "tail_tokens": self.tail_tokens,
            "reinjected_files": list(self.reinjected_files),
            "request_tokens": self.request_tokens,
            "calls": self.calls,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "saved_tokens": self.saved_tokens,
            "kind": self.kind,
            "step": self.step,
            "sent_tokens": self.sent_tokens,
            "previous_tokens": self.previous_tokens,
            "preserved_tokens": self.preserved_tokens,
            "request_cached_tokens": self.request_cached_tokens,
            "output_tokens": self.output_tokens,
            "retries": self.retries,
            "backoff_seconds": self.backoff_seconds,
            "masked_results": self.masked_results,
        }


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one setting does over the whole run.

    ``peak_tokens``, ``steps_over_capacity`` and ``agent_input_tokens`` read the window *sent* at each call (after
    that step's compaction, if any); ``compaction_input_tokens`` adds up every request made to the compaction
    model, refused compactions included (the call was made); ``refused`` counts hits whose compaction was
    discarded (no benefit) or failed. The ``*_cached_tokens`` are what those calls read from the prefix cache
    (``compressor.cost.ledger`` states the model); ``strategy`` names the engine (``replay.strategies``).
    """

    trigger_context_ratio: float
    keep_recent_messages: int
    min_target_context_ratio: float
    context_max: int
    threshold: int
    min_target_tokens: int
    steps: int
    first_trigger_index: int | None  # first call point where the trigger fires on the uncompacted run
    compactions: int
    refused: int  # hits whose compaction was discarded (no benefit) or failed
    peak_tokens: int
    steps_over_capacity: int
    compaction_calls: int
    compaction_input_tokens: int
    agent_input_tokens: int
    agent_input_tokens_uncompacted: int
    #: the counted window holding every message of the run, as compacted (system, context, tools, hidden overhead)
    final_tokens: int = 0
    final_messages: int = 0  # context messages at the end of the run
    strategy: str = "openjiuwen"
    maskings: int = 0  # masking attempts that changed the context (the masking baselines)
    agent_cached_tokens: int = 0
    agent_cached_tokens_uncompacted: int = 0
    compaction_cached_tokens: int = 0
    compaction_output_tokens: int = 0

    @property
    def peak_utilisation(self) -> float:
        return self.peak_tokens / self.context_max

    @property
    def agent_input_tokens_saved(self) -> int:
        return self.agent_input_tokens_uncompacted - self.agent_input_tokens

    @property
    def key(self) -> tuple[float, int, float]:
        return (self.trigger_context_ratio, self.keep_recent_messages, self.min_target_context_ratio)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trigger_context_ratio": self.trigger_context_ratio,
            "keep_recent_messages": self.keep_recent_messages,
            "min_target_context_ratio": self.min_target_context_ratio,
            "context_max": self.context_max,
            "threshold": self.threshold,
            "min_target_tokens": self.min_target_tokens,
            "steps": self.steps,
            "first_trigger_index": self.first_trigger_index,
            "compactions": self.compactions,
            "refused": self.refused,
            "peak_tokens": self.peak_tokens,
            "peak_utilisation": round(self.peak_utilisation, 4),
            "steps_over_capacity": self.steps_over_capacity,
            "compaction_calls": self.compaction_calls,
            "compaction_input_tokens": self.compaction_input_tokens,
            "agent_input_tokens": self.agent_input_tokens,
            "agent_input_tokens_uncompacted": self.agent_input_tokens_uncompacted,
            "agent_input_tokens_saved": self.agent_input_tokens_saved,
            "final_tokens": self.final_tokens,
            "final_messages": self.final_messages,
            "strategy": self.strategy,
            "maskings": self.maskings,
            "agent_cached_tokens": self.agent_cached_tokens,
            "agent_cached_tokens_uncompacted": self.agent_cached_tokens_uncompacted,
            "compaction_cached_tokens": self.compaction_cached_tokens,
            "compaction_output_tokens": self.compaction_output_tokens,
        }


# -- what a live compaction gives playback --------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class LiveAttempt:
    """What one live compaction did to a context: the compactor's own result, reduced to what playback needs."""

    compacted: bool  # the compactor's own verdict, on our wording
    reason: str  # the compactor's reason code when it did not compact
    span: tuple[int, int, int]  # prefix, compress, tail message counts
    #: the memory block, then the recovered-context message when there is one: present whenever a summary came
    #: back and the new context was built (compacted, or refused for no benefit on our wording)
    added: tuple[Message, ...]
    added_tokens: tuple[int, ...]  # what openJiuwen's own messages for ``added`` cost (upstream_sizing)
    reinjected_files: tuple[str, ...]  # paths the recovered-context message carries
    request_tokens: int  # over every call made
    calls: int
    summary: str
    output_tokens: int = 0  # the replies' output: reported usage, else the reply counted
    backoff_seconds: float = 0.0  # slept between the calls


#: A live compaction: the context in, what the compactor did out.
LiveCompaction = Callable[[list[Message]], LiveAttempt]
