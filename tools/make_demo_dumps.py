"""Regenerate ``dumps/demo/``: the demo session the dashboard opens on, made by our own compressor.

Replays the bundled demo run as an agent would live it: before each model call (each assistant message)
the compressor checks its trigger on the context so far, with earlier compactions applied, and compacts
when it fires. The offline backend writes the summaries; the second compaction meets one rate-limit error
first, so the debug log shows a retry. Run: ``.venv/bin/python tools/make_demo_dumps.py``.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from compressor import (  # noqa: E402
    BackendError,
    CurrentRoundCompressor,
    CurrentRoundCompressorConfig,
    ErrorKind,
    load_conversation,
)
from compressor.backends import OfflineBackend  # noqa: E402
from compressor.backends.base import ModelReply  # noqa: E402
from compressor.messages import Message, ToolDef  # noqa: E402

DEMO = ROOT / "dashboard" / "samples" / "demo-conversation.json"
OUT = ROOT / "dumps" / "demo"
SETTINGS = CurrentRoundCompressorConfig(
    trigger_context_ratio=0.5, min_target_context_ratio=0.1, keep_recent_messages=3
)
CONTEXT_MAX = 12_000


class RateLimitedOnce:
    """The offline backend, but the n-th call first fails once with a rate-limit error."""

    def __init__(self, fail_on_call: int) -> None:
        self.inner = OfflineBackend()
        self.label = self.inner.label
        self.kind = self.inner.kind
        self.calls = 0
        self.fail_on_call = fail_on_call

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise BackendError(
                "HTTP 429 from the endpoint: rate limit reached", kind=ErrorKind.RATE_LIMIT, status_code=429
            )
        return await self.inner.complete(messages, tools)


async def replay() -> list[str]:
    run = load_conversation(DEMO)
    backend = RateLimitedOnce(fail_on_call=2)
    compressor = CurrentRoundCompressor(
        SETTINGS,
        backend,
        context_max=CONTEXT_MAX,
        dump_dir=str(OUT),
        session_id="demo-session",
        context_id="timekit-fix",
    )
    context: list[Message] = []
    written = []
    for message in run.messages:
        if message.role == "assistant" and context:
            result = await compressor.compact(run.with_messages(context))
            if result.status == "compacted":
                context = list(result.messages)
                written.append(f"{result.dump_path}: {result.status_text}")
        context.append(message)
    return written


def main() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    for line in asyncio.run(replay()):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
