"""The ``compaction-lab`` command: inspect, compact, simulate, fleet, score, dumps, dashboard.

Invariant: bad input prints one line naming the file and the problem on stderr and exits 2, never a
traceback; ``--json`` prints ``to_dict()`` of the same values the dashboard renders, as valid JSON; inputs are
never written; stdout and stderr are behind the key guard of the run (``common.output_guard``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import TextIO

from ..errors import CompressorError
from . import compact, dashboard, dumps, export, fleet, inspect, runs, score, simulate
from .common import EXIT_BAD_INPUT, bad, guarded, output_guard

#: What a shell reports for a command whose reader went away (128 + SIGPIPE), e.g. ``… | head``.
EXIT_BROKEN_PIPE = 141

#: The commands in the order ``--help`` lists them; each module adds its parser and its ``run``.
COMMANDS = (inspect, compact, simulate, fleet, score, dumps, runs, export, dashboard)


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
    parser = build_parser()
    args = parser.parse_args(argv)
    guard = output_guard(args)
    to_terminal = out is None
    out = guarded(out or sys.stdout, guard)
    err = guarded(err or sys.stderr, guard)
    try:
        code: int = args.run(args, out, err)
    except CompressorError as error:
        bad(str(error), err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        bad("interrupted", err)
        return 130
    except BrokenPipeError:
        if to_terminal:
            _quiet_stdout()
        return EXIT_BROKEN_PIPE
    return code


def _quiet_stdout() -> None:
    """The reader of stdout is gone: point stdout at /dev/null so the interpreter's last flush cannot fail."""
    with suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
