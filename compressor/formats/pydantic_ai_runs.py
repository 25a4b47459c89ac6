"""Pydantic AI runs saved a line each: JSONL whose every line is one run's ``new_messages_json()`` (or
``all_messages_json()``) list, as an app appends each run it makes (Pydantic AI's chat-app example keeps one such
list a row). Consecutive lines whose messages carry the same ``conversation_id`` are one conversation, the runs of
it in order; any other line starts a conversation of its own.

Invariant: a group of lines reads exactly as the one list of its lines' messages reads (``pydantic_ai.read``); a
problem names the line and the message's place in that line's list.

Schema: pydantic/pydantic-ai ``pydantic_ai_slim/pydantic_ai/messages.py`` (v2): ``ModelRequest.conversation_id``
and ``ModelResponse.conversation_id``, "A conversation spans potentially multiple agent runs that share message
history" (``_agent_graph.resolve_conversation_id`` takes the latest one of ``message_history``); ``run_id`` names
the run. Histories written before ``conversation_id`` existed carry none: each line is then its own conversation.
"""

from __future__ import annotations

import re
from typing import Any

from compressor.formats import pydantic_ai
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.shape import Reader, Shape
from compressor.messages import Conversation

_INDEX = re.compile(r"^\[(\d+)\](.*)$", re.DOTALL)


def looks_like(shape: Shape) -> bool:
    if shape.container != "lines" or not shape.lines:
        return False
    # One value at a time, stopping at the first that is no list: the lines of a JSONL of a million messages are
    # never all made into objects at once here.
    first: list[Any] | None = None
    for item in shape.lines:
        if item is None:
            continue
        value = item[1]
        if not isinstance(value, list):
            return False
        first = value if first is None else first
    return first is not None and any(map(pydantic_ai.is_message, first[:50]))


def _conversation_id(value: Any) -> str | None:
    found = value.get("conversation_id") if isinstance(value, dict) else None
    return found if isinstance(found, str) and found else None


def _groups(lines: list[tuple[int, list[Any]]]) -> list[list[tuple[int, list[Any]]]]:
    """Consecutive lines one conversation: a line joins the one before when its first message's conversation_id
    is the id the line before ended with."""
    groups: list[list[tuple[int, list[Any]]]] = []
    ended: str | None = None
    for number, messages in lines:
        first = next(filter(None, map(_conversation_id, messages)), None)
        if groups and first is not None and first == ended:
            groups[-1].append((number, messages))
        else:
            groups.append([(number, messages)])
        ended = next(filter(None, map(_conversation_id, reversed(messages))), None)
    return groups


def _read_group(group: list[tuple[int, list[Any]]], name: str) -> Conversation:
    joined = [message for _, messages in group for message in messages]
    try:
        (conversation,) = pydantic_ai.read(Shape.of_array(joined, name, consume=False))
    except FormatProblem as problem:
        raise _on_its_line(problem, group) from None
    return conversation


def _on_its_line(problem: FormatProblem, group: list[tuple[int, list[Any]]]) -> FormatProblem:
    """The problem at the line holding the message it names, with that message's index in the line's list."""
    found = _INDEX.match(problem.loc.path)
    if found is None:
        return FormatProblem(Loc(group[0][0], problem.loc.path), problem.problem)
    index = int(found.group(1))
    for number, messages in group:
        if index < len(messages):
            return FormatProblem(Loc(number, f"[{index}]{found.group(2)}"), problem.problem)
        index -= len(messages)
    return FormatProblem(Loc(group[-1][0], problem.loc.path), problem.problem)


def read(shape: Shape) -> list[Conversation]:
    lines = [(item[0], item[1]) for item in shape.lines if item is not None]
    groups = _groups(lines)
    if len(groups) == 1:
        return [_read_group(groups[0], shape.stem)]
    return [_read_group(group, f"{shape.stem} #{index}") for index, group in enumerate(groups)]


READER = Reader(name="pydantic-ai-runs", looks_like=looks_like, read=read)
