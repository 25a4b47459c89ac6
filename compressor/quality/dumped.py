"""Scoring compression dumps (ours and openJiuwen's): the span each dump compressed against its summary.

Invariant: a dump's span is ``before[prefix : prefix + compress]`` by its own span counts, numbered within
``before``; the prefix and the tail it kept count as elsewhere; a folder never fails on one bad file.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..dumps import DumpRecord, index_dumps, read_dump
from ..errors import DumpFormatError
from ..tokens import TokenCounter, get_counter
from .compactions import ScoredCompaction, ScoreReport, decay, score_span


def score_dump(
    record: DumpRecord, *, number: int = 0, counter: str | TokenCounter = "cl100k_base"
) -> ScoredCompaction:
    """One dump: what its compressed span held, and what its extracted summary kept of it."""
    priced = get_counter(counter) if isinstance(counter, str) else counter
    before = record.before
    start, end = record.prefix_count, record.prefix_count + record.compress_count
    memory = record.memory_message
    return score_span(
        before[start:end],
        record.extracted_summary,
        offset=start,
        kept=[*before[:start], *before[end:]],
        number=number,
        source="dump",
        origin=Path(record.path).name,
        memory_tokens=priced.message_tokens(memory) if memory is not None else None,
        counter=priced,
    )


def score_dumps(directory: str | os.PathLike[str], *, counter: str | TokenCounter = "cl100k_base") -> ScoreReport:
    """Every readable dump under ``directory`` (or the one file it names), oldest first; broken files are listed
    in ``problems``. Dumps of one session in order make a run, so the report follows the first one's decay."""
    index = index_dumps(directory)
    scored: list[ScoredCompaction] = []
    problems = [dict(item) for item in index.broken]
    for row in index.dumps:
        try:
            record = read_dump(row["path"])
        except DumpFormatError as error:
            problems.append({"path": str(row["path"]), "error": str(error)})
            continue
        scored.append(score_dump(record, number=len(scored), counter=counter))
    sessions = {row["session_id"] for row in index.dumps}
    return ScoreReport(
        compactions=tuple(scored),
        decay=decay(scored) if len(sessions) == 1 else None,
        problems=tuple(problems),
    )
