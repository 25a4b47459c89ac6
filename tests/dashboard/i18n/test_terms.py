"""The glossary's quantities in words: one name per term in each language, a tooltip with what it includes and
its formula, and a breakdown read out in one sentence whose numbers are the breakdown's own."""

from __future__ import annotations

import pytest

from compressor.glossary import GLOSSARY
from compressor.spans import Span
from compressor.window_parts import WindowBreakdown, of_analysis
from dashboard.i18n import percent, zh
from dashboard.i18n.terms import (
    breakdown_caption,
    breakdown_notes,
    formula,
    parts_sentence,
    span_ranges,
    term_help,
    term_name,
)
from tests.dashboard.conftest import demo_analysis


class TestTerms:
    @pytest.mark.parametrize("language", ["en", "zh"])
    def test_every_term_has_a_name_and_a_tooltip_with_its_formula(self, language: str) -> None:
        names = [term_name(code, language) for code in GLOSSARY]
        assert len(set(names)) == len(names)  # one name per concept, never two concepts under one name
        for code in GLOSSARY:
            assert f"`{formula(code, language)}`" in term_help(code, language)

    def test_english_formulas_are_the_librarys_own(self) -> None:
        assert all(formula(code, "en") == GLOSSARY[code].formula for code in GLOSSARY)
        assert all(formula(code, "zh") == zh.FORMULAS[code] for code in GLOSSARY)

    def test_the_tooltip_says_what_the_window_total_includes(self) -> None:
        text = term_help("window_total", "en")
        assert "(system, tools, hidden overhead, preserved prefix, span to compress, protected tail)" in text


class TestBreakdownWords:
    def test_the_caption_reads_the_breakdown(self) -> None:
        parts = of_analysis(demo_analysis(trigger_context_ratio=0.95))
        assert breakdown_caption(parts, "en") == (
            f"{parts.total_tokens:,} of 16,000 tokens used ({percent(parts.used_share)}): "
            f"{percent(parts.left_share)} left, {percent(parts.until_compaction_share)} until compaction at 15,200."
        )

    def test_past_the_threshold_the_caption_says_it_was_reached(self) -> None:
        parts = of_analysis(demo_analysis())
        assert parts.until_compaction_tokens == 0
        assert breakdown_caption(parts, "en").endswith(
            ", and the window has reached the threshold of 12,800."
        )
        assert breakdown_caption(parts, "zh").endswith("窗口已达到阈值 12,800。")
        assert "until compaction" not in breakdown_caption(parts, "en")

    def test_the_parts_sentence_adds_up(self) -> None:
        parts = of_analysis(demo_analysis())
        sentence = parts_sentence(parts, "en")
        assert sentence.startswith("The window total is system ")
        assert f"span to compress {parts.part('span'):,}" in sentence

    def test_over_capacity_and_a_counter_that_counts_more_are_told(self) -> None:
        parts = WindowBreakdown(
            parts=(("system", 50), ("span", 30), ("drift", -5)),
            total_tokens=75,
            total_source="usage",
            capacity=60,
            threshold=48,
            min_span=6,
            span_tokens=30,
            hit=True,
        )
        notes = breakdown_notes(parts, "en")
        assert notes[0] == "Over capacity by 15 tokens: this call would not fit the model's window."
        assert notes[1].startswith(
            "Our counter finds 5 tokens more in the messages than the reported usage holds"
        )
        assert len(breakdown_notes(parts, "zh")) == 2


class TestSpanRanges:
    def test_each_span_in_words_with_its_messages(self) -> None:
        span = Span(prefix=(0, 1), compress=(1, 44), tail=(44, 44), unanchored=(0, 0))
        assert span_ranges(span, "en") == (
            "preserved prefix: #0 (1 message) · span to compress: #1–#43 (43 messages) · protected tail: none"
        )
        assert (
            span_ranges(span, "zh")
            == "保留前缀：#0（1 条消息） · 待压缩片段：#1–#43（43 条消息） · 保护尾部：无"
        )

    def test_a_kept_tail_is_named_by_its_messages(self) -> None:
        span = Span(prefix=(0, 3), compress=(3, 10), tail=(10, 14), unanchored=(0, 0))
        assert span_ranges(span, "en").endswith("protected tail: #10–#13 (4 messages)")
