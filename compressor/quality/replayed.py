"""Scoring the compactions of a replay (``simulate()``), and how much of the first memory block the later ones keep.

Invariant: the contexts are rebuilt from the simulation's own events (each compacted event's span replaced by its
memory block, as playback does); offline summaries are rebuilt with the same offline backend and checked
against the token counts the replay recorded; summaries the replay only sized (``fixed:``/``ratio:``) or got
from a live model (not kept in its events) have no text, and say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..backends import offline as offline_backend
from ..markers import FILE_LINE, RECOVERED_CLOSE, RECOVERED_OPEN
from ..messages import Conversation, Message
from ..prompt import build_prompt, extract_summary, memory_message
from ..reinjection import build_reinjection
from ..tokens import get_counter
from .compactions import ScoredCompaction, ScoreReport, decay, evidence_text, score_span

#: Why a replayed compaction has no retention.
SIZED = "sized_summary"  # fixed:N or ratio:X: a size, no text
LIVE = "live_summary_not_recorded"  # a live model answered; the simulation keeps only the summary's size
MISMATCH = "replay_mismatch"  # the rebuilt context or summary differs from what the replay recorded
REFUSED = "not_compacted"  # the attempt was refused (its event says why)


class EventLike(Protocol):
    """What scoring reads of a replay's ``CompactionEvent``."""

    @property
    def index(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def span(self) -> tuple[int, int, int]: ...
    @property
    def summary_tokens(self) -> int: ...
    @property
    def reinjected_files(self) -> tuple[str, ...]: ...
    @property
    def reinjection_tokens(self) -> int: ...


class SimulationLike(Protocol):
    """What scoring reads of a ``Simulation``."""

    @property
    def summary(self) -> str: ...
    @property
    def counter(self) -> str: ...
    @property
    def events(self) -> Sequence[EventLike]: ...
    @property
    def read_tools(self) -> tuple[str, ...]: ...


def recovered_stand_in(files: Sequence[str]) -> Message:
    """A recovered-context message naming the files a replayed compaction re-added, when it cannot be rebuilt:
    the paths it names stay visible to the decay."""
    body = "\n".join(f"{FILE_LINE}{path}" for path in files)
    return Message(role="user", content=f"{RECOVERED_OPEN}\n{body}\n{RECOVERED_CLOSE}")


def score_replay(conversation: Conversation, simulation: SimulationLike) -> ScoreReport:
    """Every compaction attempt of ``simulation`` (a replay of ``conversation``), scored where it has text.

    Message indexes are those of the context at each attempt (the rebuilt context, memory blocks included), so
    they match the original run's only up to the first compaction.
    """
    counter = get_counter(simulation.counter)
    kind = simulation.summary.partition(":")[0]
    prompt = Message(role="user", content=build_prompt(None))
    messages = conversation.messages
    held: list[Message] = []
    resume_at = 0  # the original messages from here on follow ``held`` in order
    scored: list[ScoredCompaction] = []
    kept_texts: list[str] = []
    broken = False
    for number, event in enumerate(simulation.events):
        context = [*held, *messages[resume_at : event.index]]
        prefix, compress, tail = event.span
        end = prefix + compress
        broken = broken or prefix + compress + tail != len(context)
        span, kept = context[prefix:end], [*context[:prefix], *context[end:]]
        summary: str | None = None
        reason = ""
        if broken:
            reason = MISMATCH
        elif kind == "offline":
            summary = extract_summary(
                offline_backend.build_reply(
                    [*conversation.system, *context[:end], prompt], conversation.tools
                )
            )
            if counter.tok(summary) != event.summary_tokens:
                summary, reason, broken = None, MISMATCH, True
        else:
            reason = LIVE if kind == "live" else SIZED
        if event.status != "compacted":
            summary, reason = None, reason or REFUSED
        memory = memory_message(summary if summary is not None else "")
        added: list[Message] = []
        if event.reinjection_tokens and event.status == "compacted":
            rebuilt = build_reinjection(
                context, [*context[:prefix], memory, *context[end:]], read_tools=simulation.read_tools
            )
            if rebuilt is not None and tuple(f.path for f in rebuilt.files) == tuple(event.reinjected_files):
                added = [rebuilt.message]
            else:
                added = [recovered_stand_in(event.reinjected_files)]
                broken = broken or kind == "offline"  # later offline summaries would read another request
        scored.append(
            score_span(
                span,
                summary,
                offset=prefix,
                kept=[*added, *kept],
                number=number,
                index=event.index,
                source="replay",
                origin=simulation.summary,
                reason=reason,
                counter=counter,
            )
        )
        kept_texts.append(evidence_text([*added, *kept]))
        if event.status == "compacted" and not broken:
            held = [*context[:prefix], memory, *added, *context[end:]]
            resume_at = event.index
    return ScoreReport(compactions=tuple(scored), decay=decay(scored, kept_texts))
