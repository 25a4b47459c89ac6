"""Compression dumps (SPEC §13): openJiuwen's file names and keys, written atomically; the one import point.

Invariant: a dump file appears complete or not at all and never replaces another file, and our additions live
under the one extra key ``compaction_lab``; no form of a guarded key is written, not even to a temp file, and the
temp files of writers that died are removed by the next writer. Reading is in ``reader``, listing in ``index``.
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import CompressorError
from ..jsontext import json_text
from ..keyguard import KeyGuard
from ..markers import DUMP_DIR_ENV
from ..messages import Message, ToolDef
from ..reinjection import Reinjection
from .debuglog import DEFAULT_PROCESSOR, resolve_dir, safe_name_part
from .files import remove_stale_temps, temp_pattern

EXTENSION_KEY = "compaction_lab"
#: The keys every openJiuwen dump has, in its order.
OPENJIUWEN_KEYS: tuple[str, ...] = (
    "processor_type",
    "session_id",
    "context_id",
    "trigger",
    "span",
    "compression_request",
    "compression_response",
    "context_after",
    "benefit",
    "timestamp",
)
TEMP_PREFIX = ".dump-"
TEMP_SUFFIX = ".tmp"
TEMP_NAMES = temp_pattern(TEMP_PREFIX, TEMP_SUFFIX)
_MAX_NAME_TRIES = 100_000
_LINK_UNSUPPORTED = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS}


class DumpWriteError(CompressorError, OSError):
    """A dump could not be written (or was refused); the compactor reports it and carries on."""


# -- naming and location -------------------------------------------------------------------------


def dump_file_name(epoch_ms: int, processor_type: str, session_id: str) -> str:
    """``{epoch_ms}_{processor_type}_{session}.json`` with unsafe characters as ``-``, each part ≤ 80 chars."""
    return f"{int(epoch_ms)}_{safe_name_part(processor_type)}_{safe_name_part(session_id)}.json"


def resolve_dump_dir(
    config_dir: str | os.PathLike[str] | None,
    *,
    session_id: str,
    context_id: str,
    env: Mapping[str, str] | None = None,
) -> Path | None:
    """The configured directory, else ``$OPENJIUWEN_COMPRESSION_DUMP_DIR``, placeholders expanded; else None."""
    return resolve_dir(config_dir, DUMP_DIR_ENV, session_id=session_id, context_id=context_id, env=env)


# -- building a record -----------------------------------------------------------------------------


def package_version() -> str:
    try:
        return metadata.version("compaction-lab")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def benefit_of(tokens_before: int, tokens_after: int) -> dict[str, Any]:
    """openJiuwen's ``benefit`` block: the reduction is never negative; the ratio has 4 decimals."""
    reduction = max(tokens_before - tokens_after, 0)
    ratio = reduction / tokens_before if tokens_before > 0 else 0.0
    return {
        "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "reduction": reduction,
        "reduction_ratio": round(ratio, 4),
    }


@dataclass(frozen=True)
class LabExtension:
    """What our dumps add under ``compaction_lab``: enough to rebuild and replay the run exactly."""

    backend: str
    counter: str
    original_messages: Sequence[Message]
    attempts: int
    calls: Sequence[Mapping[str, Any]] = ()
    timings: Mapping[str, float] = field(default_factory=dict)
    reinjection: Reinjection | Mapping[str, Any] | None = None
    version: str = field(default_factory=package_version)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "backend": self.backend,
            "original_messages": [m.to_openjiuwen() for m in self.original_messages],
            "attempts": self.attempts,
            "calls": [dict(c) for c in self.calls],
            "timings": dict(self.timings),
            "reinjection": _reinjection_summary(self.reinjection),
            "counter": self.counter,
        }


def _reinjection_summary(value: Reinjection | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What was reinjected, without the message text (``context_after`` already holds it)."""
    if value is None:
        return None
    data = value.to_dict() if isinstance(value, Reinjection) else dict(value)
    data.pop("message", None)
    return data


def build_dump_record(
    *,
    session_id: str,
    context_id: str,
    context_max: int,
    tokens_before: int,
    target_tokens: int,
    span_counts: tuple[int, int, int],
    prompt: str,
    system_messages_count: int,
    tools: Sequence[ToolDef],
    messages_sent_to_model: Sequence[Message],
    raw_content: str,
    extracted_summary: str,
    usage: Mapping[str, Any] | None,
    context_after: Sequence[Message],
    tokens_after: int,
    processor_type: str = DEFAULT_PROCESSOR,
    exclude_recent_messages: int | None = None,
    timestamp: float | None = None,
    extension: LabExtension | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A dump record with openJiuwen's keys in its order, plus ``compaction_lab`` when ``extension`` is given.

    ``span_counts`` is (prefix, compress, tail) of the span actually compacted; ``exclude_recent_messages``
    defaults to the tail count, as openJiuwen records it.
    """
    prefix, compress, tail = span_counts
    record: dict[str, Any] = {
        "processor_type": processor_type,
        "session_id": session_id,
        "context_id": context_id,
        "trigger": {
            "context_max": context_max,
            "total_tokens_before": tokens_before,
            "target_tokens": target_tokens,
        },
        "span": {
            "preserved_prefix_count": prefix,
            "messages_to_compress_count": compress,
            "protected_tail_count": tail,
        },
        "compression_request": {
            "prompt": prompt,
            "exclude_recent_messages": tail if exclude_recent_messages is None else exclude_recent_messages,
            "system_messages_count": system_messages_count,
            "tools_count": len(tools),
            "tools": [tool.model_dump() for tool in tools],
            "messages_sent_to_model": [m.to_openjiuwen() for m in messages_sent_to_model],
        },
        "compression_response": {
            "raw_content": raw_content,
            "extracted_summary": extracted_summary,
            "usage": dict(usage) if usage is not None else None,
        },
        "context_after": {
            "messages": [m.to_openjiuwen() for m in context_after],
            "total_tokens_after": tokens_after,
        },
        "benefit": benefit_of(tokens_before, tokens_after),
        "timestamp": time.time() if timestamp is None else timestamp,
    }
    if extension is not None:
        record[EXTENSION_KEY] = (
            extension.to_dict() if isinstance(extension, LabExtension) else dict(extension)
        )
    return record


# -- writing -------------------------------------------------------------------------------------


def write_dump(
    directory: str | os.PathLike[str], record: Mapping[str, Any], *, secrets: Sequence[str] = ()
) -> Path:
    """Write ``record`` atomically under a new, unique name in ``directory`` and return its path.

    Never overwrites: a taken name gets ``_1``, ``_2``… Raises :class:`DumpWriteError` (an ``OSError``) when the
    directory cannot be written or the record contains any form of one of ``secrets``; no partial file is left
    behind. NaN and infinities are written as null, lone surrogates as JSON escapes.
    """
    folder = Path(directory)
    try:
        text = json_text(record, indent=2)
    except (TypeError, ValueError, RecursionError) as exc:
        raise DumpWriteError(f"{folder}: the dump record is not JSON-serialisable: {exc}") from exc
    if KeyGuard(secrets).holds(text):
        raise DumpWriteError(f"{folder}: refusing to write a dump that contains a secret value")
    data = text.encode("utf-8")
    stamp = record.get("timestamp")
    seconds = float(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else time.time()
    name = dump_file_name(
        int(seconds * 1000),
        str(record.get("processor_type") or DEFAULT_PROCESSOR),
        str(record.get("session_id") or "unknown_session"),
    )
    temp: Path | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        remove_stale_temps(folder, TEMP_NAMES)
        fd, temp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
        temp = Path(temp_name)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        target = _publish(temp, folder, name)
        _fsync_directory(folder)
        return target
    except OSError as exc:
        raise DumpWriteError(f"{folder}: cannot write a dump: {exc.strerror or exc}") from exc
    finally:
        if temp is not None:
            with suppress(OSError):
                temp.unlink()


def _candidate_names(name: str) -> Iterator[str]:
    stem = name[: -len(".json")]
    yield name
    for n in range(1, _MAX_NAME_TRIES):
        yield f"{stem}_{n}.json"


def _publish(temp: Path, folder: Path, name: str) -> Path:
    """Give the finished temp file its final name without ever replacing an existing file."""
    use_link = True
    for candidate in _candidate_names(name):
        target = folder / candidate
        if use_link:
            try:
                os.link(temp, target)  # fails if the name exists: no clobbering, even between processes
                return target
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in _LINK_UNSUPPORTED:
                    raise
                use_link = False  # a filesystem without hard links: reserve the name, then swap content in
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            continue
        os.replace(temp, target)
        return target
    raise OSError(errno.EEXIST, f"no free dump name for {name}")


def _fsync_directory(folder: Path) -> None:
    with suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
