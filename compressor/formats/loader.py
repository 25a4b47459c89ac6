"""Detect an input's format and load the conversations it holds.

Invariant: ``load_conversations`` returns at least one Conversation or raises ConversationFormatError
with one line ``<source>: <problem>``; no other exception escapes for bad input, and inputs are only read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from compressor.errors import ConversationFormatError
from compressor.formats import chat, claude_code, records, swe_agent
from compressor.formats.building import indexed
from compressor.formats.problems import FormatProblem, Loc, problem_from_validation, type_name
from compressor.formats.source import MAX_DEPTH, Source, read_source
from compressor.messages import Conversation

#: Values of ``Conversation.source_format`` a loader sets.
FORMAT_NAMES: tuple[str, ...] = (
    "openjiuwen",
    "openai",
    "jsonl",
    "anthropic",
    "claude-code",
    "swe-agent",
    "traj-records",
)

_EXPECTED = "expected a message list, a {messages, tools} object, SWE-agent history or records with traj"


def load_conversations(source: Source, *, name: str | None = None) -> list[Conversation]:
    """Every conversation a source holds (a path, JSON/JSONL text or bytes, a list or a dict).

    ``name`` stands for the source in error messages and conversation names (e.g. an uploaded file's name).
    """
    _, conversations = _load(source, name)
    return conversations


def load_conversation(source: Source, *, name: str | None = None) -> Conversation:
    """The one conversation a source holds; a source with several is an error naming how many."""
    label, conversations = _load(source, name)
    if len(conversations) != 1:
        raise ConversationFormatError(
            label, f"holds {len(conversations)} conversations; use load_conversations to read them all"
        )
    return conversations[0]


def _load(source: Source, name: str | None) -> tuple[str, list[Conversation]]:
    document = read_source(source, name)
    try:
        if document.lines is not None:
            return document.label, _from_lines(document.lines, document.stem)
        return document.label, _from_value(document.value, document.stem, consume=document.parsed)
    except FormatProblem as problem:
        raise ConversationFormatError(document.label, str(problem)) from None
    except ValidationError as error:  # a safety net: the format modules convert their own
        raise ConversationFormatError(document.label, str(problem_from_validation(error, Loc()))) from None
    except RecursionError:
        raise ConversationFormatError(document.label, f"nested deeper than {MAX_DEPTH} levels") from None


def _from_value(value: Any, stem: str, *, consume: bool = False) -> list[Conversation]:
    """``consume``: the value was parsed here, so a message list may be emptied as messages are built."""
    root = Loc()
    if isinstance(value, dict):
        return _from_dict(value, stem)
    if not isinstance(value, list):
        raise FormatProblem(root, f"unrecognised format: a JSON {type_name(value)}, not a conversation")
    if not value:
        raise FormatProblem(root, "is an empty list, not a conversation")
    if not any(isinstance(item, dict) for item in value):
        raise FormatProblem(root, f"unrecognised format: a list of {type_name(value[0])} values; {_EXPECTED}")
    # No list of the objects is held while converting: each parsed message can go once it is built.
    if any(isinstance(item, dict) and "role" in item for item in value):
        return [chat.from_list(value, root, name=stem, consume=consume)]
    objects = [item for item in value if isinstance(item, dict)]
    if any(records.looks_like_record(item) for item in objects):
        return records.from_records(indexed(value, root), stem=stem)
    if any("messages" in item for item in objects):
        return _numbered(value, root, stem, None)
    if claude_code.looks_like_session(objects):
        return [claude_code.from_lines(indexed(value, root), name=stem)]
    raise FormatProblem(
        root, f"unrecognised format: a list of objects with keys {_keys(objects[0])}; {_EXPECTED}"
    )


def _from_dict(value: dict[str, Any], stem: str) -> list[Conversation]:
    root = Loc()
    if swe_agent.looks_like_trajectory(value):
        return [swe_agent.from_trajectory(value, root, name=stem)]
    if records.looks_like_record(value):
        return [records.from_record(value, root, name=records.record_name(stem, 0, value))]
    if "messages" in value:
        return [chat.from_object(value, root, name=stem)]
    if "role" in value or claude_code.looks_like_session([value]):
        return _from_lines(((1, value),), stem)  # one message or log line: a one-line JSONL file
    raise FormatProblem(root, f"unrecognised format: an object with keys {_keys(value)}; {_EXPECTED}")


def _from_lines(lines: tuple[tuple[int, Any], ...], stem: str) -> list[Conversation]:
    for number, value in lines:
        if not isinstance(value, dict):
            raise FormatProblem(Loc(line=number), f"expected a JSON object, got {type_name(value)}")
    values = [value for _, value in lines]
    located = [(Loc(line=number), value) for number, value in lines]
    if claude_code.looks_like_session(values):
        return [claude_code.from_lines(located, name=stem)]
    if any("role" in value for value in values):
        return [chat.from_lines(lines, name=stem)]
    if any(records.looks_like_record(value) for value in values):
        return records.from_records(located, stem=stem)
    if any("messages" in value for value in values):
        return _numbered(values, None, stem, located)
    number, first = lines[0]
    raise FormatProblem(
        Loc(line=number),
        f"unrecognised format: a line with keys {_keys(first)}; expected one message per line or a Claude Code session",
    )


def _numbered(
    values: list[Any], root: Loc | None, stem: str, located: Iterable[tuple[Loc, Any]] | None
) -> list[Conversation]:
    """Several ``{"messages": ...}`` objects: one conversation each, named ``<stem> #<index>``."""
    pairs = list(located) if located is not None else list(indexed(values, root or Loc()))
    out: list[Conversation] = []
    for index, (loc, item) in enumerate(pairs):
        if not isinstance(item, dict):
            raise FormatProblem(loc, f"expected a conversation object, got {type_name(item)}")
        source_format = "jsonl" if loc.line is not None else None
        out.append(chat.from_object(item, loc, name=f"{stem} #{index}", source_format=source_format))
    return out


def _keys(value: dict[str, Any], limit: int = 6) -> str:
    keys = [str(key) for key in list(value)[:limit]]
    more = ", …" if len(value) > limit else ""
    return (", ".join(keys) + more) if keys else "(none)"
