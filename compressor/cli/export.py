"""``compaction-lab export FILE --otel OUT.json``: every compaction of a run — the ones its file records and the
ones a simulation of the current settings makes — as OpenTelemetry GenAI spans."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from dashboard.i18n import counted

from .. import __version__
from ..errors import ConfigError
from ..export import compactions_of, otel_document
from ..jsontext import json_text
from ..replay import SummaryModel, simulate
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
    parser = subparsers.add_parser("export", help="write a run's compactions as OpenTelemetry GenAI spans")
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--otel", required=True, metavar="OUT.json", help="the OTLP JSON file to write")
    parser.add_argument(
        "--summary",
        default="ratio:0.1",
        metavar="offline|fixed:N|ratio:X",
        help="how the simulated compactions' summaries are sized (default ratio:0.1)",
    )
    parser.add_argument("--recorded-only", action="store_true", help="only the compactions the files record")
    add_settings(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        config = settings_config(args)
        summary = SummaryModel.parse(args.summary)
    except ValidationError as error:
        bad(validation_line(error), err)
        return EXIT_BAD_INPUT
    except ConfigError as error:
        bad(str(error), err)
        return EXIT_BAD_INPUT
    conversations, ok = load_all(args.files, err)
    runs = []
    for conversation in conversations:
        simulation = None
        if not args.recorded_only:
            simulation = simulate(
                conversation,
                config,
                context_max=args.context_max,
                model=args.model,
                counter=args.counter,
                summary=summary,
            )
        runs.append((conversation, compactions_of(conversation, simulation)))
    document = otel_document(runs, start_ns=time.time_ns(), version=__version__)
    write_atomic(Path(args.otel), json_text(document), guard=output_guard(args))
    spans = sum(len(compactions) for _, compactions in runs)
    summary_line = {"spans": spans, "conversations": len(runs), "path": args.otel}
    if args.json:
        print(json_text(summary_line), file=out)
    else:
        written = f"{counted(spans, 'compaction_span', 'en')} from {counted(len(runs), 'conversation', 'en')}"
        print(f"{written} written to {args.otel}", file=out)
    return EXIT_OK if ok else EXIT_BAD_INPUT
