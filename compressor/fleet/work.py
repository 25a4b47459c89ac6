"""The per-run work of a fleet as pure functions an executor can ship anywhere: a file read, counted and swept
(``process_file``), and a catalogued run swept again from what the catalog keeps (``sweep_kept``).

Invariant: the same task always gives the same result, on any worker (nothing is read but the task's file and
nothing is written); a file's problems come back as its one-line ``error``, never as an exception; a kept run
rebuilt with its catalogued counts sweeps exactly as the file it came from, without tokenising a message again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..analysis import analyze, run_model_of
from ..errors import CompressorError
from ..formats import load_conversations
from ..messages import Conversation, Message
from ..replay import Outcome, sweep
from ..tokens import COUNTER_NAMES, _token_cache, get_counter, profile
from ..windows import resolve_context_max
from .values import FleetGrid, RunRow

#: Read a file to hash it in pieces of this size (a session file can be hundreds of MB).
HASH_CHUNK = 1 << 20
#: The untouched play: the highest trigger and min target a setting may have, so that nearly every run makes
#: no attempt there; a run that does gets no template (its settings are all played).
UNTOUCHED_SETTING = (0.99, 0, 0.95)
#: Columns of a message row, in order (``tokens_<counter>`` is None for a counter the build did not count).
MESSAGE_COLUMNS: tuple[str, ...] = (
    "run_id",
    "part",
    "position",
    "role",
    "role_class",
    *(f"tokens_{name}" for name in COUNTER_NAMES),
    "tool_calls",
    "tool_call_id",
    "paired_position",
    "reported_tokens",
    "chars",
)


@dataclass(frozen=True, kw_only=True)
class FileTask:
    """Catalogue one file: hash it, and when the hash is not ``known_hash``, read, count and sweep it."""

    path: str
    size: int
    mtime_ns: int
    agent: str = ""
    known_hash: str | None = None
    grid: FleetGrid


@dataclass(frozen=True, kw_only=True)
class RunData:
    """One conversation of a file as the catalog keeps it, with its grid's outcomes (in ``grid.settings`` order)."""

    row: RunRow
    messages: dict[str, list[Any]]  # MESSAGE_COLUMNS → one value per message (system first, then context)
    kept: str  # the conversation's JSON: what a later sweep rebuilds it from
    play_key: str
    outcomes: tuple[Outcome, ...]
    template_key: str
    template: Outcome | None  # the run's untouched outcome, when a setting can leave it untouched


@dataclass(frozen=True, kw_only=True)
class FileResult:
    path: str
    size: int
    mtime_ns: int
    hash: str
    counter: str
    error: str | None = None
    unchanged: bool = False  # the hash is the catalog's: nothing was read
    runs: tuple[RunData, ...] = field(default=(), repr=False)

    @property
    def kept_chars(self) -> int:
        return sum(len(run.kept) for run in self.runs)


@dataclass(frozen=True, kw_only=True)
class SweepTask:
    """Sweep one catalogued run again: the kept JSON, its counts under ``grid.counter`` (None: count again)."""

    run_id: str
    kept: str
    counts: tuple[int, ...] | None
    context_max: int
    grid: FleetGrid
    settings: tuple[tuple[float, int, float], ...]  # the settings wanted (a sub-grid is played)
    template: bool = False  # also play the untouched setting


@dataclass(frozen=True, kw_only=True)
class SweepResult:
    run_id: str
    outcomes: tuple[Outcome, ...]  # in the order of the task's settings
    template: Outcome | None = None


def file_hash(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def process_file(task: FileTask) -> FileResult:
    """read → count → sweep → outcome rows, for every conversation the file holds."""
    base = FileResult(
        path=task.path, size=task.size, mtime_ns=task.mtime_ns, hash="", counter=task.grid.counter
    )
    try:
        digest = file_hash(task.path)
    except OSError as error:
        return replace(base, error=f"{task.path}: cannot read the file: {error.strerror or error}")
    if digest == task.known_hash:
        return replace(base, hash=digest, unchanged=True)
    try:
        conversations = load_conversations(Path(task.path))
        runs = tuple(
            run_data(conversation, number, task, digest) for number, conversation in enumerate(conversations)
        )
    except CompressorError as error:
        return replace(base, hash=digest, error=one_line(error))
    except (RecursionError, MemoryError, OSError, ValueError) as error:
        # Not a format error: a reader's bug, or the machine. Either way one line, and the fleet goes on.
        return replace(base, hash=digest, error=f"{task.path}: {type(error).__name__}: {one_line(error)}")
    return replace(base, hash=digest, runs=runs)


def run_data(conversation: Conversation, number: int, task: FileTask, digest: str) -> RunData:
    grid = task.grid
    counter = get_counter(grid.counter)
    capacity = resolve_context_max(grid.context_max, grid.model, run_model=run_model_of(conversation))
    counted = profile(conversation, counter)
    analysis = analyze(conversation, context_max=capacity.tokens, counter=counter)
    run_id = f"{digest[:24]}-{number}"
    agent = conversation.metadata.get("agent")
    row = RunRow(
        run_id=run_id,
        path=task.path,
        conversation=number,
        name=conversation.name,
        format=conversation.source_format,
        agent=agent if isinstance(agent, str) and agent else task.agent or conversation.source_format,
        model=run_model_of(conversation),
        size=task.size,
        mtime_ns=task.mtime_ns,
        hash=digest,
        messages=len(conversation.messages),
        context_tokens=counted.context_tokens,
        system_tokens=sum(counted.system_tokens),
        tools_tokens=counted.tools_tokens,
        window_tokens=analysis.total_tokens,
        window_source=analysis.total_source,
        steps=sum(1 for m in conversation.messages if m.role == "assistant"),
        recorded_compactions=len(conversation.recorded_compactions),
        context_max=capacity.tokens,
        context_max_source=capacity.source,
    )
    outcomes, template = play(conversation, grid, capacity.tokens, grid.settings, template=True)
    return RunData(
        row=row,
        messages=message_columns(conversation, run_id, grid.counter),
        kept=conversation.model_dump_json(),
        play_key=grid.play_key(capacity.tokens),
        outcomes=outcomes,
        template_key=grid.template_key(capacity.tokens),
        template=template,
    )


def play(
    conversation: Conversation,
    grid: FleetGrid,
    context_max: int,
    settings: Sequence[tuple[float, int, float]],
    *,
    template: bool,
) -> tuple[tuple[Outcome, ...], Outcome | None]:
    """The outcomes of ``settings`` (the smallest grid holding them is played once) and the untouched one."""
    outcomes: tuple[Outcome, ...] = ()
    if settings:
        swept = sweep(
            conversation,
            ratios=sorted({s[0] for s in settings}),
            keeps=sorted({s[1] for s in settings}),
            min_targets=sorted({s[2] for s in settings}),
            context_max=context_max,
            counter=grid.counter,
            summary=grid.summary,
        )
        by_key = {outcome.key: outcome for outcome in swept.outcomes}
        outcomes = tuple(by_key[setting] for setting in settings)
    untouched = None
    if template:
        ratio, keep, target = UNTOUCHED_SETTING
        found = sweep(
            conversation,
            ratios=[ratio],
            keeps=[keep],
            min_targets=[target],
            context_max=context_max,
            counter=grid.counter,
            summary="fixed:1",
        ).outcomes[0]
        untouched = found if not found.compactions and not found.refused else None
    return outcomes, untouched


def role_class(message: Message) -> str:
    if message.role == "user":
        return "request" if message.is_real_user else "internal"
    if message.role == "tool":
        return "tool_output"
    return message.role


def message_columns(conversation: Conversation, run_id: str, counter: str) -> dict[str, list[Any]]:
    """One row per message (system first, then context) as columns, with its count under ``counter``."""
    columns: dict[str, list[Any]] = {name: [] for name in MESSAGE_COLUMNS}
    counts = get_counter(counter).message_tokens_many([*conversation.system, *conversation.messages])
    callers: dict[str, int] = {}
    parts = [("system", m) for m in conversation.system] + [("context", m) for m in conversation.messages]
    position_of = [*range(len(conversation.system)), *range(len(conversation.messages))]
    for (part, message), position, tokens in zip(parts, position_of, counts, strict=True):
        if part == "context" and message.role == "assistant":
            for call_id in message.call_ids:
                callers.setdefault(call_id, position)
        paired = callers.get(message.tool_call_id or "", -1) if message.role == "tool" else -1
        row = {
            "run_id": run_id,
            "part": part,
            "position": position,
            "role": message.role,
            "role_class": role_class(message),
            "tool_calls": len(message.tool_calls or ()),
            "tool_call_id": message.tool_call_id,
            "paired_position": paired,
            "reported_tokens": message.reported_total_tokens,
            "chars": len(message.text),
        }
        for name in COUNTER_NAMES:
            row[f"tokens_{name}"] = tokens if name == counter else None
        for name in MESSAGE_COLUMNS:
            columns[name].append(row[name])
    return columns


def rebuild(kept: str, counter: str, counts: Sequence[int] | None) -> Conversation:
    """The catalogued conversation, its messages already counted under ``counter`` when ``counts`` are given."""
    conversation = Conversation.model_validate_json(kept)
    messages = [*conversation.system, *conversation.messages]
    if counts is not None and len(counts) == len(messages):
        for message, tokens in zip(messages, counts, strict=True):
            # The count the build made for this very message: the token cache is what profile() reads.
            _token_cache(message)[counter] = int(tokens)
    return conversation


def sweep_kept(task: SweepTask) -> SweepResult:
    """A catalogued run swept again with other settings, from the kept JSON and counts (no file is read)."""
    conversation = rebuild(task.kept, task.grid.counter, task.counts)
    outcomes, template = play(
        conversation, task.grid, task.context_max, task.settings, template=task.template
    )
    return SweepResult(run_id=task.run_id, outcomes=outcomes, template=template)
