"""The sidebar settings survive a trip through the URL, and a bad URL never breaks the page."""

from __future__ import annotations

import pytest

from dashboard.settings import DEFAULTS, Settings, from_query, to_query, with_outcome


class TestDefaults:
    def test_ratios_and_keep_are_openjiuwens_defaults(self) -> None:
        assert (
            DEFAULTS.trigger_context_ratio,
            DEFAULTS.min_target_context_ratio,
            DEFAULTS.keep_recent_messages,
        ) == (
            0.8,
            0.1,
            0,
        )

    def test_capacity_is_a_number_small_enough_for_the_demo_to_fire(self) -> None:
        assert DEFAULTS.capacity_mode == "number"
        assert DEFAULTS.explicit_context_max == 16_000
        assert DEFAULTS.capacity_model is None

    def test_config_carries_the_three_settings(self) -> None:
        config = Settings(
            trigger_context_ratio=0.5, min_target_context_ratio=0.2, keep_recent_messages=3
        ).config()
        assert (
            config.trigger_context_ratio,
            config.min_target_context_ratio,
            config.keep_recent_messages,
        ) == (
            0.5,
            0.2,
            3,
        )
        assert not config.model_configured

    def test_the_language_does_not_change_a_compaction(self) -> None:
        assert Settings(language="zh").compaction_key == DEFAULTS.compaction_key
        assert Settings(keep_recent_messages=1).compaction_key != DEFAULTS.compaction_key
        assert Settings(context_max=9).compaction_key != DEFAULTS.compaction_key


class TestFromQuery:
    def test_empty_query_gives_defaults(self) -> None:
        assert from_query({}) == DEFAULTS

    def test_reads_every_setting(self) -> None:
        settings = from_query(
            {
                "trigger": "0.65",
                "min_target": "0.05",
                "keep": "4",
                "model": "gpt-4o",
                "counter": "o200k_base",
                "lang": "zh",
            }
        )
        assert settings == Settings(
            trigger_context_ratio=0.65,
            min_target_context_ratio=0.05,
            keep_recent_messages=4,
            capacity_mode="model",
            model="gpt-4o",
            counter="o200k_base",
            language="zh",
        )

    @pytest.mark.parametrize(
        ("params", "field", "expected"),
        [
            ({"trigger": "abc"}, "trigger_context_ratio", 0.8),
            ({"trigger": "nan"}, "trigger_context_ratio", 0.8),
            ({"trigger": "5"}, "trigger_context_ratio", 0.99),
            ({"trigger": "0"}, "trigger_context_ratio", 0.05),
            ({"min_target": "-1"}, "min_target_context_ratio", 0.0),
            ({"keep": "-3"}, "keep_recent_messages", 0),
            ({"keep": "1e99"}, "keep_recent_messages", 100_000),
            ({"keep": "1e999"}, "keep_recent_messages", 0),
            ({"keep": "2.7"}, "keep_recent_messages", 2),
            ({"context_max": "0"}, "context_max", 1),
            ({"context_max": "x"}, "context_max", 16_000),
            ({"counter": "gpt2"}, "counter", "cl100k_base"),
            ({"lang": "fr"}, "language", "en"),
            ({"model": "no-such-model"}, "capacity_mode", "number"),
        ],
    )
    def test_bad_values_fall_back_or_are_clamped(
        self, params: dict[str, str], field: str, expected: object
    ) -> None:
        assert getattr(from_query(params), field) == expected

    def test_repeated_parameters_use_the_last(self) -> None:
        assert from_query({"keep": ["1", "7"]}).keep_recent_messages == 7


class TestToQuery:
    @pytest.mark.parametrize(
        "settings",
        [
            DEFAULTS,
            Settings(trigger_context_ratio=0.55, keep_recent_messages=9, context_max=128_000, language="zh"),
            Settings(capacity_mode="model", model="gpt-3.5-turbo", counter="string_length"),
        ],
    )
    def test_round_trip(self, settings: Settings) -> None:
        assert from_query(to_query(settings)) == settings

    def test_holds_a_model_or_a_number_never_both(self) -> None:
        assert "model" not in to_query(DEFAULTS)
        assert to_query(DEFAULTS)["context_max"] == "16000"
        by_model = to_query(Settings(capacity_mode="model", model="gpt-4o"))
        assert by_model["model"] == "gpt-4o" and "context_max" not in by_model

    def test_values_are_short_strings(self) -> None:
        assert to_query(DEFAULTS) == {
            "trigger": "0.8",
            "min_target": "0.1",
            "keep": "0",
            "context_max": "16000",
            "counter": "cl100k_base",
            "lang": "en",
        }


class TestAdopting:
    def test_a_swept_setting_changes_only_its_three_values(self) -> None:
        from compressor.replay import sweep
        from tests.dashboard.conftest import demo_conversation

        outcome = sweep(
            demo_conversation(),
            ratios=(0.6,),
            keeps=(2,),
            min_targets=(0.05,),
            context_max=9_000,
            summary="ratio:0.1",
        ).outcomes[0]
        start = Settings(context_max=9_000, language="zh", counter="o200k_base")
        adopted = with_outcome(start, outcome)
        assert adopted == Settings(
            trigger_context_ratio=0.6,
            keep_recent_messages=2,
            min_target_context_ratio=0.05,
            context_max=9_000,
            language="zh",
            counter="o200k_base",
        )
