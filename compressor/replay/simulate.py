"""``simulate()``: replay a whole agent run under one setting, compacting wherever openJiuwen would.

Invariant: until the first compaction every window is the original run's (SPEC §6, usage included), so
``first_trigger_index`` is analyze() on ``messages[:i]``; after it every window is counted (see ``simulate``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from ..analysis import run_model_of, run_window_of
from ..backends import Backend
from ..config import CurrentRoundCompressorConfig
from ..messages import Conversation, Message
from ..prompt import memory_message
from ..reinjection import OPENJIUWEN_READ_TOOLS, READ_FILE_TOOLS
from ..tokens import TokenCounter, get_counter
from ..upstream_sizing import memory_tokens
from ..windows import Capacity, resolve_context_max
from .index import run_index
from .masking import MASK_KEEP_RESULTS
from .strategies import PlayerOptions, make_player
from .values import CompactionEvent, LiveAttempt, LiveCompaction, Outcome, Step, SummaryModel


@dataclass(frozen=True)
class Simulation:
    """One setting over one run: the outcome, every model-call step and every compaction attempt."""

    outcome: Outcome
    steps: tuple[Step, ...]
    events: tuple[CompactionEvent, ...]  # every compaction attempt, refused ones included
    capacity: Capacity
    counter: str
    summary: str
    source: str
    messages: int
    #: openJiuwen compacts only with both a model and a client configured; the simulation shows what it would do
    model_configured: bool = False
    #: tokens added to every counted window for what the file does not show (0: none, as in openJiuwen's own runs)
    hidden_overhead: int = 0
    #: the read tools whose files come back after a compaction; any beyond ``read_file`` are our extension
    read_tools: tuple[str, ...] = READ_FILE_TOOLS
    #: the strategy played (``replay.strategies``) and, for the masking baselines, the tool results kept
    strategy: str = "openjiuwen"
    keep_results: int = MASK_KEEP_RESULTS

    @property
    def extension_read_tools(self) -> tuple[str, ...]:
        """Read tools recovered by our extension, not by openJiuwen (e.g. Claude Code's ``Read``)."""
        return tuple(tool for tool in self.read_tools if tool not in OPENJIUWEN_READ_TOOLS)

    @property
    def context_max(self) -> int:
        return self.capacity.tokens

    @property
    def first_trigger_index(self) -> int | None:
        return self.outcome.first_trigger_index

    @property
    def compactions(self) -> int:
        return self.outcome.compactions

    @property
    def peak_tokens(self) -> int:
        return self.outcome.peak_tokens

    @property
    def peak_utilisation(self) -> float:
        return self.outcome.peak_utilisation

    @property
    def steps_over_capacity(self) -> int:
        return self.outcome.steps_over_capacity

    @property
    def compaction_input_tokens(self) -> int:
        return self.outcome.compaction_input_tokens

    @property
    def agent_input_tokens(self) -> int:
        return self.outcome.agent_input_tokens

    @property
    def agent_input_tokens_uncompacted(self) -> int:
        return self.outcome.agent_input_tokens_uncompacted

    def to_dict(self, *, include_steps: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "messages": self.messages,
            "counter": self.counter,
            "summary": self.summary,
            "context_max_source": self.capacity.source,
            "model": self.capacity.model,
            "model_configured": self.model_configured,
            "hidden_overhead": self.hidden_overhead,
            "read_tools": list(self.read_tools),
            "extension_read_tools": list(self.extension_read_tools),
            "keep_results": self.keep_results,
            **self.outcome.to_dict(),
            "compaction_events": [event.to_dict() for event in self.events],
        }
        if include_steps:
            out["steps"] = [step.to_dict() for step in self.steps]
        return out


def simulate(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig | None = None,
    *,
    context_max: int | None = None,
    model: str | None = None,
    counter: str | TokenCounter = "cl100k_base",
    summary: str | Backend | SummaryModel = "offline",
    hidden_overhead: int = 0,
    read_tools: Collection[str] = READ_FILE_TOOLS,
    strategy: str = "openjiuwen",
    keep_results: int = MASK_KEEP_RESULTS,
) -> Simulation:
    """Replay ``conversation`` under ``config``: at each assistant message, decide and maybe compact (SPEC §8, §10).

    ``summary`` sizes each compaction's memory block: ``"offline"`` runs the offline backend on the real request,
    ``"fixed:N"`` costs N tokens, ``"ratio:X"`` costs ``int(X × count(compress))`` tokens, and a Backend is
    called for real through ``CurrentRoundCompressor.compact(force=True)`` (estimate first: ``estimate_live_cost``).

    The memory block and the recovered-context message a simulated compaction adds are counted as openJiuwen's
    own (SPEC §10.6, §12), so every later window, trigger point and benefit check is openJiuwen's; with a live
    backend the compactor writes our wording and the replay still counts openJiuwen's sizes for the same summary.

    ``hidden_overhead`` tokens are added to every counted window, after a simulated compaction too, for what the
    file does not show (a hidden system prompt, tool definitions); a window anchored on reported usage holds them
    already. ``read_tools`` beyond ``read_file`` (e.g. Claude Code's ``Read``) are our extension.

    Reported usage: openJiuwen marks usage stale after a compaction (``metadata.context_usage_stale``), so messages
    kept from before a compaction no longer anchor the total. The later messages of the file carry usage that
    was measured on the *uncompacted* run, which the simulated agent no longer sends; using it would put the
    uncompacted size back. So once a compaction succeeds, every later window takes SPEC §6's counted path —
    exactly what openJiuwen computes right after a compaction, when no fresh usage exists yet.

    ``strategy`` plays a baseline instead (``replay.strategies``): ``"masking"`` masks tool results older than the
    last ``keep_results`` at the trigger, ``"hybrid"`` masks first and summarises when that is not enough.
    """
    config = config or CurrentRoundCompressorConfig()
    if model is None and config.model is not None:
        model = config.model.model_name
    capacity = resolve_context_max(
        context_max, model, run_model=run_model_of(conversation), run_window=run_window_of(conversation)
    )
    token_counter = get_counter(counter) if isinstance(counter, str) else counter
    summary_model = SummaryModel.parse(summary)
    tools = tuple(read_tools)
    index = run_index(conversation, token_counter, tools)
    settings = (config.trigger_context_ratio, config.keep_recent_messages, config.min_target_context_ratio)
    options = PlayerOptions(record=True, hidden_overhead=hidden_overhead, keep_results=keep_results)
    if summary_model.kind == "live":
        assert summary_model.backend is not None
        with asyncio.Runner() as runner:
            live = _live_compaction(
                conversation, config, summary_model.backend, capacity.tokens, token_counter, runner, tools
            )
            options = PlayerOptions(record=True, live=live, hidden_overhead=hidden_overhead)
            played = make_player(strategy, index, capacity.tokens, summary_model, options).play(*settings)
    else:
        played = make_player(strategy, index, capacity.tokens, summary_model, options).play(*settings)
    return Simulation(
        outcome=played.outcome,
        steps=played.steps,
        events=played.compactions,
        capacity=capacity,
        counter=token_counter.name,
        summary=summary_model.label,
        source=conversation.name,
        messages=len(conversation.messages),
        model_configured=config.model_configured,
        hidden_overhead=hidden_overhead,
        read_tools=tools,
        strategy=strategy,
        keep_results=keep_results,
    )


def _live_compaction(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig,
    backend: Backend,
    context_max: int,
    counter: TokenCounter,
    runner: asyncio.Runner,
    read_tools: tuple[str, ...],
) -> LiveCompaction:
    from ..compactor import CurrentRoundCompressor

    # A simulation writes nothing: dumps stay off whatever the config says.
    compressor = CurrentRoundCompressor(
        config.with_settings(enable_compression_dump=False),
        backend,
        context_max=context_max,
        counter=counter,
        read_tools=read_tools,
    )

    def compact(messages: list[Message]) -> LiveAttempt:
        result = runner.run(compressor.compact(conversation.with_messages(messages), force=True))
        summary = result.summary or ""
        reinjection = result.reinjection
        # The new context was built (a summary came back): the replay decides its benefit on openJiuwen's sizes.
        built = bool(summary) and result.status in ("compacted", "no_benefit")
        added: tuple[Message, ...] = ()
        sizes: tuple[int, ...] = ()
        if built:
            added = (memory_message(summary), *((reinjection.message,) if reinjection is not None else ()))
            sizes = (
                memory_tokens(counter, summary),
                *((reinjection.openjiuwen_tokens(counter),) if reinjection is not None else ()),
            )
        return LiveAttempt(
            compacted=result.status == "compacted",
            reason=result.reason,
            span=result.span_counts,
            added=added,
            added_tokens=sizes,
            reinjected_files=tuple(f.path for f in reinjection.files) if reinjection is not None else (),
            request_tokens=sum(attempt.request_tokens for attempt in result.attempts),
            calls=len(result.attempts),
            summary=summary,
            output_tokens=_output_tokens(result.usage, result.raw_reply, counter),
            backoff_seconds=sum(attempt.delay_seconds or 0.0 for attempt in result.attempts),
        )

    return compact


def _output_tokens(usage: Mapping[str, Any] | None, reply: str | None, counter: TokenCounter) -> int:
    """A live reply's output tokens: as its usage reports them (OpenAI or Anthropic names), else counted."""
    for key in ("completion_tokens", "output_tokens"):
        value = (usage or {}).get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return counter.tok(reply) if reply else 0


@dataclass(frozen=True)
class LiveCostEstimate:
    """What a live simulation would send, estimated with summaries sized as a share of the span."""

    calls: int
    request_tokens: int
    largest_request_tokens: int
    summary_ratio: float
    context_max: int

    def describe(self) -> str:
        if not self.calls:
            return "No compaction would fire on this run with these settings: no model calls."
        return (
            f"About {self.calls} compaction call{'' if self.calls == 1 else 's'} sending about "
            f"{self.request_tokens:,} input tokens in all "
            f"(largest request {self.largest_request_tokens:,}), assuming summaries of {self.summary_ratio:.0%} "
            "of the compressed span; retries would add more."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "request_tokens": self.request_tokens,
            "largest_request_tokens": self.largest_request_tokens,
            "summary_ratio": self.summary_ratio,
            "context_max": self.context_max,
            "description": self.describe(),
        }


def estimate_live_cost(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig | None = None,
    *,
    context_max: int | None = None,
    model: str | None = None,
    counter: str | TokenCounter = "cl100k_base",
    summary_ratio: float = 0.1,
) -> LiveCostEstimate:
    """The calls and tokens a live simulation would send, so a UI can ask before spending them."""
    simulation = simulate(
        conversation,
        config,
        context_max=context_max,
        model=model,
        counter=counter,
        summary=SummaryModel.parse(f"ratio:{summary_ratio}"),
    )
    requests = [event.request_tokens for event in simulation.events]
    return LiveCostEstimate(
        calls=sum(event.calls for event in simulation.events),
        request_tokens=sum(requests),
        largest_request_tokens=max(requests, default=0),
        summary_ratio=summary_ratio,
        context_max=simulation.context_max,
    )
