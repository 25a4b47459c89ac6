"""Compressor settings and model/client configs (SPEC §9), and context capacity (SPEC §7)."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from compressor.config import (
    MAX_TIMEOUT_SECONDS,
    CurrentRoundCompressorConfig,
    ModelClientConfig,
    ModelRequestConfig,
)
from compressor.windows import DEFAULT_CONTEXT_MAX, model_windows, resolve_context_max


class TestCompressorConfig:
    def test_defaults_are_openjiuwens(self) -> None:
        config = CurrentRoundCompressorConfig()
        assert (
            config.trigger_context_ratio,
            config.min_target_context_ratio,
            config.keep_recent_messages,
        ) == (0.8, 0.1, 0)
        assert not config.enable_compression_dump and not config.model_configured

    @pytest.mark.parametrize(
        "field,value",
        [
            ("trigger_context_ratio", 0.0),
            ("trigger_context_ratio", 1.0),
            ("min_target_context_ratio", -0.1),
            ("min_target_context_ratio", 1.0),
            ("keep_recent_messages", -1),
            ("unknown_field", 1),
        ],
    )
    def test_out_of_range_values_are_refused(self, field: str, value: object) -> None:
        with pytest.raises(ValidationError, match=field):
            CurrentRoundCompressorConfig.model_validate({field: value})

    @pytest.mark.parametrize(
        "field", ["enable_recall", "recall_chunk_size_tokens", "recall_chunk_overlap_tokens"]
    )
    def test_legacy_recall_fields_say_where_they_went(self, field: str) -> None:
        with pytest.raises(ValidationError, match="compression_recall_config"):
            CurrentRoundCompressorConfig.model_validate({field: 1})

    def test_model_and_client_both_needed(self) -> None:
        request = ModelRequestConfig(model="gpt-4o")
        client = ModelClientConfig(api_base="http://127.0.0.1:9/v1")
        assert not CurrentRoundCompressorConfig(model=request).model_configured
        assert CurrentRoundCompressorConfig(model=request, model_client=client).model_configured

    def test_with_settings_validates(self) -> None:
        config = CurrentRoundCompressorConfig()
        assert config.with_settings(keep_recent_messages=4).keep_recent_messages == 4
        with pytest.raises(ValidationError):
            config.with_settings(trigger_context_ratio=2)


class TestClientConfig:
    def test_the_key_never_shows(self) -> None:
        client = ModelClientConfig(api_base="https://example.invalid/v1", api_key=SecretStr("sk-canary-123"))
        assert "sk-canary-123" not in repr(client)
        assert "sk-canary-123" not in str(client.model_dump(mode="json"))
        assert client.api_key.get_secret_value() == "sk-canary-123"

    def test_url_needs_a_scheme(self) -> None:
        with pytest.raises(ValidationError, match="http"):
            ModelClientConfig(api_base="api.openai.com")

    @pytest.mark.parametrize("timeout", [float("inf"), float("-inf"), float("nan"), -1.0, 0.0, 1e9])
    def test_a_deadline_that_bounds_nothing_is_refused(self, timeout: float) -> None:
        with pytest.raises(ValidationError, match="timeout"):
            ModelClientConfig(api_base="http://127.0.0.1:9/v1", timeout=timeout)

    @pytest.mark.parametrize("timeout", [0.001, 10.0, MAX_TIMEOUT_SECONDS])
    def test_a_finite_deadline_up_to_a_day_is_kept(self, timeout: float) -> None:
        assert ModelClientConfig(api_base="http://127.0.0.1:9/v1", timeout=timeout).timeout == timeout

    def test_from_env(self) -> None:
        env = {
            "API_BASE": "http://127.0.0.1:8000/v1",
            "API_KEY": "k",
            "MODEL_NAME": "qwen",
            "MODEL_PROVIDER": "vLLM",
        }
        client = ModelClientConfig.from_env(env)
        request = ModelRequestConfig.from_env(env)
        assert client is not None and client.client_provider == "vLLM"
        assert request is not None and request.model_name == "qwen"
        assert ModelClientConfig.from_env({}) is None


class TestCapacity:
    def test_the_table_has_openjiuwens_models(self) -> None:
        table = model_windows()
        assert len(table) == 117
        assert table["gpt-4o"] == 128000

    def test_resolution_order(self) -> None:
        assert resolve_context_max(5000, "gpt-4o").tokens == 5000
        assert resolve_context_max(None, "gpt-4o").source == "model"
        assert resolve_context_max(None, "GPT-4O").tokens == 128000
        unknown = resolve_context_max(None, "my-local-model")
        assert (unknown.tokens, unknown.source) == (DEFAULT_CONTEXT_MAX, "default")
        assert resolve_context_max(0, None).tokens == DEFAULT_CONTEXT_MAX
