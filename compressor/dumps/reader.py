"""Reading a compression dump back (SPEC §13): openJiuwen's and ours, with the context before and after.

Invariant: a file that is not a complete, well-shaped dump raises DumpFormatError with one line naming the
file and the problem — anything that parses as JSON included: numbers are finite and plausible, timestamps are
dates, nesting is bounded; before = the context openJiuwen compacted, after = ``context_after.messages``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import DumpFormatError
from ..formats.building import MAX_TOKEN_COUNT, check_content
from ..formats.problems import FormatProblem, Loc, unreadable_number
from ..formats.source import MAX_DEPTH, check_depth
from ..jsontext import may_hold_surrogates, writable_value
from ..markers import MEMORY_OPEN, REINJECTION_PREFIXES
from ..messages import Message, ToolDef
from ..tokens import get_counter
from .debuglog import debug_log_name, read_debug_log
from .files import UnreadableFile, inside, read_regular

#: The last second of the year 9999: a later (or negative) ``timestamp`` is not a date a dump was written on.
MAX_TIMESTAMP = 253_402_300_799.0
Count = Annotated[int, Field(ge=-MAX_TOKEN_COUNT, le=MAX_TOKEN_COUNT)]

# -- the file format at the boundary ---------------------------------------------------------------


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)


class _Trigger(_Open):
    context_max: Count
    total_tokens_before: Count
    target_tokens: Count


class _Span(_Open):
    preserved_prefix_count: int = Field(ge=0)
    messages_to_compress_count: int = Field(ge=0)
    protected_tail_count: int = Field(ge=0)


class _Request(_Open):
    prompt: str
    exclude_recent_messages: int
    system_messages_count: int = Field(ge=0)
    tools_count: int = Field(ge=0)
    tools: list[Any]
    messages_sent_to_model: list[dict[str, Any]]


class _Response(_Open):
    raw_content: str | None
    extracted_summary: str | None
    usage: dict[str, Any] | None = None


class _After(_Open):
    messages: list[dict[str, Any]]
    total_tokens_after: Count


class _Benefit(_Open):
    tokens_before: Count
    tokens_after: Count
    reduction: Count
    reduction_ratio: float


class _Extension(_Open):
    version: str | None = None
    backend: str | None = None
    attempts: int | None = Field(default=None, ge=0)
    original_messages: list[dict[str, Any]] | None = None


class DumpFile(_Open):
    processor_type: str
    session_id: str
    context_id: str
    trigger: _Trigger
    span: _Span
    compression_request: _Request
    compression_response: _Response
    context_after: _After
    benefit: _Benefit
    timestamp: float = Field(ge=0, le=MAX_TIMESTAMP)
    compaction_lab: _Extension | None = None


def load_dump_file(path: Path) -> DumpFile:
    """Parse and validate one dump file, raising DumpFormatError with one line naming the problem."""
    try:
        raw = read_regular(path)  # a FIFO named *.json is refused, never waited on
    except UnreadableFile as exc:
        raise DumpFormatError(str(path), str(exc)) from None
    if not raw.strip():
        raise DumpFormatError(str(path), "the file is empty")
    try:
        data = json.loads(raw)
        check_depth(data, Loc())
    except RecursionError:
        raise DumpFormatError(str(path), f"nested deeper than {MAX_DEPTH} levels") from None
    except FormatProblem as problem:
        raise DumpFormatError(str(path), problem.problem) from None
    except json.JSONDecodeError as exc:
        raise DumpFormatError(str(path), f"not valid JSON (a half-written or corrupt file?): {exc}") from None
    except ValueError as exc:  # valid JSON Python will not read (an integer past the digit limit)
        raise DumpFormatError(str(path), unreadable_number(exc)) from None
    if not isinstance(data, dict):
        raise DumpFormatError(str(path), f"not a compression dump: the top level is a {type(data).__name__}")
    if may_hold_surrogates(raw):  # a lone surrogate would stop every table and page showing the dump: escaped
        data = writable_value(data)
    try:
        model = DumpFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise DumpFormatError(str(path), f"not a compression dump: {where}: {first['msg']}{more}") from None
    request, span = model.compression_request, model.span
    if len(request.messages_sent_to_model) < request.system_messages_count + 1:
        raise DumpFormatError(
            str(path),
            "compression_request.messages_sent_to_model is shorter than the system messages plus the prompt",
        )
    if span.protected_tail_count > len(model.context_after.messages):
        raise DumpFormatError(str(path), "span.protected_tail_count exceeds the messages in context_after")
    return model


# -- one dump ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DumpSummary:
    """One row of a dump listing: only what a table needs, read without building any message."""

    path: str
    timestamp: float
    session_id: str
    context_id: str
    processor_type: str
    tokens_before: int
    tokens_after: int
    reduction: int
    reduction_ratio: float
    target_tokens: int
    context_max: int
    prefix_count: int
    compress_count: int
    tail_count: int
    retries: int | None  # None when neither our extension nor a debug log tells
    backend: str | None  # None for openJiuwen's own dumps
    source: str  # "compaction-lab" (our extension present) or "openjiuwen"
    #: seconds from the trigger's threshold_check (debug log) to the dump; None without a log that says
    seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def summarise(path: Path, model: DumpFile, retries: int | None, seconds: float | None = None) -> DumpSummary:
    extension = model.compaction_lab
    return DumpSummary(
        path=str(path),
        timestamp=model.timestamp,
        session_id=model.session_id,
        context_id=model.context_id,
        processor_type=model.processor_type,
        tokens_before=model.benefit.tokens_before,
        tokens_after=model.benefit.tokens_after,
        reduction=model.benefit.reduction,
        reduction_ratio=model.benefit.reduction_ratio,
        target_tokens=model.trigger.target_tokens,
        context_max=model.trigger.context_max,
        prefix_count=model.span.preserved_prefix_count,
        compress_count=model.span.messages_to_compress_count,
        tail_count=model.span.protected_tail_count,
        retries=retries,
        backend=extension.backend if extension is not None else None,
        source="compaction-lab" if extension is not None else "openjiuwen",
        seconds=seconds,
    )


def extension_retries(model: DumpFile) -> int | None:
    extension = model.compaction_lab
    if extension is None or extension.attempts is None:
        return None
    return max(extension.attempts - 1, 0)


def debug_window(
    records: Sequence[Mapping[str, Any]], *, session_id: str, context_id: str, until: float
) -> tuple[dict[str, Any], ...]:
    """Records of one session/context from its latest ``threshold_check`` at or before ``until`` up to ``until``."""
    mine = [
        dict(r)
        for r in records
        if r.get("session_id") == session_id
        and r.get("context_id") == context_id
        and isinstance(r.get("timestamp"), int | float)
        and r["timestamp"] <= until
    ]
    starts = [r["timestamp"] for r in mine if r.get("event") == "threshold_check"]
    if not starts:
        return ()
    since = max(starts)
    return tuple(sorted((r for r in mine if r["timestamp"] >= since), key=lambda r: float(r["timestamp"])))


def window_seconds(since: Any, until: float) -> float | None:
    """Seconds from a debug window's opening ``threshold_check`` (its timestamp ``since``) to the dump (``until``)."""
    if isinstance(since, bool) or not isinstance(since, int | float) or not since <= until:
        return None
    return until - float(since)


DumpSegment = Literal["prefix", "compress", "tail"]


@dataclass(frozen=True, kw_only=True)
class DumpSpan:
    """A dump's context before, message by message: tokens by one counter (the dump stores only totals) and
    each context message's segment, from the dump's own span counts."""

    counter: str
    system_tokens: tuple[int, ...]  # one per system message
    tokens: tuple[int, ...]  # one per message of ``DumpRecord.before``
    segments: tuple[DumpSegment, ...]  # likewise

    def to_dict(self) -> dict[str, Any]:
        return {
            "counter": self.counter,
            "system_tokens": list(self.system_tokens),
            "tokens": list(self.tokens),
            "segments": list(self.segments),
        }


@dataclass(frozen=True)
class DumpRecord:
    """A dump read back: its fields, the context before and after, and the debug records of its run."""

    path: Path
    processor_type: str
    session_id: str
    context_id: str
    timestamp: float
    context_max: int
    tokens_before: int
    target_tokens: int
    prefix_count: int
    compress_count: int
    tail_count: int
    prompt: str
    exclude_recent_messages: int
    system_messages_count: int
    tools: tuple[ToolDef, ...]
    messages_sent_to_model: tuple[Message, ...]
    raw_content: str
    extracted_summary: str
    usage: dict[str, Any] | None
    before: tuple[Message, ...]
    after: tuple[Message, ...]
    tokens_after: int
    benefit: dict[str, Any]
    extension: dict[str, Any] | None
    debug_records: tuple[dict[str, Any], ...]
    summary: DumpSummary

    @property
    def system_messages(self) -> tuple[Message, ...]:
        return self.messages_sent_to_model[: self.system_messages_count]

    @property
    def reduction(self) -> int:
        return int(self.benefit["reduction"])

    @property
    def reduction_ratio(self) -> float:
        return float(self.benefit["reduction_ratio"])

    @property
    def retries(self) -> int | None:
        return self.summary.retries

    @property
    def backend(self) -> str | None:
        return self.summary.backend

    @cached_property
    def memory_message(self) -> Message | None:
        index = self._memory_index
        return self.after[index] if index is not None else None

    @cached_property
    def reinjection_message(self) -> Message | None:
        index = self._memory_index
        if index is None or index + 1 >= len(self.after):
            return None
        candidate = self.after[index + 1]
        text = candidate.content.lstrip() if isinstance(candidate.content, str) else ""
        return candidate if candidate.role == "user" and text.startswith(REINJECTION_PREFIXES) else None

    @cached_property
    def _memory_index(self) -> int | None:
        # the memory block sits right after the prefix; search only if a writer placed it elsewhere
        order = [self.prefix_count, *range(len(self.after))]
        for index in order:
            if 0 <= index < len(self.after):
                content = self.after[index].content
                if isinstance(content, str) and content.startswith(MEMORY_OPEN):
                    return index
        return None

    def span(self, counter: str = "cl100k_base") -> DumpSpan:
        """The context before, message by message, counted with ``counter`` and split by the dump's span."""
        priced = get_counter(counter)
        prefix_end = self.prefix_count
        compress_end = prefix_end + self.compress_count
        segments: tuple[DumpSegment, ...] = tuple(
            "prefix" if i < prefix_end else "compress" if i < compress_end else "tail"
            for i in range(len(self.before))
        )
        return DumpSpan(
            counter=priced.name,
            system_tokens=tuple(priced.message_tokens_many(self.system_messages)),
            tokens=tuple(priced.message_tokens_many(self.before)),
            segments=segments,
        )

    def summary_row(self) -> dict[str, Any]:
        return self.summary.to_dict()

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.summary_row(),
            "prompt": self.prompt,
            "exclude_recent_messages": self.exclude_recent_messages,
            "system_messages_count": self.system_messages_count,
            "tools": [tool.model_dump() for tool in self.tools],
            "raw_content": self.raw_content,
            "extracted_summary": self.extracted_summary,
            "usage": self.usage,
            "before": [m.to_openjiuwen() for m in self.before],
            "after": [m.to_openjiuwen() for m in self.after],
            "memory_message": self.memory_message.to_openjiuwen() if self.memory_message else None,
            "reinjection_message": self.reinjection_message.to_openjiuwen()
            if self.reinjection_message
            else None,
            "extension": self.extension,
            "debug_records": list(self.debug_records),
        }


def _messages(path: Path, where: str, items: Sequence[Any]) -> tuple[Message, ...]:
    built = []
    for index, item in enumerate(items):
        try:
            check_content(item.get("content"), Loc(path=f"{where}[{index}].content"))
            built.append(Message.model_validate(item))
        except FormatProblem as bad_part:
            raise DumpFormatError(str(path), str(bad_part)) from None
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"]
            raise DumpFormatError(str(path), f"{where}[{index}] is not a message: {problem}") from None
    return tuple(built)


def read_dump(path: str | os.PathLike[str]) -> DumpRecord:
    """Read one dump (openJiuwen's or ours) and rebuild the context before and after (SPEC §13)."""
    file = Path(path)
    model = load_dump_file(file)
    request, span = model.compression_request, model.span
    sent = _messages(file, "compression_request.messages_sent_to_model", request.messages_sent_to_model)
    after = _messages(file, "context_after.messages", model.context_after.messages)
    extension = model.compaction_lab
    if extension is not None and extension.original_messages is not None:
        before = _messages(file, "compaction_lab.original_messages", extension.original_messages)
    else:
        tail = after[len(after) - span.protected_tail_count :] if span.protected_tail_count else ()
        before = sent[request.system_messages_count : -1] + tail
    try:
        tools = tuple(ToolDef.model_validate(tool) for tool in request.tools)
    except ValidationError as exc:
        raise DumpFormatError(str(file), f"compression_request.tools: {exc.errors()[0]['msg']}") from exc
    log = file.parent / debug_log_name(model.processor_type)
    readable = log.is_file() and inside(file.parent, log)  # a regular file, not a link out of the folder
    records = debug_window(
        read_debug_log(log) if readable else [],
        session_id=model.session_id,
        context_id=model.context_id,
        until=model.timestamp,
    )
    retries = extension_retries(model)
    if retries is None and readable:
        retries = sum(1 for r in records if r.get("event") == "compression_retry")
    return DumpRecord(
        path=file,
        processor_type=model.processor_type,
        session_id=model.session_id,
        context_id=model.context_id,
        timestamp=model.timestamp,
        context_max=model.trigger.context_max,
        tokens_before=model.trigger.total_tokens_before,
        target_tokens=model.trigger.target_tokens,
        prefix_count=span.preserved_prefix_count,
        compress_count=span.messages_to_compress_count,
        tail_count=span.protected_tail_count,
        prompt=request.prompt,
        exclude_recent_messages=request.exclude_recent_messages,
        system_messages_count=request.system_messages_count,
        tools=tools,
        messages_sent_to_model=sent,
        raw_content=model.compression_response.raw_content or "",
        extracted_summary=model.compression_response.extracted_summary or "",
        usage=model.compression_response.usage,
        before=before,
        after=after,
        tokens_after=model.context_after.total_tokens_after,
        benefit=model.benefit.model_dump(),
        extension=extension.model_dump() if extension is not None else None,
        debug_records=records,
        summary=summarise(
            file,
            model,
            retries,
            window_seconds(records[0].get("timestamp"), model.timestamp) if records else None,
        ),
    )
