"""Context capacity: an explicit number, the model's window from openJiuwen's table, the window the run's own file
records, or 200000 (SPEC §7).

Invariant: ``resolve_context_max`` always returns a positive capacity and says where it came from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

DEFAULT_CONTEXT_MAX = 200_000

CapacitySource = Literal["explicit", "model", "recorded", "default"]


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


@cache
def lab_windows() -> dict[str, tuple[int, str]]:
    """Our additions for models openJiuwen's table lacks: name → (tokens, where the figure is published)."""
    text = resources.files("compressor").joinpath("data", "model_context_windows_lab.json").read_text("utf-8")
    return {
        str(name): (int(row["tokens"]), str(row["note"])) for name, row in json.loads(text)["models"].items()
    }


#: What agents add to a model's table name in their logs: a provider prefix, a date or a version tag.
_PROVIDER = re.compile(r"^(?:[\w.-]+/)+")
_SUFFIX = re.compile(r"(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2}|v\d+(?::\d+)?|latest|preview))+$", re.I)


def logged_names(model: str) -> list[str]:
    """The names a logged model is looked up by, in order: as logged, without its provider prefix, then also
    without a date/version suffix (``models/gemini-3-flash-preview`` → ``gemini-3-flash-preview`` →
    ``gemini-3-flash``): a table name may itself end in such a suffix."""
    names = [model]
    for name in (_PROVIDER.sub("", model), _SUFFIX.sub("", _PROVIDER.sub("", model))):
        if name and name not in names:
            names.append(name)
    return names


def run_model_window(model: str) -> tuple[int, str, str] | None:
    """A window for a model named by a run's own file: (tokens, name matched, note), or None.

    openJiuwen's table first, by the names of ``logged_names`` (``anthropic/claude-sonnet-4-5-20250929`` →
    ``claude-sonnet-4-5``); then our additions (noted).
    """
    candidates = logged_names(model)
    for name in candidates:
        size = model_window(name)
        if size is not None:
            note = "" if name == model else f"matched {name!r} in openJiuwen's table"
            return size, name, note
    table = {key.lower(): (key, value) for key, value in lab_windows().items()}
    for name in candidates:
        found = table.get(name.lower())
        if found is not None:
            key, (size, note) = found
            return size, key, f"not in openJiuwen's table; {note}"
    return None


@dataclass(frozen=True)
class Capacity:
    tokens: int
    source: CapacitySource
    model: str | None = None
    #: True when the model (or, for ``recorded``, the window) is the run's own file's (no capacity or model was chosen).
    from_run: bool = False
    note: str = ""

    def describe(self) -> str:
        if self.source == "explicit":
            return f"{self.tokens:,} tokens (set explicitly)"
        if self.source == "model":
            origin = ", the model the file names" if self.from_run else ""
            note = f"; {self.note}" if self.note else ""
            return f"{self.tokens:,} tokens (window of {self.model}{origin}{note})"
        if self.source == "recorded":
            return f"{self.tokens:,} tokens (the window the file records{f' for {self.model}' if self.model else ''})"
        suffix = f"; {self.model!r} is not in the table" if self.model else ""
        return f"{self.tokens:,} tokens (default{suffix})"


def resolve_context_max(
    context_max: int | None = None,
    model: str | None = None,
    *,
    run_model: str | None = None,
    run_window: int | None = None,
) -> Capacity:
    """An explicit capacity, else the chosen model's window, else the window the run's file records its agent had
    (``run_window``: Codex's ``model_context_window``, Qwen's, Copilot's, Goose's, Amazon Q's), else the window of
    the model the run's file names (``run_model``), else the 200,000 default (SPEC §7)."""
    if context_max is not None and context_max > 0:
        return Capacity(int(context_max), "explicit", model)
    size = model_window(model)
    if size is not None:
        return Capacity(size, "model", model)
    if model is None and run_window is not None and run_window > 0:
        return Capacity(int(run_window), "recorded", run_model, from_run=True)
    if model is None and run_model:
        found = run_model_window(run_model)
        if found is not None:
            tokens, _, note = found
            return Capacity(tokens, "model", run_model, from_run=True, note=note)
    return Capacity(DEFAULT_CONTEXT_MAX, "default", model)
