"""``compaction-lab score FILE``: what each compaction kept of the span it replaced, by category.

A run's recorded compactions are scored with their own summaries (``--summary recorded``), with our offline
memory block over the same spans (``offline``, no larger than the summary there) or with a live model's
(``live``, the endpoint flags of ``compact``); a dump file or folder scores every dump. ``--probes`` estimates
and, with ``--yes``, runs probe grading of each compaction through the endpoint.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any, TextIO

from dashboard.i18n import counted

from ..backends import Backend
from ..dumps import read_dump
from ..errors import CompressorError, DumpFormatError
from ..jsontext import json_text
from ..messages import Message
from ..prompt import memory_message
from ..quality import (
    CATEGORIES,
    ScoredCompaction,
    ScoreReport,
    Site,
    dump_site,
    dump_sites,
    estimate_probe_cost,
    grade_probes,
    make_probes,
    recorded_sites,
    report_of,
    score_live,
    score_offline,
    score_site,
)
from ..tokens import COUNTER_NAMES
from .common import EXIT_BAD_INPUT, EXIT_OK, bad, load_all
from .compact import backend_from

SUMMARIES = ("recorded", "offline", "live")
#: Lost artifacts the table shows per category (``--json`` lists them all).
LOST_SHOWN = 4
_SHORT = {"identifiers": "ids", "constraints": "rules", "decisions": "decide"}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("score", help="what each compaction kept: paths, commands, errors, ids, …")
    parser.add_argument("file", metavar="FILE", help="an agent run, a dump file or a folder of dumps")
    parser.add_argument(
        "--summary",
        choices=SUMMARIES,
        default="recorded",
        help="score the summary written there (recorded, default), our offline memory block "
        "over the same spans (offline), or a live model's (live: needs an endpoint)",
    )
    parser.add_argument("--counter", choices=COUNTER_NAMES, default="cl100k_base", help="token counter")
    parser.add_argument(
        "--conversation",
        type=int,
        default=None,
        metavar="K",
        help="which conversation of a file holding several (0-based; default: all)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    endpoint = parser.add_argument_group("endpoint (for --summary live and --probes)")
    endpoint.add_argument("--api-base", metavar="URL", help="OpenAI-compatible base URL (or env API_BASE)")
    endpoint.add_argument(
        "--api-key", metavar="KEY", help="API key (or env API_KEY); never stored or printed"
    )
    endpoint.add_argument("--model", dest="model_name", metavar="NAME", help="model name (or env MODEL_NAME)")
    endpoint.add_argument(
        "--backend", metavar="replay:DUMP", help="replay a dump's reply instead of an endpoint"
    )
    endpoint.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS")
    probes = parser.add_argument_group("probe grading")
    probes.add_argument(
        "--probes",
        action="store_true",
        help="estimate the calls and tokens of probe grading each compaction; with --yes, run it",
    )
    probes.add_argument("--yes", action="store_true", help="spend the estimated calls (needs an endpoint)")
    parser.set_defaults(run=run)


def _endpoint(args: argparse.Namespace) -> Backend:
    backend = backend_from(args)
    if backend.kind == "offline":
        raise CompressorError(
            "an endpoint is needed: pass --api-base URL and --model NAME (or set API_BASE and MODEL_NAME)"
        )
    return backend


def _runs(args: argparse.Namespace, err: TextIO) -> list[tuple[str, list[Site], list[dict[str, str]]]] | None:
    """(label, sites, problems) for each run in FILE: dumps when it holds them, else conversations."""
    path = Path(args.file)
    if path.is_dir():
        sites, problems = dump_sites(path)
        if sites or problems:
            return [(str(path), sites, problems)]
    elif path.suffix == ".json":
        try:
            return [(str(path), [dump_site(read_dump(path))], [])]
        except DumpFormatError:
            pass  # not a dump: read it as a run below
    conversations, ok = load_all([args.file], err)
    if not ok:
        return None
    if args.conversation is not None:
        if not 0 <= args.conversation < len(conversations):
            bad(
                f"{args.file}: --conversation {args.conversation} is out of range (0..{len(conversations) - 1})",
                err,
            )
            return None
        conversations = [conversations[args.conversation]]
    return [(c.name or str(path), recorded_sites(c), []) for c in conversations]


def _report(args: argparse.Namespace, sites: list[Site], problems: list[dict[str, str]]) -> ScoreReport:
    if args.summary == "offline":
        return score_offline(sites, counter=args.counter, problems=problems)
    if args.summary == "live":
        return asyncio.run(score_live(sites, _endpoint(args), counter=args.counter, problems=problems))
    return report_of(sites, [score_site(site, counter=args.counter) for site in sites], problems)


def _contexts(site: Site, scored: ScoredCompaction) -> tuple[list[Message], list[Message]]:
    """The context before the compaction (what it replaced, what it kept) and after it (the block, what it kept)."""
    before = [*site.system, *site.span, *site.kept]
    after = [*site.system, memory_message(scored.summary or ""), *site.kept]
    return before, after


def _probes(args: argparse.Namespace, sites: list[Site], report: ScoreReport) -> dict[str, Any]:
    work = [
        (site, scored, make_probes(scored.ledger))
        for site, scored in zip(sites, report.compactions, strict=True)
        if scored.retention is not None
    ]
    costs = [
        estimate_probe_cost(probes, *_contexts(site, scored), counter=args.counter)
        for site, scored, probes in work
    ]
    out: dict[str, Any] = {
        "estimate": {
            "calls": sum(c.calls for c in costs),
            "input_tokens": sum(c.input_tokens for c in costs),
            "output_tokens": sum(c.output_tokens for c in costs),
        },
        "compactions": [],
    }
    if args.yes:
        backend = _endpoint(args)
        for site, scored, probes in work:
            graded = asyncio.run(
                grade_probes(probes, *_contexts(site, scored), answerer=backend, counter=args.counter)
            )
            out["compactions"].append({"number": scored.number, **graded.to_dict()})
    return out


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    runs = _runs(args, err)
    if runs is None:
        return EXIT_BAD_INPUT
    if args.summary == "live" or (args.probes and args.yes):
        _endpoint(args)  # a missing endpoint is bad input before anything is scored
    for label, sites, problems in runs:
        report = _report(args, sites, problems)
        document = {"source": label, "summary": args.summary, "counter": args.counter, **report.to_dict()}
        if args.probes:
            document["probes"] = _probes(args, sites, report)
        if args.json:
            print(json_text(document), file=out)
        else:
            print(format_report(label, args.summary, report, document.get("probes")), file=out)
        if not sites and not problems:
            print(f"compaction-lab: {label}: no recorded compactions and no dumps to score", file=err)
    return EXIT_OK


# -- the readable table ----------------------------------------------------------------------------


def _cell(kept: int, total: int) -> str:
    return f"{kept}/{total}" if total else "-"


def format_report(label: str, summary: str, report: ScoreReport, probes: dict[str, Any] | None = None) -> str:
    """The table: one row per compaction with kept/total per category, the totals, decay and what was lost."""
    heads = [_SHORT.get(c, c) for c in CATEGORIES]
    lines = [
        f"{label}  [{counted(len(report.compactions), 'compaction', 'en')}, summary: {summary}]",
        f"  {'#':>2} {'at':>6} {'span':>13} {'span tok':>9} {'summ tok':>8} "
        + " ".join(f"{h:>8}" for h in heads)
        + f" {'overall':>14}",
    ]
    for c in report.compactions:
        span = f"[{c.span[0]}, {c.span[1]})"
        if c.retention is None:
            lines.append(
                f"  {c.number:>2} {c.index:>6} {span:>13} {c.span_tokens:>9,} {'-':>8}  not scored: {c.reason}"
            )
            continue
        tallies = c.retention.by_category
        overall = c.retention.overall
        cells = " ".join(f"{_cell(tallies[k].kept, tallies[k].total):>8}" for k in CATEGORIES)
        share = f"{overall.kept}/{overall.total}" + (
            f" {overall.ratio:.0%}" if overall.ratio is not None else ""
        )
        kept_elsewhere = f"  (+{overall.elsewhere} still in the kept messages)" if overall.elsewhere else ""
        lines.append(
            f"  {c.number:>2} {c.index:>6} {span:>13} {c.span_tokens:>9,} {c.summary_tokens:>8,} {cells} {share:>14}"
            + kept_elsewhere
        )
    totals = report.tallies
    overall = report.overall
    share = f"{overall.kept}/{overall.total}" + (f" {overall.ratio:.0%}" if overall.ratio is not None else "")
    summary_tokens = sum(c.summary_tokens for c in report.compactions if c.retention is not None)
    memory_tokens = sum(c.memory_tokens for c in report.compactions if c.retention is not None)
    lines.append(
        f"  {'all':>9} {'':>13} {'':>9} {summary_tokens:>8,} "
        + " ".join(f"{_cell(totals[k].kept, totals[k].total):>8}" for k in CATEGORIES)
        + f" {share:>14}"
    )
    lines.append(
        f"  summaries {summary_tokens:,} tokens; the messages carrying them {memory_tokens:,} tokens"
    )
    commands = totals["commands"]
    if commands.total:
        lines.append(f"  commands kept verbatim: {commands.exact}/{commands.total}")
    if report.decay is not None:
        lines.append(
            f"  decay of what compaction {report.decay.first} kept ({len(report.decay.followed)} artifacts):"
        )
        for step in report.decay.steps:
            t = step.overall
            lines.append(
                f"    compaction {step.number}: {t.kept}/{t.total} in its summary, {t.elsewhere} still in the kept messages"
            )
    for c in report.compactions:
        if c.retention is None:
            continue
        for category, items in c.retention.lost().items():
            if items:
                shown = "; ".join(
                    f"{item.text.splitlines()[0][:80]} (#{item.index})" for item in items[:LOST_SHOWN]
                )
                more = f"; … {len(items) - LOST_SHOWN} more" if len(items) > LOST_SHOWN else ""
                lines.append(f"  lost in {c.number}, {category}: {shown}{more}")
    for problem in report.problems:
        lines.append(f"  unreadable: {problem['path']}: {problem['error']}")
    if probes is not None:
        estimate = probes["estimate"]
        lines.append(
            f"  probe grading: {estimate['calls']} calls, about {estimate['input_tokens']:,} input and "
            f"{estimate['output_tokens']:,} output tokens"
            + ("" if probes["compactions"] else " (add --yes to run it)")
        )
        for graded in probes["compactions"]:
            o = graded["overall"]
            lines.append(
                f"    compaction {graded['number']}: before {o['before']}, after {o['after']} (of 5)"
            )
    return "\n".join(lines)
