"""The work of one compaction once the trigger has fired: the call with its retries and overflow shrinks, the new
context and its sizes, the dump (SPEC §10–11); ``CurrentRoundCompressor`` decides and hands a run over.

Invariant: a run never mutates the conversation it was given; a failure raises ``Failed`` with the classified
reason, and the caller returns the original context.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from .analysis import Analysis
from .backends import Backend
from .backends.base import ModelReply
from .compaction_result import Attempt, CompactionResult, Status
from .config import CurrentRoundCompressorConfig, ModelClientConfig
from .dumps import DebugLog, LabExtension, build_dump_record, write_dump
from .errors import BackendError, BackendTimeout, ErrorKind, classify_exception
from .keyguard import MIN_GUARDED_CHARS
from .markers import PROCESSOR_TYPE
from .messages import Conversation, Message
from .prompt import extract_summary, memory_message
from .reinjection import Reinjection, build_reinjection
from .retry import (
    OVERFLOW_BUDGET_RATIOS,
    compaction_deadline,
    overflow_budget,
    past_deadline,
    retry_delay,
    should_retry,
    shrink_keep,
    wait_fits,
)
from .tokens import LIST_OVERHEAD, TokenCounter
from .upstream_sizing import memory_tokens as openjiuwen_memory_tokens


class RunOwner(Protocol):
    """What a run reads from the compressor that started it."""

    config: CurrentRoundCompressorConfig
    backend: Backend
    counter: TokenCounter
    session_id: str
    read_tools: tuple[str, ...]
    _sleep: Callable[[float], Awaitable[None]]


class Failed(Exception):
    """A compaction that cannot go on: its classified reason and its one-line message."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class DebugRecords:
    """Collects debug records for the result and appends them to the debug log when one is configured."""

    def __init__(self, log: DebugLog | None) -> None:
        self.log = log
        self.records: list[dict[str, Any]] = []

    def record(self, event: str, **fields: Any) -> None:
        self.records.append({"event": event, **fields})
        if self.log is not None:
            self.log.record(event, **fields)

    @property
    def errors(self) -> list[str]:
        return list(self.log.errors) if self.log is not None else []


class CompactionRun:
    """The state of one compaction: the span as it shrinks, the attempts made, the outcome."""

    def __init__(
        self,
        owner: RunOwner,
        conversation: Conversation,
        analysis: Analysis,
        debug: DebugRecords,
        started: float,
    ) -> None:
        self.owner = owner
        self.counter = owner.counter
        self.conversation = conversation
        self.analysis = analysis
        self.debug = debug
        self.started = started
        context = conversation.messages
        self.context = context
        self.prefix_end = analysis.span.prefix[1]
        # The span may shrink on overflow: messages past compress_end move to the front of the tail.
        self.compress_end = analysis.span.compress[1]
        self.attempts: list[Attempt] = []
        self.prompt = ""
        self.request: tuple[Message, ...] = ()
        self.tokens_before = self.counter.count(context)

    @property
    def span_counts(self) -> tuple[int, int, int]:
        return (self.prefix_end, self.compress_end - self.prefix_end, len(self.context) - self.compress_end)

    @property
    def compress_tokens(self) -> int:
        """count() of the span being compressed, as it stands after any overflow shrink (0 when empty)."""
        return self.counter.count(self.context[self.prefix_end : self.compress_end])

    def unchanged(
        self,
        status: Status,
        reason: str,
        *,
        error: str | None = None,
        raw: str | None = None,
        summary: str | None = None,
        usage: dict[str, Any] | None = None,
        tokens_after: int | None = None,
        sizes: dict[str, Any] | None = None,
    ) -> CompactionResult:
        return CompactionResult(
            **(sizes or {}),
            status=status,
            reason=reason,
            analysis=self.analysis,
            backend_label=self.owner.backend.label,
            span_counts=self.span_counts,
            compress_tokens=self.compress_tokens,
            messages=tuple(self.context),
            conversation=self.conversation,
            tokens_before=self.tokens_before,
            tokens_after=self.tokens_before if tokens_after is None else tokens_after,
            attempts=tuple(self.attempts),
            prompt=self.prompt,
            request_messages=self.request,
            raw_reply=raw,
            summary=summary,
            usage=usage,
            debug_records=tuple(self.debug.records),
            error=error,
            seconds=time.perf_counter() - self.started,
        )

    async def execute(self, prompt: str, dump_dir: str | None, context_id: str) -> CompactionResult:
        self.prompt = prompt
        prompt_message = Message(role="user", content=prompt)
        reply = await self._call_with_retries(prompt_message)
        raw = reply.content
        summary = extract_summary(raw)
        if not summary:
            return self.unchanged(
                "failed",
                "empty_summary",
                raw=raw,
                summary="",
                usage=reply.usage,
                error="the reply held no summary text",
            )
        prefix = list(self.context[: self.prefix_end])
        tail = list(self.context[self.compress_end :])
        memory = memory_message(summary)
        reinjection = build_reinjection(
            self.context, [*prefix, memory, *tail], read_tools=self.owner.read_tools
        )
        extra = [reinjection.message] if reinjection is not None else []
        new_context = [*prefix, memory, *extra, *tail]
        tokens_after = self.counter.count(new_context)
        sizes = self._sizes(prefix, memory, extra, tail, summary, reinjection)
        if tokens_after >= self.tokens_before:
            return self.unchanged(
                "no_benefit",
                "no_benefit",
                raw=raw,
                summary=summary,
                usage=reply.usage,
                tokens_after=tokens_after,
                sizes=sizes,
            )
        result = CompactionResult(
            **sizes,
            status="compacted",
            reason=self.analysis.decision.reason,
            analysis=self.analysis,
            backend_label=self.owner.backend.label,
            span_counts=self.span_counts,
            compress_tokens=self.compress_tokens,
            messages=tuple(new_context),
            conversation=self.conversation.with_messages(new_context),
            tokens_before=self.tokens_before,
            tokens_after=tokens_after,
            attempts=tuple(self.attempts),
            prompt=prompt,
            request_messages=self.request,
            raw_reply=raw,
            summary=summary,
            usage=reply.usage,
            seconds=time.perf_counter() - self.started,
        )
        return self._dumped(result, dump_dir, context_id)

    def _sizes(
        self,
        prefix: list[Message],
        memory: Message,
        extra: list[Message],
        tail: list[Message],
        summary: str,
        reinjection: Reinjection | None,
    ) -> dict[str, Any]:
        """What the new context holds, counted on what we send and as openJiuwen's own messages would cost."""
        counter = self.counter
        kept = sum(counter.message_tokens(m) for m in (*prefix, *tail))
        upstream_memory = openjiuwen_memory_tokens(counter, summary)
        upstream_reinjection = reinjection.openjiuwen_tokens(counter) if reinjection is not None else 0
        return {
            "prefix_tokens": counter.count(prefix),
            "memory_tokens": counter.count([memory]),
            "reinjection_tokens": counter.count(extra),
            "tail_tokens": counter.count(tail),
            "reinjection": reinjection,
            "openjiuwen_memory_tokens": upstream_memory + LIST_OVERHEAD,
            "openjiuwen_reinjection_tokens": upstream_reinjection + LIST_OVERHEAD
            if upstream_reinjection
            else 0,
            "openjiuwen_tokens_after": kept + upstream_memory + upstream_reinjection + LIST_OVERHEAD,
        }

    def _dumped(self, result: CompactionResult, dump_dir: str | None, context_id: str) -> CompactionResult:
        if dump_dir is None:
            return replace(result, debug_records=tuple(self.debug.records))
        record = build_dump_record(
            processor_type=PROCESSOR_TYPE,
            session_id=self.owner.session_id,
            context_id=context_id,
            context_max=self.analysis.context_max,
            tokens_before=result.tokens_before,
            target_tokens=result.compress_tokens,
            span_counts=result.span_counts,
            prompt=result.prompt,
            system_messages_count=len(self.conversation.system),
            tools=self.conversation.tools,
            messages_sent_to_model=result.request_messages,
            raw_content=result.raw_reply or "",
            extracted_summary=result.summary or "",
            usage=result.usage,
            context_after=result.messages,
            tokens_after=result.tokens_after,
            extension=LabExtension(
                backend=result.backend_label,
                counter=self.counter.name,
                original_messages=self.context,
                attempts=len(result.attempts),
                calls=[a.to_dict() for a in result.attempts],
                timings={
                    "total_seconds": result.seconds,
                    "model_seconds": sum(a.seconds for a in result.attempts),
                },
                reinjection=result.reinjection,
            ),
        )
        secrets = secrets_of(self.owner)
        try:
            path = write_dump(dump_dir, record, secrets=secrets)
        except (OSError, ValueError) as error:
            return replace(
                result, dump_error=f"dump not written: {error}", debug_records=tuple(self.debug.records)
            )
        log_errors = self.debug.errors
        return replace(
            result,
            dump_path=str(path),
            dump_error="; ".join(log_errors) if log_errors else None,
            debug_records=tuple(self.debug.records),
        )

    def _request_messages(self, prompt_message: Message) -> tuple[Message, ...]:
        return (*self.conversation.system, *self.context[: self.compress_end], prompt_message)

    async def _call_with_retries(self, prompt_message: Message) -> ModelReply:
        overflows = 0
        transient_retries = 0
        tools = self.conversation.tools
        # Each call has the backend's own deadline; all of them together, retries and Retry-After waits included,
        # have DEADLINE_CALLS of it.
        deadline = compaction_deadline(getattr(self.owner.backend, "deadline", None))
        ends = None if deadline is None else time.monotonic() + deadline
        while True:
            self.request = self._request_messages(prompt_message)
            request_tokens = self.counter.count(self.request) + self.counter.count_tools(tools)
            began = time.perf_counter()
            try:
                reply = await self._complete(tools, deadline, ends)
            except Exception as error:  # every failure is classified; none escapes the compactor
                kind = classify_exception(error)
                message = str(error) or type(error).__name__
                self.attempts.append(
                    Attempt(
                        len(self.attempts) + 1,
                        len(self.request),
                        request_tokens,
                        kind.value,
                        message,
                        seconds=time.perf_counter() - began,
                    )
                )
                if kind is ErrorKind.CONTEXT_OVERFLOW:
                    overflows += 1
                    self._shrink_or_fail(overflows, message, prompt_message)
                    continue
                if should_retry(kind, transient_retries):
                    transient_retries += 1
                    retry_after = error.retry_after if isinstance(error, BackendError) else None
                    delay = retry_delay(transient_retries, retry_after)
                    if ends is not None and not wait_fits(delay, ends - time.monotonic()):
                        message = past_deadline(message, delay, retry_after, deadline or 0.0)
                        self.attempts[-1] = replace(self.attempts[-1], error=message)
                        raise Failed(kind.value, message) from None
                    self.debug.record(
                        "compression_retry",
                        attempt=transient_retries,
                        error_type=f"transient:{kind.value}",
                        error_message=message[:500],
                        retried=True,
                        reason="transient_backoff",
                        delay_seconds=delay,
                    )
                    self.attempts[-1] = _with_delay(self.attempts[-1], delay)
                    await self.owner._sleep(delay)
                    continue
                raise Failed(kind.value, message) from error
            self.attempts.append(
                Attempt(
                    len(self.attempts) + 1,
                    len(self.request),
                    request_tokens,
                    "ok",
                    seconds=time.perf_counter() - began,
                )
            )
            return reply

    async def _complete(self, tools: Sequence[Any], deadline: float | None, ends: float | None) -> ModelReply:
        if ends is None:
            return await self.owner.backend.complete(self.request, tools)
        try:
            async with asyncio.timeout(max(ends - time.monotonic(), 0.0)):
                return await self.owner.backend.complete(self.request, tools)
        except TimeoutError as error:
            if isinstance(error, BackendError):
                raise
            raise BackendTimeout(
                f"the model did not answer within the deadline of {deadline:g} s (all calls and waits together)"
            ) from None

    def _shrink_or_fail(self, overflows: int, message: str, prompt_message: Message) -> None:
        if overflows > len(OVERFLOW_BUDGET_RATIOS):
            self._overflow_give_up(overflows, message, "retry_budget_exhausted")
        ratio = OVERFLOW_BUDGET_RATIOS[overflows - 1]
        context_max = self.analysis.context_max
        fixed = self.counter.count(
            [*self.conversation.system, *self.context[: self.prefix_end], prompt_message]
        ) + self.counter.count_tools(self.conversation.tools)
        compress = self.context[self.prefix_end : self.compress_end]
        costs = [self.counter.count([m]) for m in compress]
        shrink = shrink_keep(costs, overflow_budget(context_max, ratio), fixed)
        if shrink.keep <= 0:
            self._overflow_give_up(overflows, message, "no_smaller_span")
        self.compress_end = self.prefix_end + shrink.keep
        self.debug.record(
            "compression_retry",
            attempt=overflows,
            error_type="context_overflow",
            error_message=message[:500],
            retried=True,
            reason="budget_ratio_shrink",
            budget_ratio=ratio,
        )
        self.attempts[-1] = _with_ratio(self.attempts[-1], ratio)

    def _overflow_give_up(self, overflows: int, message: str, reason: str) -> None:
        self.debug.record(
            "compression_retry",
            attempt=overflows,
            error_type="context_overflow",
            error_message=message[:500],
            retried=False,
            reason=reason,
        )
        raise Failed(ErrorKind.CONTEXT_OVERFLOW.value, f"{message} ({reason})")


def _with_delay(attempt: Attempt, delay: float) -> Attempt:
    return replace(attempt, delay_seconds=delay)


def _with_ratio(attempt: Attempt, ratio: float) -> Attempt:
    return replace(attempt, budget_ratio=ratio)


def secrets_of(owner: RunOwner) -> Sequence[str]:
    """Every key this compaction could know, the process's ``API_KEY`` too (an input may quote it, whatever the
    backend): never to be written to a dump or the debug log."""
    configs = (owner.config.model_client, getattr(owner.backend, "client_config", None))
    keys = {c.api_key.get_secret_value() for c in configs if isinstance(c, ModelClientConfig)}
    process_key = os.environ.get("API_KEY", "")
    if (
        len(process_key.strip()) >= MIN_GUARDED_CHARS
    ):  # a placeholder ("EMPTY") would refuse every dump saying it
        keys.add(process_key)
    return sorted(key for key in keys if key)
