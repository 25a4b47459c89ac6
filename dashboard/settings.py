"""The sidebar's shared settings as one value, and their round trip through the URL query string.

Invariant: ``from_query`` never raises: a missing or malformed parameter falls back to its default and
an out-of-range one is clamped, so any shared link opens; ``to_query(from_query(q))`` is canonical.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from compressor.config import CurrentRoundCompressorConfig, ModelClientConfig, ModelRequestConfig
from compressor.replay import Outcome
from compressor.tokens import COUNTER_NAMES
from compressor.windows import model_windows

CapacityMode = Literal["number", "model"]
LANGUAGES: tuple[str, ...] = ("en", "zh")

#: Slider bounds. openJiuwen requires 0 < trigger < 1 and 0 <= min_target < 1.
TRIGGER_MIN, TRIGGER_MAX = 0.05, 0.99
MIN_TARGET_MIN, MIN_TARGET_MAX = 0.0, 0.95
KEEP_MAX = 100_000
CONTEXT_MAX_MAX = 10_000_000
#: The bundled demo conversation holds about 14,000 tokens, so the trigger fires at 0.8 of 16,000.
DEFAULT_CONTEXT_MAX = 16_000
DEFAULT_MODEL = "gpt-3.5-turbo"

# Query-string names: short, stable, and never a secret.
Q_TRIGGER, Q_MIN_TARGET, Q_KEEP = "trigger", "min_target", "keep"
Q_CONTEXT_MAX, Q_MODEL, Q_COUNTER, Q_LANG = "context_max", "model", "counter", "lang"
QUERY_KEYS: tuple[str, ...] = (Q_TRIGGER, Q_MIN_TARGET, Q_KEEP, Q_CONTEXT_MAX, Q_MODEL, Q_COUNTER, Q_LANG)


@dataclass(frozen=True)
class Settings:
    """What every page analyses with. ``trigger``/``min_target``/``keep`` are openJiuwen's defaults."""

    trigger_context_ratio: float = 0.8
    min_target_context_ratio: float = 0.1
    keep_recent_messages: int = 0
    capacity_mode: CapacityMode = "number"
    context_max: int = DEFAULT_CONTEXT_MAX
    model: str = DEFAULT_MODEL
    counter: str = "cl100k_base"
    language: str = "en"

    def config(
        self,
        *,
        model: ModelRequestConfig | None = None,
        model_client: ModelClientConfig | None = None,
    ) -> CurrentRoundCompressorConfig:
        return CurrentRoundCompressorConfig(
            trigger_context_ratio=self.trigger_context_ratio,
            min_target_context_ratio=self.min_target_context_ratio,
            keep_recent_messages=self.keep_recent_messages,
            model=model,
            model_client=model_client,
        )

    @property
    def explicit_context_max(self) -> int | None:
        """The number analyze() gets as ``context_max`` (None when the capacity comes from the model)."""
        return self.context_max if self.capacity_mode == "number" else None

    @property
    def capacity_model(self) -> str | None:
        """The model name analyze() looks up in the window table (None when a number is used)."""
        return self.model if self.capacity_mode == "model" else None

    @property
    def compaction_key(self) -> tuple[Any, ...]:
        """Every setting that changes a compaction's result (the language does not)."""
        return (
            self.trigger_context_ratio,
            self.min_target_context_ratio,
            self.keep_recent_messages,
            self.explicit_context_max,
            self.capacity_model,
            self.counter,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


DEFAULTS = Settings()


def _first(value: Any) -> str | None:
    if isinstance(value, list | tuple):
        value = value[-1] if value else None
    return None if value is None else str(value)


def _float(value: str | None, default: float, low: float, high: float) -> float:
    try:
        number = float(value) if value is not None else default
    except ValueError:
        return default
    if not math.isfinite(number):
        return default
    return round(min(max(number, low), high), 2)


def _int(value: str | None, default: int, low: int, high: int) -> int:
    try:
        number = int(float(value)) if value is not None else default
    except (ValueError, OverflowError):
        return default
    return min(max(number, low), high)


def from_query(params: Mapping[str, Any]) -> Settings:
    """Settings from query parameters; anything missing or unreadable keeps its default."""
    model = _first(params.get(Q_MODEL))
    known_model = model if model in model_windows() else None
    counter = _first(params.get(Q_COUNTER))
    language = _first(params.get(Q_LANG))
    return Settings(
        trigger_context_ratio=_float(
            _first(params.get(Q_TRIGGER)), DEFAULTS.trigger_context_ratio, TRIGGER_MIN, TRIGGER_MAX
        ),
        min_target_context_ratio=_float(
            _first(params.get(Q_MIN_TARGET)),
            DEFAULTS.min_target_context_ratio,
            MIN_TARGET_MIN,
            MIN_TARGET_MAX,
        ),
        keep_recent_messages=_int(_first(params.get(Q_KEEP)), DEFAULTS.keep_recent_messages, 0, KEEP_MAX),
        capacity_mode="model" if known_model else "number",
        context_max=_int(_first(params.get(Q_CONTEXT_MAX)), DEFAULTS.context_max, 1, CONTEXT_MAX_MAX),
        model=known_model or DEFAULTS.model,
        counter=counter if counter in COUNTER_NAMES else DEFAULTS.counter,
        language=language if language in LANGUAGES else DEFAULTS.language,
    )


def to_query(settings: Settings) -> dict[str, str]:
    """The query parameters that reproduce ``settings`` (the capacity as a model name or a number)."""
    out = {
        Q_TRIGGER: f"{settings.trigger_context_ratio:g}",
        Q_MIN_TARGET: f"{settings.min_target_context_ratio:g}",
        Q_KEEP: str(settings.keep_recent_messages),
    }
    if settings.capacity_mode == "model":
        out[Q_MODEL] = settings.model
    else:
        out[Q_CONTEXT_MAX] = str(settings.context_max)
    out[Q_COUNTER] = settings.counter
    out[Q_LANG] = settings.language
    return out


def with_changes(settings: Settings, **changes: Any) -> Settings:
    return replace(settings, **changes)


def with_outcome(settings: Settings, outcome: Outcome) -> Settings:
    """``settings`` holding a swept setting's trigger ratio, keep and min target (the rest unchanged)."""
    return replace(
        settings,
        trigger_context_ratio=outcome.trigger_context_ratio,
        keep_recent_messages=outcome.keep_recent_messages,
        min_target_context_ratio=outcome.min_target_context_ratio,
    )
