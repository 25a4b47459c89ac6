"""The catalog's rows: a message row written from its template and an outcome row zipped from its values are
the rows ``line()`` writes, column for column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.cost import find_price, price_table
from compressor.fleet.rows import SCHEMAS, line, message_lines, outcome_lines
from compressor.fleet.values import outcome_from_json, outcome_json
from compressor.fleet.work import bill
from compressor.formats import load_conversations
from compressor.replay import sweep
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


def test_an_outcome_row_is_lines_row() -> None:
    conversation = load_conversations(TAU_BENCH_5)[0]
    swept = sweep(conversation, ratios=(0.2, 0.5, 0.9), keeps=(0, 2), context_max=3_000, summary="ratio:0.1")
    price = find_price("gpt-4o", price_table())
    settings = [outcome.key for outcome in swept.outcomes]
    bills = [bill(o, a, price) for o, a in zip(swept.outcomes, swept.attempts, strict=True)]
    text = outcome_lines('run "\\ é-0', "key", settings, swept.outcomes, bills)
    rows = text.splitlines(keepends=True)
    assert len(rows) == len(settings) and sum(o.compactions for o in swept.outcomes) > 0
    for row, (ratio, keep, target), outcome, billed in zip(
        rows, settings, swept.outcomes, bills, strict=True
    ):
        assert (
            row
            == line(
                "outcomes",
                run_id='run "\\ é-0',
                play_key="key",
                ratio=ratio,
                keep=keep,
                min_target=target,
                outcome=outcome_json(outcome),
                compactions=outcome.compactions,
                refused=outcome.refused,
                peak_tokens=outcome.peak_tokens,
                context_max=outcome.context_max,
                steps_over_capacity=outcome.steps_over_capacity,
                agent_input_tokens=outcome.agent_input_tokens,
                compaction_input_tokens=outcome.compaction_input_tokens,
                tokens=billed.tokens,
                cost=billed.cost,
                flagged=billed.flagged,
                span_tokens=billed.span_tokens,
                summary_tokens=billed.summary_tokens,
            )
            + "\n"
        )
        assert outcome_from_json(json.loads(row)["outcome"]) == outcome
