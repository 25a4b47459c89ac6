"""Detect an input's format and load the conversations it holds.

Invariant: ``load_conversations`` returns at least one Conversation or raises ConversationFormatError
with one line ``<source>: <problem>``; no other exception escapes for bad input, and inputs are only read.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from pydantic import ValidationError

from compressor.errors import ConversationFormatError
from compressor.formats.lines import Lines, Values
from compressor.formats.parquet import read_parquet
from compressor.formats.problems import FormatProblem, Loc, problem_from_validation, type_name
from compressor.formats.registry import READERS, read_store, reader_for
from compressor.formats.shape import Shape
from compressor.formats.source import MAX_DEPTH, Source, read_source
from compressor.formats.stores import Store, open_store
from compressor.message_pack import MessagePack
from compressor.messages import Conversation, Reading

#: Values of ``Conversation.source_format`` a loader sets.
FORMAT_NAMES: tuple[str, ...] = (
    "openjiuwen",
    "openai",
    "jsonl",
    "anthropic",
    "claude-code",
    "engram",
    "swe-agent",
    "swe-agent-text",
    "mini-swe-agent",
    "traj-records",
    "trajectory-rows",
    "cline",
    "codex",
    "codex-exec",
    "codex-exec-legacy",
    "openai-responses",
    "langchain",
    "pydantic-ai",
    "ai-sdk",
    "ai-sdk-ui",
    "openai-agents-sqlite",
    "gemini-cli",
    "gemini-cli-stream",
    "gemini-history",
    "qwen-code",
    "openhands",
    "openhands-sdk",
    "opencode",
    "opencode-run",
    "antigravity",
    "atif",
    "openjiuwen-trajectory",
    "harbor-traces",
    "otel-genai",
    "goose",
    "continue",
    "crush",
    "cursor",
    "copilot-chat",
    "amazon-q",
)


def load_conversations(source: Source | Store, *, name: str | None = None) -> list[Conversation]:
    """Every conversation a source holds (a path, JSON/JSONL text or bytes, a list or a dict, or a Store that
    ``stores.open_store`` opened, read as it is without looking at its file again).

    ``name`` stands for the source in error messages and conversation names (e.g. an uploaded file's name).
    """
    _, conversations = _load(source, name)
    return conversations


def load_conversation(source: Source | Store, *, name: str | None = None) -> Conversation:
    """The one conversation a source holds; a source with several is an error naming how many."""
    label, conversations = _load(source, name)
    if len(conversations) != 1:
        raise ConversationFormatError(
            label, f"holds {len(conversations)} conversations; use load_conversations to read them all"
        )
    return conversations[0]


def _settled(conversation: Conversation) -> Conversation:
    """The run as it is shown, whole: reported usage after the agent's own first compaction measured the window
    the agent had *after* compacting, not this one, so it is marked stale (SPEC §6) with a reading that says so.

    A run that opens with its compaction is the compacted history itself (the Continue CLI saves only that, a
    saved Amazon Q state after /compact too), or where no reply comes before it (a Terminus continuation opens
    with the task prompt it kept, then the summary): nothing the compaction replaced is shown, so the usage after
    it measured the window shown here and stays as it is."""
    if not conversation.recorded_compactions:
        return conversation
    first = min(compaction.index for compaction in conversation.recorded_compactions)
    if all(message.role != "assistant" for message in islice(conversation.messages, first)):
        return conversation
    messages = list(conversation.messages)
    stale = 0
    for index in range(first + 1, len(messages)):
        message = messages[index]
        if message.reported_total_tokens is not None:
            metadata = {**(message.metadata or {}), "context_usage_stale": True}
            messages[index] = message.model_copy(update={"metadata": metadata})
            stale += 1
    if not stale:
        return conversation
    reading = Reading(code="usage_after_compaction_stale", count=stale)
    held = MessagePack(messages) if isinstance(conversation.messages, MessagePack) else messages
    return conversation.model_copy(update={"messages": held, "readings": [*conversation.readings, reading]})


def _load(source: Source | Store, name: str | None) -> tuple[str, list[Conversation]]:
    label, conversations = _read(source, name)
    return label, [_settled(conversation) for conversation in conversations]


def _read(source: Source | Store, name: str | None) -> tuple[str, list[Conversation]]:
    if isinstance(source, Store):
        return _from_store(source)
    store = open_store(source, name)  # a folder or an SQLite database: the store readers take it
    if store is not None:
        return _from_store(store)
    parquet = read_parquet(source, name)  # a Parquet file's rows: the lines a row-per-run JSONL would hold
    document = parquet or read_source(source, name)
    rows = parquet is not None
    try:
        if document.lines is not None:
            conversations = _from_lines(document.lines, document.stem, consume=document.parsed, rows=rows)
            if document.truncated_tail:
                torn = Reading(code="truncated_tail")
                conversations = [
                    c.model_copy(update={"readings": [*c.readings, torn]}) for c in conversations
                ]
            return document.label, conversations
        return document.label, _from_value(document.value, document.stem, consume=document.parsed)
    except FormatProblem as problem:
        raise ConversationFormatError(document.label, _worded(problem, rows=rows)) from None
    except ValidationError as error:  # a safety net: the format modules convert their own
        raise ConversationFormatError(document.label, str(problem_from_validation(error, Loc()))) from None
    except RecursionError:
        raise ConversationFormatError(document.label, f"nested deeper than {MAX_DEPTH} levels") from None


def _from_value(value: Any, stem: str, *, consume: bool = False) -> list[Conversation]:
    """``consume``: the value was parsed here, so a message list may be emptied as messages are built."""
    root = Loc()
    if isinstance(value, dict):
        shape = Shape.of_object(value, stem)
        reader = reader_for(shape)
        if reader is not None:
            return reader.read(shape)
        # An object no reader takes whole may be one message or one session line: a one-line JSONL file.
        line = Shape.of_lines(((1, value),), stem)
        reader = reader_for(line)
        if reader is not None:
            return reader.read(line)
        if {"processor_type", "compression_request"} <= value.keys():  # what a compactor dumps, not a run
            raise FormatProblem(
                root, "is a compaction dump, not a conversation: `compaction-lab dumps` and `score` read it"
            )
        raise FormatProblem(root, f"unrecognised format: an object with keys {_keys(value)}; {_tried()}")
    if not isinstance(value, list | Values):
        raise FormatProblem(root, f"unrecognised format: a JSON {type_name(value)}, not a conversation")
    if not value:
        raise FormatProblem(root, "is an empty list, not a conversation")
    shape = Shape.of_array(value, stem, consume=consume)
    if not shape.objects:
        raise FormatProblem(root, f"unrecognised format: a list of {type_name(value[0])} values; {_tried()}")
    reader = reader_for(shape)
    if reader is None:
        raise FormatProblem(
            root, f"unrecognised format: a list of objects with keys {_keys(shape.objects[0])}; {_tried()}"
        )
    return reader.read(shape)


def _from_store(store: Store) -> tuple[str, list[Conversation]]:
    try:
        return store.label, read_store(store)
    except FormatProblem as problem:
        raise ConversationFormatError(store.label, str(problem)) from None
    except ValidationError as error:
        raise ConversationFormatError(store.label, str(problem_from_validation(error, Loc()))) from None


def _worded(problem: FormatProblem, *, rows: bool) -> str:
    """A problem's line; a Parquet file's "line" is a row."""
    if not rows or problem.loc.line is None:
        return str(problem)
    where = f"row {problem.loc.line}: {problem.loc.path}" if problem.loc.path else f"row {problem.loc.line}"
    return f"{where}: {problem.problem}"


def _from_lines(lines: Lines, stem: str, *, consume: bool = False, rows: bool = False) -> list[Conversation]:
    """``consume``: the lines were parsed here, so a reader may empty the list as messages are built; ``rows``: they
    are a Parquet file's rows."""
    if isinstance(lines[0][1], list):  # a run's messages a line (Pydantic AI's new_messages_json())
        return _from_lists(lines, stem, consume=consume)
    for number, value in lines:
        if not isinstance(value, dict):
            raise FormatProblem(Loc(line=number), f"expected a JSON object, got {type_name(value)}")
    shape = Shape.of_lines(lines, stem, consume=consume)
    reader = reader_for(shape)
    if reader is None:
        number, first = lines[0]
        raise FormatProblem(
            Loc() if rows else Loc(line=number),
            f"no column holds a conversation in a format I know (columns: {_keys(first)}); {_tried()}"
            if rows
            else f"unrecognised format: JSONL of objects with keys {_keys(first)}; {_tried()}",
        )
    return reader.read(shape)


def _from_lists(lines: Lines, stem: str, *, consume: bool) -> list[Conversation]:
    """Lines that are each a JSON list: read by the reader that takes such lines (Pydantic AI's runs, joined by
    conversation), else each line as a file holding that list alone, named ``<stem> #<index>`` as OpenHands'
    one-run-a-line output is."""
    for number, value in lines:
        if not isinstance(value, list):
            raise FormatProblem(Loc(line=number), f"expected a JSON list like line 1, got {type_name(value)}")
    shape = Shape.of_lines(lines, stem, consume=consume)
    reader = reader_for(shape)  # runs a format keeps a line each (pydantic_ai_runs)
    if reader is not None:
        return reader.read(shape)
    conversations: list[Conversation] = []
    for index, (number, value) in enumerate(lines):
        try:
            name = stem if len(lines) == 1 else f"{stem} #{index}"
            conversations += _from_value(value, name, consume=consume)
        except FormatProblem as problem:
            raise FormatProblem(Loc(number, problem.loc.path), problem.problem) from None
    return conversations


def _tried() -> str:
    return "formats tried: " + ", ".join(reader.name for reader in READERS)


def _keys(value: dict[str, Any], limit: int = 6) -> str:
    keys = [str(key) for key in list(value)[:limit]]
    more = ", …" if len(value) > limit else ""
    return (", ".join(keys) + more) if keys else "(none)"
