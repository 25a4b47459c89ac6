"""Words for what a compaction kept and how a file was read: from the library's codes, in both languages, one
form for a count of one and another for the rest, and the reason in words when there is nothing to score."""

from __future__ import annotations

import pytest

from compressor.census import READING_TEXT, MessageCounts, describe_reading
from compressor.messages import Message, Reading
from compressor.quality import SIZED, score_span
from dashboard.i18n.quality import badge, count_lines, kept_items, reading_words, saved_and_kept

SPAN = [
    Message(role="user", content="Fix the failing test in src/app/main.py"),
    Message(role="assistant", content="I ran `pytest tests/test_main.py` and read src/app/util.py"),
]


class TestReadings:
    @pytest.mark.parametrize("code", sorted(READING_TEXT))
    @pytest.mark.parametrize("count", [1, 3])
    def test_english_words_are_the_librarys(self, code: str, count: int) -> None:
        reading = Reading(code=code, count=count, detail="x")
        assert reading_words(reading, "en") == describe_reading(reading)

    def test_chinese_words_carry_the_count(self) -> None:
        reading = Reading(code="tool_results_from_user_text", count=182)
        assert reading_words(reading, "zh") == "182 条工具结果以用户文本形式到达，已读作工具结果"

    def test_an_unknown_code_is_shown_as_its_detail_or_itself(self) -> None:
        assert reading_words(Reading(code="new_code", detail="what"), "en") == "what"
        assert reading_words(Reading(code="new_code"), "zh") == "new_code"


class TestCounts:
    def test_unmatched_counts_show_only_when_there_are_some(self) -> None:
        counts = MessageCounts(
            real_user=2,
            internal_user=1,
            assistant=3,
            tool=4,
            tool_calls=4,
            unmatched_tool_calls=0,
            unmatched_tool_results=1,
        )
        assert count_lines(counts, "en") == [
            ("Real user requests", 2),
            ("Internal user turns", 1),
            ("Assistant turns", 3),
            ("Tool results", 4),
            ("Tool calls", 4),
            ("Tool results without a call", 1),
        ]


class TestRetention:
    def test_kept_items_name_the_categories_that_had_anything(self) -> None:
        scored = score_span(SPAN, "Still failing in src/app/main.py")
        assert scored.retention is not None
        paths = scored.retention.by_category["paths"]
        assert paths.total == 3 and paths.kept == 1  # main.py, util.py, tests/test_main.py
        assert kept_items(scored, "en") == "1/3 files"  # the other categories had nothing
        assert kept_items(scored, "zh") == "1/3 个文件"

    def test_the_badge_adds_up(self) -> None:
        scored = score_span(SPAN, "src/app/main.py and src/app/util.py")
        assert scored.retention is not None
        overall = scored.retention.overall
        assert badge(scored, "en") == (
            f"kept {overall.kept}/{overall.total} ({overall.kept / overall.total:.1%}); "
            f"{overall.elsewhere} still in the kept messages, {overall.lost} lost"
        )

    def test_no_text_says_why_never_a_number(self) -> None:
        scored = score_span(SPAN, None, reason=SIZED)
        assert badge(scored, "en") == (
            "this replay only sizes its summaries (no text), so what they keep is not scored"
        )
        assert saved_and_kept(0.72, scored, "en") == (
            "saved 72.0%; this replay only sizes its summaries (no text), so what they keep is not scored"
        )
        assert saved_and_kept(0.72, scored, "zh").startswith("节省 72.0%；")
