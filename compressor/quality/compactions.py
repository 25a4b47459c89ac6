"""Scoring one compaction — a span against its summary, or the live compactor's result — and a report over many,
with the decay of the first memory block through the later ones.

Invariant: a scored compaction names its span ``[start, end)`` in the messages it was cut from, and its
``retention`` is None exactly when there is no summary text to score (``reason`` says why, as a code).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..evidence.artifacts import CATEGORIES, Artifact, Category, Ledger
from ..evidence.ledger import build_ledger, command_of, named_paths
from ..evidence.matching import SummaryIndex, match, path_depths
from ..messages import Conversation, Message
from ..prompt import memory_message
from ..tokens import TokenCounter, get_counter
from .retention import Retention, Tally, macro, score

#: Why a compaction has no retention: its replay sized summaries without writing any, it did not compact, …
NO_TEXT = "no_summary_text"


def evidence_text(messages: Sequence[Message]) -> str:
    """What kept messages show a reader: their text, and each call's name, command and named paths."""
    pieces: list[str] = []
    for message in messages:
        pieces.append(message.text)
        for call in message.tool_calls or ():
            pieces.append(call.name)
            command = command_of(call)
            if command:
                pieces.append(command)
            pieces.extend(named_paths(call.parsed_arguments()))
    return "\n".join(piece for piece in pieces if piece)


@dataclass(frozen=True, kw_only=True)
class ScoredCompaction:
    """One compaction: the span it replaced, what that span held (the ledger), and what the summary kept."""

    number: int  # its place among the compactions scored together, from 0
    index: int  # where it sits: the summary message (recorded), the call point (replay), else the span start
    source: str  # "recorded", "offline", "live", "result", "dump" or "replay"
    origin: str  # who wrote the summary: an agent, a backend label, a dump file name
    span: tuple[int, int]
    span_tokens: int
    summary: str | None
    summary_tokens: int
    memory_tokens: int  # the message carrying the summary (the memory block, or the agent's own message)
    ledger: Ledger
    retention: Retention | None
    reason: str = ""  # why retention is None ("" when scored)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "number": self.number,
            "index": self.index,
            "source": self.source,
            "origin": self.origin,
            "span": list(self.span),
            "span_tokens": self.span_tokens,
            "summary_tokens": self.summary_tokens,
            "memory_tokens": self.memory_tokens,
            "summary": self.summary,
            "reason": self.reason,
            "ledger": self.ledger.counts(),
        }
        if self.retention is not None:
            out.update(self.retention.to_dict())
        else:
            out.update({"retention": None, "lost": None, "overall": None})
        return out


@dataclass(frozen=True, kw_only=True)
class DecayStep:
    """How much of the first memory block's kept artifacts one later compaction still holds."""

    number: int
    index: int
    tallies: dict[Category, Tally]

    @property
    def overall(self) -> Tally:
        total = Tally()
        for tally in self.tallies.values():
            total = total + tally
        return total

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "index": self.index,
            "retention": {category: tally.to_dict() for category, tally in self.tallies.items()},
            "overall": self.overall.to_dict(),
        }


@dataclass(frozen=True, kw_only=True)
class Decay:
    """The artifacts the first scored compaction kept, followed through the later ones (their ``kept`` counts
    the summary; ``elsewhere`` the messages that compaction kept, e.g. a prefix still holding the first block)."""

    first: int  # the number of the compaction followed
    followed: tuple[Artifact, ...]
    steps: tuple[DecayStep, ...]

    def to_dict(self) -> dict[str, Any]:
        counts = dict.fromkeys(CATEGORIES, 0)
        for item in self.followed:
            counts[item.category] += 1
        return {"first": self.first, "followed": counts, "steps": [step.to_dict() for step in self.steps]}


def decay(compactions: Sequence[ScoredCompaction], kept_texts: Sequence[str] = ()) -> Decay | None:
    """The first scored compaction's kept artifacts matched against every later summary; ``kept_texts[k]`` is
    what compaction k kept besides its summary (default: nothing). None without two scored compactions."""
    scored = [c for c in compactions if c.retention is not None and c.summary is not None]
    if len(scored) < 2:
        return None
    first = scored[0]
    assert first.retention is not None
    followed = tuple(item.artifact for item in first.retention.items if item.status == "kept")
    depths = path_depths(first.ledger.items)
    steps: list[DecayStep] = []
    for later in scored[1:]:
        assert later.summary is not None
        summary = SummaryIndex(later.summary)
        extra = kept_texts[later.number] if later.number < len(kept_texts) else ""
        elsewhere = SummaryIndex(extra) if extra.strip() else None
        counts = {category: [0, 0, 0, 0] for category in CATEGORIES}
        for artifact in followed:
            row = counts[artifact.category]
            row[0] += 1
            found = match(artifact, summary, depths)
            if found is not None:
                row[1] += 1
                row[2] += found == "exact"
            elif elsewhere is not None and match(artifact, elsewhere, depths) is not None:
                row[3] += 1
        tallies = {c: Tally(total=t, kept=k, exact=e, elsewhere=w) for c, (t, k, e, w) in counts.items()}
        steps.append(DecayStep(number=later.number, index=later.index, tallies=tallies))
    return Decay(first=first.number, followed=followed, steps=tuple(steps))


@dataclass(frozen=True)
class ScoreReport:
    """Compactions scored together (one run, or one dump folder), their sums and the first block's decay."""

    compactions: tuple[ScoredCompaction, ...]
    decay: Decay | None = None
    problems: tuple[dict[str, str], ...] = ()  # {path, error} of inputs that could not be scored

    @property
    def tallies(self) -> dict[Category, Tally]:
        totals = {category: Tally() for category in CATEGORIES}
        for compaction in self.compactions:
            if compaction.retention is not None:
                for category, tally in compaction.retention.by_category.items():
                    totals[category] = totals[category] + tally
        return totals

    @property
    def overall(self) -> Tally:
        total = Tally()
        for tally in self.tallies.values():
            total = total + tally
        return total

    def to_dict(self) -> dict[str, Any]:
        tallies = self.tallies
        scored = [c for c in self.compactions if c.retention is not None]
        mean = macro(tallies)
        return {
            "compactions": [c.to_dict() for c in self.compactions],
            "overall": {
                "compactions": len(self.compactions),
                "scored": len(scored),
                "span_tokens": sum(c.span_tokens for c in scored),
                "summary_tokens": sum(c.summary_tokens for c in scored),
                "memory_tokens": sum(c.memory_tokens for c in scored),
                "retention": {category: tally.to_dict() for category, tally in tallies.items()},
                **self.overall.to_dict(),
                "macro": round(mean, 4) if mean is not None else None,
            },
            "decay": self.decay.to_dict() if self.decay is not None else None,
            "problems": [dict(p) for p in self.problems],
        }


def _counter(counter: str | TokenCounter) -> TokenCounter:
    return get_counter(counter) if isinstance(counter, str) else counter


def score_span(
    messages: Sequence[Message],
    summary: str | None,
    *,
    offset: int = 0,
    kept: Sequence[Message] = (),
    carriers: Collection[int] = (),
    number: int = 0,
    index: int | None = None,
    source: str = "offline",
    origin: str = "",
    memory_tokens: int | None = None,
    reason: str = "",
    counter: str | TokenCounter = "cl100k_base",
) -> ScoredCompaction:
    """The ledger of ``messages`` (numbered from ``offset``) scored against ``summary``; artifacts still in the
    ``kept`` messages count as elsewhere. ``memory_tokens`` defaults to our memory block around the summary."""
    priced = _counter(counter)
    ledger = build_ledger(messages, offset=offset, carriers=carriers)
    text = summary if summary is not None and summary.strip() else None
    retention = score(ledger, text, kept_text=evidence_text(kept)) if text is not None else None
    if memory_tokens is None:
        memory_tokens = priced.message_tokens(memory_message(text)) if text is not None else 0
    return ScoredCompaction(
        number=number,
        index=offset if index is None else index,
        source=source,
        origin=origin,
        span=(offset, offset + len(messages)),
        span_tokens=priced.count(messages),
        summary=text,
        summary_tokens=priced.tok(text) if text is not None else 0,
        memory_tokens=memory_tokens,
        ledger=ledger,
        retention=retention,
        reason="" if text is not None else (reason or NO_TEXT),
    )


class CompactionLike(Protocol):
    """What scoring reads of a ``CompactionResult`` (the live compactor's result)."""

    @property
    def status(self) -> str: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def span_counts(self) -> tuple[int, int, int]: ...
    @property
    def backend_label(self) -> str: ...
    @property
    def memory_tokens(self) -> int: ...
    @property
    def analysis(self) -> Any: ...


def score_result(result: CompactionLike, *, counter: str | TokenCounter = "cl100k_base") -> ScoredCompaction:
    """The live compactor's result: its compressed span (after any shrink) against its summary; the prefix and
    tail it kept count as elsewhere. A result that did not compact says so in ``reason`` (its status)."""
    conversation: Conversation = result.analysis.conversation
    messages = conversation.messages
    prefix, compress, _ = result.span_counts
    end = prefix + compress
    return score_span(
        messages[prefix:end],
        result.summary,
        offset=prefix,
        kept=[*messages[:prefix], *messages[end:]],
        carriers={c.index for c in conversation.recorded_compactions},
        source="result",
        origin=result.backend_label,
        memory_tokens=result.memory_tokens if result.status == "compacted" else None,
        reason="" if result.status == "compacted" else result.status,
        counter=counter,
    )
