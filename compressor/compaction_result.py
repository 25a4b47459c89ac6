"""The value a compaction returns: what was asked, what came back, and what it saved (SPEC §10–11).

Invariant: a result is frozen; ``to_dict()`` is what the CLI prints with ``--json`` and what the dashboard renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .analysis import Analysis
from .errors import KIND_DESCRIPTIONS
from .messages import Conversation, Message
from .reinjection import Reinjection
from .trigger import REASON_TEXT, Decision

Status = Literal["compacted", "skipped", "no_benefit", "failed"]


@dataclass(frozen=True)
class Attempt:
    """One request to the model."""

    number: int
    message_count: int
    request_tokens: int
    outcome: str  # "ok" or an ErrorKind value
    error: str | None = None
    delay_seconds: float | None = None
    budget_ratio: float | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "message_count": self.message_count,
            "request_tokens": self.request_tokens,
            "outcome": self.outcome,
            "error": self.error,
            "delay_seconds": self.delay_seconds,
            "budget_ratio": self.budget_ratio,
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class CompactionResult:
    status: Status
    reason: str
    analysis: Analysis = field(repr=False)
    backend_label: str
    span_counts: tuple[int, int, int]
    compress_tokens: int  # count() of the compressed span (SPEC §5), after any overflow shrink
    messages: tuple[Message, ...] = field(repr=False)
    conversation: Conversation = field(repr=False)
    tokens_before: int
    tokens_after: int
    attempts: tuple[Attempt, ...] = ()
    prompt: str = ""
    request_messages: tuple[Message, ...] = field(default=(), repr=False)
    raw_reply: str | None = None
    summary: str | None = None
    usage: dict[str, Any] | None = None
    prefix_tokens: int = 0
    memory_tokens: int = 0
    reinjection_tokens: int = 0
    tail_tokens: int = 0
    reinjection: Reinjection | None = None
    #: What openJiuwen's own memory block and recovered-context message would cost for the same summary, files
    #: and skills (SPEC §10.6, §12; our wording differs), and the context after with them; 0 until a summary exists.
    openjiuwen_memory_tokens: int = 0
    openjiuwen_reinjection_tokens: int = 0
    openjiuwen_tokens_after: int = 0
    dump_path: str | None = None
    dump_error: str | None = None
    debug_records: tuple[dict[str, Any], ...] = ()
    error: str | None = None
    seconds: float = 0.0

    @property
    def decision(self) -> Decision:
        return self.analysis.decision

    @property
    def calls(self) -> int:
        return len(self.attempts)

    @property
    def request_tokens(self) -> int:
        return self.attempts[-1].request_tokens if self.attempts else 0

    @property
    def saved_tokens(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def reduction_ratio(self) -> float:
        return round(self.saved_tokens / self.tokens_before, 4) if self.tokens_before else 0.0

    @property
    def memory_tokens_over_openjiuwen(self) -> int:
        """How many tokens our memory block costs more than openJiuwen's for the same summary (negative: fewer)."""
        return self.memory_tokens - self.openjiuwen_memory_tokens if self.openjiuwen_memory_tokens else 0

    @property
    def reinjection_tokens_over_openjiuwen(self) -> int:
        """The same for the recovered-context message (its files and skills; 0 without one)."""
        return self.reinjection_tokens - self.openjiuwen_reinjection_tokens

    @property
    def sizing_text(self) -> str:
        """One plain sentence comparing our memory block with openJiuwen's for the same summary ("" without one)."""
        if not self.openjiuwen_memory_tokens:
            return ""
        difference = self.memory_tokens_over_openjiuwen
        if difference == 0:
            return f"openJiuwen's memory block would cost the same {self.memory_tokens:,} tokens."
        return (
            f"openJiuwen's memory block would be {abs(difference):,} tokens {'smaller' if difference > 0 else 'larger'}"
            f" ({self.openjiuwen_memory_tokens:,} instead of {self.memory_tokens:,})."
        )

    @property
    def status_text(self) -> str:
        """One plain sentence saying what happened."""
        if self.status == "compacted":
            return (
                f"Compacted {self.span_counts[1]} messages: {self.tokens_before:,} → {self.tokens_after:,} "
                f"context tokens ({self.reduction_ratio:.1%} saved)."
            )
        if self.status == "skipped":
            return f"Not compacted: {REASON_TEXT.get(self.reason, self.reason)}."
        if self.status == "no_benefit":
            return (
                f"Compaction discarded: the result would hold {self.tokens_after:,} tokens, "
                f"not fewer than the original {self.tokens_before:,}."
            )
        if self.reason == "empty_summary":
            return "Compaction failed: the model's reply held no summary text; the context is unchanged."
        kind_text = next(
            (text for kind, text in KIND_DESCRIPTIONS.items() if kind.value == self.reason), self.reason
        )
        calls = f"{self.calls} call{'' if self.calls == 1 else 's'}"
        return f"Compaction failed after {calls}: {kind_text}; the context is unchanged."

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "status_text": self.status_text,
            "backend": self.backend_label,
            "decision": self.decision.to_dict(),
            "span": {
                "prefix": self.span_counts[0],
                "compress": self.span_counts[1],
                "tail": self.span_counts[2],
            },
            "compress_tokens": self.compress_tokens,
            "attempts": [a.to_dict() for a in self.attempts],
            "calls": self.calls,
            "request_message_counts": [a.message_count for a in self.attempts],
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "saved_tokens": self.saved_tokens,
            "reduction_ratio": self.reduction_ratio,
            "prefix_tokens": self.prefix_tokens,
            "memory_tokens": self.memory_tokens,
            "reinjection_tokens": self.reinjection_tokens,
            "tail_tokens": self.tail_tokens,
            "reinjected_files": [f.path for f in self.reinjection.files] if self.reinjection else [],
            "openjiuwen_memory_tokens": self.openjiuwen_memory_tokens,
            "openjiuwen_reinjection_tokens": self.openjiuwen_reinjection_tokens,
            "openjiuwen_tokens_after": self.openjiuwen_tokens_after,
            "memory_tokens_over_openjiuwen": self.memory_tokens_over_openjiuwen,
            "reinjection_tokens_over_openjiuwen": self.reinjection_tokens_over_openjiuwen,
            "sizing_text": self.sizing_text,
            "prompt": self.prompt,
            "raw_reply": self.raw_reply,
            "summary": self.summary,
            "usage": self.usage,
            "messages": [m.to_openjiuwen() for m in self.messages],
            "dump_path": self.dump_path,
            "dump_error": self.dump_error,
            "debug_records": list(self.debug_records),
            "error": self.error,
            "seconds": round(self.seconds, 4),
        }
