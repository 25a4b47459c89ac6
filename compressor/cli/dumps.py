"""``compaction-lab dumps DIR``: every compaction dump in a folder, with its savings and retries."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ..dumps import index_dumps
from ..jsontext import json_text
from .common import EXIT_BAD_INPUT, EXIT_OK, bad


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("dumps", help="index a directory of compaction dumps")
    parser.add_argument("directory", metavar="DIR")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    directory = Path(args.directory)
    if not directory.is_dir():
        bad(f"{directory}: not a directory", err)
        return EXIT_BAD_INPUT
    index = index_dumps(directory)
    if args.json:
        print(json_text(index.to_dict()), file=out)
        return EXIT_OK
    rows = index.to_dict()
    print(f"{len(rows['dumps'])} dumps, {len(rows['broken'])} unreadable in {directory}", file=out)
    for row in rows["dumps"]:
        print(
            f"  {row.get('session_id', '')!s:<24} {row.get('tokens_before', 0):>9,} → {row.get('tokens_after', 0):>9,}"
            f"  ({row.get('reduction_ratio', 0):.1%} saved, spans {row.get('prefix_count')}/"
            f"{row.get('compress_count')}/{row.get('tail_count')}, retries {row.get('retries', 0)}{_took(row)})"
            f"  {row['path']}",
            file=out,
        )
    for broken in rows["broken"]:
        print(f"  unreadable: {broken['path']}: {broken['error']}", file=out)
    return EXIT_OK


def _took(row: dict[str, object]) -> str:
    """ ", took 0.08 s" when the debug log says how long the compaction took."""
    seconds = row.get("seconds")
    return f", took {seconds:.2f} s" if isinstance(seconds, float) else ""
