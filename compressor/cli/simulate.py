"""``compaction-lab simulate FILE``: the current setting step by step, a sweep of settings and a recommendation."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from dashboard.i18n import recommendation_sentences

from ..errors import ConfigError
from ..jsontext import json_text
from ..replay.recommend import recommend
from ..replay.simulate import Simulation, simulate
from ..replay.sweep import sweep, validate_grid
from ..replay.values import SummaryModel
from .common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    add_settings,
    bad,
    load_all,
    output_guard,
    settings_config,
    validation_line,
    write_atomic,
)

DEFAULT_RATIOS: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_KEEPS: tuple[int, ...] = (0, 2, 4)


def add_parser(subparsers: Any) -> None:
    """``compaction-lab simulate FILE …``: the current setting step by step, a sweep and a recommendation."""
    parser = subparsers.add_parser(
        "simulate", help="replay a run: where compaction fires, what it costs, and a sweep of settings"
    )
    parser.add_argument("file", metavar="FILE", help="an agent run in any supported format")
    add_settings(parser)
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
    parser.set_defaults(run=run)


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


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        config = settings_config(args)
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
        bad(validation_line(error), err)
        return EXIT_BAD_INPUT
    except ConfigError as error:
        bad(str(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = load_all([args.file], err)
    if not ok:
        return EXIT_BAD_INPUT
    if args.conversation is not None:
        if not 0 <= args.conversation < len(conversations):
            bad(f"{args.file}: --conversation {args.conversation} is out of range (0..{len(conversations) - 1})", err)
            return EXIT_BAD_INPUT
        conversations = [conversations[args.conversation]]
    if len(conversations) != 1:
        bad(f"{args.file}: holds {len(conversations)} conversations; pick one with --conversation K", err)
        return EXIT_BAD_INPUT
    conversation = conversations[0]
    options = {"context_max": args.context_max, "model": args.model, "counter": args.counter, "summary": summary}
    simulation = simulate(conversation, config, **options)
    swept = sweep(conversation, ratios=ratios, keeps=keeps, min_targets=[config.min_target_context_ratio], **options)
    recommendation = recommend(swept, headroom=headroom)
    if args.html:
        from dashboard.report import build_report  # plotly is loaded only when a report is asked for

        title = f"Compaction report: {conversation.name or Path(args.file).name}"
        write_atomic(
            Path(args.html), build_report(simulation, swept, recommendation, title=title), guard=output_guard(args)
        )
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
        print(json_text(document), file=out)
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
            f"  message {event.index:>6}: {event.status + (f' ({event.reason})' if event.reason else ''):<24} span {event.span[0]}/{event.span[1]}/{event.span[2]}, "
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
    lines.extend(f"  - {sentence}" for sentence in recommendation_sentences(recommendation, "en"))
    return "\n".join(lines)
