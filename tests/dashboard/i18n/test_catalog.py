"""Looking strings up by key in a language: formatting, fallbacks, and the label sets given to charts,
tables and widgets (always in the language asked for, never the session's)."""

from __future__ import annotations

from dashboard.i18n import (
    CHART_KEYS,
    COLUMN_KEYS,
    COUNT_NOUNS,
    PART_KEYS,
    SEGMENT_KEYS,
    chart_labels,
    column_labels,
    compaction_headers,
    counted,
    option_labels,
    percent,
    segment_names,
    translate,
)


class TestTranslate:
    def test_formats_fields(self) -> None:
        assert (
            translate("en", "load.ok", file="a.json", conversations="2 conversations", format="openai")
            == "a.json: 2 conversations, format openai"
        )
        assert (
            translate("zh", "load.ok", file="a.json", conversations="2 个会话", format="openai")
            == "a.json：2 个会话，格式 openai"
        )

    def test_unknown_language_is_english_and_unknown_key_is_itself(self) -> None:
        assert translate("fr", "nav.load") == "Load"
        assert translate("zh", "no.such.key") == "no.such.key"

    def test_without_fields_a_template_comes_back_unformatted(self) -> None:
        assert translate("en", "chart.hover.heat") == "ratio %{x}, keep %{y}: %{text}"


class TestCounts:
    def test_one_is_singular_and_every_other_number_plural(self) -> None:
        assert counted(1, "dump", "en") == "1 dump"
        assert counted(0, "dump", "en") == "0 dumps"
        assert counted(2_000, "dump", "en") == "2,000 dumps"
        assert counted(1, "call", "zh") == "1 次调用"

    def test_every_noun_has_both_forms_in_both_languages(self) -> None:
        for noun in COUNT_NOUNS:
            for language in ("en", "zh"):
                assert "{n" not in counted(3, noun, language)

    def test_every_share_is_written_with_one_decimal(self) -> None:
        assert percent(0.0654) == "6.5%"
        assert percent(1.0) == "100.0%"


class TestLabels:
    def test_column_headers_follow_the_language(self) -> None:
        headers = column_labels("en")
        assert headers["tokens_before"] == "Context messages before"
        # English headers are words, never the column's identifier
        assert [name for name, header in headers.items() if "_" in header] == []
        assert column_labels("zh")["role"] == "角色"
        assert set(column_labels("en")) == set(column_labels("zh")) == set(COLUMN_KEYS)

    def test_chart_labels_hold_every_chart_key_and_the_segments(self) -> None:
        for language in ("en", "zh"):
            labels = chart_labels(language)
            assert set(labels) == set(CHART_KEYS) | set(SEGMENT_KEYS) | {f"part.{key}" for key in PART_KEYS}
        assert chart_labels("zh")["threshold"] == "阈值"
        assert chart_labels("en")["prefix"] == segment_names("en")["prefix"] == "preserved prefix"

    def test_the_compaction_table_headers_name_their_own_columns(self) -> None:
        assert compaction_headers("en")["compress"] == "Span tokens"
        assert compaction_headers("en")["window"] == "Window total"
        # the same column name means another thing elsewhere
        assert column_labels("en")["compress"] == "Compressed messages"

    def test_an_option_label_keeps_the_language_it_was_made_in(self) -> None:
        label = option_labels("compact.backend.", "zh")
        assert label("offline") == "离线（抽取式，无需网络）"
