"""Replaying a run (simulate), sweeping settings (sweep) and recommending one, checked against first principles.

The reference below rebuilds the context as real messages at every model call and asks the library's own
single-snapshot functions (window_total, spans, decide, build_reinjection, memory_message) what happens; the
fast engine must agree with it number for number.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from benchmarks.generate import conversation_dicts
from compressor.analysis import analyze
from compressor.backends.offline import build_reply
from compressor.cli import main
from compressor.compactor import CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig
from compressor.errors import ConfigError
from compressor.formats import load_conversations
from compressor.messages import Conversation, Message
from compressor.prompt import build_prompt, extract_summary, memory_message
from compressor.reinjection import build_reinjection
from compressor.replay import SummaryModel, estimate_live_cost, simulate, sweep
from compressor.replay.index import filler
from compressor.spans import build_span, effective_keep, last_user_index
from compressor.tokens import get_counter, window_total
from compressor.trigger import decide
from compressor.upstream_sizing import memory_tokens as upstream_memory_tokens
from tests.conftest import READ_TRANSCRIPTS, TRANSCRIPTS, FakeModel, fixture


def settings(ratio: float = 0.8, keep: int = 0, min_target: float = 0.1) -> CurrentRoundCompressorConfig:
    return CurrentRoundCompressorConfig(
        trigger_context_ratio=ratio, keep_recent_messages=keep, min_target_context_ratio=min_target
    )


# -- the reference: every step from the materialised context ----------------------------------------


@dataclass(frozen=True)
class RefStep:
    index: int
    context_tokens: int
    sent_tokens: int
    reason: str
    event: str
    compress_tokens: int | None
    request_tokens: int
    memory_tokens: int
    reinjection_tokens: int
    prefix_tokens: int = 0  # count(prefix) and count(tail) of a compaction attempt's span, 0 without one
    tail_tokens: int = 0
    cached_tokens: int = 0  # what the call read from the prefix cache (compressor.cost.ledger's model)
    request_cached_tokens: int = 0  # ... and what a compaction request at this call read from it


def reference(
    conversation: Conversation,
    config: CurrentRoundCompressorConfig,
    context_max: int,
    counter_name: str,
    summary: str | FakeModel,
    hidden: int = 0,
) -> list[RefStep]:
    """``summary`` is a simulated model (``fixed:N``, ``ratio:X``, ``offline``) or a backend that the reference
    calls through ``CurrentRoundCompressor.compact(force=True)`` on the context it holds.

    A message a compaction adds is counted as openJiuwen's own would be (upstream_sizing, SPEC §10.6/§12): its
    size is looked up by identity, every other message is counted by the counter. ``hidden`` is added to every
    counted window.

    The cache, from the messages themselves: a call reads the previous call's whole window when nothing changed
    since (the context only grew), else the tools, system, hidden overhead and the messages both share from the
    start (same message objects); a compaction request reads what it shares with the previous call."""
    counter = get_counter(counter_name)
    compressor = (
        None
        if isinstance(summary, str)
        else CurrentRoundCompressor(config, summary, context_max=context_max, counter=counter)
    )
    system, tools = conversation.system, conversation.tools
    prompt = Message(role="user", content=build_prompt(None))
    openjiuwen_size: dict[int, int] = {}  # id(added message) → openJiuwen's size of it

    def count(messages: list[Message]) -> int:
        if not messages:
            return 0
        return sum(openjiuwen_size.get(id(m), counter.message_tokens(m)) for m in messages) + 3

    def tokens_of(messages: list[Message]) -> int:
        return sum(openjiuwen_size.get(id(m), counter.message_tokens(m)) for m in messages)

    def shared(messages: list[Message], previous: list[Message]) -> int:
        common = 0
        while common < min(len(messages), len(previous)) and messages[common] is previous[common]:
            common += 1
        return common

    def cache_read(messages: list[Message], previous: list[Message], front: int) -> int:
        """The front and the shared messages, and the previous input's last 3 tokens (the reply's opening,
        ``<|start|>assistant``) when its reply follows it."""
        common = shared(messages, previous)
        follows = common == len(previous) < len(messages) and messages[common].role == "assistant"
        return front + tokens_of(messages[:common]) + (3 if follows else 0)

    front = tokens_of(list(system)) + counter.count_tools(tools)
    context: list[Message] = []
    previous: list[Message] = []  # the context the previous call sent
    previous_sent = 0
    compacted = False
    appended = 0
    steps: list[RefStep] = []
    for i, message in enumerate(conversation.messages):
        if message.role != "assistant":
            continue
        context.extend(conversation.messages[appended:i])
        appended = i
        counted = count([*system, *context]) + counter.count_tools(tools) + hidden
        if compacted:  # usage recorded in the file describes the uncompacted run: counted from here on
            total = counted
        else:
            found = window_total(system, context, tools, counter)
            total = found.tokens + (hidden if found.source == "counted" else 0)
        keep = effective_keep(context, config.keep_recent_messages)
        span = build_span(len(context), last_user_index(context), keep)
        compress = count(context[span.compress[0] : span.compress[1]]) if span.has_compressible else None
        decision = decide(
            total, context_max, config.trigger_context_ratio, config.min_target_context_ratio, compress
        )
        sent, event, request_tokens, memory_tokens, reinjection_tokens = total, "none", 0, 0, 0
        prefix_tokens = tail_tokens = request_cached = 0
        before_context = context

        def request_cache(split: int, request_tokens: int, calls: int = 1) -> int:
            read = cache_read(before_context[:split], previous, front)  # noqa: B023 (called in this iteration)
            return min(min(previous_sent, read) * calls, request_tokens)  # noqa: B023

        if decision.hit and compressor is not None:
            result = asyncio.run(compressor.compact(conversation.with_messages(context), force=True))
            request_tokens = sum(attempt.request_tokens for attempt in result.attempts)
            kept_before, _, kept_after = result.span_counts
            request_cached = request_cache(len(context) - kept_after, request_tokens, len(result.attempts))
            prefix, tail = context[:kept_before], context[len(context) - kept_after :]
            prefix_tokens, tail_tokens = count(prefix), count(tail)
            if result.summary and result.status in ("compacted", "no_benefit"):
                # the compactor wrote our wording; openJiuwen's benefit check reads openJiuwen's sizes
                memory = memory_message(result.summary)
                openjiuwen_size[id(memory)] = upstream_memory_tokens(counter, result.summary)
                added = [memory]
                if result.reinjection is not None:
                    added.append(result.reinjection.message)
                    openjiuwen_size[id(result.reinjection.message)] = result.reinjection.openjiuwen_tokens(
                        counter
                    )
                memory_tokens = openjiuwen_size[id(memory)]
                reinjection_tokens = sum(openjiuwen_size[id(m)] for m in added[1:])
                new_context = [*prefix, *added, *tail]
                if count(new_context) < count(context):
                    context, compacted, event = new_context, True, "compacted"
                    sent = count([*system, *context]) + counter.count_tools(tools) + hidden
                else:
                    event = "skipped:no_benefit"
            else:
                event = f"skipped:{result.reason}"
        elif decision.hit:
            assert compress is not None
            prefix, tail = context[: span.prefix[1]], context[span.tail[0] :]
            prefix_tokens, tail_tokens = count(prefix), count(tail)
            request = [*system, *context[: span.compress[1]], prompt]
            request_tokens = count(request) + counter.count_tools(tools)
            request_cached = request_cache(span.compress[1], request_tokens)
            kind, _, value = summary.partition(":")
            if kind == "fixed":
                text = filler(counter, int(value))
            elif kind == "ratio":
                text = filler(counter, int(float(value) * compress))
            else:
                text = extract_summary(build_reply(request, tools))
            if not text:
                event = "skipped:empty_summary"
            else:
                memory = memory_message(text)
                openjiuwen_size[id(memory)] = upstream_memory_tokens(counter, text)
                reinjection = build_reinjection(context, [*prefix, memory, *tail])
                added = [memory] if reinjection is None else [memory, reinjection.message]
                if reinjection is not None:
                    openjiuwen_size[id(reinjection.message)] = reinjection.openjiuwen_tokens(counter)
                memory_tokens = openjiuwen_size[id(memory)]
                reinjection_tokens = openjiuwen_size[id(reinjection.message)] if reinjection else 0
                new_context = [*prefix, *added, *tail]
                if count(new_context) < count(context):
                    context, compacted, event = new_context, True, "compacted"
                    sent = count([*system, *context]) + counter.count_tools(tools) + hidden
                else:
                    event = "skipped:no_benefit"
        if context is before_context:  # nothing changed since the previous call: its whole window is a prefix
            cached = min(previous_sent, sent)
        else:
            cached = min(previous_sent, cache_read(context, previous, front + hidden), sent)
        previous, previous_sent = list(context), sent
        steps.append(
            RefStep(
                i,
                total,
                sent,
                decision.reason,
                event,
                decision.target_tokens,
                request_tokens,
                memory_tokens,
                reinjection_tokens,
                prefix_tokens,
                tail_tokens,
                cached,
                request_cached,
            )
        )
    return steps


def label(event: str, reason: str) -> str:
    """The reference engine's label for what happened at a step: none, compacted or skipped:<reason>."""
    return f"{event}:{reason}" if reason else event


def engine_steps(simulation: Any) -> list[RefStep]:
    events = {event.index: event for event in simulation.events}
    assert len(events) == len(simulation.events)
    return [
        RefStep(
            s.index,
            s.context_tokens,
            s.sent_tokens,
            s.reason,
            label(s.event, s.skip_reason),
            s.compress_tokens,
            s.compaction_request_tokens,
            s.memory_tokens,
            s.reinjection_tokens,
            events[s.index].prefix_tokens if s.index in events else 0,
            events[s.index].tail_tokens if s.index in events else 0,
            s.cached_tokens,
            events[s.index].request_cached_tokens if s.index in events else 0,
        )
        for s in simulation.steps
    ]


# -- runs ------------------------------------------------------------------------------------------


def generated(count: int, seed: int = 7) -> Conversation:
    return Conversation.from_messages(conversation_dicts(count, seed=seed), name=f"generated-{count}-{seed}")


PATHS = ("src/a.py", "src/b.py", "README.md", "/repo/.git/config", "node_modules/x/index.js", "docs/c.md")


def messy(seed: int, count: int = 160) -> Conversation:
    """Runs with the awkward cases: reused call ids, late and orphan results, users while calls are pending,
    internal user messages, plain-text and JSON read results, partial reads, excluded paths, reported usage."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are an agent."}]
    pending: list[str] = []
    number = 0
    while len(out) < count:
        roll = rng.random()
        if roll < 0.07 or len(out) == 1:
            text = "please " + " ".join(
                rng.choice(("fix", "read", "test", "the", "bug")) for _ in range(rng.randint(3, 40))
            )
            if rng.random() < 0.2:
                text = "<system-reminder>" + text
            out.append({"role": "user", "content": text})
        elif roll < 0.5 or not pending:
            calls = []
            for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
                number += 1
                call_id = f"c{rng.randint(0, 40)}" if rng.random() < 0.15 else f"c{number}"
                name = rng.choice(("read_file", "read_file", "Read", "bash"))
                args: dict[str, Any] = (
                    {"file_path": rng.choice(PATHS)} if name != "bash" else {"command": "ls"}
                )
                if name != "bash" and rng.random() < 0.2:
                    args["offset"] = 10
                calls.append({"id": call_id, "type": "function", "name": name, "arguments": json.dumps(args)})
                pending.append(call_id)
            message: dict[str, Any] = {"role": "assistant", "content": "step " * rng.randint(1, 60)}
            if calls:
                message["tool_calls"] = calls
            if rng.random() < 0.1:
                message["usage_metadata"] = {"total_tokens": rng.randint(500, 9000)}
            out.append(message)
        else:
            call_id = pending.pop(rng.randrange(len(pending))) if rng.random() < 0.9 else f"orphan{number}"
            body = "line\n" * rng.randint(1, 300)
            if rng.random() < 0.6:
                body = json.dumps(
                    {"file_path": rng.choice(PATHS), "content": body, "line_count": body.count("\n")}
                )
            out.append({"role": "tool", "tool_call_id": call_id, "content": body})
    return Conversation.from_messages(out, name=f"messy-{seed}")


def transcripts() -> list[Conversation]:
    found = []
    for name in READ_TRANSCRIPTS:
        found.extend(load_conversations(fixture(TRANSCRIPTS / name))[:3])
    assert len(found) >= 5, "expected the sample transcripts in tests/fixtures/samples"
    return found


# -- a run checked by hand -------------------------------------------------------------------------

# string_length: tokens = len("<|start|>" + role + "\n" + text + "<|end|>") // 3
USER_100 = "u" * 279  # (21 + 279) / 3 = 100
SAY_300 = "a" * 874  # (26 + 874) / 3 = 300


def hand_run(*, usage_at: int | None = None) -> Conversation:
    roles = [
        "user",
        "assistant",
        "assistant",
        "assistant",
        "assistant",
        "user",
        "assistant",
        "assistant",
        "assistant",
        "assistant",
    ]
    messages: list[dict[str, Any]] = []
    for index, role in enumerate(roles):
        message: dict[str, Any] = {"role": role, "content": USER_100 if role == "user" else SAY_300}
        if index == usage_at:
            message["usage_metadata"] = {"total_tokens": 1500}
        messages.append(message)
    return Conversation.from_messages(messages, name="by hand")


class TestHandCheckedRun:
    """context_max 2000, threshold 1000, min target 200; messages of 100 (user) and 300 (assistant) tokens;
    a fixed:150 summary makes a memory block of 308 tokens, openJiuwen's: (474 fixed characters + 450) // 3."""

    @pytest.fixture
    def run(self) -> Any:
        return simulate(
            hand_run(), settings(0.5, 0, 0.1), context_max=2000, counter="string_length", summary="fixed:150"
        )

    def test_the_wrapper_of_a_memory_block(self) -> None:
        counter = get_counter("string_length")
        assert counter.message_tokens(Message(role="user", content=USER_100)) == 100
        assert counter.message_tokens(Message(role="assistant", content=SAY_300)) == 300
        assert upstream_memory_tokens(counter, filler(counter, 150)) == 308
        # our own wording is longer: the live compactor's block for the same summary
        assert counter.message_tokens(memory_message(filler(counter, 150))) == 351

    def test_each_step(self, run: Any) -> None:
        table = [
            (
                s.index,
                s.context_tokens,
                s.sent_tokens,
                label(s.event, s.skip_reason),
                s.reason,
                s.compress_tokens,
            )
            for s in run.steps
        ]
        assert table == [
            (1, 103, 103, "none", "below_threshold", None),
            (2, 403, 403, "none", "below_threshold", None),
            (3, 703, 703, "none", "below_threshold", None),
            # [0..3] = 1003: compress messages 1-3 (903), leaving user 0 + memory = 100 + 308 + 3
            (4, 1003, 411, "compacted", "reached_threshold", 903),
            (6, 811, 811, "none", "below_threshold", None),
            # [0, memory, 4, 5, 6] = 1111: compressing 6 alone (303) would give 1119, not fewer
            (7, 1111, 1111, "skipped:no_benefit", "reached_threshold", 303),
            (8, 1411, 1119, "compacted", "reached_threshold", 603),
            # the earlier memory block is compacted again with message 8
            (9, 1419, 1119, "compacted", "reached_threshold", 611),
        ]

    def test_totals(self, run: Any) -> None:
        prompt = get_counter("string_length").message_tokens(Message(role="user", content=build_prompt(None)))
        assert run.first_trigger_index == 4
        assert (run.compactions, run.outcome.refused) == (3, 1)
        assert run.peak_tokens == 1119
        assert run.peak_utilisation == pytest.approx(1119 / 2000)
        assert run.steps_over_capacity == 0
        assert run.agent_input_tokens == 103 + 403 + 703 + 411 + 811 + 1111 + 1119 + 1119
        assert run.agent_input_tokens_uncompacted == 103 + 403 + 703 + 1003 + 1403 + 1703 + 2003 + 2303
        # requests: system (none) + context up to the tail + prompt, each once
        assert [e.request_tokens for e in run.events] == [
            1000 + prompt + 3,
            1108 + prompt + 3,
            1408 + prompt + 3,
            1416 + prompt + 3,
        ]
        assert run.compaction_input_tokens == sum(e.request_tokens for e in run.events)
        assert [e.memory_tokens for e in run.events] == [308, 308, 308, 308]
        # the run ends with [0, memory, 4, 5, memory, 9]
        assert (run.outcome.final_tokens, run.outcome.final_messages) == (1119 + 300, 6)

    def test_what_each_compaction_keeps(self, run: Any) -> None:
        # step 4 keeps user 0 (100 + 3); later steps keep [0, memory, 4, 5] = 100 + 308 + 300 + 100 + 3;
        # keep 0 leaves no tail
        assert [(e.prefix_tokens, e.tail_tokens) for e in run.events] == [
            (103, 0),
            (811, 0),
            (811, 0),
            (811, 0),
        ]
        written = run.to_dict()["compaction_events"][0]
        assert (written["prefix_tokens"], written["tail_tokens"]) == (103, 0)

    def test_usage_anchors_the_total_until_a_compaction_makes_it_stale(self) -> None:
        # threshold 1100: message 3 reports 1500, so the trigger fires at 4 (counted, [0..3] is only 1003);
        # keep 1 keeps message 3 — its usage is stale after the compaction, so step 6 counts 1061 < 1100.
        run = simulate(
            hand_run(usage_at=3),
            settings(0.55, 1, 0.1),
            context_max=2000,
            counter="string_length",
            summary="fixed:100",
        )
        table = [(s.index, s.context_tokens, s.total_source, s.event) for s in run.steps[:5]]
        assert table == [
            (1, 103, "counted", "none"),
            (2, 403, "counted", "none"),
            (3, 703, "counted", "none"),
            (4, 1500, "usage", "compacted"),
            (6, 100 + 258 + 300 + 300 + 100 + 3, "counted", "none"),
        ]
        assert run.first_trigger_index == 4
        # [0] | [1, 2] | [3]: the tail is message 3 counted alone
        first = run.events[0]
        assert (first.prefix_tokens, first.compress_tokens, first.tail_tokens) == (103, 603, 303)


class TestHiddenOverhead:
    """``hidden_overhead``: tokens every window holds that the file does not show, carried after compactions too."""

    def test_every_counted_window_carries_it(self) -> None:
        plain = simulate(
            hand_run(), settings(0.5, 0, 0.1), context_max=2000, counter="string_length", summary="fixed:150"
        )
        hidden = simulate(
            hand_run(),
            settings(0.5, 0, 0.1),
            context_max=2000,
            counter="string_length",
            summary="fixed:150",
            hidden_overhead=50,
        )
        assert plain.hidden_overhead == 0 and hidden.hidden_overhead == 50
        # 50 more in every window, the compacted ones included; here the compactions happen at the same points
        assert [s.uncompacted_tokens for s in hidden.steps] == [
            s.uncompacted_tokens + 50 for s in plain.steps
        ]
        assert [s.context_tokens for s in hidden.steps] == [s.context_tokens + 50 for s in plain.steps]
        assert [s.sent_tokens for s in hidden.steps] == [s.sent_tokens + 50 for s in plain.steps]
        assert all(s.hidden_tokens == 50 for s in hidden.steps)
        assert [e.index for e in hidden.events] == [e.index for e in plain.events]
        assert hidden.outcome.final_tokens == plain.outcome.final_tokens + 50

    def test_a_usage_anchored_window_already_holds_it(self) -> None:
        run = simulate(
            hand_run(usage_at=3),
            settings(0.55, 1, 0.1),
            context_max=2000,
            counter="string_length",
            summary="fixed:100",
            hidden_overhead=40,
        )
        by_index = {s.index: s for s in run.steps}
        assert (by_index[4].context_tokens, by_index[4].hidden_tokens) == (1500, 0)
        assert (by_index[3].context_tokens, by_index[3].hidden_tokens) == (743, 40)
        assert (by_index[6].context_tokens, by_index[6].hidden_tokens) == (1061 + 40, 40)

    @pytest.mark.parametrize("seed", [1, 2])
    def test_equals_the_reference(self, seed: int) -> None:
        conversation = generated(260, seed)
        config = settings(0.5, 2, 0.02)
        expected = reference(conversation, config, 30_000, "cl100k_base", "fixed:300", hidden=700)
        got = simulate(conversation, config, context_max=30_000, summary="fixed:300", hidden_overhead=700)
        assert engine_steps(got) == expected

    def test_sweep_carries_it_too(self) -> None:
        conversation = generated(260, 1)
        swept = sweep(
            conversation,
            ratios=(0.5, 0.7),
            keeps=(0, 2),
            min_targets=(0.02,),
            context_max=30_000,
            summary="fixed:300",
            hidden_overhead=700,
        )
        assert swept.hidden_overhead == 700
        for outcome in swept.outcomes:
            config = settings(outcome.trigger_context_ratio, outcome.keep_recent_messages, 0.02)
            assert (
                outcome
                == simulate(
                    conversation, config, context_max=30_000, summary="fixed:300", hidden_overhead=700
                ).outcome
            )

    def test_a_negative_overhead_is_refused(self) -> None:
        with pytest.raises(ConfigError, match="hidden_overhead"):
            simulate(hand_run(), context_max=2000, summary="fixed:150", hidden_overhead=-1)


# -- against the reference -------------------------------------------------------------------------


CASES = [
    ("fixed:300", 0.5, 0, 0.05),
    ("fixed:300", 0.6, 3, 0.0),
    ("ratio:0.2", 0.7, 1, 0.02),
    ("ratio:0.05", 0.5, 6, 0.1),
    ("fixed:50", 0.3, 2, 0.0),
]


class TestAgainstTheReference:
    @pytest.mark.parametrize(("summary", "ratio", "keep", "min_target"), CASES)
    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_generated_runs(
        self, summary: str, ratio: float, keep: int, min_target: float, seed: int
    ) -> None:
        conversation = generated(260, seed)
        config = settings(ratio, keep, min_target)
        expected = reference(conversation, config, 30_000, "cl100k_base", summary)
        got = simulate(conversation, config, context_max=30_000, summary=summary)
        assert engine_steps(got) == expected
        assert any(step.event == "compacted" for step in expected), "the case should compact"

    @pytest.mark.parametrize("seed", range(12))
    def test_messy_runs(self, seed: int) -> None:
        conversation = messy(seed)
        for summary, ratio, keep, min_target in CASES:
            config = settings(ratio, keep, min_target)
            expected = reference(conversation, config, 6_000, "string_length", summary)
            got = simulate(conversation, config, context_max=6_000, counter="string_length", summary=summary)
            assert engine_steps(got) == expected, (summary, ratio, keep, min_target)

    def test_messy_runs_compact_and_reinject(self) -> None:
        events = [
            e
            for seed in range(12)
            for e in simulate(
                messy(seed),
                settings(0.5, 2, 0.0),
                context_max=6_000,
                counter="string_length",
                summary="fixed:40",
            ).events
        ]
        assert sum(e.status == "compacted" for e in events) > 20
        assert any(e.reinjected_files for e in events)
        assert any(e.prefix_tokens for e in events) and any(e.tail_tokens for e in events)

    @pytest.mark.parametrize("seed", [4, 5])
    def test_offline_summaries(self, seed: int) -> None:
        conversation = generated(200, seed)
        config = settings(0.5, 2, 0.02)
        expected = reference(conversation, config, 30_000, "cl100k_base", "offline")
        got = simulate(conversation, config, context_max=30_000, summary="offline")
        assert engine_steps(got) == expected
        assert got.compactions > 0

    def test_sample_transcripts(self) -> None:
        for conversation in transcripts():
            for summary, ratio, keep, min_target in CASES[:3]:
                config = settings(ratio, keep, min_target)
                expected = reference(conversation, config, 8_000, "cl100k_base", summary)
                got = simulate(conversation, config, context_max=8_000, summary=summary)
                assert engine_steps(got) == expected, (conversation.name, summary, ratio, keep)


class TestFirstTriggerIndex:
    """The first call point where analyze() on messages[:i] says the trigger fires (the uncompacted run)."""

    @staticmethod
    def analysed(
        conversation: Conversation,
        config: CurrentRoundCompressorConfig,
        context_max: int,
        counter: str = "cl100k_base",
    ) -> int | None:
        for i, message in enumerate(conversation.messages):
            if message.role == "assistant":
                window = conversation.with_messages(conversation.messages[:i])
                if analyze(window, config, context_max=context_max, counter=counter).decision.hit:
                    return i
        return None

    @pytest.mark.parametrize(("ratio", "keep", "min_target"), [(0.5, 0, 0.1), (0.8, 4, 0.05), (0.3, 9, 0.0)])
    def test_generated_runs(self, ratio: float, keep: int, min_target: float) -> None:
        conversation = generated(400, 11)
        config = settings(ratio, keep, min_target)
        expected = self.analysed(conversation, config, 60_000)
        assert expected is not None
        for summary in ("fixed:500", "ratio:0.1"):
            assert (
                simulate(conversation, config, context_max=60_000, summary=summary).first_trigger_index
                == expected
            )

    def test_sample_transcripts(self) -> None:
        fired = 0
        for conversation in transcripts():
            for context_max in (4_000, 12_000, 50_000):
                for config in (settings(0.5, 0, 0.05), settings(0.8, 3, 0.1)):
                    expected = self.analysed(conversation, config, context_max)
                    got = simulate(conversation, config, context_max=context_max, summary="ratio:0.1")
                    assert got.first_trigger_index == expected, (conversation.name, context_max, config)
                    fired += expected is not None
        assert fired > 5

    def test_usage_path_on_the_claude_code_session(self) -> None:
        conversation = load_conversations(TRANSCRIPTS / "claude-code-session.jsonl")[0]
        run = simulate(conversation, settings(0.5, 0, 0.0), context_max=60_000, summary="fixed:200")
        assert any(step.total_source == "usage" for step in run.steps)
        assert run.first_trigger_index == self.analysed(conversation, settings(0.5, 0, 0.0), 60_000)


# -- sweep -----------------------------------------------------------------------------------------


class TestSweep:
    @pytest.mark.parametrize("summary", ["fixed:400", "ratio:0.1", "offline"])
    def test_each_setting_equals_its_simulation(self, summary: str) -> None:
        conversation = generated(500, 3)
        ratios, keeps, targets, context_max = (0.4, 0.6, 0.9), (0, 1, 5), (0.0, 0.05), 40_000
        if summary == "offline":  # the offline backend reads the whole request: keep it small
            conversation = generated(120, 3)
            ratios, keeps, targets, context_max = (0.6, 0.9), (0, 3), (0.15,), 16_000
        swept = sweep(
            conversation,
            ratios=ratios,
            keeps=keeps,
            min_targets=targets,
            context_max=context_max,
            summary=summary,
        )
        assert len(swept.outcomes) == len(ratios) * len(keeps) * len(targets)
        for outcome in swept.outcomes:
            config = settings(
                outcome.trigger_context_ratio, outcome.keep_recent_messages, outcome.min_target_context_ratio
            )
            assert outcome == simulate(conversation, config, context_max=context_max, summary=summary).outcome
        assert sum(o.compactions for o in swept.outcomes) > 0

    @pytest.mark.parametrize("seed", range(8))
    def test_messy_runs(self, seed: int) -> None:
        conversation = messy(seed, 220)
        swept = sweep(
            conversation,
            ratios=(0.3, 0.5, 0.9),
            keeps=(0, 2, 7),
            min_targets=(0.0, 0.05),
            context_max=5_000,
            counter="string_length",
            summary="fixed:30",
        )
        for outcome in swept.outcomes:
            config = settings(
                outcome.trigger_context_ratio, outcome.keep_recent_messages, outcome.min_target_context_ratio
            )
            expected = simulate(
                conversation, config, context_max=5_000, counter="string_length", summary="fixed:30"
            )
            assert outcome == expected.outcome

    def test_grid_is_keeps_by_ratios(self) -> None:
        swept = sweep(
            generated(300, 2),
            ratios=(0.9, 0.5),
            keeps=(4, 0),
            min_targets=(0.05,),
            context_max=30_000,
            summary="ratio:0.1",
        )
        assert swept.ratios == (0.5, 0.9) and swept.keeps == (0, 4)
        grid = swept.grid("compactions")
        outcome = swept.outcome(0.9, 4, 0.05)
        assert outcome is not None
        assert grid[1][1] == outcome.compactions
        assert len(grid) == 2 and all(len(row) == 2 for row in grid)

    @pytest.mark.parametrize(
        ("field", "value"), [("ratios", [0.0]), ("ratios", [1.0]), ("keeps", [-1]), ("min_targets", [1.0])]
    )
    def test_values_out_of_range_are_refused(self, field: str, value: list[float]) -> None:
        grid: dict[str, Any] = {"ratios": [0.5], "keeps": [0], "min_targets": [0.1], field: value}
        with pytest.raises(ConfigError, match=field):
            sweep(generated(20), context_max=1000, summary="fixed:10", **grid)

    def test_a_live_backend_is_refused(self) -> None:
        with pytest.raises(ConfigError, match="simulate one setting"):
            sweep(generated(20), ratios=[0.5], context_max=1000, summary=FakeModel([]))  # type: ignore[arg-type]


# The recommendation has its own module: tests/compressor/replay/test_recommend.py.


# -- summary models, live calls --------------------------------------------------------------------


class TestSummaryModel:
    @pytest.mark.parametrize(
        ("spec", "label"),
        [
            ("offline", "offline"),
            ("fixed:1500", "fixed:1500"),
            ("ratio:0.1", "ratio:0.1"),
            (" Ratio:0.25 ", "ratio:0.25"),
        ],
    )
    def test_parses(self, spec: str, label: str) -> None:
        assert SummaryModel.parse(spec).label == label

    @pytest.mark.parametrize("spec", ["fixed:0", "fixed:x", "ratio:0", "ratio:1.5", "ratio:", "model", ""])
    def test_refuses(self, spec: str) -> None:
        with pytest.raises(ConfigError, match="summary"):
            SummaryModel.parse(spec)

    def test_a_ratio_too_small_for_the_span_is_an_empty_summary(self) -> None:
        run = simulate(
            hand_run(),
            settings(0.5, 0, 0.0),
            context_max=2000,
            counter="string_length",
            summary="ratio:0.001",
        )
        assert (run.events[0].status, run.events[0].reason) == ("skipped", "empty_summary")
        assert run.compactions == 0 and run.outcome.refused == len(run.events)


class TestLiveBackend:
    def test_calls_the_model_through_the_compactor(self) -> None:
        conversation = generated(120, 8)
        config = settings(0.5, 2, 0.0)
        estimate = estimate_live_cost(conversation, config, context_max=12_000, summary_ratio=0.1)
        assert estimate.calls > 0 and estimate.request_tokens > 0
        model = FakeModel(["<state_snapshot>short summary of the round</state_snapshot>"] * 200)
        run = simulate(conversation, config, context_max=12_000, summary=model)
        assert run.summary == "live:fake model"
        assert len(model.requests) == run.outcome.compaction_calls > 0
        compacted = [e for e in run.events if e.status == "compacted"]
        assert compacted and all(
            e.summary_tokens == get_counter().tok("short summary of the round") for e in compacted
        )
        # what the model received is exactly the request the simulation priced
        first = model.requests[0]
        assert (
            get_counter().count(first) + get_counter().count_tools(conversation.tools)
            == run.events[0].request_tokens
        )

    @pytest.mark.parametrize(
        ("conversation", "counter", "context_max"),
        [
            (generated(120, 8), "cl100k_base", 12_000),
            (messy(3), "string_length", 6_000),
            (messy(5), "string_length", 6_000),
        ],
        ids=["generated", "messy-3", "messy-5"],
    )
    def test_each_step_equals_the_reference_calling_the_same_model(
        self, conversation: Conversation, counter: str, context_max: int
    ) -> None:
        config = settings(0.5, 2, 0.0)
        reply = "<state_snapshot>short summary of the round</state_snapshot>"
        expected = reference(conversation, config, context_max, counter, FakeModel([reply] * 200))
        got = simulate(
            conversation, config, context_max=context_max, counter=counter, summary=FakeModel([reply] * 200)
        )
        assert engine_steps(got) == expected
        compacted = [e for e in got.events if e.status == "compacted"]
        assert compacted and any(e.tail_tokens for e in compacted)

    def test_a_refused_live_compaction_reports_the_span_it_would_have_kept(self) -> None:
        # a summary longer than the span until the span outgrows it: the compactor discards those (no benefit)
        config = settings(0.5, 2, 0.0)
        reply = "<state_snapshot>" + "a long summary " * 4_000 + "</state_snapshot>"
        expected = reference(generated(120, 8), config, 12_000, "cl100k_base", FakeModel([reply] * 200))
        got = simulate(generated(120, 8), config, context_max=12_000, summary=FakeModel([reply] * 200))
        assert engine_steps(got) == expected
        refused = [e for e in got.events if (e.status, e.reason) == ("skipped", "no_benefit")]
        assert refused and all(e.prefix_tokens and e.tail_tokens for e in refused)

    def test_a_failing_model_leaves_the_context_unchanged(self) -> None:
        from compressor.errors import BackendError, ErrorKind

        conversation = generated(120, 8)
        model = FakeModel(
            [BackendError("401 unauthorized", kind=ErrorKind.AUTHENTICATION, status_code=401)] * 200
        )
        run = simulate(conversation, settings(0.5, 2, 0.0), context_max=12_000, summary=model)
        assert run.compactions == 0
        assert run.events and all((e.status, e.reason) == ("skipped", "authentication") for e in run.events)
        failing = FakeModel(
            [BackendError("401 unauthorized", kind=ErrorKind.AUTHENTICATION, status_code=401)] * 200
        )
        assert engine_steps(run) == reference(
            conversation, settings(0.5, 2, 0.0), 12_000, "cl100k_base", failing
        )

    def test_the_estimate_describes_itself(self) -> None:
        estimate = estimate_live_cost(generated(120, 8), settings(0.5, 2, 0.0), context_max=12_000)
        assert f"{estimate.calls} compaction call" in estimate.describe()
        assert estimate.to_dict()["calls"] == estimate.calls


# -- the CLI ---------------------------------------------------------------------------------------


class _Tags(HTMLParser):
    """Tags that would load something: a script or link with a URL (script bodies are text, not tags)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if (tag == "script" and named.get("src")) or (
            tag in ("link", "img", "iframe") and (named.get("href") or named.get("src"))
        ):
            self.found.append(f"<{tag} {named}>")


def external_references(text: str) -> list[str]:
    parser = _Tags()
    parser.feed(text)
    return parser.found


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def run_file(tmp_path: Path) -> Path:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(conversation_dicts(300, seed=4)), encoding="utf-8")
    return path


class TestCli:
    def test_json_shape(self, run_file: Path) -> None:
        code, out, err = run_cli(
            "simulate",
            str(run_file),
            "--context-max",
            "30000",
            "--ratios",
            "0.5,0.7",
            "--keeps",
            "0,3",
            "--summary",
            "ratio:0.1",
            "--json",
        )
        assert code == 0, err
        document = json.loads(out)
        assert {"settings", "steps", "recommendation", "current"} <= set(document)
        keys = {(s["trigger_context_ratio"], s["keep_recent_messages"]) for s in document["settings"]}
        assert keys == {(r, k) for r in (0.5, 0.7, 0.8) for k in (0, 3)}  # 0.8, keep 0: the current setting
        for row in document["settings"]:
            assert {
                "min_target_context_ratio",
                "first_trigger_index",
                "compactions",
                "peak_tokens",
                "peak_utilisation",
                "steps_over_capacity",
                "compaction_input_tokens",
                "agent_input_tokens",
            } <= set(row)
        assert document["steps"] and {
            "index",
            "context_tokens",
            "threshold",
            "event",
            "summary_tokens",
            "compaction_request_tokens",
        } <= set(document["steps"][0])
        assert set(document["recommendation"]) >= {"trigger_context_ratio", "reasons"}
        assert all("code" in reason for reason in document["recommendation"]["reasons"])

    def test_table(self, run_file: Path) -> None:
        code, out, _ = run_cli("simulate", str(run_file), "--context-max", "30000", "--summary", "fixed:500")
        assert code == 0
        assert "current setting" in out and "recommendation" in out
        assert out.count("\n") > 10
        assert "costs are counted in tokens" in out and "ledger of the current setting" in out
        assert "baselines at the current setting" in out

    def test_the_ledger_and_flags_in_json(self, run_file: Path) -> None:
        code, out, err = run_cli(
            "simulate",
            str(run_file),
            "--context-max",
            "30000",
            "--ratios",
            "0.5",
            "--keeps",
            "0",
            "--price-model",
            "claude-sonnet-4-5",
            "--json",
        )
        assert code == 0, err
        document = json.loads(out)
        assert document["price"]["source"] == "price_model"
        assert document["price"]["price"]["source"].startswith("https://docs.anthropic.com/")
        ledger = document["current"]["ledger"]
        assert ledger["unit"] == "usd" and ledger["compactions"]
        assert {"invalidated_tokens", "cache_write_tokens", "payback", "payback_calls"} <= set(
            ledger["compactions"][0]
        )
        assert {"flagged", "attempts", "storm"} <= set(document["current"]["loops"])
        assert document["recommendation"]["unit"] == "usd"
        assert {b["strategy"] for b in document["baselines"]} == {"masking", "hybrid"}

    def test_the_price_follows_the_runs_own_model(self) -> None:
        path = fixture(TRANSCRIPTS / "claude-code-session.jsonl")  # logged as claude-opus-4-5-20251101
        code, out, err = run_cli(
            "simulate", str(path), "--context-max", "60000", "--ratios", "0.5", "--keeps", "0"
        )
        assert code == 0, err
        assert (
            "price: claude-opus-4-5 (run) per 1M tokens: input $5, cached $0.5, cache write $6.25, output $25"
            in out
        )
        code, out, err = run_cli(
            "simulate",
            str(path),
            "--context-max",
            "60000",
            "--ratios",
            "0.5",
            "--keeps",
            "0",
            "--price-model",
            "gpt-5",
        )
        assert code == 0, err
        assert "price: gpt-5 (price_model)" in out

    def test_a_user_price_file(self, run_file: Path, tmp_path: Path) -> None:
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps({"models": {"ours": {"input": 1.0, "output": 2.0}}}), encoding="utf-8")
        code, out, err = run_cli(
            "simulate",
            str(run_file),
            "--context-max",
            "30000",
            "--ratios",
            "0.5",
            "--keeps",
            "0",
            "--prices",
            str(prices),
            "--price-model",
            "ours",
        )
        assert code == 0, err
        assert (
            f"price: ours (price_model) per 1M tokens: input $1, cached $1, cache write $1, output $2 (from {prices}"
            in out
        )

    def test_html_report_is_self_contained(self, run_file: Path, tmp_path: Path) -> None:
        report = tmp_path / "out" / "report.html"
        code, _, err = run_cli(
            "simulate",
            str(run_file),
            "--context-max",
            "30000",
            "--summary",
            "ratio:0.1",
            "--html",
            str(report),
        )
        assert code == 0, err
        text = report.read_text(encoding="utf-8")
        tags = external_references(text)
        assert tags == [], tags
        assert "Plotly.newPlot" in text
        assert not list(report.parent.glob(".*.tmp"))

    @pytest.mark.parametrize(
        ("args", "needle"),
        [
            (["--ratios", "0.5,x"], "--ratios"),
            (["--ratios", "1.5"], "ratios"),
            (["--keeps", "1.5"], "--keeps"),
            (["--summary", "fixed:none"], "summary"),
            (["--headroom", "2"], "headroom"),
            (["--trigger-ratio", "1.2"], "trigger_context_ratio"),
            (["--price-model", "no-such-model"], "--price-model"),
            (["--prices", "/nonexistent/prices.json"], "--prices"),
            (["--keep-results", "-1"], "--keep-results"),
        ],
    )
    def test_bad_input_is_one_line_and_exit_2(self, run_file: Path, args: list[str], needle: str) -> None:
        code, out, err = run_cli("simulate", str(run_file), "--context-max", "30000", *args)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and needle in err

    def test_a_missing_file(self, tmp_path: Path) -> None:
        code, _, err = run_cli("simulate", str(tmp_path / "nope.json"))
        assert code == 2 and err.count("\n") == 1

    def test_a_file_with_many_conversations_needs_a_pick(self) -> None:
        path = TRANSCRIPTS / "openai-chat-tau-bench-airline.json"
        code, _, err = run_cli("simulate", str(path), "--summary", "fixed:100")
        assert code == 2 and "--conversation" in err
        code, out, err = run_cli(
            "simulate",
            str(path),
            "--summary",
            "fixed:100",
            "--conversation",
            "3",
            "--context-max",
            "3000",
            "--json",
        )
        assert code == 0, err
        assert json.loads(out)["steps"]
