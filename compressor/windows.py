"""Context capacity: the model's window from openJiuwen's table, an explicit number, or 200000 (SPEC §7).

Invariant: ``resolve_context_max`` always returns a positive capacity and says where it came from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

DEFAULT_CONTEXT_MAX = 200_000

CapacitySource = Literal["explicit", "model", "default"]


@cache
def model_windows() -> dict[str, int]:
    """Model name → context window in tokens, as openJiuwen 0.1.19.post2 knows them."""
    text = resources.files("compressor").joinpath("data", "model_context_windows.json").read_text("utf-8")
    return {str(name): int(size) for name, size in json.loads(text)["models"].items()}


def model_window(model: str | None) -> int | None:
    """A model's window: exact name first, then case-insensitive; None when unknown."""
    if not model:
        return None
    table = model_windows()
    if model in table:
        return table[model]
    lowered = model.lower()
    for name, size in table.items():
        if name.lower() == lowered:
            return size
    return None


@dataclass(frozen=True)
class Capacity:
    tokens: int
    source: CapacitySource
    model: str | None = None

    def describe(self) -> str:
        if self.source == "explicit":
            return f"{self.tokens:,} tokens (set explicitly)"
        if self.source == "model":
            return f"{self.tokens:,} tokens (window of {self.model})"
        suffix = f"; {self.model!r} is not in the table" if self.model else ""
        return f"{self.tokens:,} tokens (default{suffix})"


def resolve_context_max(context_max: int | None = None, model: str | None = None) -> Capacity:
    if context_max is not None and context_max > 0:
        return Capacity(int(context_max), "explicit", model)
    size = model_window(model)
    if size is not None:
        return Capacity(size, "model", model)
    return Capacity(DEFAULT_CONTEXT_MAX, "default", model)
