"""``compaction-lab simulate FILE``: the current setting step by step and priced, a sweep of settings, the
baselines beside it, and a recommendation that states its price."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from dashboard.i18n import counted, recommendation_sentences

from ..cost import CompactionCost, LoopFlag, LoopReport, RunCost, RunLedger, Unit
from ..errors import ConfigError
from ..jsontext import json_text
from ..replay.costs import PriceChoice
from ..replay.grid import DEFAULT_HEADROOM, DEFAULT_KEEPS, DEFAULT_RATIOS, DEFAULT_SUMMARY
from ..replay.masking import MASK_KEEP_RESULTS
from ..replay.recommend import Recommendation
from ..replay.sweep import Sweep, validate_grid
from ..replay.tuning import Tuning, tune
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


def add_parser(subparsers: Any) -> None:
    """``compaction-lab simulate FILE …``: the current setting step by step, a sweep and a recommendation."""
    parser = subparsers.add_parser(
        "simulate", help="replay a run: where compaction fires, what it costs, and a sweep of settings"
    )
    parser.add_argument("file", metavar="FILE", help="an agent run in any supported format")
    add_settings(parser)
    sweep = parser.add_argument_group("sweep")
    sweep.add_argument(
        "--ratios",
        metavar="R,R,…",
        help=f"trigger ratios to sweep (default {','.join(f'{r:g}' for r in DEFAULT_RATIOS)})",
    )
    sweep.add_argument(
        "--keeps",
        metavar="N,N,…",
        help=f"keep_recent_messages values to sweep (default {','.join(map(str, DEFAULT_KEEPS))})",
    )
    sweep.add_argument(
        "--summary",
        default=DEFAULT_SUMMARY,
        metavar="offline|fixed:N|ratio:X",
        help=f"how big each summary is (default {DEFAULT_SUMMARY}, as the dashboard's Tune page); "
        "offline runs the offline backend on every compaction request, slow on long runs",
    )
    sweep.add_argument(
        "--headroom",
        default=str(DEFAULT_HEADROOM),
        metavar="H",
        help=f"share of context_max the recommendation keeps free (default {DEFAULT_HEADROOM:g})",
    )
    cost = parser.add_argument_group("cost")
    cost.add_argument(
        "--price-model",
        metavar="NAME",
        help="price the run as this model (default: --model, else the model the run's file names)",
    )
    cost.add_argument(
        "--prices", metavar="FILE", help="a JSON price table whose rows replace or extend the bundled ones"
    )
    cost.add_argument(
        "--keep-results",
        type=int,
        default=MASK_KEEP_RESULTS,
        metavar="N",
        help=f"tool results the masking baselines leave unmasked (default {MASK_KEEP_RESULTS})",
    )
    parser.add_argument(
        "--conversation",
        type=int,
        default=None,
        metavar="K",
        help="which conversation of a file holding several (0-based)",
    )
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
            raise ConfigError(
                f"{what}: {part.strip()!r} is not a {'whole number' if kind is int else 'number'}"
            ) from None
    if not values:
        raise ConfigError(f"{what}: give at least one value, e.g. {','.join(str(v) for v in default)}")
    return values


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        config = settings_config(args)
        summary = SummaryModel.parse(args.summary)
        ratios, keeps, _ = validate_grid(
            _numbers(args.ratios, DEFAULT_RATIOS, float, "--ratios"),
            _numbers(args.keeps, DEFAULT_KEEPS, int, "--keeps"),
            [config.min_target_context_ratio],
        )
        headroom = _numbers(args.headroom, (DEFAULT_HEADROOM,), float, "--headroom")[0]
        if not 0.0 <= headroom < 1.0:
            raise ConfigError(f"--headroom: {headroom:g} must be a share of context_max, 0 ≤ h < 1")
        if args.keep_results < 0:
            raise ConfigError(f"--keep-results: {args.keep_results} is not a number of tool results (≥ 0)")
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
            bad(
                f"{args.file}: --conversation {args.conversation} is out of range (0..{len(conversations) - 1})",
                err,
            )
            return EXIT_BAD_INPUT
        conversations = [conversations[args.conversation]]
    if len(conversations) != 1:
        bad(f"{args.file}: holds {len(conversations)} conversations; pick one with --conversation K", err)
        return EXIT_BAD_INPUT
    conversation = conversations[0]
    try:
        tuning = tune(
            conversation,
            config,
            context_max=args.context_max,
            model=args.model,
            counter=args.counter,
            summary=summary,
            ratios=ratios,
            keeps=keeps,
            headroom=headroom,
            price_model=args.price_model,
            prices=args.prices,
            keep_results=args.keep_results,
        )
    except ConfigError as error:
        bad(str(error), err)
        return EXIT_BAD_INPUT
    simulation, swept, recommendation = tuning.simulation, tuning.sweep, tuning.recommendation
    if args.html:
        from dashboard.report import build_report  # plotly is loaded only when a report is asked for

        title = f"Compaction report: {conversation.name or Path(args.file).name}"
        write_atomic(
            Path(args.html),
            build_report(simulation, swept, recommendation, title=title),
            guard=output_guard(args),
        )
    if args.json:
        document = {
            "source": conversation.name,
            "counter": simulation.counter,
            "summary": simulation.summary,
            "context_max": simulation.context_max,
            "context_max_source": simulation.capacity.source,
            **tuning.to_dict(),
        }
        print(json_text(document), file=out)
    else:
        print(format_report(tuning), file=out)
    if args.html:
        print(f"report written to {args.html}", file=err if args.json else out)
    return EXIT_OK


# -- the readable report ---------------------------------------------------------------------------


def money(value: float, unit: Unit) -> str:
    """A cost as the CLI prints it: dollars to four decimals under $1 (cents above), else whole tokens."""
    if unit == "tokens":
        return f"{round(value):,} tokens"
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(value):,.4f}" if abs(value) < 1 else f"{sign}${abs(value):,.2f}"


#: The loop flags in words (the library gives codes and numbers).
FLAG_WORDS: dict[str, str] = {
    "low_gain": "reclaims {share:.0%} of a {window_tokens:,}-token window (less than {limit:.0%})",
    "refires": "fires again {calls_after} after the last attempt (limit {limit})",
    "stays_above": "leaves {window_tokens:,} tokens, at or above the {threshold:,} threshold: the next call compacts again",
}


def flag_text(flag: LoopFlag) -> str:
    values: dict[str, Any] = dict(flag.values)
    if flag.code == "refires":
        values["calls_after"] = counted(int(values["calls"]), "call", "en")
    return FLAG_WORDS[flag.code].format(**values)


def price_text(choice: PriceChoice) -> str:
    price = choice.price
    if price is None:
        named = f"{choice.asked!r} is not in the price table" if choice.asked else "the run names no model"
        return f"price: none ({named}; give --price-model NAME): costs are counted in tokens"
    origin = "bundled" if price.origin == "bundled" else f"from {price.origin}"
    return (
        f"price: {price.model} ({choice.source}) per 1M tokens: input ${price.input:g}, cached ${price.cached_input:g}, "
        f"cache write ${price.cache_write:g}, output ${price.output:g} ({origin}; {price.source or 'no source'}, "
        f"{price.date or 'undated'})"
    )


def compaction_lines(line: CompactionCost, flags: tuple[LoopFlag, ...]) -> list[str]:
    unit = line.unit
    payback = (
        "never pays back (it saves nothing per call)"
        if line.payback_calls is None
        else f"pays back after {counted(line.payback_calls, 'call', 'en')} of the {line.horizon_calls} it had"
        + ("" if line.payback == "paid" else ": never within the run")
    )
    call = line.call
    head = (
        f"call {call.input:,} in ({call.cached:,} cached) + {call.output:,} out = {money(line.call_cost, unit)}"
        if call.calls
        else "no model call"
    )
    retried = f", {line.retries} retr{'y' if line.retries == 1 else 'ies'}" if line.retries else ""
    slept = f", {line.backoff_seconds:.2f} s backoff" if line.backoff_seconds else ""
    lines = [
        f"      cost: {head}{retried}{slept}; invalidates {line.invalidated_tokens:,} cached tokens, "
        f"writes {line.cache_write_tokens:,}{f' ({money(line.cache_write_cost, unit)})' if unit == 'usd' else ''}; "
        "next call "
        f"{'+' if line.first_call_extra >= 0 else ''}{money(line.first_call_extra, unit)}, then "
        f"{money(line.saving_per_call, unit)} saved per call; {payback}",
    ]
    lines.extend(f"      flag: {flag_text(flag)}" for flag in flags)
    return lines


def _run_cost(cost: RunCost) -> str:
    agent, compaction = cost.agent, cost.compaction
    calls = (
        f"; {counted(compaction.calls, 'compaction_call', 'en')} {compaction.input:,} in "
        f"({compaction.cached:,} cached) "
        f"+ {compaction.output:,} out"
        if compaction.calls
        else ""
    )
    return (
        f"agent input {agent.input:,} ({agent.cached:,} cached, {agent.written:,} uncached){calls}: "
        f"{money(cost.cost, cost.unit)}"
    )


def ledger_lines(ledger: RunLedger, loops: LoopReport) -> list[str]:
    lines = [
        f"  with compaction     {_run_cost(ledger.with_compaction)}",
        f"  without compaction  {_run_cost(ledger.without_compaction)}",
        f"  compaction {'saves' if ledger.saved >= 0 else 'costs'} {money(abs(ledger.saved), ledger.unit)} over the run",
    ]
    storm = loops.storm
    if storm is not None:
        lines.append(
            f"  compaction storm: {storm.flagged} of {storm.attempts} attempts flagged, {storm.longest_streak} in a "
            f"row; a breaker after {loops.rules.breaker_after} would stop at message {storm.breaker_index} and spare "
            f"{counted(storm.stopped_attempts, 'attempt', 'en')}, {counted(storm.stopped_calls, 'call', 'en')}, "
            f"{storm.stopped_request_tokens:,} tokens"
        )
    elif loops.flagged:
        lines.append(f"  {counted(loops.flagged, 'flagged_attempt', 'en')}, no storm")
    return lines


def format_report(tuning: Tuning) -> str:
    """The readable report: the current setting priced, its compactions, the baselines, the sweep, the pick."""
    simulation, swept, recommendation = tuning.simulation, tuning.sweep, tuning.recommendation
    o = simulation.outcome
    first = "never" if o.first_trigger_index is None else f"at message {o.first_trigger_index}"
    lines = [
        f"{simulation.source or '(unnamed)'}  [{simulation.messages} context messages, {o.steps} model calls, "
        f"counter {simulation.counter}, context_max {simulation.capacity.describe()}, summary {simulation.summary}]",
        price_text(tuning.price),
        f"current setting  trigger {o.trigger_context_ratio:g}, keep {o.keep_recent_messages}, "
        f"min target {o.min_target_context_ratio:g}: trigger fires {first}; {counted(o.compactions, 'compaction', 'en')}, "
        f"{o.refused} refused",
        f"  peak {o.peak_tokens:,} tokens ({o.peak_utilisation:.1%}), {counted(o.steps_over_capacity, 'call', 'en')} over capacity; "
        f"compaction input {o.compaction_input_tokens:,}; agent input {o.agent_input_tokens:,} "
        f"(uncompacted {o.agent_input_tokens_uncompacted:,})",
    ]
    ledger, loops = tuning.current.ledger, tuning.current.loops
    for event, line, flagged in zip(simulation.events, ledger.compactions, loops.attempts, strict=True):
        lines.append(
            f"  message {event.index:>6}: {event.status + (f' ({event.reason})' if event.reason else ''):<24} span {event.span[0]}/{event.span[1]}/{event.span[2]}, "
            f"context {event.tokens_before:,} → {event.tokens_after:,} (memory {event.memory_tokens:,}, "
            f"reinjection {event.reinjection_tokens:,}), request {event.request_tokens:,}"
        )
        lines.extend(compaction_lines(line, flagged.flags))
    lines.append("ledger of the current setting")
    lines.extend(ledger_lines(ledger, loops))
    lines.extend(baseline_lines(tuning))
    lines.append("")
    lines.extend(sweep_lines(swept, recommendation))
    lines.append("")
    chosen = recommendation.setting
    lines.append(f"recommendation (headroom {recommendation.headroom:.0%}):" + ("" if chosen else " none"))
    lines.extend(f"  - {sentence}" for sentence in recommendation_sentences(recommendation, "en"))
    return "\n".join(lines)


def baseline_lines(tuning: Tuning) -> list[str]:
    if not tuning.baselines:
        return []
    lines = ["baselines at the current setting (same run, same ledger)"]
    for baseline in tuning.baselines:
        o, cost = baseline.outcome, baseline.assessment.ledger.with_compaction
        lines.append(
            f"  {baseline.strategy:<9} keep {baseline.keep_results} tool results: "
            f"{counted(o.maskings, 'masking', 'en')}, "
            f"{counted(o.compactions, 'summary', 'en')}, peak {o.peak_tokens:,} "
            f"({o.peak_utilisation:.1%}); {_run_cost(cost)}"
            + (f"; {baseline.assessment.loops.flagged} flagged" if baseline.assessment.loops.flagged else "")
        )
    return lines


def sweep_lines(swept: Sweep, recommendation: Recommendation) -> list[str]:
    chosen = recommendation.setting.key if recommendation.setting is not None else None
    unit = recommendation.unit
    by_key = {a.outcome.key: a for a in recommendation.assessments}
    lines = [
        f"  {'ratio':>6} {'keep':>5} {'min':>5} {'first':>7} {'compact':>8} {'refused':>8} {'peak':>11} "
        f"{'util':>7} {'over':>5} {'compaction in':>14} {'agent in':>14} {'cost' if unit == 'usd' else 'tokens':>14} "
        f"{'flags':>5}"
    ]
    for outcome in swept.outcomes:
        mark = "*" if outcome.key == chosen else " "
        first_index = "-" if outcome.first_trigger_index is None else str(outcome.first_trigger_index)
        assessment = by_key.get(outcome.key)
        cost = money(assessment.cost, unit).replace(" tokens", "") if assessment else "-"
        flags = str(assessment.loops.flagged) if assessment else "-"
        lines.append(
            f"{mark} {outcome.trigger_context_ratio:>6g} {outcome.keep_recent_messages:>5} "
            f"{outcome.min_target_context_ratio:>5g} {first_index:>7} {outcome.compactions:>8} {outcome.refused:>8} "
            f"{outcome.peak_tokens:>11,} {outcome.peak_utilisation:>7.1%} {outcome.steps_over_capacity:>5} "
            f"{outcome.compaction_input_tokens:>14,} {outcome.agent_input_tokens:>14,} {cost:>14} {flags:>5}"
        )
    return lines
