"""openJiuwen's own files: the message lists its CurrentRoundCompressor wrote, and the dumps beside them.

The lists are ``context_after.messages`` of the dumps openJiuwen agent-core 0.1.19.post2 wrote itself
(tests/fixtures/samples/SOURCES.md): the context after its compaction, holding the ``<memory_block_current>``
turn that replaced the compressed span. That turn is openJiuwen's own compaction, recorded as such.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.markers import MEMORY_OPEN
from tests.conftest import OPENJIUWEN_DUMPS, fixture


def dump_of(name: str) -> Path:
    [path] = fixture(OPENJIUWEN_DUMPS / name).glob("*_CurrentRoundCompressor_*.json")
    return path


def list_after(name: str, tmp_path: Path) -> tuple[Path, dict]:
    dump = json.loads(dump_of(name).read_text(encoding="utf-8"))
    path = tmp_path / f"{name}-after.json"
    path.write_text(json.dumps(dump["context_after"]["messages"], ensure_ascii=False), encoding="utf-8")
    return path, dump


class TestTheListAfterItsCompaction:
    @pytest.mark.parametrize("name", ["compact000", "compact001", "compact015"])
    def test_the_memory_block_is_the_compaction_openjiuwen_made(self, name: str, tmp_path: Path) -> None:
        path, dump = list_after(name, tmp_path)
        [conversation] = load_conversations(path)
        assert conversation.source_format == "openjiuwen"
        blocks = [
            i
            for i, m in enumerate(conversation.messages)
            if m.role == "user" and isinstance(m.content, str) and m.content.startswith(MEMORY_OPEN)
        ]
        assert [c.index for c in conversation.recorded_compactions] == blocks != []
        assert conversation.recorded_compactions[0].source == "openjiuwen"
        # The summary is what the compressor extracted from its model's reply, unwrapped.
        assert (
            conversation.recorded_compactions[-1].summary == dump["compression_response"]["extracted_summary"]
        )
        assert [r.code for r in conversation.readings].count("recorded_compactions") == 1

    def test_calls_pair_with_their_results(self, tmp_path: Path) -> None:
        path, _ = list_after("compact015", tmp_path)
        [conversation] = load_conversations(path)
        calls = [call.id for m in conversation.messages for call in m.tool_calls or []]
        results = [m.tool_call_id for m in conversation.messages if m.role == "tool"]
        assert len(calls) == 16 and sorted(results) == sorted(calls)


class TestTheDumpItself:
    def test_a_dump_given_as_a_conversation_says_what_it_is(self) -> None:
        path = dump_of("compact001")
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(path)
        message = str(caught.value)
        assert path.name in message and "is a compaction dump, not a conversation" in message
        assert "\n" not in message
