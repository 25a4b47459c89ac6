"""Compressor settings and the model/client configs, validated like openJiuwen's own (SPEC §9).

Invariant: a config value is always valid once built; an API key lives only in a ``SecretStr`` and is
never part of ``repr``, ``str`` or ``model_dump(mode="json")`` output.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer, model_validator

#: Fields older openJiuwen configs carried; they moved to the engine's compression_recall_config.
LEGACY_RECALL_FIELDS: tuple[str, ...] = (
    "enable_recall",
    "recall_chunk_size_tokens",
    "recall_chunk_overlap_tokens",
)
#: A day: a longer deadline is no deadline (and ``inf`` or ``nan`` would disable the bound of every call).
MAX_TIMEOUT_SECONDS = 86_400.0


class ModelRequestConfig(BaseModel):
    """What to ask the model: its name and sampling settings."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    model_name: str = Field(min_length=1, alias="model", description="model name the endpoint serves")
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(default=None, gt=0)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelRequestConfig | None:
        env = os.environ if env is None else env
        name = env.get("MODEL_NAME", "").strip()
        return cls(model=name) if name else None


class ModelClientConfig(BaseModel):
    """Where the model lives: an OpenAI-compatible endpoint and how to reach it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    client_provider: str = Field(default="OpenAI", min_length=1)
    api_base: str = Field(min_length=1, description="base URL, e.g. https://api.openai.com/v1")
    api_key: SecretStr = Field(default=SecretStr(""), description="sent as a Bearer token; never stored")
    timeout: float = Field(
        default=120.0,
        gt=0.0,
        le=MAX_TIMEOUT_SECONDS,
        allow_inf_nan=False,
        description="seconds one call may take, connect to last byte (all of a compaction's calls together: 3×)",
    )
    verify_ssl: bool = True

    @field_serializer("api_key")
    def _hide_key(self, value: SecretStr) -> str:
        return "**********" if value.get_secret_value() else ""

    @model_validator(mode="after")
    def _url_scheme(self) -> ModelClientConfig:
        if not self.api_base.startswith(("http://", "https://")):
            raise ValueError(f"api_base must start with http:// or https://, got {self.api_base[:40]!r}")
        return self

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelClientConfig | None:
        env = os.environ if env is None else env
        base = env.get("API_BASE", "").strip()
        if not base:
            return None
        return cls(
            client_provider=env.get("MODEL_PROVIDER", "").strip() or "OpenAI",
            api_base=base,
            api_key=SecretStr(env.get("API_KEY", "")),
        )


class CurrentRoundCompressorConfig(BaseModel):
    """The settings of openJiuwen's CurrentRoundCompressor, with its defaults and ranges."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    trigger_context_ratio: float = Field(
        default=0.8, gt=0.0, lt=1.0, description="compact when the window reaches this share of context_max"
    )
    min_target_context_ratio: float = Field(
        default=0.1, ge=0.0, lt=1.0, description="skip when the span to compress is smaller than this share"
    )
    keep_recent_messages: int = Field(default=0, ge=0, description="messages always kept verbatim at the end")
    model: ModelRequestConfig | None = None
    model_client: ModelClientConfig | None = None
    enable_compression_dump: bool = False
    compression_dump_dir: str | None = None
    enable_kv_cache_affinity: bool = False

    @model_validator(mode="before")
    @classmethod
    def _reject_legacy_recall(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            legacy = [name for name in LEGACY_RECALL_FIELDS if name in data]
            if legacy:
                raise ValueError(
                    f"{', '.join(legacy)} no longer belong to CurrentRoundCompressorConfig: "
                    "recall settings moved to the context engine's compression_recall_config"
                )
        return data

    @property
    def model_configured(self) -> bool:
        """openJiuwen compacts only when both the model and its client are configured."""
        return self.model is not None and self.model_client is not None

    def with_settings(self, **changes: Any) -> CurrentRoundCompressorConfig:
        """A validated copy with some fields changed (``model_copy`` would skip validation)."""
        data = {**self.model_dump(exclude={"model", "model_client"}), **changes}
        data.setdefault("model", self.model)
        data.setdefault("model_client", self.model_client)
        return CurrentRoundCompressorConfig.model_validate(data)
