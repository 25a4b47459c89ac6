"""The per-run work of a fleet as pure functions an executor can ship anywhere: a file read, counted and swept
(``process_file``), and a catalogued run swept again from what the catalog keeps (``sweep_kept``).

Invariant: the same task always gives the same result, on any worker (nothing is read but the task's file and
nothing is written); a file's problems come back as its one-line ``error``, never as an exception; a kept run
rebuilt with its catalogued counts sweeps exactly as the file it came from, without tokenising a message again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic_core import PydanticSerializationError

from ..analysis import analyze, run_model_of, run_window_of
from ..config import CurrentRoundCompressorConfig
from ..errors import CompressorError
from ..formats import load_conversations
from ..formats.tallies import WAL_SUFFIX, write_ahead_log
from ..jsontext import writable_value
from ..message_storage import keep_count
from ..messages import Conversation
from ..quality import score_replay
from ..replay import Outcome, SummaryModel, simulate
from ..tokens import get_counter, profile
from ..windows import resolve_context_max
from .figures import Cell
from .plays import bill as bill  # the per-run work's billing, where the fleet has always found it
from .plays import cell, play
from .rows import SCHEMAS, known_key_guard, line, message_lines, outcome_lines, template_line
from .values import Bill, FleetGrid, RunRow, SettingKey

#: zlib's fastest level: the kept JSON shrinks about fivefold for a few percent of the build.
KEPT_LEVEL = 1
#: Read a file to hash it in pieces of this size (a session file can be hundreds of MB).
HASH_CHUNK = 1 << 20


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
    counts: tuple[int, ...]  # each message's tokens under the grid's counter (system first, then context)
    kept: bytes  # the conversation's JSON, compressed: what a later sweep rebuilds it from
    play_key: str
    outcomes: tuple[Outcome, ...]
    template_key: str
    template: Outcome | None  # the run's untouched outcome, when a setting can leave it untouched
    #: the catalog's rows, as JSON lines: runs (one), messages, outcomes (the grid's and the template)
    lines: dict[str, str] = field(default_factory=dict, repr=False, compare=False)


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
    def kept_bytes(self) -> int:
        return sum(len(run.kept) for run in self.runs)


@dataclass(frozen=True, kw_only=True)
class SweepTask:
    """Sweep one catalogued run again: the kept JSON, its counts under ``grid.counter`` (None: count again)."""

    run_id: str
    kept: bytes
    counts: tuple[int, ...] | None
    context_max: int
    grid: FleetGrid
    settings: tuple[tuple[float, int, float], ...]  # the settings wanted (a sub-grid is played)
    template: bool = False  # also play the untouched setting


@dataclass(frozen=True, kw_only=True)
class SweepResult:
    run_id: str
    outcomes: tuple[Outcome, ...]  # in the order of the task's settings
    bills: tuple[Bill, ...] = ()
    template: Outcome | None = None
    template_bill: Bill | None = None
    lines: str = field(
        default="", repr=False, compare=False
    )  # the outcome rows (and template), as JSON lines


@dataclass(frozen=True, kw_only=True)
class SweptCells:
    """A ``SweepResult`` as the fleet's table takes it: per setting its cell and what its compactions summarised
    (span and summary tokens), with the rows. The outcomes stay with the worker (the rows hold them): a few numbers
    a setting cross to the parent instead of a whole outcome each."""

    run_id: str
    settings: tuple[SettingKey, ...]
    cells: tuple[Cell, ...]
    summarised: tuple[tuple[int | None, int | None], ...]
    lines: str = field(default="", repr=False)


def file_hash(path: str) -> str:
    """sha256 of the file's bytes (and of its write-ahead log's, when it has a non-empty one); for a store folder,
    of every file's relative path and bytes, in name order."""
    digest = hashlib.sha256()
    if os.path.isdir(path):
        for root, folders, files in os.walk(path, followlinks=False):
            folders.sort()
            for name in sorted(files):
                member = os.path.join(root, name)
                if os.path.islink(member) or not os.path.isfile(member):
                    continue
                digest.update(os.path.relpath(member, path).encode("utf-8", "surrogateescape") + b"\0")
                _digest_file(digest, member)
        return digest.hexdigest()
    _digest_file(digest, path)
    log = write_ahead_log(Path(path))
    # An SQLite store in WAL mode: its newest writes are in the log until a checkpoint (an empty log adds nothing,
    # so the hash is the database's alone, as a file without one has; a log checkpointed away meanwhile too).
    with contextlib.suppress(FileNotFoundError):
        if log is not None and os.path.getsize(log):
            digest.update(b"\0" + WAL_SUFFIX.encode() + b"\0")
            _digest_file(digest, str(log))
    return digest.hexdigest()


def _digest_file(digest: Any, path: str) -> None:
    with open(path, "rb") as handle:
        while chunk := handle.read(HASH_CHUNK):
            digest.update(chunk)


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
    recorded_window = run_window_of(conversation)
    capacity = resolve_context_max(
        grid.context_max, grid.model, run_model=run_model_of(conversation), run_window=recorded_window
    )
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
        recorded_window=recorded_window,
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
    played = play(conversation, grid, capacity.tokens, grid.settings, template=True)
    messages, counts = message_lines(conversation, run_id, grid.counter)
    play_key, template_key = grid.play_key(capacity.tokens), grid.template_key(capacity.tokens)
    runs = line(
        "runs",
        **{name: getattr(row, name) for name in SCHEMAS["runs"] if hasattr(row, name)},
        counter=grid.counter,
    )
    return RunData(
        row=row,
        counts=counts,
        kept=zlib.compress(kept_json(conversation), KEPT_LEVEL),
        play_key=play_key,
        outcomes=played.outcomes,
        template_key=template_key,
        template=played.template,
        lines={
            "runs": runs + "\n",
            "messages": messages,
            "outcomes": outcome_lines(run_id, play_key, grid.settings, played.outcomes, played.bills)
            + template_line(run_id, template_key, played.template, played.template_bill),
        },
    )


def kept_json(conversation: Conversation) -> bytes:
    """The conversation as the catalog keeps it: without any form of the key the process knows (``API_KEY``), and
    with a lone surrogate written ``\\udXXX`` (JSON text cannot carry one; the run reads as the dashboard shows it).
    Only the fields the reader set are written: rebuilt, the run has the same fields set (and 10% fewer bytes)."""
    try:
        text = conversation.model_dump_json(exclude_unset=True)
    except PydanticSerializationError:
        dumped = conversation.model_dump(mode="json", exclude_unset=True)
        text = json.dumps(writable_value(dumped), ensure_ascii=False)
    return known_key_guard().scrub(text).encode()


@dataclass(frozen=True, kw_only=True)
class RetentionTask:
    """Score what one setting's compactions keep on one catalogued run."""

    run_id: str
    kept: bytes
    counts: tuple[int, ...] | None
    context_max: int
    grid: FleetGrid
    setting: tuple[float, int, float]


def retention_of(task: RetentionTask) -> tuple[str, float | None]:
    """The run's retention under the setting: measured with offline summaries, else the summary size model's
    share of each compacted span (None when nothing compacts or nothing could be scored)."""
    grid = task.grid
    conversation = rebuild(task.kept, grid.counter, task.counts)
    ratio, keep, target = task.setting
    config = CurrentRoundCompressorConfig(
        trigger_context_ratio=ratio, keep_recent_messages=keep, min_target_context_ratio=target
    )
    simulation = simulate(
        conversation, config, context_max=task.context_max, counter=grid.counter, summary=grid.summary
    )
    compacted = [event for event in simulation.events if event.status == "compacted"]
    if not compacted:
        return task.run_id, None
    if SummaryModel.parse(grid.summary).kind == "offline":
        measured = score_replay(conversation, simulation).to_dict()["overall"]["macro"]
        return task.run_id, measured if isinstance(measured, float) else None
    spans = sum(event.compress_tokens for event in compacted)
    return task.run_id, round(sum(event.summary_tokens for event in compacted) / spans, 4) if spans else None


def rebuild(kept: bytes, counter: str, counts: Sequence[int] | None) -> Conversation:
    """The catalogued conversation, its messages already counted under ``counter`` when ``counts`` are given."""
    conversation = Conversation.model_validate_json(zlib.decompress(kept))
    messages = [*conversation.system, *conversation.messages]
    if counts is not None and len(counts) == len(messages):
        for message, tokens in zip(messages, counts, strict=True):
            # The count the build made for this very message, kept where profile() reads it.
            keep_count(message, counter, int(tokens))
    return conversation


def sweep_kept(task: SweepTask) -> SweepResult:
    """A catalogued run swept again with other settings, from the kept JSON and counts (no file is read)."""
    grid = task.grid
    conversation = rebuild(task.kept, grid.counter, task.counts)
    played = play(conversation, grid, task.context_max, task.settings, template=task.template)
    lines = outcome_lines(
        task.run_id, grid.play_key(task.context_max), task.settings, played.outcomes, played.bills
    )
    if task.template:
        lines += template_line(
            task.run_id, grid.template_key(task.context_max), played.template, played.template_bill
        )
    return SweepResult(
        run_id=task.run_id,
        outcomes=played.outcomes,
        bills=played.bills,
        template=played.template,
        template_bill=played.template_bill,
        lines=lines,
    )


def sweep_cells(task: SweepTask) -> SweptCells:
    """``sweep_kept`` as the fleet's sweep ships it back (see ``SweptCells``)."""
    result = sweep_kept(task)
    return SweptCells(
        run_id=result.run_id,
        settings=tuple(outcome.key for outcome in result.outcomes),
        cells=tuple(map(cell, result.outcomes, result.bills)),
        summarised=tuple((bill.span_tokens, bill.summary_tokens) for bill in result.bills),
        lines=result.lines,
    )
