"""A dump's compaction call in money, checked by hand: counted or reported tokens, the saving per later call,
the payback, and a folder's total."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compressor.cost import Price
from compressor.cost.ledger import payback_calls
from compressor.dumps import DumpRecord, build_dump_record, read_dump, write_dump
from compressor.dumps.costs import (
    DumpCallTokens,
    dump_call_tokens,
    dump_cost,
    dump_timing,
    price_dump_call,
    reported_tokens,
    total_cost,
)
from compressor.messages import Message
from tests.conftest import OPENJIUWEN_DUMPS

# Anthropic-shaped prices, per 1M tokens: $3 in, $0.30 cached, $3.75 cache write, $15 out.
PRICE = Price(model="made", input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)


def a_dump(
    folder: Path, *, usage: dict[str, Any] | None = None, extension: dict[str, Any] | None = None
) -> DumpRecord:
    """A dump whose request counts by hand with ``string_length`` (a third of "<|start|>{role}\\n{text}<|end|>"):
    system "x"*7 → 30 // 3 = 10, user "y"*9 → 30 // 3 = 10, prompt "z"*9 → 10, plus 3 for the list: 33 tokens in;
    the raw reply "r"*30 → 10 tokens out. The context went from 100 to 40 tokens."""
    sent = [Message(role="system", content="x" * 7), Message(role="user", content="y" * 9)]
    record = build_dump_record(
        session_id="s",
        context_id="c",
        context_max=200,
        tokens_before=100,
        target_tokens=50,
        span_counts=(0, 1, 0),
        prompt="z" * 9,
        system_messages_count=1,
        tools=[],
        messages_sent_to_model=[*sent, Message(role="user", content="z" * 9)],
        raw_content="r" * 30,
        extracted_summary="r" * 30,
        usage=usage,
        context_after=[Message(role="user", content="<memory_block_current>r</memory_block_current>")],
        tokens_after=40,
        extension=extension,
    )
    return read_dump(write_dump(folder, record))


class TestReportedUsage:
    @pytest.mark.parametrize(
        ("usage", "expected"),
        [
            ({"prompt_tokens": 1000, "completion_tokens": 200}, (1000, 0, 200)),
            (
                {
                    "prompt_tokens": 1000,
                    "completion_tokens": 200,
                    "prompt_tokens_details": {"cached_tokens": 800},
                },
                (1000, 800, 200),
            ),
            (  # Anthropic: input_tokens leave out the cache read and the cache write
                {
                    "input_tokens": 50,
                    "cache_read_input_tokens": 900,
                    "cache_creation_input_tokens": 50,
                    "output_tokens": 100,
                },
                (1000, 900, 100),
            ),
            (
                {"input_tokens": 1000, "output_tokens": 5, "input_tokens_details": {"cached_tokens": 10}},
                (1000, 10, 5),
            ),
            (
                {"input_tokens": 1000, "output_tokens": 5, "input_token_details": {"cache_read": 7}},
                (1000, 7, 5),
            ),
        ],
    )
    def test_shapes(self, usage: dict[str, Any], expected: tuple[int, int, int]) -> None:
        assert reported_tokens(usage) == expected

    @pytest.mark.parametrize(
        "usage",
        [
            None,
            {},
            {"prompt_tokens": 10},
            {"prompt_tokens": -1, "completion_tokens": 2},
            {"input_tokens": "x"},
        ],
    )
    def test_no_counts_is_none(self, usage: dict[str, Any] | None) -> None:
        assert reported_tokens(usage) is None


class TestOneDump:
    def test_counted_with_the_counter_given(self, tmp_path: Path) -> None:
        call = dump_call_tokens(a_dump(tmp_path), "string_length")
        assert call == DumpCallTokens(
            input_tokens=33,
            cached_tokens=0,
            output_tokens=10,
            source="counted",
            counter="string_length",
            tokens_before=100,
            tokens_after=40,
        )
        assert call.saved_tokens == 60

    def test_counted_with_the_counter_the_dump_records(self, tmp_path: Path) -> None:
        record = a_dump(tmp_path, extension={"backend": "offline", "counter": "string_length"})
        assert dump_call_tokens(record, "cl100k_base").counter == "string_length"
        assert dump_call_tokens(record, "cl100k_base").input_tokens == 33

    def test_priced_by_hand(self, tmp_path: Path) -> None:
        cost = dump_cost(a_dump(tmp_path), PRICE, "string_length")
        # 33 input tokens written at $3.75 per 1M, 10 out at $15: $0.00012375 + $0.00015
        assert cost.call_cost == pytest.approx(0.00027375, abs=1e-12)
        # 100 − 40 = 60 input tokens fewer at $3 per 1M at every later call
        assert cost.saving_per_call == pytest.approx(0.00018, abs=1e-12)
        # ceil(0.00027375 / 0.00018) = ceil(1.52…) = 2 calls
        assert cost.payback_calls == 2
        assert (cost.unit, cost.price_model) == ("usd", "made")
        assert (
            cost.to_dict()["call_cost"] == 0.000274
        )  # rounded to a millionth of a dollar, as the ledger does

    def test_in_tokens_without_a_price(self, tmp_path: Path) -> None:
        cost = dump_cost(a_dump(tmp_path), None, "string_length")
        # 33 + 10 = 43 tokens; 60 saved per call; ceil(43 / 60) = 1
        assert (cost.unit, cost.call_cost, cost.saving_per_call, cost.payback_calls) == ("tokens", 43, 60, 1)

    def test_the_reported_usage_is_preferred(self, tmp_path: Path) -> None:
        usage = {
            "prompt_tokens": 1000,
            "completion_tokens": 200,
            "prompt_tokens_details": {"cached_tokens": 800},
        }
        cost = dump_cost(a_dump(tmp_path, usage=usage), PRICE, "string_length")
        assert (cost.call.source, cost.call.input_tokens, cost.call.output_tokens) == ("reported", 1000, 200)
        # 800 read at $0.30, 200 written at $3.75, 200 out at $15: (240 + 750 + 3000) / 1M
        assert cost.call_cost == pytest.approx(0.00399, abs=1e-12)
        # ceil(0.00399 / 0.00018) = ceil(22.17) = 23
        assert cost.payback_calls == 23
        # in tokens: 1,000 + 200 = 1,200; ceil(1200 / 60) = 20
        assert dump_cost(a_dump(tmp_path, usage=usage), None).payback_calls == 20

    def test_a_call_that_saves_nothing_never_pays_back(self) -> None:
        call = DumpCallTokens(
            input_tokens=10,
            cached_tokens=0,
            output_tokens=1,
            source="counted",
            counter="cl100k_base",
            tokens_before=50,
            tokens_after=55,
        )
        cost = price_dump_call(call, PRICE)
        assert (call.saved_tokens, cost.saving_per_call, cost.payback_calls) == (0, 0.0, None)

    def test_exactly_one_saving_pays_back_after_one_call(self) -> None:
        call = DumpCallTokens(
            input_tokens=40,
            cached_tokens=0,
            output_tokens=20,
            source="counted",
            counter="cl100k_base",
            tokens_before=100,
            tokens_after=40,
        )
        assert price_dump_call(call, None).payback_calls == 1  # 60 tokens cost, 60 saved at the first call


class TestFolder:
    def test_total(self, tmp_path: Path) -> None:
        usage = {
            "prompt_tokens": 1000,
            "completion_tokens": 200,
            "prompt_tokens_details": {"cached_tokens": 800},
        }
        costs = [
            dump_cost(a_dump(tmp_path), PRICE, "string_length"),
            dump_cost(a_dump(tmp_path, usage=usage), PRICE, "string_length"),
        ]
        total = total_cost(costs, "usd")
        assert (total.dumps, total.reported, total.input_tokens, total.output_tokens) == (2, 1, 1033, 210)
        assert total.call_cost == pytest.approx(0.00027375 + 0.00399, abs=1e-12)
        assert total.saving_per_call == pytest.approx(0.00036, abs=1e-12)

    def test_one_unit_only(self, tmp_path: Path) -> None:
        record = a_dump(tmp_path)
        with pytest.raises(ValueError, match="same unit"):
            total_cost([dump_cost(record, PRICE), dump_cost(record, None)], "usd")


class TestTunesPayback:
    """The payback is Tune's (``payback_calls``): calls, the first included, until the saving covers the rest."""

    @pytest.mark.parametrize(
        ("owed", "saving", "calls"),
        [(0.0, 5.0, 1), (-3.0, 0.0, 1), (10.0, 0.0, None), (10.0, 5.0, 3), (10.0, 4.0, 4), (9.0, 10.0, 2)],
    )
    def test_table(self, owed: float, saving: float, calls: int | None) -> None:
        assert payback_calls(owed=owed, saving=saving) == calls

    def test_a_dump_owes_its_call_less_the_first_calls_saving(self) -> None:
        # no cache in a dump: 1 + ceil((cost − saving) / saving) = ceil(cost / saving); 250 / 60 → 5
        call = DumpCallTokens(
            input_tokens=200,
            cached_tokens=0,
            output_tokens=50,
            source="counted",
            counter="cl100k_base",
            tokens_before=100,
            tokens_after=40,
        )
        assert price_dump_call(call, None).payback_calls == 5 == payback_calls(owed=250 - 60, saving=60)


class TestTiming:
    """Calls, retries, backoff and time taken, from the debug records beside a dump (or our extension)."""

    def test_openjiuwens_dump_with_a_transient_retry(self) -> None:
        # compact015's log: threshold_check, span_built, one compression_retry (rate limit, 0.05 s backoff)
        folder = OPENJIUWEN_DUMPS / "compact015"
        record = read_dump(next(folder.glob("*.json")))
        logged = [
            json.loads(line) for line in (folder / "CurrentRoundCompressor.jsonl").read_text().splitlines()
        ]
        timing = dump_timing(record)
        assert timing is not None
        assert (timing.calls, timing.retries, timing.backoff_seconds) == (2, 1, 0.05)
        assert timing.seconds == pytest.approx(record.timestamp - logged[0]["timestamp"], abs=1e-9)
        assert 0.05 < timing.seconds < 0.1  # the dump came 0.08 s after the trigger's check

    def test_a_dump_without_retries_made_one_call(self) -> None:
        timing = dump_timing(read_dump(next((OPENJIUWEN_DUMPS / "compact000").glob("*.json"))))
        assert timing is not None and (timing.calls, timing.retries, timing.backoff_seconds) == (1, 0, 0.0)

    def test_our_dump_says_its_attempts_without_a_log(self, tmp_path: Path) -> None:
        timing = dump_timing(a_dump(tmp_path, extension={"backend": "offline", "attempts": 3}))
        assert timing is not None
        assert (timing.calls, timing.retries, timing.backoff_seconds, timing.seconds) == (3, 2, None, None)

    def test_nothing_known_without_a_log_or_our_extension(self, tmp_path: Path) -> None:
        assert dump_timing(a_dump(tmp_path)) is None
