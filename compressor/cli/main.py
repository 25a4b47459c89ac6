"""The ``compaction-lab`` command: inspect, compact, simulate, dumps, dashboard.

Invariant: bad input prints one line naming the file and the problem on stderr and exits 2, never a
traceback; ``--json`` prints ``to_dict()`` of the same values the dashboard renders; inputs are never written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from ..errors import CompressorError
from . import compact, dashboard, dumps, export, inspect, runs, simulate
from .common import EXIT_BAD_INPUT, bad

#: The commands in the order ``--help`` lists them; each module adds its parser and its ``run``.
COMMANDS = (inspect, compact, simulate, dumps, runs, export, dashboard)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compaction-lab",
        description="Understand and tune openJiuwen's CurrentRoundCompressor on your own agent runs.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args, out, err)
    except CompressorError as error:
        bad(str(error), err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        bad("interrupted", err)
        return 130
    return code
