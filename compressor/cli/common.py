"""What every command shares: exit codes, the settings flags, loading files, one-line errors, guarded writes.

Invariant: a command reports bad input, or an output it cannot write, as one line ``compaction-lab: <file or
flag>: <problem>`` and exit 2; an output file appears whole or not at all; nothing a command writes (stdout,
stderr, files) holds a form of a key it knows (``KeyGuard``) or fails on text it cannot encode.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO, cast

from pydantic import ValidationError

from ..config import CurrentRoundCompressorConfig
from ..dumps.files import remove_stale_temps, temp_pattern
from ..errors import ConversationFormatError, OutputError
from ..formats import load_conversations
from ..jsontext import encodable
from ..keyguard import KeyGuard
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
    group.add_argument(
        "--trigger-ratio",
        type=ratio_arg,
        default=0.8,
        metavar="R",
        help="trigger_context_ratio, 0 < R < 1 (default 0.8)",
    )
    group.add_argument(
        "--min-target-ratio",
        type=ratio_arg,
        default=0.1,
        metavar="R",
        help="min_target_context_ratio, 0 <= R < 1 (default 0.1)",
    )
    group.add_argument(
        "--keep-recent", type=int, default=0, metavar="N", help="keep_recent_messages (default 0)"
    )
    capacity = parser.add_mutually_exclusive_group()
    capacity.add_argument("--context-max", type=int, metavar="N", help="context capacity in tokens")
    if capacity_model:
        capacity.add_argument(
            "--model",
            metavar="NAME",
            help="take the capacity from this model's window (see the capacity table)",
        )
    group.add_argument(
        "--counter", choices=COUNTER_NAMES, default="cl100k_base", help="token counter (default cl100k_base)"
    )
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


def output_guard(args: argparse.Namespace) -> KeyGuard:
    """Every key this run could know (``--api-key``, ``API_KEY``): no output may carry one, in any form."""
    return KeyGuard([getattr(args, "api_key", None), os.environ.get("API_KEY")])


class GuardedStream(io.TextIOBase):
    """stdout or stderr behind the key guard: every write scrubbed, and written even where it cannot be encoded."""

    def __init__(self, stream: TextIO, guard: KeyGuard) -> None:
        self._stream = stream
        self._guard = guard

    def write(self, text: str) -> int:
        clean = encodable(self._guard.scrub(text))
        try:
            self._stream.write(clean)
        except UnicodeEncodeError:  # a terminal that is not UTF-8: escape what it cannot show
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            self._stream.write(clean.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def writable(self) -> bool:
        return True


def guarded(stream: TextIO, guard: KeyGuard) -> TextIO:
    return cast(TextIO, GuardedStream(stream, guard))


def current_umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def write_atomic(path: Path, text: str, *, guard: KeyGuard | None = None) -> None:
    """Write ``text`` to ``path`` whole or not at all, scrubbed of ``guard``'s keys; OutputError when it cannot be.

    The temp file sits beside the target and is removed on failure; temps of killed runs are removed later. A
    target that is a device or a FIFO (``/dev/null``, ``/dev/stdout``) is written into directly.
    """
    data = encodable(guard.scrub(text) if guard is not None else text).encode("utf-8")
    if path.is_dir():
        raise OutputError(str(path), "is a directory; give the path of a file to write")
    if _is_special(path):  # /dev/null, /dev/stdout, a FIFO: written into, never renamed over (as root that
        _write_into(path, data)  # would put a plain file in place of the device)
        return
    prefix = f".{path.name}."
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(path.parent, temp_pattern(prefix, ".tmp"))
        fd, temp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise OutputError(str(path), f"cannot write there: {_reason(error)}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(
            temp, 0o666 & ~current_umask()
        )  # mkstemp makes 0600; an output file gets the usual permissions
        os.replace(temp, path)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise OutputError(str(path), f"cannot write the file: {_reason(error)}") from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _is_special(path: Path) -> bool:
    """Whether ``path`` (its links followed) exists as something other than a regular file or a folder."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_into(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise OutputError(str(path), f"cannot write the file: {_reason(error)}") from None


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__
