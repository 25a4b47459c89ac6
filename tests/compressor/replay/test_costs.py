"""A replay in money: the cache split of each call and each compaction checked by hand, a loop run flagged, the
price row a run is billed at, and one assessment whether it comes from simulate or sweep."""

from __future__ import annotations

import json
from math import ceil
from pathlib import Path
from typing import Any

import pytest

from benchmarks.generate import conversation_dicts
from compressor.cost import Price, find_price
from compressor.errors import ConfigError
from compressor.messages import Conversation, Message
from compressor.prompt import build_prompt
from compressor.replay import assess_simulation, assess_sweep, resolve_price, simulate, sweep
from compressor.tokens import get_counter
from tests.compressor.test_simulate import SAY_300, USER_100, hand_run, settings

PROMPT = get_counter("string_length").message_tokens(Message(role="user", content=build_prompt(None)))


@pytest.fixture
def run() -> Any:
    """TestHandCheckedRun's run: context_max 2000, threshold 1000, fixed:150 summaries (memory blocks of 308)."""
    return simulate(
        hand_run(), settings(0.5, 0, 0.1), context_max=2000, counter="string_length", summary="fixed:150"
    )


class TestTheCacheOfTheHandRun:
    def test_what_each_call_reads_from_the_cache(self, run: Any) -> None:
        assert [(s.index, s.sent_tokens, s.cached_tokens) for s in run.steps] == [
            (1, 103, 0),  # the first call reads nothing
            (2, 403, 103),  # every call reads the previous window ...
            (3, 703, 403),
            (4, 411, 100),  # ... but after a compaction only user 0 is still a prefix: 100
            (6, 811, 411),
            (7, 1111, 811),  # a refused compaction changes nothing
            (8, 1119, 808),  # [0, memory, 4, 5] = 100 + 308 + 300 + 100 stays cached
            (9, 1119, 808),
        ]

    def test_what_each_compaction_request_reads(self, run: Any) -> None:
        # the request sends the context up to the tail: it shares the previous call's whole window
        assert [
            (e.index, e.previous_tokens, e.request_cached_tokens, e.preserved_tokens) for e in run.events
        ] == [
            (4, 703, 703, 100),
            (7, 811, 811, 0),
            (8, 1111, 1111, 808),
            (9, 1119, 1119, 808),
        ]
        assert [e.output_tokens for e in run.events] == [150, 150, 150, 150]

    def test_the_run_with_and_without_compaction(self, run: Any) -> None:
        ledger = assess_simulation(run, None).ledger
        agent = ledger.with_compaction.agent
        assert (agent.input, agent.cached) == (5_780, 0 + 103 + 403 + 100 + 411 + 811 + 808 + 808)
        without = ledger.without_compaction.agent
        # uncompacted: 103, 403, …, 2303, each reading the one before
        assert (without.input, without.cached) == (9_624, 0 + 103 + 403 + 703 + 1_003 + 1_403 + 1_703 + 2_003)
        compaction = ledger.with_compaction.compaction
        requests = (1_000 + 1_108 + 1_408 + 1_416) + 4 * (PROMPT + 3)
        assert (compaction.calls, compaction.input, compaction.output) == (4, requests, 600)
        assert compaction.cached == 703 + 811 + 1_111 + 1_119
        assert ledger.with_compaction.cost == 5_780 + requests + 600  # tokens: no price for this run
        assert ledger.saved == 9_624 - (5_780 + requests + 600)

    def test_the_first_compaction_by_hand(self, run: Any) -> None:
        first = assess_simulation(run, None).ledger.compactions[0]
        # the previous call cached 703 ([0, 1, 2] + reply opening); only user 0 (100) survives the compaction
        assert (first.previous_window, first.invalidated_tokens, first.cache_write_tokens) == (703, 603, 311)
        # tokens: the call is 1,003 + prompt in and 150 out; the next call sends 592 fewer, and so does every later
        # one; the next attempt comes 2 calls later
        assert first.call_cost == 1_003 + PROMPT + 150
        assert (first.first_call_extra, first.saving_per_call, first.horizon_calls) == (-592, 592, 2)
        assert first.payback_calls == 1 + ceil((1_003 + PROMPT + 150 - 592) / 592)
        assert first.payback == "never"

    def test_the_first_compaction_in_dollars(self, run: Any) -> None:
        price = Price(model="made", input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)
        first = assess_simulation(run, price).ledger.compactions[0]
        call = (703 * 0.3 + (300 + PROMPT) * 3.75 + 150 * 15) / 1e6  # 1,003 + prompt in, 703 cached
        assert first.call_cost == pytest.approx(call)
        # next call: 100 read + 311 written, instead of 703 read + 300 written
        assert first.first_call_extra == pytest.approx(
            (100 * 0.3 + 311 * 3.75 - 703 * 0.3 - 300 * 3.75) / 1e6
        )
        assert first.saving_per_call == pytest.approx(592 * 0.3 / 1e6)

    def test_the_later_compactions(self, run: Any) -> None:
        lines = assess_simulation(run, None).ledger.compactions
        refused = lines[1]
        assert (refused.status, refused.invalidated_tokens, refused.payback_calls, refused.payback) == (
            "skipped",
            0,
            None,
            "never",
        )
        # message 8: of the 1,111 cached, [0, memory, 4, 5] (808) survive; message 9: of 1,119
        assert [
            (line.invalidated_tokens, line.cache_write_tokens, line.horizon_calls) for line in lines[2:]
        ] == [
            (303, 311, 1),
            (311, 311, 1),
        ]


def long_hand_run(after: int = 8) -> Conversation:
    roles = ["user", "assistant", "assistant", "assistant", "assistant", "user"] + ["assistant"] * after
    return Conversation.from_messages(
        [{"role": role, "content": USER_100 if role == "user" else SAY_300} for role in roles],
        name="loop by hand",
    )


class TestALoopRun:
    """fixed:450 summaries make 608-token memory blocks against a 1,000 threshold: after the first compaction the
    window never drops below it, so every call compacts again."""

    @pytest.fixture
    def loops(self) -> Any:
        run = simulate(
            long_hand_run(),
            settings(0.5, 0, 0.0),
            context_max=2000,
            counter="string_length",
            summary="fixed:450",
        )
        return run, assess_simulation(run, None).loops

    def test_the_run_compacts_at_every_call(self, loops: Any) -> None:
        run, _ = loops
        assert [(s.index, s.event, s.sent_tokens) for s in run.steps][3:] == [
            (4, "compacted", 711),  # [0, memory] = 100 + 608 + 3
            (6, "none", 1111),  # the new user request is last: nothing to compress
            (7, "skipped", 1411),  # 303 to compress into 608: no benefit
            (8, "skipped", 1711),
            (9, "compacted", 1719),  # [0, memory, 4, 5, memory]
            (10, "compacted", 1719),
            (11, "compacted", 1719),
            (12, "compacted", 1719),
            (13, "compacted", 1719),
        ]

    def test_each_attempt_after_the_first_is_flagged(self, loops: Any) -> None:
        _, report = loops
        assert [(a.index, a.codes) for a in report.attempts] == [
            (4, ()),
            (7, ("low_gain", "refires", "stays_above")),
            (8, ("low_gain", "refires", "stays_above")),
            *[(index, ("refires", "stays_above")) for index in (9, 10, 11, 12, 13)],
        ]
        stays = report.attempts[-1].flags[-1]
        assert stays.values == {"window_tokens": 1_719, "threshold": 1_000}

    def test_it_is_a_storm_a_breaker_would_have_stopped(self, loops: Any) -> None:
        run, report = loops
        storm = report.storm
        assert storm is not None
        assert (storm.attempts, storm.flagged, storm.longest_streak, storm.first_index) == (8, 7, 7, 7)
        # the third flagged attempt in a row is at message 9: the four after it are spared
        assert (storm.breaker_index, storm.breaker_step, storm.stopped_attempts, storm.stopped_calls) == (
            9,
            7,
            4,
            4,
        )
        assert storm.stopped_request_tokens == sum(e.request_tokens for e in run.events[-4:])


class TestThePriceOfARun:
    def conversation(self, model: str | None) -> Conversation:
        return Conversation.from_messages(
            conversation_dicts(20, seed=2), metadata={"model": model} if model else {}
        )

    def test_the_runs_own_model(self) -> None:
        choice = resolve_price(self.conversation("claude-opus-4-5-20251101"))
        assert (choice.source, choice.asked) == ("run", "claude-opus-4-5-20251101")
        assert choice.price == find_price("claude-opus-4-5")

    def test_a_chosen_model_and_an_explicit_price_model_come_first(self) -> None:
        conversation = self.conversation("claude-opus-4-5")
        assert resolve_price(conversation, model="gpt-5").source == "model"
        choice = resolve_price(conversation, model="gpt-5", price_model="deepseek-chat")
        assert (
            choice.source == "price_model"
            and choice.price is not None
            and choice.price.model == "deepseek-chat"
        )

    def test_an_unknown_run_model_is_counted_in_tokens(self) -> None:
        choice = resolve_price(self.conversation("openai/openrouter-llama-4-maverick"))
        assert (choice.price, choice.source, choice.asked) == (
            None,
            "none",
            "openai/openrouter-llama-4-maverick",
        )
        assert resolve_price(self.conversation(None)).to_dict() == {
            "price": None,
            "source": "none",
            "asked": None,
        }

    def test_an_unknown_price_model_is_refused(self) -> None:
        with pytest.raises(ConfigError, match="--price-model"):
            resolve_price(self.conversation(None), price_model="no-such-model")

    def test_a_user_file_prices_its_own_model(self, tmp_path: Path) -> None:
        path = tmp_path / "prices.json"
        path.write_text(json.dumps({"models": {"our-model": {"input": 1, "output": 2}}}), encoding="utf-8")
        choice = resolve_price(self.conversation("our-model"), prices=path)
        assert choice.price is not None and choice.price.origin == str(path)


class TestOneAssessmentEverywhere:
    @pytest.mark.parametrize("price", [None, "claude-sonnet-4-5", "gpt-5"])
    def test_sweep_and_simulate_assess_a_setting_alike(self, price: str | None) -> None:
        conversation = Conversation.from_messages(conversation_dicts(300, seed=6), name="generated")
        row = find_price(price)
        swept = sweep(
            conversation,
            ratios=(0.4, 0.7),
            keeps=(0, 4),
            min_targets=(0.02,),
            context_max=25_000,
            summary="ratio:0.1",
        )
        for assessment in assess_sweep(swept, row, lines=True):
            o = assessment.outcome
            config = settings(o.trigger_context_ratio, o.keep_recent_messages, 0.02)
            alone = assess_simulation(
                simulate(conversation, config, context_max=25_000, summary="ratio:0.1"), row
            )
            assert assessment.ledger == alone.ledger
            assert assessment.loops == alone.loops
        assert any(a.ledger.compactions for a in assess_sweep(swept, row, lines=True))
        assert not any(a.ledger.compactions for a in assess_sweep(swept, row))  # totals and flags only
