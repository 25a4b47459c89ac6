"""What every command shares: exit codes, the settings flags, loading files, one-line errors, atomic writes.

Invariant: a command reports bad input as one line ``compaction-lab: <file or flag>: <problem>`` and exit 2;
an output file appears whole or not at all.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from ..config import CurrentRoundCompressorConfig
from ..errors import ConversationFormatError
from ..formats import load_conversations
from ..messages import Conversation
from ..tokens import COUNTER_NAMES

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_FAILED = 3


def ratio_arg(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def add_settings(parser: argparse.ArgumentParser, *, capacity_model: bool = True) -> None:
    group = parser.add_argument_group("compressor settings")
    group.add_argument("--trigger-ratio", type=ratio_arg, default=0.8, metavar="R",
                       help="trigger_context_ratio, 0 < R < 1 (default 0.8)")
    group.add_argument("--min-target-ratio", type=ratio_arg, default=0.1, metavar="R",
                       help="min_target_context_ratio, 0 <= R < 1 (default 0.1)")
    group.add_argument("--keep-recent", type=int, default=0, metavar="N",
                       help="keep_recent_messages (default 0)")
    capacity = parser.add_mutually_exclusive_group()
    capacity.add_argument("--context-max", type=int, metavar="N", help="context capacity in tokens")
    if capacity_model:
        capacity.add_argument("--model", metavar="NAME",
                              help="take the capacity from this model's window (see the capacity table)")
    group.add_argument("--counter", choices=COUNTER_NAMES, default="cl100k_base",
                       help="token counter (default cl100k_base)")
    group.add_argument("--json", action="store_true", help="print JSON instead of a table")


def settings_config(args: argparse.Namespace, **extra: Any) -> CurrentRoundCompressorConfig:
    return CurrentRoundCompressorConfig(
        trigger_context_ratio=args.trigger_ratio,
        min_target_context_ratio=args.min_target_ratio,
        keep_recent_messages=args.keep_recent,
        **extra,
    )


def bad(message: str, err: TextIO) -> None:
    print(f"compaction-lab: {message}", file=err)


def validation_line(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "settings"
    return f"{where}: {first.get('msg', 'invalid value')}"


def load_all(paths: Sequence[str], err: TextIO) -> tuple[list[Conversation], bool]:

    conversations: list[Conversation] = []
    ok = True
    for path in paths:
        try:
            conversations.extend(load_conversations(Path(path)))
        except ConversationFormatError as error:
            bad(str(error), err)
            ok = False
    return conversations, ok


def current_umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temp, 0o666 & ~current_umask())  # mkstemp makes 0600; an output file gets the usual permissions
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
