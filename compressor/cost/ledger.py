"""What model calls cost under prefix caching: per call, per compaction (with its payback) and per run.

The caching model, as providers bill it (OpenAI, Gemini, DeepSeek, Qwen and Kimi cache a prompt's prefix on
their own; Anthropic does once an agent marks the end of the conversation with a cache breakpoint):

* A call's input is read in order: tool definitions and system prompt first, then the messages. The cache holds
  the previous call's input; a call **reads** from the cache the prefix it shares with the previous call and
  **writes** every other input token (billed at the cache-write price; a vendor without a write surcharge bills
  it at the input price). The first call of a run reads nothing.
* Between two calls without a compaction the context only grows at its end, so the whole previous input is
  shared: ``cached = min(previous window, this window)`` (its last tokens, the reply's opening, are shared
  because the previous reply follows them; a context changed right after them shares only its messages).
* A compaction rewrites the context from the first message it changes to the end. Only the preserved part —
  tools, system, hidden overhead and the messages kept before the memory block (or before the first masked tool
  result) — is still cached at the next agent call; the memory block, recovered context, tail and new messages
  are written again. That part of the previous window is the compaction's **invalidated** prefix.
* The compaction request (system + context up to the tail + prompt, tools included, as openJiuwen sends it for
  prefix reuse) goes to the same model and cache: it reads what it shares with the agent's previous call and
  writes the rest; its output is the summary.

Simplifications, said once: no minimum cacheable length, no expiry (an agent's calls come seconds apart), no
storage fee, one cache for the agent and the compaction model, one price tier per model. The agent's own output
is the same under every setting and is not priced; a simulated summary's output is the summary's tokens.

**Payback** of a compaction: at the next agent call it costs ``extra = with − without`` (writing the new
context instead of reading the old one), on top of its own model call; every later call reads
``window before − window after`` fewer cached tokens. The payback is the number of agent calls, the first one
included, until the savings cover the call and the extra; ``never`` when that takes more calls than the run
gives it before the next compaction attempt (or its end), or when it saves nothing per call.

Invariant: money is a function of token counts and a ``Price``; without a price every weight is one token, so
the same formulas give tokens, and ``unit`` says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Any, Literal

from .prices import PER_TOKENS, Price

Unit = Literal["usd", "tokens"]
PaybackStatus = Literal["paid", "never"]
#: A cost as a renderer prints it: USD rounded to a millionth of a dollar, tokens whole.
USD_DIGITS = 6


@dataclass(frozen=True)
class Weights:
    """What one cached, one written (fresh) and one output token weigh: dollars, or 1 each for tokens."""

    cached: float
    written: float
    output: float
    unit: Unit

    @classmethod
    def of(cls, price: Price | None) -> Weights:
        if price is None:
            return cls(1.0, 1.0, 1.0, "tokens")
        return cls(
            price.cached_input / PER_TOKENS, price.cache_write / PER_TOKENS, price.output / PER_TOKENS, "usd"
        )

    def cost(self, *, cached: int = 0, written: int = 0, output: int = 0) -> float:
        return cached * self.cached + written * self.written + output * self.output


def rounded(value: float, unit: Unit) -> float | int:
    return round(value, USD_DIGITS) if unit == "usd" else round(value)


@dataclass(frozen=True, kw_only=True)
class CallTokens:
    """Model calls' tokens: input read from the cache, input written to it, output, and how many calls."""

    cached: int = 0
    written: int = 0
    output: int = 0
    calls: int = 0

    @property
    def input(self) -> int:
        return self.cached + self.written

    @property
    def tokens(self) -> int:
        return self.input + self.output

    @classmethod
    def split(
        cls, *, input_tokens: int, cached_tokens: int, output_tokens: int = 0, calls: int = 1
    ) -> CallTokens:
        """Calls that sent ``input_tokens``, ``cached_tokens`` of them read from the cache."""
        cached = min(max(cached_tokens, 0), input_tokens)
        return cls(cached=cached, written=input_tokens - cached, output=output_tokens, calls=calls)

    def plus(self, other: CallTokens) -> CallTokens:
        return CallTokens(
            cached=self.cached + other.cached,
            written=self.written + other.written,
            output=self.output + other.output,
            calls=self.calls + other.calls,
        )

    def cost(self, weights: Weights) -> float:
        return weights.cost(cached=self.cached, written=self.written, output=self.output)

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "input_tokens": self.input,
            "cached_tokens": self.cached,
            "uncached_tokens": self.written,
            "output_tokens": self.output,
        }


def price_call(
    *, input_tokens: int, cached_tokens: int = 0, output_tokens: int = 0, price: Price | None = None
) -> float:
    """One request's cost (a dump's, a debug log's): USD with a price, else its tokens."""
    call = CallTokens.split(
        input_tokens=input_tokens, cached_tokens=cached_tokens, output_tokens=output_tokens
    )
    return call.cost(Weights.of(price))


@dataclass(frozen=True, kw_only=True)
class CompactionCost:
    """One compaction attempt in money or tokens: its own call, the cache it throws away and when it pays back."""

    index: int  # the assistant message whose call it precedes
    step: int  # that call's number in the run (0-based)
    kind: str  # "summary" (openJiuwen's call) or "masking" (no call)
    status: str
    unit: Unit
    call: CallTokens  # the compaction model's calls (none for masking)
    retries: int
    backoff_seconds: float | None  # slept between live attempts; None when not known (simulated)
    tokens_before: int
    tokens_after: int
    window_before: int  # the agent's window at this call without the compaction
    window_after: int  # ... and the one it sends with it
    previous_window: int  # what the previous call left in the cache
    invalidated_tokens: int  # cached prefix lost: from the first changed message to the end
    cache_write_tokens: int  # the new context beyond the preserved prefix, written again
    call_cost: float
    cache_write_cost: float
    first_call_extra: float  # with − without at the next agent call (negative: it already saves)
    saving_per_call: float  # at every later call
    payback: PaybackStatus
    payback_calls: int | None  # agent calls until it has paid for itself; None when it never can
    horizon_calls: int  # agent calls it had: up to the next compaction attempt or the end of the run

    @property
    def cost(self) -> float:
        """What it costs before it starts saving: its call and the extra at the next agent call."""
        return self.call_cost + self.first_call_extra

    def to_dict(self) -> dict[str, Any]:
        unit = self.unit
        return {
            "index": self.index,
            "step": self.step,
            "kind": self.kind,
            "status": self.status,
            "unit": unit,
            "call": self.call.to_dict(),
            "retries": self.retries,
            "backoff_seconds": self.backoff_seconds,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "window_before": self.window_before,
            "window_after": self.window_after,
            "previous_window": self.previous_window,
            "invalidated_tokens": self.invalidated_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "call_cost": rounded(self.call_cost, unit),
            "cache_write_cost": rounded(self.cache_write_cost, unit),
            "first_call_extra": rounded(self.first_call_extra, unit),
            "saving_per_call": rounded(self.saving_per_call, unit),
            "cost": rounded(self.cost, unit),
            "payback": self.payback,
            "payback_calls": self.payback_calls,
            "horizon_calls": self.horizon_calls,
        }


def payback_calls(*, owed: float, saving: float) -> int | None:
    """The **payback**: agent calls, the first one included, until ``saving`` at every later call covers what
    is ``owed`` after the first (its call and that call's extra); None when it saves nothing per call."""
    if owed <= 0:
        return 1
    if saving <= 0:
        return None
    return 1 + ceil(owed / saving - 1e-12)


def compaction_cost(
    *,
    index: int,
    step: int,
    kind: str,
    status: str,
    call: CallTokens,
    retries: int = 0,
    backoff_seconds: float | None = None,
    tokens_before: int,
    tokens_after: int,
    window_before: int,
    window_after: int,
    previous_window: int,
    preserved_tokens: int,
    horizon_calls: int,
    weights: Weights,
) -> CompactionCost:
    """The ledger line of one attempt (see the module docstring for the caching model and the payback)."""
    changed = status == "compacted"
    after = window_after if changed else window_before
    reusable = min(previous_window, window_before)  # what the cache offers this call without the compaction
    kept = min(preserved_tokens, previous_window, after) if changed else reusable
    rewrite = max(after - kept, 0) if changed else 0
    with_it = weights.cost(cached=kept, written=after - kept)
    without = weights.cost(cached=reusable, written=window_before - reusable)
    extra = with_it - without
    saving = max(window_before - after, 0) * weights.cached
    call_cost = call.cost(weights)
    calls = payback_calls(owed=call_cost + extra, saving=saving)
    paid = calls is not None and calls <= horizon_calls
    return CompactionCost(
        index=index,
        step=step,
        kind=kind,
        status=status,
        unit=weights.unit,
        call=call,
        retries=retries,
        backoff_seconds=backoff_seconds,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        window_before=window_before,
        window_after=after,
        previous_window=previous_window,
        invalidated_tokens=max(reusable - kept, 0) if changed else 0,
        cache_write_tokens=rewrite,
        call_cost=call_cost,
        cache_write_cost=rewrite * weights.written,
        first_call_extra=extra,
        saving_per_call=saving,
        payback="paid" if paid else "never",
        payback_calls=calls,
        horizon_calls=horizon_calls,
    )


@dataclass(frozen=True, kw_only=True)
class RunCost:
    """One run's bill: the agent's calls (input split by the cache) and the compaction calls."""

    agent: CallTokens
    compaction: CallTokens
    unit: Unit
    cost: float  # USD with a price, else tokens (input and output of every call)

    @property
    def tokens(self) -> int:
        return self.agent.tokens + self.compaction.tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent.to_dict(),
            "compaction": self.compaction.to_dict(),
            "unit": self.unit,
            "tokens": self.tokens,
            "cost": rounded(self.cost, self.unit),
        }


def run_cost(agent: CallTokens, compaction: CallTokens, weights: Weights) -> RunCost:
    return RunCost(
        agent=agent,
        compaction=compaction,
        unit=weights.unit,
        cost=agent.cost(weights) + compaction.cost(weights),
    )


@dataclass(frozen=True, kw_only=True)
class RunLedger:
    """A run priced with and without compaction, in one unit, and the price row used (None: tokens)."""

    price: Price | None
    with_compaction: RunCost
    without_compaction: RunCost
    compactions: tuple[CompactionCost, ...] = ()

    @property
    def unit(self) -> Unit:
        return self.with_compaction.unit

    @property
    def saved(self) -> float:
        """What compaction saves over the run (negative: it costs more than not compacting)."""
        return self.without_compaction.cost - self.with_compaction.cost

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "price": self.price.to_dict() if self.price is not None else None,
            "with_compaction": self.with_compaction.to_dict(),
            "without_compaction": self.without_compaction.to_dict(),
            "saved": rounded(self.saved, self.unit),
            "compactions": [line.to_dict() for line in self.compactions],
        }
