"""``simulate()``: replay a whole agent run under one setting, compacting wherever openJiuwen would.

Invariant: until the first compaction every window is the original run's (SPEC §6, usage included), so
``first_trigger_index`` is analyze() on ``messages[:i]``; after it every window is counted (see ``simulate``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .backends import Backend
from .config import CurrentRoundCompressorConfig
from .errors import ConfigError
from .messages import Conversation, Message
from .outcome import CompactionEvent, Outcome, Step, SummaryModel
from .playback import LiveCompaction, Player
from .runindex import run_index
from .tokens import TokenCounter, get_counter
from .windows import Capacity, resolve_context_max

__all__ = [
    "CompactionEvent",
    "LiveCostEstimate",
    "Outcome",
    "Simulation",
    "Step",
    "SummaryModel",
    "add_simulate_parser",
    "estimate_live_cost",
    "simulate",
]


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
) -> Simulation:
    """Replay ``conversation`` under ``config``: at each assistant message, decide and maybe compact (SPEC §8, §10).

    ``summary`` sizes each compaction's memory block: ``"offline"`` runs the offline backend on the real request,
    ``"fixed:N"`` costs N tokens, ``"ratio:X"`` costs ``int(X × count(compress))`` tokens, and a Backend is
    called for real through ``CurrentRoundCompressor.compact(force=True)`` (estimate first: ``estimate_live_cost``).

    Reported usage: openJiuwen marks usage stale after a compaction (``metadata.context_usage_stale``), so messages
    kept from before a compaction no longer anchor the total. The later messages of the file carry usage that
    was measured on the *uncompacted* run, which the simulated agent no longer sends; using it would put the
    uncompacted size back. So once a compaction succeeds, every later window takes SPEC §6's counted path —
    exactly what openJiuwen computes right after a compaction, when no fresh usage exists yet.
    """
    config = config or CurrentRoundCompressorConfig()
    if model is None and config.model is not None:
        model = config.model.model_name
    capacity = resolve_context_max(context_max, model)
    token_counter = get_counter(counter) if isinstance(counter, str) else counter
    summary_model = SummaryModel.parse(summary)
    index = run_index(conversation, token_counter)
    settings = (config.trigger_context_ratio, config.keep_recent_messages, config.min_target_context_ratio)
    if summary_model.kind == "live":
        assert summary_model.backend is not None
        with asyncio.Runner() as runner:
            live = _live_compaction(conversation, config, summary_model.backend, capacity.tokens, token_counter, runner)
            played = Player(index, capacity.tokens, summary_model, record=True, live=live).play(*settings)
    else:
        played = Player(index, capacity.tokens, summary_model, record=True).play(*settings)
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
    )


def _live_compaction(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig,
    backend: Backend,
    context_max: int,
    counter: TokenCounter,
    runner: asyncio.Runner,
) -> LiveCompaction:
    from .compactor import CurrentRoundCompressor

    # A simulation writes nothing: dumps stay off whatever the config says.
    compressor = CurrentRoundCompressor(
        config.with_settings(enable_compression_dump=False), backend, context_max=context_max, counter=counter
    )

    def compact(messages: list[Message]) -> tuple[str, str, tuple[int, int, int], list[Message], int, int, str]:
        result = runner.run(compressor.compact(conversation.with_messages(messages), force=True))
        prefix, _, tail = result.span_counts
        added = list(result.messages[prefix : len(result.messages) - tail]) if result.status == "compacted" else []
        request = sum(attempt.request_tokens for attempt in result.attempts)
        return result.status, result.reason, result.span_counts, added, request, len(result.attempts), result.summary or ""

    return compact


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
            f"About {self.calls} compaction call(s) sending about {self.request_tokens:,} input tokens in all "
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
        conversation, config, context_max=context_max, model=model, counter=counter,
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


# -- CLI -------------------------------------------------------------------------------------------

DEFAULT_RATIOS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_KEEPS: tuple[int, ...] = (0, 2, 4)


def add_simulate_parser(subparsers: Any) -> None:
    """``compaction-lab simulate FILE …``: the current setting step by step, a sweep and a recommendation."""
    from .cli import _add_settings

    parser = subparsers.add_parser(
        "simulate", help="replay a run: where compaction fires, what it costs, and a sweep of settings"
    )
    parser.add_argument("file", metavar="FILE", help="an agent run in any supported format")
    _add_settings(parser)
    sweep = parser.add_argument_group("sweep")
    sweep.add_argument("--ratios", metavar="R,R,…", help="trigger ratios to sweep (default 0.5,0.6,0.7,0.8,0.9)")
    sweep.add_argument("--keeps", metavar="N,N,…", help="keep_recent_messages values to sweep (default 0,2,4)")
    sweep.add_argument("--summary", default="offline", metavar="offline|fixed:N|ratio:X",
                       help="how big each summary is: offline (default) runs the offline backend on every "
                            "compaction request, slow on long runs; fixed:N and ratio:X are instant")
    sweep.add_argument("--headroom", default="0.1", metavar="H",
                       help="share of context_max the recommendation keeps free (default 0.1)")
    parser.add_argument("--conversation", type=int, default=None, metavar="K",
                        help="which conversation of a file holding several (0-based)")
    parser.add_argument("--html", metavar="REPORT.html", help="also write a self-contained HTML report")
    parser.set_defaults(run=cmd_simulate)


def _numbers(text: str | None, default: Sequence[Any], kind: type, what: str) -> list[Any]:
    if text is None:
        return list(default)
    values = []
    for part in text.split(","):
        if not part.strip():
            continue
        try:
            values.append(kind(part.strip()))
        except ValueError:
            raise ConfigError(f"{what}: {part.strip()!r} is not a {'whole number' if kind is int else 'number'}") from None
    if not values:
        raise ConfigError(f"{what}: give at least one value, e.g. {','.join(str(v) for v in default)}")
    return values


def cmd_simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pydantic import ValidationError

    from .cli import EXIT_BAD_INPUT, EXIT_OK, _bad, _config, _load_all, _validation_line, _write_atomic
    from .sweep import recommend, sweep, validate_grid

    try:
        config = _config(args)
        summary = SummaryModel.parse(args.summary)
        ratios, keeps, _ = validate_grid(
            [*_numbers(args.ratios, DEFAULT_RATIOS, float, "--ratios"), config.trigger_context_ratio],
            [*_numbers(args.keeps, DEFAULT_KEEPS, int, "--keeps"), config.keep_recent_messages],
            [config.min_target_context_ratio],
        )
        headroom = _numbers(args.headroom, (0.1,), float, "--headroom")[0]
        if not 0.0 <= headroom < 1.0:
            raise ConfigError(f"--headroom: {headroom:g} must be a share of context_max, 0 ≤ h < 1")
    except ValidationError as error:
        _bad(_validation_line(error), err)
        return EXIT_BAD_INPUT
    except ConfigError as error:
        _bad(str(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = _load_all([args.file], err)
    if not ok:
        return EXIT_BAD_INPUT
    if args.conversation is not None:
        if not 0 <= args.conversation < len(conversations):
            _bad(f"{args.file}: --conversation {args.conversation} is out of range (0..{len(conversations) - 1})", err)
            return EXIT_BAD_INPUT
        conversations = [conversations[args.conversation]]
    if len(conversations) != 1:
        _bad(f"{args.file}: holds {len(conversations)} conversations; pick one with --conversation K", err)
        return EXIT_BAD_INPUT
    conversation = conversations[0]
    options = {"context_max": args.context_max, "model": args.model, "counter": args.counter, "summary": summary}
    simulation = simulate(conversation, config, **options)
    swept = sweep(conversation, ratios=ratios, keeps=keeps, min_targets=[config.min_target_context_ratio], **options)
    recommendation = recommend(swept, headroom=headroom)
    if args.html:
        try:
            from dashboard.report import build_report
        except ImportError as error:
            _bad(f"--html: the report builder is not available ({error})", err)
            return EXIT_BAD_INPUT
        from pathlib import Path

        title = f"Compaction report: {conversation.name or Path(args.file).name}"
        _write_atomic(Path(args.html), build_report(simulation, swept, recommendation, title=title))
    if args.json:
        document = {
            "source": conversation.name,
            "counter": simulation.counter,
            "summary": simulation.summary,
            "context_max": simulation.context_max,
            "context_max_source": simulation.capacity.source,
            "current": simulation.to_dict(include_steps=False),
            "settings": [outcome.to_dict() for outcome in swept.outcomes],
            "steps": [step.to_dict() for step in simulation.steps],
            "recommendation": recommendation.to_dict(),
        }
        print(json.dumps(document, ensure_ascii=False), file=out)
    else:
        print(format_report(simulation, swept, recommendation), file=out)
    if args.html:
        print(f"report written to {args.html}", file=err if args.json else out)
    return EXIT_OK


def format_report(simulation: Simulation, swept: Any, recommendation: Any) -> str:
    """The readable table: the current setting, its compactions, the sweep and the recommendation."""
    o = simulation.outcome
    first = "never" if o.first_trigger_index is None else f"at message {o.first_trigger_index}"
    lines = [
        f"{simulation.source or '(unnamed)'}  [{simulation.messages} context messages, {o.steps} model calls, "
        f"counter {simulation.counter}, context_max {simulation.capacity.describe()}, summary {simulation.summary}]",
        f"current setting  trigger {o.trigger_context_ratio:g}, keep {o.keep_recent_messages}, "
        f"min target {o.min_target_context_ratio:g}: trigger fires {first}; {o.compactions} compaction(s), "
        f"{o.refused} refused",
        f"  peak {o.peak_tokens:,} tokens ({o.peak_utilisation:.1%}), {o.steps_over_capacity} step(s) over capacity; "
        f"compaction input {o.compaction_input_tokens:,}; agent input {o.agent_input_tokens:,} "
        f"(uncompacted {o.agent_input_tokens_uncompacted:,})",
    ]
    for event in simulation.events:
        lines.append(
            f"  message {event.index:>6}: {event.outcome:<20} span {event.span[0]}/{event.span[1]}/{event.span[2]}, "
            f"context {event.tokens_before:,} → {event.tokens_after:,} (memory {event.memory_tokens:,}, "
            f"reinjection {event.reinjection_tokens:,}), request {event.request_tokens:,}"
        )
    chosen = recommendation.setting.key if recommendation.setting is not None else None
    lines.append("")
    lines.append(
        f"  {'ratio':>6} {'keep':>5} {'min':>5} {'first':>7} {'compact':>8} {'refused':>8} {'peak':>11} "
        f"{'util':>7} {'over':>5} {'compaction in':>14} {'agent in':>14}"
    )
    for outcome in swept.outcomes:
        mark = "*" if outcome.key == chosen else " "
        first_index = "-" if outcome.first_trigger_index is None else str(outcome.first_trigger_index)
        lines.append(
            f"{mark} {outcome.trigger_context_ratio:>6g} {outcome.keep_recent_messages:>5} "
            f"{outcome.min_target_context_ratio:>5g} {first_index:>7} {outcome.compactions:>8} {outcome.refused:>8} "
            f"{outcome.peak_tokens:>11,} {outcome.peak_utilisation:>7.1%} {outcome.steps_over_capacity:>5} "
            f"{outcome.compaction_input_tokens:>14,} {outcome.agent_input_tokens:>14,}"
        )
    lines.append("")
    lines.append(f"recommendation (headroom {recommendation.headroom:.0%}):" + ("" if chosen else " none"))
    lines.extend(f"  - {sentence}" for sentence in recommendation.reasoning)
    return "\n".join(lines)
