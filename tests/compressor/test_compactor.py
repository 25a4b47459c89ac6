"""One compaction (SPEC §10–11): outcomes, the fault matrix through a real local server, no mutation."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from compressor.backends import OfflineBackend, ReplayBackend
from compressor.backends.openai_compatible import OpenAICompatibleBackend
from compressor.compactor import CompactionResult, CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig, ModelClientConfig, ModelRequestConfig
from compressor.errors import BackendError, ErrorKind
from compressor.messages import Conversation
from compressor.prompt import PRESERVE_HEADER, SNAPSHOT_SECTIONS, memory_message
from compressor.tokens import get_counter
from compressor.upstream_sizing import memory_tokens as upstream_memory_tokens
from tests.support.openai_server import ScriptedServer, refused_url

SNAPSHOT = (
    "<coverage_check>ok</coverage_check>\n<state_snapshot>\n### 1. Active Task\nFix it.\n</state_snapshot>"
)


def _run_messages(result_chars: int = 3000) -> list[dict[str, Any]]:
    big = "\n".join(f"line {i}: value = compute({i}) # 中文 note" for i in range(result_chars // 40))
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Earlier question"},
        {"role": "assistant", "content": "Earlier answer"},
        {"role": "user", "content": "Fix the failing test in src/app.py"},
    ]
    for i in range(6):
        messages.append(
            {
                "role": "assistant",
                "content": f"step {i}",
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "name": "read_file",
                        "arguments": json.dumps({"file_path": f"src/m{i}.py"}),
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"c{i}",
                "content": json.dumps({"file_path": f"src/m{i}.py", "content": big, "line_count": 70}),
            }
        )
    messages.append({"role": "assistant", "content": "All six files read; the bug is in m3."})
    return messages


def conversation() -> Conversation:
    return Conversation.from_messages(
        _run_messages(),
        [{"name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}],
    )


def compressor_for(
    backend: Any, *, dump_dir: Path | None = None, keep: int = 2, **config: Any
) -> CurrentRoundCompressor:
    delays: list[float] = []

    async def no_wait(seconds: float) -> None:
        delays.append(seconds)

    compressor = CurrentRoundCompressor(
        CurrentRoundCompressorConfig(keep_recent_messages=keep, trigger_context_ratio=0.5, **config),
        backend,
        context_max=8000,
        dump_dir=str(dump_dir) if dump_dir else None,
        sleep=no_wait,
    )
    compressor.delays = delays  # type: ignore[attr-defined]
    return compressor


def compact(compressor: CurrentRoundCompressor, conv: Conversation, **kw: Any) -> CompactionResult:
    return asyncio.run(compressor.compact(conv, **kw))


class TestOutcomes:
    def test_offline_compaction_replaces_the_round_with_a_memory_block(self, tmp_path: Path) -> None:
        conv = conversation()
        result = compact(compressor_for(OfflineBackend(), dump_dir=tmp_path), conv)
        assert result.status == "compacted" and result.decision.hit
        prefix, _, tail = result.span_counts
        # system is not context (3 prefix messages); keeping 2 pulls in the call of the kept result: tail 3
        assert (prefix, tail) == (3, 3)
        new = list(result.messages)
        assert new[:prefix] == list(conv.messages[:prefix])
        assert isinstance(new[prefix].content, str) and new[prefix].content.startswith(
            "<memory_block_current>"
        )
        assert new[-tail:] == list(conv.messages[-tail:])
        assert result.tokens_after < result.tokens_before
        assert result.prefix_tokens and result.memory_tokens and result.tail_tokens
        assert result.backend_label == "offline (extractive)"
        assert all(
            f"{n}. {title}" in (result.raw_reply or "") for n, title in enumerate(SNAPSHOT_SECTIONS, 1)
        )
        assert result.dump_path is not None and Path(result.dump_path).exists()

    def test_reinjection_is_priced_separately(self) -> None:
        result = compact(compressor_for(OfflineBackend()), conversation())
        assert result.reinjection is not None
        assert result.reinjection_tokens > 0
        assert [
            m.content
            for m in result.messages
            if isinstance(m.content, str) and m.content.startswith("<recovered_context>")
        ]

    def test_our_sizes_and_openjiuwens_are_both_reported(self) -> None:
        counter = get_counter("cl100k_base")
        result = compact(compressor_for(ReplayBackend(SNAPSHOT)), conversation())
        assert result.status == "compacted" and result.reinjection is not None
        summary = result.summary or ""
        # what we send, counted as sent; and what openJiuwen's own messages for the same summary and files cost
        assert result.memory_tokens == counter.count([memory_message(summary)])
        assert result.openjiuwen_memory_tokens == upstream_memory_tokens(counter, summary) + 3
        assert result.memory_tokens_over_openjiuwen == 23
        assert result.sizing_text == (
            f"openJiuwen's memory block would be 23 tokens smaller ({result.openjiuwen_memory_tokens:,} instead of "
            f"{result.memory_tokens:,})."
        )
        assert result.openjiuwen_reinjection_tokens == result.reinjection.openjiuwen_tokens(counter) + 3
        assert result.reinjection_tokens_over_openjiuwen > 0
        kept = result.prefix_tokens + result.tail_tokens - 6
        assert (
            result.openjiuwen_tokens_after
            == kept + result.openjiuwen_memory_tokens + (result.openjiuwen_reinjection_tokens) - 3
        )
        assert result.tokens_after - result.openjiuwen_tokens_after == (
            result.memory_tokens_over_openjiuwen + result.reinjection_tokens_over_openjiuwen
        )
        written = result.to_dict()
        assert written["openjiuwen_memory_tokens"] == result.openjiuwen_memory_tokens
        assert written["sizing_text"] == result.sizing_text

    def test_a_refused_compaction_still_reports_both_sizes(self) -> None:
        long_reply = "<state_snapshot>" + "a long summary " * 4_000 + "</state_snapshot>"
        result = compact(compressor_for(ReplayBackend(long_reply)), conversation())
        assert result.status == "no_benefit"
        assert result.openjiuwen_memory_tokens and result.reinjection is not None

    def test_below_threshold_is_skipped_without_a_call(self) -> None:
        compressor = CurrentRoundCompressor(
            CurrentRoundCompressorConfig(), ReplayBackend(SNAPSHOT), context_max=1_000_000
        )
        result = compact(compressor, conversation())
        assert (result.status, result.reason, result.calls) == ("skipped", "below_threshold", 0)
        assert result.debug_records[0]["event"] == "threshold_check"

    def test_force_compacts_below_the_threshold(self) -> None:
        compressor = CurrentRoundCompressor(
            CurrentRoundCompressorConfig(keep_recent_messages=2),
            ReplayBackend(SNAPSHOT),
            context_max=1_000_000,
        )
        result = compact(compressor, conversation(), force=True)
        assert result.status == "compacted" and result.summary == "### 1. Active Task\nFix it."

    def test_nothing_to_compress_is_skipped_even_with_force(self) -> None:
        conv = Conversation.from_messages(
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]
        )
        result = compact(compressor_for(ReplayBackend(SNAPSHOT), keep=5), conv, force=True)
        assert (result.status, result.reason) == ("skipped", "no_compressible_span")

    def test_a_summary_that_saves_nothing_is_refused(self) -> None:
        conv = conversation()
        huge = "<state_snapshot>" + "word " * 40_000 + "</state_snapshot>"
        result = compact(compressor_for(ReplayBackend(huge)), conv)
        assert result.status == "no_benefit"
        assert list(result.messages) == list(conv.messages)
        assert result.tokens_after >= result.tokens_before

    def test_an_empty_reply_changes_nothing(self) -> None:
        result = compact(compressor_for(ReplayBackend("   ")), conversation())
        assert (result.status, result.reason) == ("failed", "empty_summary")

    def test_the_preserve_instruction_is_a_priority_not_a_task(self) -> None:
        model = ReplayBackend(SNAPSHOT)
        result = compact(compressor_for(model), conversation(), preserve_instruction="keep the stack trace")
        assert PRESERVE_HEADER in result.prompt and "keep the stack trace" in result.prompt
        last = result.request_messages[-1]
        assert last.role == "user" and last.content == result.prompt


FAULTS: list[tuple[str, list[Any], str, int]] = [
    # (name, scripted responses, expected reason, expected calls)
    ("400", [{"raise": "invalid request: bad field", "status_code": 400}], "api_request_error", 1),
    ("401", [{"raise": "Incorrect API key provided", "status_code": 401}], "authentication", 1),
    ("403", [{"raise": "forbidden", "status_code": 403}], "authentication", 1),
    ("413", [{"raise": "payload", "status_code": 413}] * 4, "context_overflow", 4),
    (
        "429",
        [{"raise": "slow down", "status_code": 429, "headers": {"Retry-After": "2"}}] * 3,
        "rate_limit",
        3,
    ),
    # A wait past the deadline of all the calls together (3 × 1.5 s) is not slept on.
    (
        "429-past-the-deadline",
        [{"raise": "slow down", "status_code": 429, "headers": {"Retry-After": "60"}}],
        "rate_limit",
        1,
    ),
    ("500", [{"raise": "boom", "status_code": 500}] * 3, "server_unstable", 3),
    ("502", [{"raise": "upstream", "status_code": 502}] * 3, "server_unstable", 3),
    ("503", [{"raise": "busy", "status_code": 503}] * 3, "server_unstable", 3),
    ("504", [{"raise": "late", "status_code": 504}] * 3, "server_unstable", 3),
    ("timeout", [{"timeout": True}] * 3, "timeout", 3),
    ("malformed-json", [{"status_code": 200, "body": "{not json"}] * 3, "unknown", 3),
    ("empty-choices", [{"json": {"choices": []}}], "empty_summary", 1),
    (
        "only-tool-calls",
        [
            {
                "json": {
                    "choices": [
                        {
                            "message": {
                                "role": "assistant",
                                "content": None,
                                "tool_calls": [
                                    {
                                        "id": "x",
                                        "type": "function",
                                        "function": {"name": "bash", "arguments": "{}"},
                                    }
                                ],
                            }
                        }
                    ]
                }
            }
        ],
        "empty_summary",
        1,
    ),
]


@pytest.mark.parametrize("name,responses,reason,calls", FAULTS, ids=[f[0] for f in FAULTS])
def test_fault_matrix(name: str, responses: list[Any], reason: str, calls: int, tmp_path: Path) -> None:
    conv = conversation()
    before = copy.deepcopy(conv.model_dump())
    with ScriptedServer(responses, hold_seconds=5) as server:
        backend = OpenAICompatibleBackend(
            ModelClientConfig(api_base=server.url, api_key=SecretStr("sk-canary-fault"), timeout=1.5),
            ModelRequestConfig(model="m"),
        )
        compressor = compressor_for(backend, dump_dir=tmp_path)
        result = compact(compressor, conv)
    assert (result.status, result.reason, result.calls, server.calls) == ("failed", reason, calls, calls)
    assert conv.model_dump() == before
    assert list(result.messages) == list(conv.messages)
    assert list(tmp_path.glob("*.json")) == []
    if name == "429":
        assert compressor.delays == [2.0, 2.0]  # type: ignore[attr-defined]
    if name == "429-past-the-deadline":
        assert compressor.delays == [] and "asked to wait 60 s" in (result.error or "")  # type: ignore[attr-defined]


def test_connection_refused_is_retried_then_fails(tmp_path: Path) -> None:
    backend = OpenAICompatibleBackend(
        ModelClientConfig(api_base=refused_url(), timeout=2), ModelRequestConfig(model="m")
    )
    result = compact(compressor_for(backend, dump_dir=tmp_path), conversation())
    assert result.status == "failed" and result.calls == 3
    assert list(tmp_path.glob("*.json")) == []


def test_a_non_backend_exception_is_classified_from_its_text(fake_model: Any) -> None:
    model = fake_model([RuntimeError("Service Unavailable"), RuntimeError("Service Unavailable"), SNAPSHOT])
    result = compact(compressor_for(model), conversation())
    assert result.status == "compacted"
    assert [a.outcome for a in result.attempts] == ["server_unstable", "server_unstable", "ok"]


def test_overflow_shrinks_the_span_and_moves_the_rest_to_the_tail(fake_model: Any) -> None:
    overflow = BackendError("maximum context length exceeded", kind=ErrorKind.CONTEXT_OVERFLOW)
    model = fake_model([overflow, SNAPSHOT])
    conv = conversation()
    result = compact(compressor_for(model, keep=0), conv)
    assert result.status == "compacted"
    first, second = model.requests
    assert len(second) < len(first)
    prefix, compress, tail = result.span_counts
    assert prefix + compress + tail == len(conv.messages)
    assert tail > 0 and list(result.messages[-tail:]) == list(conv.messages[-tail:])
    assert result.attempts[0].budget_ratio == 0.85
