"""Looking our own strings up by key in a language: the tables of ``en.py`` and ``zh.py``, and the label sets
the charts, tables and widgets are given.

Invariant: pure — the language is always a parameter (nothing here reads the session); an unknown language
reads English and a key missing from both tables comes back as itself, so a slip never breaks a page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import en, zh

LANGUAGE_NAMES: dict[str, str] = {"en": "English", "zh": "简体中文"}
#: The ``lang`` attribute of an HTML document written in each language.
HTML_LANG: dict[str, str] = {"en": "en", "zh": "zh-CN"}
EN: dict[str, str] = en.STRINGS
ZH: dict[str, str] = zh.STRINGS
STRINGS: dict[str, dict[str, str]] = {"en": EN, "zh": ZH}

SEGMENT_KEYS: tuple[str, ...] = ("system", "prefix", "compress", "tail", "unanchored")
#: The roles a message may have (``role.<key>``): the protocol's names, worded in the UI's language.
ROLE_KEYS: tuple[str, ...] = ("system", "user", "assistant", "tool")
#: Every label a chart draws (``chart.<key>``); the segment names join them under their own keys.
CHART_KEYS: tuple[str, ...] = (
    "internal",
    "last_user",
    "tool_boundary",
    "tokens",
    "message",
    "window",
    "span",
    "threshold",
    "min_target",
    "context_max",
    "before",
    "after",
    "memory",
    "reinjection",
    "compressed",
    "reduction_ratio",
    "dumps",
    "tokens_before",
    "tokens_after",
    "time",
    "sequence",
    "uncompacted",
    "read",
    "sent",
    "compaction",
    "refused",
    "settings",
    "recommended",
    "context_title",
    "context_x",
    "tradeoff_title",
    "tradeoff_x",
    "tradeoff_y",
    "heat.compactions",
    "heat.compaction_input_tokens",
    "heat.peak_utilisation",
    "heat.cost",
    "heat_title",
    "hover.step",
    "hover.heat",
    "hover.setting",
    "hover.tradeoff",
)
#: DataFrame columns whose header is shown translated (``col.<name>`` in both languages).
COLUMN_KEYS: tuple[str, ...] = (
    "folder",
    "sequence",
    "message",
    "index",
    "role",
    "tokens",
    "segment",
    "notes",
    "preview",
    "conversation",
    "format",
    "messages",
    "system",
    "tools",
    "origin",
    "file",
    "attempt",
    "request_tokens",
    "outcome",
    "error",
    "delay_seconds",
    "budget_ratio",
    "seconds",
    "number",
    "section",
    "present",
    "time",
    "session",
    "context",
    "tokens_before",
    "tokens_after",
    "reduction",
    "reduction_ratio",
    "target_tokens",
    "context_max",
    "prefix",
    "compress",
    "tail",
    "retries",
    "took",
    "backend",
    "source",
    "processor",
    "timestamp",
    "event",
    # the fields of openJiuwen's debug log (Dump review's debug records)
    "phase",
    "total_tokens",
    "threshold",
    "hit",
    "reason",
    "messages_to_compress",
    "preserved_prefix",
    "protected_tail",
    "retried",
    "error_type",
    "error_message",
)
#: The headers of a replay's compaction attempts table (``tables.compactions_frame`` column → string key).
COMPACTION_HEADERS: dict[str, str] = {
    "message": "tune.col.message",
    "outcome": "tune.col.outcome",
    "window": "term.window_total",
    "span": "metric.span_counts",
    "compress": "tune.col.compress",
    "before": "metric.tokens_before",
    "after": "metric.tokens_after",
    "memory": "term.memory_block",
    "reinjection": "term.reinjection",
    "request": "metric.request_tokens",
    "calls": "metric.calls",
    "files": "tune.col.files",
}
#: Every part a window breakdown may show (``part.<key>``), in drawing order, then the free space.
PART_KEYS: tuple[str, ...] = (
    "system",
    "tools",
    "hidden",
    "prefix",
    "span",
    "tail",
    "unanchored",
    "rest",
    "drift",
    "free",
)
#: The nouns counted in words (``count.<noun>.one`` / ``.other``).
COUNT_NOUNS: tuple[str, ...] = (
    "attempt",
    "call",
    "compaction",
    "compaction_call",
    "compaction_span",
    "conversation",
    "dump",
    "file",
    "field",
    "flagged_attempt",
    "folder",
    "item",
    "masking",
    "message",
    "record",
    "run",
    "secret",
    "setting",
    "summary",
    "tool_call",
    "tool_result",
)
#: The notes a message table writes beside a message (``note.<key>``).
NOTE_KEYS: tuple[str, ...] = ("last_user", "internal")


def translate(language: str, key: str, **fmt: Any) -> str:
    """The string for ``key`` in ``language`` (English when the language is unknown), formatted with ``fmt``."""
    table = STRINGS.get(language, EN)
    text = table.get(key) or EN.get(key) or key
    return text.format(**fmt) if fmt else text


def counted(n: int, noun: str, language: str) -> str:
    """``n`` and its noun, singular for one (``count.<noun>.one``) and plural otherwise: "1 dump", "3 dumps"."""
    return translate(language, f"count.{noun}.{'one' if n == 1 else 'other'}", n=n)


def percent(share: float) -> str:
    """A share as every page, table, chart and report writes it: one decimal place ("6.7%")."""
    return f"{share:.1%}"


def known(key: str) -> bool:
    """True when ``key`` is one of our strings (a code without words is shown as itself)."""
    return key in EN


def option_labels(prefix: str, language: str) -> Callable[[Any], str]:
    """A widget ``format_func`` showing ``prefix + value`` in ``language``.

    The language is fixed when the function is made: Streamlit may call a format_func after the run (to map
    a stored value back to its label), when the session can no longer be read.
    """
    return lambda value: translate(language, f"{prefix}{value}")


def column_labels(language: str) -> dict[str, str]:
    """Column name → header, for every column a dashboard table may show."""
    return {key: translate(language, f"col.{key}") for key in COLUMN_KEYS}


def compaction_headers(language: str) -> dict[str, str]:
    """The compaction attempts table's headers (they name other things than the same columns elsewhere)."""
    return {column: translate(language, key) for column, key in COMPACTION_HEADERS.items()}


def segment_names(language: str) -> dict[str, str]:
    return {key: translate(language, f"segment.{key}") for key in SEGMENT_KEYS}


def role_names(language: str) -> dict[str, str]:
    return {key: translate(language, f"role.{key}") for key in ROLE_KEYS}


def note_names(language: str) -> dict[str, str]:
    return {key: translate(language, f"note.{key}") for key in NOTE_KEYS}


def part_names(language: str) -> dict[str, str]:
    """The parts of a window breakdown, by part code."""
    return {key: translate(language, f"part.{key}") for key in PART_KEYS}


def chart_labels(language: str) -> dict[str, str]:
    """Every label a chart draws, in one language (segments and window parts, as ``part.<code>``, included)."""
    labels = {key: translate(language, f"chart.{key}") for key in CHART_KEYS}
    labels.update(segment_names(language))
    labels.update({f"part.{key}": name for key, name in part_names(language).items()})
    return labels
