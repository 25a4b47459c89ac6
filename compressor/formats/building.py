"""Build Message, ToolDef and Conversation values from JSON data, with errors that name the field.

Invariant: every function here either returns a validated value or raises a FormatProblem whose
location points at the offending field; a pydantic ValidationError never escapes. Numbers are finite and
token counts plausible (``is_number``, ``check_usage``), so no later float or int conversion can fail.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from pydantic import ValidationError

from compressor.formats.lines import Values
from compressor.formats.problems import (
    ROLE_CHOICES,
    FormatProblem,
    Loc,
    expect_dict,
    expect_list,
    problem_from_validation,
    short,
    type_name,
)
from compressor.message_storage import lean_copy
from compressor.messages import ROLES, Conversation, Message, ToolDef
from compressor.run_records import KEPT_BY_COMPACTION

#: Roles other chat formats use for the same thing as one of ours.
ROLE_ALIASES: dict[str, str] = {"developer": "system"}
#: More tokens than any context window will hold: a count past it is a broken file, refused before any sum.
MAX_TOKEN_COUNT = 10**12


def indexed(items: Sequence[Any], base: Loc) -> Iterator[tuple[Loc, Any]]:
    """Each item with its location ``base[i]``."""
    for index, item in enumerate(items):
        yield base.key(index), item


def taking(items: list[Any] | Values, base: Loc) -> Iterator[tuple[Loc, Any]]:
    """Like ``indexed``, but each slot is emptied as its item is handed out.

    Only for lists the loader parsed itself: their items can go as soon as they are converted.
    """
    if isinstance(items, Values):
        for index, item in enumerate(items.taking()):
            yield base.key(index), item
        return
    for index in range(len(items)):
        item = items[index]
        items[index] = None
        yield base.key(index), item
    items.clear()  # every slot is empty: let the list's own array go too (8 MB for a million items)


def is_number(value: Any) -> bool:
    """A JSON number a float can hold: not a boolean, NaN, an infinity (``1e999``) or an integer past 1e308."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def check_usage(usage: Any, loc: Loc) -> dict[str, Any]:
    """A usage object whose token counts are finite numbers no larger than MAX_TOKEN_COUNT (or null)."""
    usage = expect_dict(usage, loc, "a usage object")
    for key, value in usage.items():
        if not (isinstance(key, str) and key.endswith("tokens")) or value is None:
            continue
        if not is_number(value):
            kind = (
                "a finite number"
                if isinstance(value, int | float) and not isinstance(value, bool)
                else "a number"
            )
            raise FormatProblem(loc.key(key), f"must be {kind}, got {type_name(value)} {short(value)}")
        if abs(value) > MAX_TOKEN_COUNT:
            raise FormatProblem(loc.key(key), f"{value:.3g} tokens is more than any context window holds")
    return usage


def token_count(value: Any, loc: Loc) -> int | None:
    """One token count a file wrote under a name ``check_usage`` does not read (camelCase), or None when absent."""
    if value is None:
        return None
    if not is_number(value) or value < 0:
        raise FormatProblem(loc, f"must be a token count, got {type_name(value)} {short(value)}")
    if value > MAX_TOKEN_COUNT:
        raise FormatProblem(loc, f"{value:.3g} tokens is more than any context window holds")
    return int(value)


def check_content(content: Any, loc: Loc) -> None:
    """Content is null, a string, or a list of strings and objects whose ``type`` (if any) is a string."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        raise FormatProblem(loc, f"must be a string or a list of parts, got {type_name(content)}")
    for index, part in enumerate(content):
        if not isinstance(part, str | dict):
            raise FormatProblem(
                loc.key(index), f"a content part must be a string or an object, got {type_name(part)}"
            )
        kind = part.get("type") if isinstance(part, dict) else None
        if kind is not None and not isinstance(kind, str):
            raise FormatProblem(
                loc.key(index).key("type"), f"must be a string, got {type_name(kind)} {short(kind)}"
            )


def _check_tool_calls(calls: Any, loc: Loc) -> None:
    if calls is None:
        return
    for call_loc, call in indexed(expect_list(calls, loc, "tool calls"), loc):
        call = expect_dict(call, call_loc, "a tool call")
        function = call.get("function")
        fields = function if isinstance(function, dict) and "name" not in call else call
        for key, holder in (("id", call), ("name", fields)):
            value = holder.get(key)
            if value is None or value == "":
                raise FormatProblem(call_loc, f"missing {key}")
            if not isinstance(value, str):
                raise FormatProblem(
                    call_loc.key(key), f"must be a string, got {type_name(value)} {short(value)}"
                )


def build_message(data: Any, loc: Loc, *, lean: bool = True) -> Message:
    """One message from a JSON object in openJiuwen or OpenAI form (unknown fields kept); ``lean``: its fields in
    the instance (``lean_copy``), else as pydantic made it (for a ``MessagePack.append_built``, which makes lean
    only what it keeps as itself)."""
    data = expect_dict(data, loc, "a message")
    if "role" not in data:
        raise FormatProblem(loc, "missing role")
    role = data["role"]
    if isinstance(role, str) and role in ROLE_ALIASES:
        data = {**data, "role": ROLE_ALIASES[role]}
    elif not isinstance(role, str) or role not in ROLES:
        raise FormatProblem(loc.key("role"), f"unknown role {short(role)} (expected {ROLE_CHOICES})")
    check_content(data.get("content"), loc.key("content"))
    _check_tool_calls(data.get("tool_calls"), loc.key("tool_calls"))
    if data.get("usage_metadata") is not None:
        check_usage(data["usage_metadata"], loc.key("usage_metadata"))
    if data["role"] == "tool" and data.get("tool_call_id") in (None, ""):
        raise FormatProblem(loc, "tool message without tool_call_id")
    try:
        built = Message.model_validate(data)
        return lean_copy(built) if lean else built
    except ValidationError as error:
        raise problem_from_validation(error, loc) from None


def build_messages(located: Iterable[tuple[Loc, Any]]) -> list[Message]:
    return [build_message(data, loc) for loc, data in located]


def build_tools(value: Any, loc: Loc) -> list[ToolDef]:
    """Tool definitions in OpenAI (``{"type": "function", "function": {...}}``) or flat form."""
    if value is None:
        return []
    tools: list[ToolDef] = []
    for tool_loc, item in indexed(expect_list(value, loc, "tool definitions"), loc):
        expect_dict(item, tool_loc, "a tool definition")
        try:
            tools.append(ToolDef.model_validate(item))
        except ValidationError as error:
            raise problem_from_validation(error, tool_loc) from None
    return tools


def build_conversation(
    messages: Sequence[Message],
    tools: list[ToolDef],
    *,
    name: str,
    source_format: str,
    loc: Loc | None = None,
) -> Conversation:
    """Leading system messages become ``system``; the rest are the context messages."""
    if not messages:
        raise FormatProblem(loc or Loc(), "holds no messages")
    try:
        return Conversation.from_messages(messages, tools, name=name, source_format=source_format)
    except ValidationError as error:
        raise problem_from_validation(error, loc or Loc()) from None


def kept_copy(message: Message, compaction: str) -> Message:
    """A message a compaction kept verbatim, read again after its summary: marked with the compaction it was kept by
    (``KEPT_BY_COMPACTION``), and, a reply, without usage (sent again it is no model call)."""
    update: dict[str, Any] = {"metadata": {**(message.metadata or {}), KEPT_BY_COMPACTION: compaction}}
    if message.role == "assistant":
        update["usage_metadata"] = None
    return message.model_copy(update=update)
