"""``Analysis.json_chunks``: the inspection's JSON written a batch of rows at a time, the same text as one dump."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from compressor.analysis import analyze
from compressor.cli import main
from compressor.jsontext import json_text
from compressor.messages import Conversation


def run(count: int) -> Conversation:
    messages = [{"role": "system", "content": "be brief"}]
    for number in range(count):
        messages.append({"role": "user", "content": f"question {number} — 上下文"})
        messages.append({"role": "assistant", "content": f"answer {number} " * (number % 5)})
    messages.append({"role": "user", "content": "<system-reminder>internal</system-reminder>"})
    return Conversation.from_messages(messages, name="run \ud800 named")


class TestJsonChunks:
    @pytest.mark.parametrize("count", [0, 1, 7, 40])
    @pytest.mark.parametrize("rows", [1, 3, 4096])
    def test_the_pieces_joined_are_the_one_dump(self, count: int, rows: int) -> None:
        analysis = analyze(run(count), context_max=2_000)
        joined = "".join(analysis.json_chunks(rows_per_chunk=rows))
        assert joined == json_text(analysis.to_dict())
        assert len(json.loads(joined)["per_message"]) == len(analysis.conversation.messages)

    def test_rows_come_in_batches(self) -> None:
        chunks = list(analyze(run(40), context_max=2_000).json_chunks(rows_per_chunk=10))
        assert len(chunks) == 2 + 9  # the head, 81 rows in nine batches, the close


class TestInspectJson:
    def test_inspect_json_prints_the_whole_analysis_on_one_line(self, tmp_path: Path) -> None:
        conversation = run(12)
        path = tmp_path / "run.json"
        path.write_text(json.dumps(conversation.to_openjiuwen()), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", "--json", "--context-max", "2000", str(path)], out=out, err=err) == 0
        printed = out.getvalue()
        assert printed.endswith("}\n") and printed.count("\n") == 1
        shown = json.loads(printed)
        expected = analyze(conversation, context_max=2_000).to_dict()
        assert shown["per_message"] == expected["per_message"]
        assert shown["total_tokens"] == expected["total_tokens"] and shown["span"] == expected["span"]
