"""Where compactions happened and what was written there: the compactions an agent recorded in its own run and
the compression dumps (ours and openJiuwen's), each as a site — its span, what it kept, and its summary.

Invariant: a recorded compaction's span runs from the previous recorded compaction's summary message (or the
start) up to its own summary message; a dump's span is ``before[prefix : prefix + compress]``, numbered within
``before``. Sites are read, never changed; a dump folder never fails on one bad file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..dumps import DumpRecord, index_dumps, read_dump
from ..errors import DumpFormatError
from ..messages import Conversation, Message, ToolDef
from ..run_records import KEPT_BY_COMPACTION
from ..tokens import TokenCounter, get_counter
from .compactions import ScoredCompaction, ScoreReport, decay, score_span


@dataclass(frozen=True, kw_only=True)
class Site:
    """One compaction as found: the messages it replaced, those it kept, and the summary it was given."""

    number: int
    index: int  # the summary message (recorded) or the span start (dump)
    source: str  # "recorded" or "dump"
    origin: str  # the agent that recorded it, or the dump file's name
    span: tuple[Message, ...]
    offset: int  # index of the span's first message in the messages it was cut from
    kept: tuple[Message, ...] = ()
    carriers: frozenset[int] = (
        frozenset()
    )  # indexes (with the offset) of messages carrying an earlier summary
    summary: str = ""
    carrier: Message | None = None  # the message the summary sits in (the agent's own, or the memory block)
    system: tuple[Message, ...] = ()
    tools: tuple[ToolDef, ...] = field(default=(), repr=False)
    session: str = ""  # the dump's session id ("" for recorded ones)

    @property
    def end(self) -> int:
        return self.offset + len(self.span)

    def request(self) -> list[Message]:
        """The messages a compaction of this span sends before its prompt: system, then the span."""
        return [*self.system, *self.span]


def recorded_spans(conversation: Conversation) -> list[tuple[int, int]]:
    """For each recorded compaction, the span ``[start, end)`` it replaced."""
    spans: list[tuple[int, int]] = []
    start = 0
    for compaction in conversation.recorded_compactions:
        spans.append((start, max(compaction.index, start)))
        start = compaction.index
    return spans


def recorded_sites(conversation: Conversation) -> list[Site]:
    """Every compaction the agent recorded in ``conversation``, oldest first."""
    messages = conversation.messages
    carriers = frozenset(c.index for c in conversation.recorded_compactions)
    return [
        Site(
            number=number,
            index=compaction.index,
            source="recorded",
            origin=compaction.source,
            span=tuple(messages[start:end]),
            offset=start,
            kept=_kept_beside(messages, compaction.index),
            carriers=carriers,
            summary=compaction.summary,
            carrier=messages[compaction.index] if compaction.index < len(messages) else None,
            system=tuple(conversation.system),
            tools=tuple(conversation.tools),
        )
        for number, (compaction, (start, end)) in enumerate(
            zip(conversation.recorded_compactions, recorded_spans(conversation), strict=True)
        )
    ]


def _kept_beside(messages: Sequence[Message], index: int) -> tuple[Message, ...]:
    """The messages the compaction whose summary is at ``index`` kept verbatim: those marked so by the reader
    (``KEPT_BY_COMPACTION``) on either side of the summary, as the agent sent them with it."""

    def marked(at: int) -> bool:
        return 0 <= at < len(messages) and KEPT_BY_COMPACTION in (messages[at].metadata or {})

    start, end = index, index + 1
    while marked(start - 1):
        start -= 1
    while marked(end):
        end += 1
    return (*messages[start:index], *messages[index + 1 : end])


def dump_site(record: DumpRecord, number: int = 0) -> Site:
    """One dump: its compressed span, the prefix and tail it kept, and its extracted summary."""
    before = record.before
    start, end = record.prefix_count, record.prefix_count + record.compress_count
    return Site(
        number=number,
        index=start,
        source="dump",
        origin=Path(record.path).name,
        span=tuple(before[start:end]),
        offset=start,
        kept=(*before[:start], *before[end:]),
        summary=record.extracted_summary,
        carrier=record.memory_message,
        system=tuple(record.system_messages),
        tools=tuple(record.tools),
        session=record.session_id,
    )


def dump_sites(directory: str | os.PathLike[str]) -> tuple[list[Site], list[dict[str, str]]]:
    """Every readable dump under ``directory`` (or the one file it names), oldest first, and the unreadable
    files as ``{path, error}``."""
    index = index_dumps(directory)
    sites: list[Site] = []
    problems = [dict(item) for item in index.broken]
    for row in index.dumps:
        try:
            record = read_dump(row["path"])
        except DumpFormatError as error:
            problems.append({"path": str(row["path"]), "error": str(error)})
            continue
        sites.append(dump_site(record, len(sites)))
    return sites, problems


def score_site(
    site: Site,
    summary: str | None = None,
    *,
    source: str | None = None,
    origin: str | None = None,
    reason: str = "",
    counter: str | TokenCounter = "cl100k_base",
) -> ScoredCompaction:
    """The site's span scored against ``summary`` (default: the summary written there, priced by its carrier)."""
    priced = get_counter(counter) if isinstance(counter, str) else counter
    own = summary is None
    text = site.summary if own else summary
    return score_span(
        site.span,
        text,
        offset=site.offset,
        kept=site.kept,
        carriers=site.carriers,
        number=site.number,
        index=site.index,
        source=site.source if source is None else source,
        origin=site.origin if origin is None else origin,
        memory_tokens=priced.message_tokens(site.carrier) if own and site.carrier is not None else None,
        reason=reason,
        counter=priced,
    )


def report_of(
    sites: Sequence[Site],
    scored: Sequence[ScoredCompaction],
    problems: Sequence[dict[str, str]] = (),
    *,
    chain: bool = True,
) -> ScoreReport:
    """The report over scored sites, with the first memory block's decay when the summaries form one chain: one
    run (one session), each summary written over the one before (not re-summaries of the spans)."""
    one_run = chain and len({site.session for site in sites}) <= 1
    return ScoreReport(
        compactions=tuple(scored), decay=decay(scored) if one_run else None, problems=tuple(problems)
    )


def score_recorded(conversation: Conversation, *, counter: str | TokenCounter = "cl100k_base") -> ScoreReport:
    """Every compaction the agent recorded, its own summary scored against the span it replaced."""
    sites = recorded_sites(conversation)
    return report_of(sites, [score_site(site, counter=counter) for site in sites])


def score_dump(
    record: DumpRecord, *, number: int = 0, counter: str | TokenCounter = "cl100k_base"
) -> ScoredCompaction:
    """One dump: what its compressed span held, and what its extracted summary kept of it."""
    return score_site(dump_site(record, number), counter=counter)


def score_dumps(
    directory: str | os.PathLike[str], *, counter: str | TokenCounter = "cl100k_base"
) -> ScoreReport:
    """Every readable dump under ``directory``, oldest first; broken files are listed in ``problems``."""
    sites, problems = dump_sites(directory)
    return report_of(sites, [score_site(site, counter=counter) for site in sites], problems)
