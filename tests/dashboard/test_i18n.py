"""Both languages hold every string the pages ask for, with the same format fields."""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import get_args

import pytest

from compressor.compactor import Status
from compressor.errors import ErrorKind
from compressor.replay import ReasonCode
from compressor.tokens import COUNTER_NAMES
from compressor.trigger import REASON_TEXT, Decision
from compressor.windows import Capacity
from dashboard import i18n
from dashboard.i18n import EN, STRINGS, ZH, capacity_text, explain, translate

DASHBOARD = Path(i18n.__file__).resolve().parent
LITERAL_KEY = re.compile(r"""\b(?:t|stop_when_empty)\(\s*["']([a-z_.]+)["']""")


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def used_literal_keys() -> set[str]:
    keys: set[str] = set()
    for path in [*DASHBOARD.glob("*.py"), *DASHBOARD.glob("views/*.py")]:
        keys.update(LITERAL_KEY.findall(path.read_text(encoding="utf-8")))
    return keys


def dynamic_keys() -> set[str]:
    """Keys the pages build from values (f-strings), listed from the values they can take."""
    from dashboard.app import CONVERSATION_PAGES, RUN_PAGES

    keys = {spec[1] for spec in (*CONVERSATION_PAGES, *RUN_PAGES)}
    keys |= {f"status.{s}" for s in get_args(Status)} | {f"status_text.{s}" for s in get_args(Status)}
    keys |= {f"decision.{r}" for r in REASON_TEXT} | {f"reason.{r}" for r in REASON_TEXT}
    keys |= {f"reason.{kind.value}" for kind in ErrorKind} | {"reason.empty_summary"}
    keys |= {f"counter.{name}" for name in COUNTER_NAMES}
    keys |= {f"why.{code}" for code in get_args(ReasonCode)}
    keys |= {f"segment.{name}" for name in i18n.SEGMENT_KEYS} | {f"chart.{name}" for name in i18n.CHART_KEYS}
    keys |= {f"col.{name}" for name in i18n.COLUMN_KEYS} | set(i18n.TRACE_KEYS.values())
    keys |= {"capacity.explicit", "capacity.model", "capacity.default", "capacity.default_unknown"}
    keys |= {
        "sidebar.capacity.number",
        "sidebar.capacity.model",
        "metric.total_usage",
        "metric.total_counted",
    }
    keys |= {
        "compact.backend.offline",
        "compact.backend.openai",
        "dumps.source.folder",
        "dumps.source.upload",
    }
    keys |= {"dumps.rerun_backend.replay", "dumps.rerun_backend.live"}
    keys |= {
        f"result.tab.{n}" for n in ("summary", "prompt", "request", "reply", "attempts", "context", "debug")
    }
    keys |= {f"dumps.tab.{n}" for n in ("messages", "span", "prompt", "reply", "summary", "debug", "rerun")}
    return keys


class TestCompleteness:
    def test_both_languages_have_the_same_keys(self) -> None:
        assert set(EN) == set(ZH), {"only en": set(EN) - set(ZH), "only zh": set(ZH) - set(EN)}

    @pytest.mark.parametrize("key", sorted(EN))
    def test_translations_use_the_same_format_fields(self, key: str) -> None:
        assert fields(EN[key]) == fields(ZH[key])

    def test_no_empty_strings(self) -> None:
        assert [
            (lang, key) for lang, table in STRINGS.items() for key, text in table.items() if not text.strip()
        ] == []

    def test_every_key_a_page_uses_exists(self) -> None:
        used = used_literal_keys()
        assert len(used) > 150  # the scan found the pages' strings
        assert used - set(EN) == set()

    def test_every_string_is_used(self) -> None:
        assert set(EN) - used_literal_keys() - dynamic_keys() == set()

    def test_every_key_built_from_a_value_exists(self) -> None:
        assert dynamic_keys() - set(EN) == set()

    def test_the_chinese_strings_are_chinese(self) -> None:
        untranslated = [
            key
            for key, text in ZH.items()
            if text == EN[key] and not re.fullmatch(r"[\w.{}:,()× =]+", EN[key]) and "tiktoken" not in text
        ]
        assert untranslated == []


class TestTranslate:
    def test_formats_fields(self) -> None:
        assert (
            translate("en", "load.ok", file="a.json", count=2, format="openai")
            == "a.json: 2 conversation(s), format openai"
        )
        assert (
            translate("zh", "load.ok", file="a.json", count=2, format="openai")
            == "a.json：2 个会话，格式 openai"
        )

    def test_unknown_language_is_english_and_unknown_key_is_itself(self) -> None:
        assert translate("fr", "nav.load") == "Load"
        assert translate("zh", "no.such.key") == "no.such.key"


class TestSentences:
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


class TestColumnHeaders:
    def test_headers_follow_the_language(self) -> None:
        assert i18n.column_labels("en")["tokens_before"] == "tokens_before"
        assert i18n.column_labels("zh")["role"] == "角色"
        assert set(i18n.column_labels("en")) == set(i18n.column_labels("zh")) == set(i18n.COLUMN_KEYS)
