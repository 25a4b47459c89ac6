"""openJiuwen's context debug log: one JSON line per event, appended to ``{processor_type}.jsonl`` (SPEC §13).

Invariant: each record is written with a single ``os.write`` on an ``O_APPEND`` descriptor, so concurrent
writers never interleave lines; a failure to write is collected in ``errors`` and never raised; a record holding
any form of a guarded key (``KeyGuard``) is refused, and every line is valid JSON in UTF-8.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..jsontext import json_text, may_hold_surrogates, writable_value
from ..keyguard import KeyGuard
from ..markers import DEBUG_DIR_ENV, PROCESSOR_TYPE
from ..messages import Message
from ..spans import Span
from .files import UnreadableFile, read_regular

DEFAULT_PROCESSOR = PROCESSOR_TYPE
DEFAULT_SESSION_ID = "default_session_id"
DEFAULT_CONTEXT_ID = "default_context_id"
#: openJiuwen writes threshold_check and span_built while building the context window.
PHASE = "get_context_window"
PREVIEW_CHARS = 200

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name_part(value: str, *, fallback: str = "unknown", limit: int = 80) -> str:
    """``value`` with runs of characters outside ``[A-Za-z0-9_.-]`` turned into ``-``, trimmed, ≤ ``limit``."""
    safe = _UNSAFE.sub("-", value).strip("-")[:limit]
    return safe or fallback


def debug_log_name(processor_type: str) -> str:
    return f"{safe_name_part(processor_type, fallback='processor', limit=10_000)}.jsonl"


def expand_placeholders(template: str, *, session_id: str, context_id: str) -> str:
    """Replace ``{session_id}`` and ``{context_id}`` (file-name-safe values); other braces are left alone."""
    return template.replace("{session_id}", safe_name_part(session_id)).replace(
        "{context_id}", safe_name_part(context_id)
    )


def resolve_debug_dir(
    explicit: str | os.PathLike[str] | None,
    *,
    session_id: str = DEFAULT_SESSION_ID,
    context_id: str = DEFAULT_CONTEXT_ID,
    env: Mapping[str, str] | None = None,
) -> Path | None:
    """The explicit directory, else ``$OPENJIUWEN_CONTEXT_DEBUG_DIR``, placeholders expanded; None if neither."""
    return resolve_dir(explicit, DEBUG_DIR_ENV, session_id=session_id, context_id=context_id, env=env)


def resolve_dir(
    explicit: str | os.PathLike[str] | None,
    env_name: str,
    *,
    session_id: str,
    context_id: str,
    env: Mapping[str, str] | None = None,
) -> Path | None:
    """``explicit``, else the environment variable ``env_name``, placeholders expanded; None if neither."""
    env = os.environ if env is None else env
    raw = os.fspath(explicit) if explicit else env.get(env_name, "")
    if not raw:
        return None
    return Path(expand_placeholders(raw, session_id=session_id, context_id=context_id))


def message_text(message: Message) -> str:
    """The text openJiuwen measures for a debug entry: string content, or list content as JSON."""
    if isinstance(message.content, str):
        return message.content
    return json.dumps(message.content, ensure_ascii=False)


def span_entries(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """One ``{idx, role, tokens, preview}`` per message; ``idx`` counts from 0 within the span."""
    entries = []
    for idx, message in enumerate(messages):
        text = message_text(message)
        entries.append(
            {
                "idx": idx,
                "role": message.role,
                "tokens": max(len(text) // 3, 1),
                "preview": text[:PREVIEW_CHARS],
            }
        )
    return entries


def span_built_fields(messages: Sequence[Message], span: Span) -> dict[str, Any]:
    """The three span lists of a ``span_built`` record for ``span`` over the context ``messages``.

    The ``phase`` field is the caller's (``DebugLog.span_built`` adds it), as openJiuwen writes it.
    """
    return {
        "preserved_prefix": span_entries(messages[span.prefix[0] : span.prefix[1]]),
        "messages_to_compress": span_entries(messages[span.compress[0] : span.compress[1]]),
        "protected_tail": span_entries(messages[span.tail[0] : span.tail[1]]),
    }


def compression_retry_fields(
    *,
    attempt: int,
    error_type: str,
    error_message: str,
    retried: bool,
    reason: str,
    budget_ratio: float | None = None,
    delay_seconds: float | None = None,
) -> dict[str, Any]:
    """The fields of a ``compression_retry`` record (SPEC §11)."""
    fields: dict[str, Any] = {
        "attempt": attempt,
        "error_type": error_type,
        "error_message": error_message,
        "retried": retried,
        "reason": reason,
    }
    if budget_ratio is not None:
        fields["budget_ratio"] = budget_ratio
    if delay_seconds is not None:
        fields["delay_seconds"] = delay_seconds
    return fields


class DebugLog:
    """Appends debug records for one processor/session/context; disabled when ``directory`` is None."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None,
        processor_type: str = DEFAULT_PROCESSOR,
        *,
        session_id: str = DEFAULT_SESSION_ID,
        context_id: str = DEFAULT_CONTEXT_ID,
        secrets: Sequence[str] = (),
    ) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.processor_type = processor_type
        self.session_id = session_id
        self.context_id = context_id
        self._guard = KeyGuard(secrets)
        self.errors: list[str] = []
        self.written = 0

    @property
    def enabled(self) -> bool:
        return self.directory is not None

    @property
    def path(self) -> Path | None:
        return self.directory / debug_log_name(self.processor_type) if self.directory is not None else None

    def record(self, event: str, **fields: Any) -> bool:
        """Append ``{timestamp, event, processor, session_id, context_id, **fields}``; False when not written."""
        if self.path is None:
            return False
        record: dict[str, Any] = {
            "timestamp": time.time(),
            "event": event,
            "processor": self.processor_type,
            "session_id": self.session_id,
            "context_id": self.context_id,
        }
        record.update(fields)
        try:
            line = json_text(record, default=str) + "\n"
        except (TypeError, ValueError, RecursionError) as exc:
            self.errors.append(f"{self.path}: debug record {event!r} is not serialisable: {exc}")
            return False
        if self._guard.holds(line):
            self.errors.append(f"{self.path}: debug record {event!r} refused: it contains a secret value")
            return False
        try:
            append_line(self.path, line)
        except OSError as exc:
            self.errors.append(f"{self.path}: cannot append debug record {event!r}: {exc.strerror or exc}")
            return False
        self.written += 1
        return True

    def threshold_check(self, decision_record: Mapping[str, Any]) -> bool:
        """``decision_record`` is ``Decision.record()``."""
        return self.record("threshold_check", phase=PHASE, **decision_record)

    def span_built(self, messages: Sequence[Message], span: Span) -> bool:
        return self.record("span_built", phase=PHASE, **span_built_fields(messages, span))

    def compression_retry(self, **fields: Any) -> bool:
        return self.record("compression_retry", **compression_retry_fields(**fields))


def append_line(path: Path, line: str) -> None:
    """Append one line with a single write on an O_APPEND descriptor (creating the directory if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = line.encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        # The lock makes "is the last line torn?" and the write one step for every writer on this machine.
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _ends_torn(fd):
            data = b"\n" + data  # a torn last line (disk full, crash) must not swallow this record
        written = os.write(fd, data)
        if written != len(data):  # a short write on a regular file means the disk is full
            raise OSError(28, f"short write ({written} of {len(data)} bytes)")
    finally:
        os.close(fd)


def _ends_torn(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def read_debug_log(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All well-formed records of a debug log; unreadable lines (e.g. a torn last line) are skipped."""
    records: list[dict[str, Any]] = []
    try:
        raw = read_regular(Path(path))  # a FIFO or a device named like a log is never waited on
    except UnreadableFile:
        return records
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):  # torn, not JSON, an over-long integer, nested past reason
            continue
        if isinstance(value, dict):
            # A lone surrogate would stop every page and print that shows the record: written escaped instead.
            records.append(writable_value(value) if may_hold_surrogates(line) else value)
    return records
