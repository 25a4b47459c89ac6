"""``compaction-lab fleet PATH…``: one setting for many runs — catalogue them, sweep the grid over all of them, and
recommend the cheapest setting that keeps the headroom on the chosen share of runs, with the runs it hurts."""

from __future__ import annotations

import argparse
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from dashboard.i18n import counted

from ..errors import ConfigError
from ..fleet import (
    DEFAULT_HEADROOM,
    DEFAULT_KEEPS,
    DEFAULT_RATIOS,
    DEFAULT_SHARE,
    DEFAULT_SUMMARY,
    Catalog,
    Fleet,
    FleetGrid,
    Progress,
    make_executor,
    run_fleet,
)
from ..fleet.values import FleetReason, Hurt
from ..replay import SummaryModel, resolve_price, validate_grid
from ..tokens import COUNTER_NAMES
from .common import EXIT_BAD_INPUT, EXIT_OK, bad, output_guard, ratio_arg, write_atomic


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fleet", help="many runs: catalogue them once, sweep settings over all of them, one recommendation"
    )
    parser.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        help="run files or folders (walked recursively; every supported format)",
    )
    parser.add_argument(
        "--standard",
        action="store_true",
        help="add the sessions in the agents' standard places (see `compaction-lab runs`)",
    )
    parser.add_argument("--home", metavar="DIR", help="with --standard: look under this home folder")
    grid = parser.add_argument_group("sweep")
    grid.add_argument(
        "--ratios",
        metavar="R,R,…",
        help=f"trigger ratios (default {','.join(f'{r:g}' for r in DEFAULT_RATIOS)})",
    )
    grid.add_argument(
        "--keeps",
        metavar="N,N,…",
        help=f"keep_recent_messages values (default {','.join(map(str, DEFAULT_KEEPS))})",
    )
    grid.add_argument(
        "--min-target-ratio",
        type=ratio_arg,
        default=0.1,
        metavar="R",
        help="min_target_context_ratio, 0 <= R < 1 (default 0.1)",
    )
    grid.add_argument(
        "--summary",
        default=DEFAULT_SUMMARY,
        metavar="offline|fixed:N|ratio:X",
        help=f"how big each summary is (default {DEFAULT_SUMMARY})",
    )
    grid.add_argument(
        "--headroom",
        type=ratio_arg,
        default=DEFAULT_HEADROOM,
        metavar="H",
        help=f"share of context_max a run must keep free (default {DEFAULT_HEADROOM:g})",
    )
    grid.add_argument(
        "--share",
        type=ratio_arg,
        default=DEFAULT_SHARE,
        metavar="S",
        help=f"share of runs that must keep the headroom (default {DEFAULT_SHARE:g})",
    )
    capacity = parser.add_mutually_exclusive_group()
    capacity.add_argument(
        "--context-max",
        type=int,
        metavar="N",
        help="every run's capacity in tokens (default: each run's own model's window)",
    )
    capacity.add_argument("--model", metavar="NAME", help="every run's capacity from this model's window")
    parser.add_argument(
        "--counter", choices=COUNTER_NAMES, default="cl100k_base", help="token counter (default cl100k_base)"
    )
    parser.add_argument(
        "--price-model",
        metavar="NAME",
        help="bill every run at this model's price (default: the model each run's file names)",
    )
    where = parser.add_argument_group("where")
    where.add_argument("--catalog", metavar="DIR", help="the catalog folder (default: the user cache folder)")
    workers = where.add_mutually_exclusive_group()
    workers.add_argument("--jobs", type=int, metavar="N", help="local processes (default: one per core)")
    workers.add_argument(
        "--scheduler", metavar="ADDRESS", help="a Dask distributed scheduler, e.g. tcp://host:8786"
    )
    parser.add_argument("--json", action="store_true", help="print the fleet as JSON")
    parser.add_argument("--html", metavar="REPORT.html", help="also write a self-contained HTML report")
    parser.set_defaults(run=run)


def _numbers(text: str | None, default: Sequence[Any], kind: type, what: str) -> list[Any]:
    if text is None:
        return list(default)
    values = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            try:
                values.append(kind(part))
            except ValueError:
                raise ConfigError(
                    f"{what}: {part!r} is not a {'whole number' if kind is int else 'number'}"
                ) from None
    if not values:
        raise ConfigError(f"{what}: give at least one value, e.g. {','.join(str(v) for v in default)}")
    return values


def grid_of(args: argparse.Namespace) -> FleetGrid:
    ratios, keeps, targets = validate_grid(
        _numbers(args.ratios, DEFAULT_RATIOS, float, "--ratios"),
        _numbers(args.keeps, DEFAULT_KEEPS, int, "--keeps"),
        [args.min_target_ratio],
    )
    summary = SummaryModel.parse(args.summary)
    if summary.kind == "live":
        raise ConfigError("--summary: a fleet takes offline, fixed:N or ratio:X")
    if not 0.0 <= args.headroom < 1.0:
        raise ConfigError(f"--headroom: {args.headroom:g} must be a share of context_max, 0 ≤ h < 1")
    if not 0.0 < args.share <= 1.0:
        raise ConfigError(f"--share: {args.share:g} must be a share of the runs, 0 < s ≤ 1")
    if args.context_max is not None and args.context_max < 1:
        raise ConfigError(f"--context-max: {args.context_max} is not a number of tokens (≥ 1)")
    if args.price_model:
        resolve_price(
            None, price_model=args.price_model
        )  # an unknown name is one line here, not in every run
    return FleetGrid(
        ratios=ratios,
        keeps=keeps,
        min_targets=targets,
        summary=summary.label,
        counter=args.counter,
        context_max=args.context_max,
        model=args.model,
        headroom=args.headroom,
        share=args.share,
        price_model=args.price_model,
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    grid = grid_of(args)
    if not args.paths and not args.standard:
        bad("fleet: give run files or folders, or --standard for the agents' own session folders", err)
        return EXIT_BAD_INPUT
    catalog = Catalog(args.catalog)
    executor = make_executor(jobs=args.jobs, scheduler=args.scheduler)
    show = _progress_line(err) if not args.json and getattr(err, "isatty", lambda: False)() else None
    try:
        fleet = run_fleet(
            args.paths,
            grid,
            catalog,
            executor,
            standard=args.standard,
            home=Path(args.home).expanduser() if args.home else None,
            progress=show,
        )
    finally:
        executor.close()
    if not fleet.runs and not fleet.broken:
        bad("fleet: no run files found (" + ", ".join(map(str, args.paths or ["standard places"])) + ")", err)
        return EXIT_BAD_INPUT
    if args.html:
        write_atomic(Path(args.html), html_report(fleet), guard=output_guard(args))
    if args.json:
        print(json.dumps(fleet.to_dict(), ensure_ascii=False), file=out)
    else:
        print(format_fleet(fleet), file=out)
    if args.html:
        print(f"report written to {args.html}", file=err if args.json else out)
    return EXIT_OK


def _progress_line(err: TextIO) -> Any:
    def show(progress: Progress) -> None:
        eta = progress.eta_seconds
        tail = f", about {eta:.0f} s left" if eta is not None and progress.phase != "done" else ""
        print(
            f"\r{progress.phase}: {progress.done:,}/{progress.total:,}{tail}   ", end="", file=err, flush=True
        )
        if progress.phase == "done":
            print(file=err)

    return show


# -- words -----------------------------------------------------------------------------------------

FLEET_WORDS: dict[str, str] = {
    "no_runs": "no run to recommend from",
    "none_reach_share": (
        "no setting keeps {headroom} free on {share:.0%} of the runs; the best, ratio {ratio:g} keep {keep} "
        "min target {min_target:g}, does on {best_share:.1%}"
    ),
    "reaches_share": "keeps {headroom} free on {keeping:,} of {runs:,} runs ({share:.1%}; goal {goal:.0%})",
    "qualifying": "{qualifying} of {considered} settings reach that share",
    "cheapest_price": "the cheapest of them: ${cost:,.4f} over the fleet ({tokens:,} tokens){runner_up}",
    "cheapest_tokens": "the cheapest of them: {tokens:,} tokens over the fleet{runner_up}",
    "loop_flagged": "with it a loop flag on {runs_flagged}",
    "never_fires": "with it no run compacts",
}
HURT_WORDS: dict[str, str] = {
    "overflows": "{calls_over} over capacity (peak {peak_utilisation:.1%})",
    "over_headroom": "peak {peak_utilisation:.1%}, above the {limit:.0%} the headroom allows",
    "loop_flagged": "a loop flag on {attempts_flagged}",
    "costs_more": (
        "{extra} more than its own cheapest setting (ratio {ratio:g} keep {keep} min target {min_target:g}: "
        "{best_charge})"
    ),
}


def amount(value: float, unit: str) -> str:
    return f"${value:,.4f}" if unit == "usd" else f"{round(value):,} tokens"


def reason_text(reason: FleetReason, headroom: float) -> str:
    values: dict[str, Any] = {**reason.values, "headroom": f"{headroom:.0%}"}
    if reason.code == "cheapest_price":
        runner = float(reason.values.get("runner_up_cost", -1))
        values["runner_up"] = f" (the next: ${runner:,.4f})" if runner >= 0 else ""
    elif reason.code == "cheapest_tokens":
        runner = int(reason.values.get("runner_up_tokens", -1))
        values["runner_up"] = f" (the next: {runner:,})" if runner >= 0 else ""
    elif reason.code == "loop_flagged":
        values["runs_flagged"] = counted(int(reason.values["runs"]), "run", "en")
    return FLEET_WORDS[reason.code].format(**values)


def hurt_text(hurt: Hurt, unit: str) -> str:
    values: dict[str, Any] = dict(hurt.values)
    if hurt.code == "costs_more":
        values["extra"], values["best_charge"] = (
            amount(hurt.values["extra"], unit),
            amount(hurt.values["best_charge"], unit),
        )
    elif hurt.code == "overflows":
        values["calls_over"] = counted(int(hurt.values["steps_over_capacity"]), "call", "en")
    elif hurt.code == "loop_flagged":
        values["attempts_flagged"] = counted(int(hurt.values["flagged"]), "attempt", "en")
    return HURT_WORDS[hurt.code].format(**values)


def retention_text(fleet: Fleet) -> str:
    retention = fleet.retention
    if retention is None:
        return "retention: no recommendation"
    if retention.source == "no_compaction" or retention.mean is None:
        return "retention: nothing compacts with it"
    how = (
        "measured on the offline summaries" if retention.source == "measured" else "by the summary size model"
    )
    return (
        f"retention ({how}): {retention.mean:.1%} on average over {retention.runs:,} compacting runs "
        f"(p50 {retention.p50:.1%}, p5 {retention.low:.1%})"
    )


def format_fleet(fleet: Fleet) -> str:
    counts, grid = fleet.counts, fleet.grid
    lines = [
        f"fleet: {counted(counts.runs, 'run', 'en')} in {counted(counts.files, 'file', 'en')} "
        f"({counts.processed:,} read and counted, {counts.reused:,} from the catalog, {counts.broken:,} unreadable); "
        f"{counted(len(fleet.settings), 'setting', 'en')}, "
        f"summary {grid.summary}, counter {grid.counter}, capacity "
        + (f"{grid.context_max:,}" if grid.context_max else grid.model or "each run's own model"),
        f"catalog: {fleet.catalog}",
    ]
    lines.extend(
        f"  unreadable: {broken.error}"
        if broken.path in broken.error
        else f"  unreadable: {broken.path}: {broken.error}"
        for broken in fleet.broken
    )
    lines.append(
        f"  {'ratio':>6} {'keep':>5} {'min':>5} {'compact':>8} {'c p50':>6} {'c p95':>6} {'c max':>6} "
        f"{'peak p50':>9} {'peak p95':>9} {'peak max':>9} {'over':>5} {'headroom':>9} {'flagged':>8} {'tokens':>15}"
    )
    chosen = fleet.recommendation.setting
    for row in fleet.settings:
        ratio, keep, target = row.setting
        c, u = row.compactions, row.peak_utilisation
        lines.append(
            f"{'*' if row.setting == chosen else ' '} {ratio:>6g} {keep:>5} {target:>5g} {row.compacting_share:>8.1%} "
            f"{c.p50:>6g} {c.p95:>6g} {c.max:>6g} {u.p50:>9.1%} {u.p95:>9.1%} {u.max:>9.1%} {row.overflowing:>5} "
            f"{row.headroom_share:>9.1%} {row.loop_flags or 0:>8} {row.tokens:>15,}"
        )
    recommendation = fleet.recommendation
    lines.append("")
    if chosen is not None:
        ratio, keep, target = chosen
        lines.append(f"recommendation: trigger {ratio:g}, keep {keep}, min target {target:g}")
    else:
        lines.append("recommendation: none")
    lines.extend(f"  - {reason_text(r, recommendation.headroom)}" for r in recommendation.reasons)
    if recommendation.unit == "tokens":
        lines.append(
            "  costs in tokens: not every run has a price (give --price-model NAME to bill them all)"
        )
    lines.append(f"  {retention_text(fleet)}")
    if recommendation.hurt:
        lines.append("runs it hurts most:")
        for run in recommendation.hurt:
            lines.append(f"  {run.key}: " + "; ".join(hurt_text(h, recommendation.unit) for h in run.reasons))
    return "\n".join(lines)


def html_report(fleet: Fleet) -> str:
    """A self-contained page: the text report, the settings table and the hurt runs (no script, no fetch)."""
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(cell))}</td>"
            for cell in (
                *row.setting,
                f"{row.compacting_share:.1%}",
                row.compactions.p50,
                row.compactions.p95,
                row.compactions.max,
                f"{row.peak_utilisation.p50:.1%}",
                f"{row.peak_utilisation.p95:.1%}",
                f"{row.peak_utilisation.max:.1%}",
                row.overflowing,
                f"{row.headroom_share:.1%}",
                f"{row.tokens:,}",
            )
        )
        + "</tr>"
        for row in fleet.settings
    )
    head = "".join(
        f"<th>{name}</th>"
        for name in (
            "ratio",
            "keep",
            "min target",
            "compacting",
            "compactions p50",
            "p95",
            "max",
            "peak p50",
            "p95",
            "max",
            "overflowing",
            "keeping headroom",
            "tokens",
        )
    )
    text = html.escape(format_fleet(fleet))
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>compaction-lab fleet</title>'
        "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:right}"
        "pre{background:#f6f6f6;padding:1em}</style></head><body><h1>Fleet</h1>"
        f"<table><tr>{head}</tr>{rows}</table><h2>Report</h2><pre>{text}</pre></body></html>"
    )
