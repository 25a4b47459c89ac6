"""One compaction, as openJiuwen's CurrentRoundCompressor performs it (SPEC §10–11).

Invariant: the input conversation is never mutated; a failed, empty or unprofitable compaction returns
the original context, and only a successful one writes a dump (a dump failure never fails it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Collection

from .analysis import Analysis, analyze
from .backends import Backend, make_backend
from .compaction_result import Attempt, CompactionResult
from .compaction_run import CompactionRun, DebugRecords, Failed, secrets_of
from .config import CurrentRoundCompressorConfig
from .dumps import DebugLog, resolve_dump_dir, span_built_fields
from .dumps.debuglog import DEFAULT_SESSION_ID
from .markers import PROCESSOR_TYPE
from .messages import Conversation
from .prompt import build_prompt
from .reinjection import READ_FILE_TOOLS
from .tokens import TokenCounter, get_counter

__all__ = ["Attempt", "CompactionResult", "CurrentRoundCompressor"]


class CurrentRoundCompressor:
    """Compacts the current round of a conversation into one memory block.

    ``backend`` defaults to an OpenAI-compatible endpoint when the config or the environment names one,
    else to the offline extractive backend. ``sleep`` is injectable so backoff can be observed in tests.
    ``read_tools`` are the read tools whose files come back after a compaction (openJiuwen's ``read_file`` only,
    unless our extension is asked for, see ``reinjection``).
    """

    def __init__(
        self,
        config: CurrentRoundCompressorConfig | None = None,
        backend: Backend | None = None,
        *,
        context_max: int | None = None,
        model: str | None = None,
        counter: str | TokenCounter = "cl100k_base",
        dump_dir: str | None = None,
        debug_dir: str | None = None,
        session_id: str = DEFAULT_SESSION_ID,
        context_id: str | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        read_tools: Collection[str] = READ_FILE_TOOLS,
    ) -> None:
        self.config = config or CurrentRoundCompressorConfig()
        if backend is None:
            backend = make_backend(
                None,
                client_config=self.config.model_client,
                request=self.config.model,
            )
        self.backend = backend
        self.context_max = context_max
        self.model = model
        self.counter = get_counter(counter) if isinstance(counter, str) else counter
        self.session_id = session_id
        self.context_id = context_id
        self._dump_dir_setting = dump_dir
        self._debug_dir_setting = debug_dir
        self._sleep = sleep
        self.read_tools = tuple(read_tools)

    # -- public --------------------------------------------------------------------------------

    def analyze(self, conversation: Conversation) -> Analysis:
        return analyze(
            conversation, self.config, context_max=self.context_max, model=self.model, counter=self.counter
        )

    async def compact(
        self,
        conversation: Conversation,
        *,
        force: bool = False,
        preserve_instruction: str | None = None,
    ) -> CompactionResult:
        started = time.perf_counter()
        context_id = self.context_id or conversation.name or "default_context_id"
        dump_dir = self._dump_dir(context_id)
        debug = DebugRecords(
            DebugLog(
                self._debug_dir_setting or dump_dir,
                processor_type=PROCESSOR_TYPE,
                session_id=self.session_id,
                context_id=context_id,
                secrets=secrets_of(self),
            )
            if (self._debug_dir_setting or dump_dir)
            else None
        )
        analysis = self.analyze(conversation)
        debug.record("threshold_check", phase="get_context_window", **analysis.decision.record())
        run = CompactionRun(self, conversation, analysis, debug, started)
        if not analysis.span.has_compressible:
            return run.unchanged("skipped", "no_compressible_span")
        if not force and not analysis.decision.hit:
            return run.unchanged("skipped", analysis.decision.reason)
        debug.record(
            "span_built",
            phase="get_context_window",
            **span_built_fields(conversation.messages, analysis.span),
        )
        try:
            return await run.execute(build_prompt(preserve_instruction), dump_dir, context_id)
        except Failed as failure:
            return run.unchanged("failed", failure.reason, error=str(failure))

    # -- helpers -------------------------------------------------------------------------------

    def _dump_dir(self, context_id: str) -> str | None:
        if self._dump_dir_setting:
            return self._dump_dir_setting
        if not self.config.enable_compression_dump:
            return None
        resolved = resolve_dump_dir(
            self.config.compression_dump_dir, session_id=self.session_id, context_id=context_id
        )
        return str(resolved) if resolved else None
