"""Codes and numbers in words: decisions, reasons, capacities, compaction attempts, the Demo captions, the
numbers a page shows, and the recommendation — which says the same things in English and 简体中文 (one
sentence per reason code, the same numbers)."""

from __future__ import annotations

import re

import pytest

from compressor.config import CurrentRoundCompressorConfig
from compressor.replay import Outcome, Recommendation, Simulation, Sweep, recommend, simulate
from compressor.trigger import Decision
from compressor.window_parts import run_peaks
from compressor.windows import Capacity
from dashboard.i18n import (
    capacity_text,
    explain,
    first_trigger_text,
    outcome_stats,
    outcome_text,
    reason_text,
    recommendation_sentences,
    recommendation_verdict,
    secret_kind,
    step_headline,
)
from tests.dashboard.conftest import demo_conversation

NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?%?")


class TestDecisions:
    decision = Decision(13_967, 16_000, 12_800, True, "reached_threshold", 13_488)

    def test_english_decision_is_the_library_sentence(self) -> None:
        assert explain(self.decision, "en") == self.decision.explain()

    def test_chinese_decision_has_the_same_numbers(self) -> None:
        text = explain(self.decision, "zh")
        assert text == "触发压缩：13,967 token 已达到阈值 12,800，待压缩片段有 13,488 token。"

    @pytest.mark.parametrize(
        ("decision", "numbers"),
        [
            (Decision(100, 16_000, 12_800, False, "below_threshold"), ["100", "12,800"]),
            (Decision(13_000, 16_000, 12_800, False, "no_compressible_span"), ["13,000", "12,800"]),
            (
                Decision(13_000, 16_000, 12_800, False, "target_below_min", 900, 1_600),
                ["13,000", "900", "1,600"],
            ),
        ],
    )
    def test_every_reason_reads_in_both_languages(self, decision: Decision, numbers: list[str]) -> None:
        for language in ("en", "zh"):
            text = explain(decision, language)
            assert all(number in text for number in numbers), text

    def test_capacity_says_where_it_came_from(self) -> None:
        assert capacity_text(Capacity(16_000, "explicit"), "en") == "16,000 tokens (set explicitly)"
        assert (
            capacity_text(Capacity(16_385, "model", "gpt-3.5-turbo"), "zh")
            == "16,385 token（gpt-3.5-turbo 的窗口）"
        )
        assert "x-model" in capacity_text(Capacity(200_000, "default", "x-model"), "en")


class TestCodes:
    @pytest.mark.parametrize(
        ("status", "reason", "en", "zh"),
        [
            ("compacted", "", "Compacted", "已压缩"),
            ("skipped", "no_benefit", "Compaction discarded", "压缩结果已丢弃"),
            (
                "skipped",
                "empty_summary",
                "Not compacted: the model's reply held no summary text",
                "未压缩：模型的回复中没有摘要文本",
            ),
        ],
    )
    def test_a_compaction_attempt_in_words(self, status: str, reason: str, en: str, zh: str) -> None:
        assert outcome_text(status, reason, "en") == en
        assert outcome_text(status, reason, "zh") == zh

    def test_an_unknown_code_shows_as_itself(self) -> None:
        assert reason_text("no_such_reason", "zh") == "no_such_reason"
        assert secret_kind("no_such_kind", "en") == "no_such_kind"
        assert secret_kind("openai_key", "zh") == "OpenAI 风格的 API 密钥"


def replayed(trigger: float = 0.8) -> Simulation:
    config = CurrentRoundCompressorConfig(trigger_context_ratio=trigger)
    return simulate(demo_conversation(), config, context_max=16_000, summary="ratio:0.1")


class TestStepHeadline:
    def test_the_first_call_says_how_full_the_context_is(self) -> None:
        run = replayed()
        assert step_headline(run.steps[0], None, run, "en") == (
            "The agent has used 482 of 16,000 tokens.",
            "Compaction starts at 12,800 tokens (80% of the context).",
        )

    def test_the_compaction_step_says_what_replaced_what(self) -> None:
        run = replayed()
        (event,) = run.events
        step = next(s for s in run.steps if s.index == event.index)
        what, meaning = step_headline(step, event, run, "zh")
        assert (
            what
            == f"在 {step.context_tokens:,} token 时越过阈值 12,800：压缩把 {event.span[1]} 条消息替换为一条摘要。"
        )
        assert f"{event.memory_tokens:,}" in meaning and f"{step.sent_tokens:,}" in meaning


class TestStats:
    def test_a_settings_six_numbers(self) -> None:
        run = replayed(0.6)
        outcome = run.outcome
        peaks = run_peaks(run.steps, capacity=run.context_max, threshold=outcome.threshold)
        shown = {stat.label: stat.value for stat in outcome_stats(outcome, peaks, "en")}
        assert shown == {
            "Trigger first fires": first_trigger_text(outcome, "en"),
            "Compactions": f"{outcome.compactions:,}",
            "Peak window read": f"{peaks.read_share:.1%}",
            "Compaction input tokens": f"{outcome.compaction_input_tokens:,}",
            "Agent input, with compaction": f"{outcome.agent_input_tokens:,}",
            "Agent input, without compaction": f"{outcome.agent_input_tokens_uncompacted:,}",
        }
        assert first_trigger_text(outcome, "en") == f"#{outcome.first_trigger_index}"

    def test_the_peak_is_the_thresholds_quantity(self) -> None:
        """A run that compacted read a window at or above its threshold: the peak shown says so."""
        run = replayed()
        assert run.outcome.compactions
        peaks = run_peaks(run.steps, capacity=run.context_max, threshold=run.outcome.threshold)
        assert peaks.read_tokens >= run.outcome.threshold and peaks.crossed
        assert (
            peaks.sent_tokens == run.outcome.peak_tokens
        )  # the other peak, after compaction, is labelled apart

    def test_never_when_the_trigger_never_fires(self) -> None:
        outcome = replayed(0.95).outcome
        assert outcome.first_trigger_index is None
        assert first_trigger_text(outcome, "zh") == "从不"


def outcome(ratio: float, keep: int, *, peak: int, compactions: int = 1, cost: int = 1000) -> Outcome:
    return Outcome(
        trigger_context_ratio=ratio,
        keep_recent_messages=keep,
        min_target_context_ratio=0.1,
        context_max=1000,
        threshold=int(1000 * ratio),
        min_target_tokens=100,
        steps=10,
        first_trigger_index=3,
        compactions=compactions,
        refused=0,
        peak_tokens=peak,
        steps_over_capacity=0,
        compaction_calls=compactions,
        compaction_input_tokens=cost,
        agent_input_tokens=50_000,
        agent_input_tokens_uncompacted=60_000,
    )


def swept(*outcomes: Outcome, steps: int = 10) -> Sweep:
    return Sweep(
        ratios=tuple(sorted({o.trigger_context_ratio for o in outcomes})),
        keeps=tuple(sorted({o.keep_recent_messages for o in outcomes})),
        min_targets=(0.1,),
        outcomes=outcomes,
        capacity=Capacity(1000, "explicit"),
        counter="cl100k_base",
        summary="ratio:0.1",
        source="hand-made",
        steps=steps,
    )


CASES = {
    "one pick, no tie": recommend(swept(outcome(0.5, 0, peak=600, cost=900), outcome(0.7, 0, peak=880))),
    "a tie at the best ratio": recommend(
        swept(
            outcome(0.8, 0, peak=700, compactions=4, cost=500),
            outcome(0.8, 4, peak=700, compactions=2, cost=500),
        )
    ),
    "compaction never fires": recommend(swept(outcome(0.9, 0, peak=500, compactions=0, cost=0))),
    "nothing qualifies": recommend(
        swept(outcome(0.5, 0, peak=1200), outcome(0.8, 0, peak=1500)), headroom=0.2
    ),
    "no model call": recommend(swept(outcome(0.5, 0, peak=0), steps=0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_languages_say_the_same_things(name: str) -> None:
    recommendation: Recommendation = CASES[name]
    english = recommendation_sentences(recommendation, "en")
    chinese = recommendation_sentences(recommendation, "zh")
    assert len(english) == len(chinese) == len(recommendation.reasons)
    for en, zh in zip(english, chinese, strict=True):
        assert sorted(NUMBER.findall(en)) == sorted(NUMBER.findall(zh)), (en, zh)


def test_the_verdict_names_the_setting_or_says_there_is_none() -> None:
    chosen = CASES["one pick, no tie"]
    assert chosen.setting is not None
    assert recommendation_verdict(chosen, "en") == (
        f"Use trigger_context_ratio {chosen.setting.trigger_context_ratio:g}, keep_recent_messages "
        f"{chosen.setting.keep_recent_messages}, min_target_context_ratio 0.1."
    )
    assert recommendation_verdict(CASES["nothing qualifies"], "zh").startswith("此次扫描中没有任何设置")


def test_a_tie_break_is_mentioned_only_when_there_was_one() -> None:
    tie_words = {"en": "settings cost exactly as much", "zh": "个设置花费完全相同"}
    for name, recommendation in CASES.items():
        for language, words in tie_words.items():
            said = any(words in sentence for sentence in recommendation_sentences(recommendation, language))
            assert said == ("tie_break" in recommendation.codes), (name, language)


def test_the_tie_case_has_a_tie_and_the_others_do_not() -> None:
    assert [name for name, rec in CASES.items() if "tie_break" in rec.codes] == ["a tie at the best ratio"]


@pytest.mark.parametrize(
    ("compactions", "words"), [(1, "It needs 1 compaction, "), (2, "It needs 2 compactions, ")]
)
def test_the_compactions_it_needs_are_counted_in_words(compactions: int, words: str) -> None:
    recommendation = recommend(swept(outcome(0.5, 0, peak=600, compactions=compactions, cost=900)))
    english = recommendation_sentences(recommendation, "en")
    assert any(sentence.startswith(words) for sentence in english), english
    assert not any("(s)" in sentence for sentence in english)
    assert any(
        f"它需要 {compactions} 次压缩" in sentence
        for sentence in recommendation_sentences(recommendation, "zh")
    )
