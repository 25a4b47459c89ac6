"""What the compactions on show kept, scored once: a dump by its file's version, and the live result, a loaded
run's recorded compactions and a replay's compactions by the very value they were scored from.

Invariant: a score never outlives its data: dump scores are keyed by path, mtime, size and counter; the others
are kept beside the object they scored and handed out only while that object is the one asked about.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import streamlit as st

from compressor.compaction_result import CompactionResult
from compressor.messages import Conversation
from compressor.quality import (
    ScoredCompaction,
    ScoreReport,
    score_dump,
    score_recorded,
    score_replay,
    score_result,
)
from compressor.replay import Simulation

from . import dumps, keys

_Value = TypeVar("_Value")
#: Scores kept beside their objects: a few per kind are enough (the pages show one result, run, replay).
KEPT_PER_KIND = 8


def dump_score(path: str, counter: str) -> ScoredCompaction:
    """``score_dump`` of the dump at ``path``, once per version of the file and counter."""
    stat = Path(path).stat()
    return _dump_score(path, stat.st_mtime_ns, stat.st_size, counter)


@st.cache_resource(max_entries=512, show_spinner=False)
def _dump_score(path: str, mtime_ns: int, size: int, counter: str) -> ScoredCompaction:
    del mtime_ns, size  # part of the cache key only (dump_record reads the file's version again)
    return score_dump(dumps.dump_record(path), counter=counter)


def _beside(kind: str, subject: Any, extra: tuple[object, ...], make: Callable[[], _Value]) -> _Value:
    """The score of ``subject`` (the object itself, compared by identity) made once and kept beside it."""
    store: dict[str, list[tuple[Any, tuple[object, ...], Any]]] = st.session_state.setdefault(
        keys.K_QUALITY, {}
    )
    kept = store.setdefault(kind, [])
    for held, held_extra, value in kept:
        if held is subject and held_extra == extra:
            return value
    value = make()
    kept.append((subject, extra, value))
    del kept[:-KEPT_PER_KIND]
    return value


def result_score(result: CompactionResult, counter: str) -> ScoredCompaction:
    """``score_result`` of a live or re-run compaction result."""
    return _beside("result", result, (counter,), lambda: score_result(result, counter=counter))


def recorded_score(conversation: Conversation, counter: str) -> ScoreReport:
    """The agent's own recorded compactions of ``conversation``, each scored against the span it replaced."""
    return _beside(
        "recorded", conversation, (counter,), lambda: score_recorded(conversation, counter=counter)
    )


def replay_score(conversation: Conversation, simulation: Simulation) -> ScoreReport:
    """The compactions of ``simulation`` (a replay of ``conversation``), scored where they have text."""
    return _beside("replay", simulation, (id(conversation),), lambda: score_replay(conversation, simulation))
