"""The catalog's rows: a message row written from its template is the row ``line()`` writes, column for column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.fleet.rows import SCHEMAS, line, message_lines
from compressor.formats import load_conversations
from compressor.tokens import COUNTER_NAMES, get_counter

from .runs import TAU_BENCH_5, write_run


@pytest.mark.parametrize("counter", COUNTER_NAMES)
def test_a_message_row_is_lines_row(counter: str, tmp_path: Path) -> None:
    conversations = [
        *load_conversations(TAU_BENCH_5),
        *load_conversations(write_run(tmp_path / "r.json", 40, 3)),
    ]
    columns = [name for name in SCHEMAS["messages"] if name != "seq"]
    for conversation in conversations:
        text, counts = message_lines(conversation, 'run "\\ é-0', counter)
        rows = [json.loads(row) for row in text.splitlines()]
        assert len(rows) == len(counts) == len(conversation.system) + len(conversation.messages)
        for row, tokens in zip(rows, counts, strict=True):
            assert list(row) == columns
            assert json.loads(line("messages", **row)) == row  # line() writes the same object
            assert row["run_id"] == 'run "\\ é-0' and row[f"tokens_{counter}"] == tokens
            assert all(row[f"tokens_{name}"] is None for name in COUNTER_NAMES if name != counter)
        messages = [*conversation.system, *conversation.messages]
        assert list(counts) == [get_counter(counter).message_tokens(m) for m in messages]
