"""What a dump's compaction cost: its summary call's tokens in and out, their price, what it saves at every later
agent call and its payback, and a folder's total — from the dump alone (openJiuwen's dumps name no model).

Tokens: the usage the dump reports when it carries one (``compression_response.usage``, preferred), else the
request counted as our compactor counts it (``messages_sent_to_model`` plus the tools) and the raw reply's
tokens, with the counter the dump's own numbers were counted with (ours record it; else the one given).
Money: the call as ``compressor.cost.price_call`` prices any call (input not read from the cache is a cache
write); the saving is ``tokens_before − tokens_after`` input tokens at the input price, since a dump says
nothing of the cache; the payback is ``cost.ledger.payback_calls`` with the first agent call already sending
the smaller window, which comes to ``ceil(call cost / saving per call)``. Without a price, every token weighs 1.

Time: the model calls, retries, backoff and seconds the compaction took, from the debug records beside the dump
(``dump_timing``): openJiuwen writes a ``compression_retry`` record for each attempt that failed and was retried.

Invariant: pure: a ``DumpRecord`` (or its numbers), a counter name and a ``Price`` in, frozen values out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..cost import Price, Unit, price_call
from ..cost.ledger import payback_calls, rounded
from ..cost.prices import PER_TOKENS
from ..tokens import COUNTER_NAMES, get_counter
from .reader import DumpRecord

TokenSource = Literal["reported", "counted"]


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 or value != int(value):
        return None
    return int(value)


def _nested(usage: Mapping[str, Any], *path: str) -> int:
    value: Any = usage
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return _count(value) or 0


def reported_tokens(usage: Mapping[str, Any] | None) -> tuple[int, int, int] | None:
    """(input, of it read from the cache, output) from a reply's usage, or None when it holds no such counts.

    Read: OpenAI's chat usage (``prompt_tokens``, ``completion_tokens``, ``prompt_tokens_details.cached_tokens``),
    the Responses API's and LangChain's (``input_tokens`` with the cache read inside it), and Anthropic's, whose
    ``input_tokens`` leave out ``cache_read_input_tokens`` and ``cache_creation_input_tokens``.
    """
    if not isinstance(usage, Mapping):
        return None
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    if prompt is not None and completion is not None:
        return prompt, min(_nested(usage, "prompt_tokens_details", "cached_tokens"), prompt), completion
    given, output = _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
    if given is None or output is None:
        return None
    if "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage:  # Anthropic
        read = _nested(usage, "cache_read_input_tokens")
        return given + read + _nested(usage, "cache_creation_input_tokens"), read, output
    cached = _nested(usage, "input_tokens_details", "cached_tokens") or _nested(
        usage, "input_token_details", "cache_read"
    )
    return given, min(cached, given), output


@dataclass(frozen=True, kw_only=True)
class DumpCallTokens:
    """A dump's compaction call in tokens, where they come from, and the context before and after it."""

    input_tokens: int
    cached_tokens: int  # of the input, read from the cache (reported only; a counted call reads none)
    output_tokens: int
    source: TokenSource
    counter: str  # the counter the dump's numbers (and a counted call) are counted with
    tokens_before: int
    tokens_after: int

    @property
    def saved_tokens(self) -> int:
        """Input tokens every later agent call sends fewer (0 when the context did not shrink)."""
        return max(self.tokens_before - self.tokens_after, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "cached_tokens": self.cached_tokens,
            "output_tokens": self.output_tokens,
            "source": self.source,
            "counter": self.counter,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "saved_tokens": self.saved_tokens,
        }


def dump_counter(record: DumpRecord, counter: str) -> str:
    """The counter a dump's numbers were counted with: the one our dumps record, else ``counter``."""
    named = (record.extension or {}).get("counter")
    return named if isinstance(named, str) and named in COUNTER_NAMES else counter


def dump_call_tokens(record: DumpRecord, counter: str = "cl100k_base") -> DumpCallTokens:
    """The compaction call's tokens: the reported usage when the dump has one, else counted."""
    used = dump_counter(record, counter)
    reported = reported_tokens(record.usage)
    source: TokenSource = "reported" if reported is not None else "counted"
    if reported is not None:
        input_tokens, cached, output = reported
    else:
        counting = get_counter(used)
        input_tokens = counting.count(record.messages_sent_to_model) + counting.count_tools(record.tools)
        cached, output = 0, counting.tok(record.raw_content)
    return DumpCallTokens(
        input_tokens=input_tokens,
        cached_tokens=cached,
        output_tokens=output,
        source=source,
        counter=used,
        tokens_before=record.tokens_before,
        tokens_after=record.tokens_after,
    )


@dataclass(frozen=True, kw_only=True)
class DumpCost:
    """One dump's compaction call priced: its cost, the saving at every later agent call, and its payback."""

    call: DumpCallTokens
    unit: Unit  # "usd" with a price, else "tokens"
    price_model: str | None
    call_cost: float
    saving_per_call: float
    payback_calls: int | None  # agent calls after it until it has paid for itself; None: it saves nothing

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.call.to_dict(),
            "unit": self.unit,
            "price_model": self.price_model,
            "call_cost": rounded(self.call_cost, self.unit),
            "saving_per_call": rounded(self.saving_per_call, self.unit),
            "payback_calls": self.payback_calls,
        }


def price_dump_call(call: DumpCallTokens, price: Price | None) -> DumpCost:
    """``call`` at ``price`` (USD per million tokens; None: in tokens)."""
    cost = price_call(
        input_tokens=call.input_tokens,
        cached_tokens=call.cached_tokens,
        output_tokens=call.output_tokens,
        price=price,
    )
    saving = call.saved_tokens * (price.input / PER_TOKENS if price is not None else 1.0)
    # no cache in a dump: the first agent call after it already sends the smaller window, so its extra is −saving
    return DumpCost(
        call=call,
        unit="usd" if price is not None else "tokens",
        price_model=price.model if price is not None else None,
        call_cost=cost,
        saving_per_call=saving,
        payback_calls=payback_calls(owed=cost - saving, saving=saving),
    )


def dump_cost(record: DumpRecord, price: Price | None, counter: str = "cl100k_base") -> DumpCost:
    """One dump's compaction call: its tokens (reported, else counted with ``counter``) priced at ``price``."""
    return price_dump_call(dump_call_tokens(record, counter), price)


@dataclass(frozen=True, kw_only=True)
class DumpCostTotal:
    """A folder's compaction calls together: how many, their tokens and cost, and what they save per call."""

    dumps: int
    reported: int  # of them, priced from the usage they report (the rest counted)
    unit: Unit
    input_tokens: int
    output_tokens: int
    call_cost: float
    saving_per_call: float  # the sum of each one's saving at every later call

    def to_dict(self) -> dict[str, Any]:
        return {
            "dumps": self.dumps,
            "reported": self.reported,
            "unit": self.unit,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "call_cost": rounded(self.call_cost, self.unit),
            "saving_per_call": rounded(self.saving_per_call, self.unit),
        }


def total_cost(costs: Iterable[DumpCost], unit: Unit) -> DumpCostTotal:
    """The sum of dumps priced in ``unit`` (one price for all, as a page prices a folder)."""
    lines = list(costs)
    if any(line.unit != unit for line in lines):
        raise ValueError("total_cost: every dump must be priced in the same unit")
    return DumpCostTotal(
        dumps=len(lines),
        reported=sum(1 for line in lines if line.call.source == "reported"),
        unit=unit,
        input_tokens=sum(line.call.input_tokens for line in lines),
        output_tokens=sum(line.call.output_tokens for line in lines),
        call_cost=sum(line.call_cost for line in lines),
        saving_per_call=sum(line.saving_per_call for line in lines),
    )


@dataclass(frozen=True, kw_only=True)
class DumpTiming:
    """How a dump's compaction went in time: its model calls (the retries plus the one that answered), the backoff
    waited between them, and the seconds from the trigger's ``threshold_check`` to the dump (None: no debug log)."""

    calls: int
    retries: int
    backoff_seconds: float | None
    seconds: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "retries": self.retries,
            "backoff_seconds": self.backoff_seconds,
            "seconds": self.seconds,
        }


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def dump_timing(record: DumpRecord) -> DumpTiming | None:
    """The compaction's calls, backoff and duration from the dump's debug records; None when neither they nor
    our extension say anything of its attempts."""
    retries = record.retries
    if retries is None:
        return None
    logged = record.debug_records
    if not logged:
        return DumpTiming(calls=retries + 1, retries=retries, backoff_seconds=None, seconds=None)
    backoff = 0.0
    for item in logged:
        if item.get("event") == "compression_retry":
            backoff += _seconds(item.get("delay_seconds")) or 0.0
    # the window opens on its threshold_check: the listing's own figure (``DumpSummary.seconds``)
    return DumpTiming(
        calls=retries + 1, retries=retries, backoff_seconds=round(backoff, 3), seconds=record.summary.seconds
    )
