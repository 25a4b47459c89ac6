"""Reading tool calls and their results the way openJiuwen's reinjection builders read them (SPEC §12).

Invariant: pure functions of a message or a text; a result is read as its sanitised text (SPEC §6), so an image
payload never reaches a parser, and a result that does not parse is None, never an exception.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from .messages import Message, ToolCall
from .sanitize import content_text

#: Paths containing one of these (after ``\\`` → ``/`` and lower-casing) are never recovered.
EXCLUDED_PATH_PARTS: tuple[str, ...] = ("/.git/", "/node_modules/", "/__pycache__/")

_DATA_FIELD = re.compile(r"\bdata=(?P<data>\{.*?\})(?:\s+\w+=|$)", re.DOTALL)


def result_text_of(message: Message) -> str:
    """A message's content as text: a string sanitised, list content as the JSON of its sanitised copy."""
    return content_text(message.content)


def parse_tool_result(text: str) -> Any:
    """The JSON value of a result; for a printed tool output (``… data={...} …``) the ``data`` dict; else None."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    # ``_DATA_FIELD`` needs the literal ``data=``: a text without one (most results that are not JSON) is not scanned
    match = _DATA_FIELD.search(text) if "data=" in text else None
    if match is None:
        return None
    try:
        value = ast.literal_eval(match.group("data"))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def argument_path(arguments: dict[str, Any], raw_arguments: str) -> str:
    """``file_path`` else ``path`` from the call arguments; falls back to a text search if they are not JSON."""
    keys = ("file_path", "path")
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    for key in keys:
        match = re.search(rf'"{key}"\s*:\s*"([^"]+)"', raw_arguments)
        if match:
            return match.group(1).strip()
    return ""


def is_excluded_path(path: str) -> bool:
    normalised = path.replace("\\", "/").lower()
    return any(part in normalised for part in EXCLUDED_PATH_PARTS)


def calls_named(messages: Sequence[Message], name: str) -> Iterator[ToolCall]:
    """The tool calls named exactly ``name``, in the order the assistant messages made them."""
    for message in messages:
        if message.role == "assistant":
            for call in message.tool_calls or ():
                if call.name == name:
                    yield call


def last_result_text(messages: Sequence[Message], call_id: str) -> str:
    """The (sanitised) text of the last tool result answering ``call_id`` among ``messages``, or ""."""
    if not call_id:
        return ""
    for message in reversed(messages):
        if message.role == "tool" and message.tool_call_id == call_id:
            return result_text_of(message)
    return ""


def message_signature(message: Message) -> str:
    """role | sanitised text | the ids of an assistant's tool calls: how openJiuwen tells messages apart."""
    ids = "|".join(call.id for call in message.tool_calls or ()) if message.role == "assistant" else ""
    return f"{message.role}|{result_text_of(message)}|{ids}"
