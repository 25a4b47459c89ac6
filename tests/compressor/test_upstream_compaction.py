"""openJiuwen's own compactions, reproduced through the real httpx client and a scripted local server.

Each case scripts what the model answers; we check the requests made, the debug records, the kept
messages, the summary, the reinjected files, the no-op outcomes, the dump's keys and tokens_before.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from compressor.backends.openai_compatible import OpenAICompatibleBackend
from compressor.compactor import CompactionResult, CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig, ModelClientConfig, ModelRequestConfig
from compressor.messages import Conversation, Message
from compressor.prompt import extract_summary
from tests.conftest import compaction_cases
from tests.support.openai_server import ScriptedServer

CASES = compaction_cases()
CANARY_KEY = "sk-canary-upstream-0123456789abcdef"
_RECENT_FILE = re.compile(r"Recently read file: (.+)")


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def _run(case: dict[str, Any], dump_dir: Path) -> tuple[CompactionResult, ScriptedServer, Sleeps]:
    conversation = Conversation.from_messages(case["conversation"]["messages"], case["conversation"]["tools"])
    sleeps = Sleeps()
    with ScriptedServer(case["responses"], hold_seconds=5) as server:
        backend = OpenAICompatibleBackend(
            ModelClientConfig(api_base=server.url, api_key=SecretStr(CANARY_KEY), timeout=0.5),
            ModelRequestConfig(model="scripted-model"),
        )
        compressor = CurrentRoundCompressor(
            CurrentRoundCompressorConfig(**case["config"]),
            backend,
            context_max=case["context_max"],
            counter="cl100k_base",
            dump_dir=str(dump_dir),
            context_id=case["id"],
            sleep=sleeps,
        )
        result = asyncio.run(compressor.compact(conversation))
    return result, server, sleeps


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[CompactionResult, ScriptedServer, Sleeps, Path]]:
    out = {}
    for case in CASES:
        dump_dir = tmp_path_factory.mktemp(case["id"])
        result, server, sleeps = _run(case, dump_dir)
        out[case["id"]] = (result, server, sleeps, dump_dir)
    return out


def _comparable(message: dict[str, Any] | Message) -> dict[str, Any]:
    data = message.to_openjiuwen() if isinstance(message, Message) else message
    calls = [
        {"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
        for c in data.get("tool_calls") or []
    ]
    return {
        "role": data["role"],
        "content": data.get("content") or "",
        "tool_call_id": data.get("tool_call_id"),
        "tool_calls": calls,
    }


ids = [c["id"] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=ids)
class TestUpstreamCase:
    def test_requests_made(self, case: dict[str, Any], runs: dict[str, Any]) -> None:
        result, server, _, _ = runs[case["id"]]
        expected = case["expected"]
        assert server.calls == expected["calls"]
        assert [len(r.body["messages"]) for r in server.requests] == expected["sent_message_counts"]
        assert [a.message_count for a in result.attempts] == expected["sent_message_counts"]

    def test_decision_and_span(self, case: dict[str, Any], runs: dict[str, Any]) -> None:
        result, _, _, _ = runs[case["id"]]
        expected = case["expected"]
        assert list(result.analysis.span.counts) == expected["span"]
        decision = result.decision.to_dict()
        assert {k: decision.get(k) for k in expected["decision"]} == expected["decision"]

    def test_debug_records(self, case: dict[str, Any], runs: dict[str, Any]) -> None:
        result, _, sleeps, dump_dir = runs[case["id"]]
        logged = [
            json.loads(line) for line in (dump_dir / "CurrentRoundCompressor.jsonl").read_text().splitlines()
        ]
        for records in (list(result.debug_records), logged):
            got = []
            for record in records:
                if record["event"] == "span_built":
                    counts = [
                        len(record[k]) for k in ("preserved_prefix", "messages_to_compress", "protected_tail")
                    ]
                    got.append({"event": "span_built", "phase": record["phase"], "span_counts": counts})
                else:
                    got.append(record)
            expected = case["expected"]["debug"]
            assert len(got) == len(expected)
            for mine, theirs in zip(got, expected, strict=True):
                assert {k: mine.get(k) for k in theirs} == theirs
        transient = [
            r["delay_seconds"] for r in case["expected"]["debug"] if r.get("reason") == "transient_backoff"
        ]
        assert sleeps.delays == transient

    def test_outcome(self, case: dict[str, Any], runs: dict[str, Any]) -> None:
        result, _, _, dump_dir = runs[case["id"]]
        expected = case["expected"]
        original = Conversation.from_messages(case["conversation"]["messages"]).messages
        dumps = sorted(dump_dir.glob("*.json"))
        if expected["compacted"] is None:
            assert result.status != "compacted"
            assert [_comparable(m) for m in result.messages] == [_comparable(m) for m in original]
            assert dumps == []
            return
        assert result.status == "compacted"
        mine, theirs = list(result.messages), expected["compacted"]
        assert len(mine) == len(theirs)
        for ours, reference in zip(mine, theirs, strict=True):
            text = reference["content"] if isinstance(reference["content"], str) else ""
            if text.startswith("<memory_block_current>"):
                summary = re.search(r"<summary>\n(.*)\n</summary>", text, re.DOTALL)
                assert summary is not None
                assert isinstance(ours.content, str) and ours.content.startswith("<memory_block_current>")
                assert result.summary == summary.group(1) == extract_summary(case["responses"][-1])
            elif text.startswith("<recovered_context>"):
                assert isinstance(ours.content, str) and ours.content.startswith("<recovered_context>")
                assert _RECENT_FILE.findall(ours.content) == _RECENT_FILE.findall(text)
            else:
                assert _comparable(ours) == _comparable(reference)

    def test_dump(self, case: dict[str, Any], runs: dict[str, Any]) -> None:
        result, _, _, dump_dir = runs[case["id"]]
        expected = case["expected"]
        if expected["dump_keys"] is None:
            assert result.dump_path is None
            return
        (dump,) = dump_dir.glob("*.json")
        assert result.dump_path == str(dump)
        record = json.loads(dump.read_text())
        assert set(expected["dump_keys"]) <= set(record)
        assert set(record) - set(expected["dump_keys"]) == {"compaction_lab"}
        assert (
            record["benefit"]["tokens_before"] == expected["benefit"]["tokens_before"] == result.tokens_before
        )
        assert record["benefit"]["tokens_after"] == result.tokens_after

    def test_the_key_is_never_written(self, case: dict[str, Any], runs: dict[str, Any]) -> None:
        result, _, _, dump_dir = runs[case["id"]]
        for path in dump_dir.iterdir():
            assert CANARY_KEY not in path.read_text()
        assert CANARY_KEY not in json.dumps(result.to_dict(), ensure_ascii=False)
