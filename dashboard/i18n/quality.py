"""Words for what a compaction kept and for how a file was read: the artifact categories, statuses, match kinds
and reasons of ``compressor.quality``, and the readings and counts of ``compressor.census``, from their codes.

Invariant: pure — the language is a parameter; a code without words is shown as itself, never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from compressor.census import MessageCounts
from compressor.messages import Reading
from compressor.quality import CATEGORIES, ScoredCompaction, ScoreReport, Tally

from .catalog import known, percent, translate

#: The counts of ``compressor.census.count_messages``, in the order the Load page lists them.
COUNT_FIELDS: tuple[str, ...] = (
    "real_user",
    "internal_user",
    "assistant",
    "tool",
    "tool_calls",
    "unmatched_tool_calls",
    "unmatched_tool_results",
)


class EventLike(Protocol):
    """What the replay lines read of a replay's ``CompactionEvent``."""

    @property
    def index(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def tokens_before(self) -> int: ...
    @property
    def tokens_after(self) -> int: ...


def _coded(prefix: str, code: str, language: str, **fmt: object) -> str:
    key = f"{prefix}{code}"
    return translate(language, key, **fmt) if known(key) else code


def category_name(category: str, language: str) -> str:
    """A category's heading ("File paths")."""
    return _coded("quality.category.", category, language)


def status_name(status: str, language: str) -> str:
    return _coded("quality.status.", status, language)


def match_name(kind: str | None, language: str) -> str:
    return _coded("quality.match.", kind, language) if kind else ""


def reason_words(reason: str, language: str) -> str:
    """Why a compaction has no retention, in one phrase."""
    return _coded("quality.reason.", reason, language)


def kept_of(category: str, tally: Tally, language: str) -> str:
    """ "41/43 files"."""
    return _coded("quality.kept.", category, language, kept=tally.kept, total=tally.total)


def kept_items(scored: ScoredCompaction, language: str, categories: Iterable[str] = CATEGORIES) -> str:
    """ "41/43 files, 12/19 commands" over the categories that had anything to keep; the reason when the
    compaction has no summary text to score."""
    if scored.retention is None:
        return reason_words(scored.reason, language)
    by_category = scored.retention.by_category
    parts = [kept_of(c, by_category[c], language) for c in categories if by_category[c].total]  # type: ignore[index]
    separator = translate(language, "quality.list_separator")
    return separator.join(parts) if parts else translate(language, "quality.nothing_to_keep")


def badge(scored: ScoredCompaction, language: str) -> str:
    """The retention badge beside a before → after number: "kept 29/30 (96.7%)", or why there is none."""
    if scored.retention is None:
        return reason_words(scored.reason, language)
    overall = scored.retention.overall
    if not overall.total:
        return translate(language, "quality.nothing_to_keep")
    return translate(
        language,
        "quality.badge",
        kept=overall.kept,
        total=overall.total,
        share=percent(overall.ratio or 0.0),
        elsewhere=overall.elsewhere,
        lost=overall.lost,
    )


def saved_and_kept(saved: float, scored: ScoredCompaction, language: str) -> str:
    """ "saved 72.0%, kept 41/43 files, 12/19 commands" (or the reason it cannot say what was kept)."""
    if scored.retention is None:
        return translate(
            language,
            "quality.saved_unscored",
            saved=percent(saved),
            reason=reason_words(scored.reason, language),
        )
    return translate(language, "quality.saved_kept", saved=percent(saved), kept=kept_items(scored, language))


def reading_words(reading: Reading, language: str) -> str:
    """One reading a loader made, as a sentence (one form for a count of 1, the other for the rest)."""
    key = f"reading.{reading.code}.{'one' if reading.count == 1 else 'other'}"
    if not known(key):
        return reading.detail or reading.code
    return translate(language, key, count=reading.count, detail=reading.detail)


def count_lines(counts: MessageCounts, language: str) -> list[tuple[str, int]]:
    """The census as (label, number) pairs, unmatched ones only when there are any."""
    values = counts.to_dict()
    return [
        (translate(language, f"census.{name}"), int(values[name]))
        for name in COUNT_FIELDS
        if not name.startswith("unmatched") or values[name]
    ]


def replay_lines(report: ScoreReport, events: Sequence[EventLike], language: str) -> dict[int, str]:
    """For each compacted event of a replay, by its message index: "At message #41: saved 72.0%, kept 41/43
    files, …" (the replay's own tokens before and after; what was kept, or why that cannot be said)."""
    lines: dict[int, str] = {}
    for event, scored in zip(events, report.compactions, strict=False):
        if event.status != "compacted":
            continue
        saved = 1 - event.tokens_after / event.tokens_before if event.tokens_before else 0.0
        text = saved_and_kept(saved, scored, language)
        lines[event.index] = translate(language, "quality.replay_line", index=event.index, text=text)
    return lines
