"""Where in an input something is wrong, and how a pydantic ValidationError becomes one line.

Invariant: every problem a format module finds is a ``FormatProblem`` carrying a location such as
``line 7: message.content[2]`` or ``messages[3].tool_calls[0]``; the loader adds the file name.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

#: Roles the data model accepts, in the words the error messages use.
ROLE_CHOICES = "system, user, assistant or tool"


@dataclass(frozen=True)
class Loc:
    """A position in the input: an optional JSONL line number and a JSON path below it."""

    line: int | None = None
    path: str = ""

    def key(self, key: str | int) -> Loc:
        """The location one step down, into an object key or a list index."""
        if isinstance(key, int):
            return Loc(self.line, f"{self.path}[{key}]")
        return Loc(self.line, f"{self.path}.{key}" if self.path else key)

    def __str__(self) -> str:
        parts = [f"line {self.line}"] if self.line is not None else []
        if self.path:
            parts.append(self.path)
        return ": ".join(parts)


class FormatProblem(ValueError):
    """A problem at a location inside the input; the loader turns it into a ConversationFormatError."""

    def __init__(self, loc: Loc, problem: str) -> None:
        self.loc = loc
        self.problem = problem
        where = str(loc)
        super().__init__(f"{where}: {problem}" if where else problem)


def type_name(value: Any) -> str:
    """The JSON name of a value's type, as a user who wrote the file would say it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def short(value: Any, limit: int = 40) -> str:
    """A short repr for an error message; long values are cut, and an integer too long to print is described."""
    try:
        text = repr(value)
    except ValueError:  # past Python's int-to-str digit limit
        return f"an integer of about {value.bit_length() * 0.30103:,.0f} digits"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def unreadable_number(error: ValueError) -> str:
    """The problem with JSON that parses but that Python refuses to turn into values (``json.loads``'s ValueError)."""
    if "digits" in str(error):
        limit = sys.get_int_max_str_digits()
        return f"holds an integer of more than {limit:,} digits, longer than Python reads (a corrupt file?)"
    return f"not readable JSON ({error})"


def expect_dict(value: Any, loc: Loc, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatProblem(loc, f"expected {what} (a JSON object), got {type_name(value)}")
    return value


def expect_list(value: Any, loc: Loc, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise FormatProblem(loc, f"expected {what} (a JSON list), got {type_name(value)}")
    return value


def expect_name(record: dict[str, Any], key: str, loc: Loc) -> str:
    """``record[key]`` when it is a non-empty string (a tool's name, a call id); else the problem at that key."""
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise FormatProblem(
            loc.key(key), f"must be a non-empty string, got {type_name(value)} {short(value)}"
        )
    return value


def expect_text(record: dict[str, Any], key: str, loc: Loc, *, required: bool = True) -> str:
    """``record[key]`` when it is a string; "" when it is missing or null and not ``required``; else the problem."""
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise FormatProblem(loc.key(key), f"must be a string, got {type_name(value)} {short(value)}")
    return value


def _is_type_tag(step: str | int) -> bool:
    # pydantic names the member of a union it tried (e.g. "str", "list[...]"); users never wrote those.
    return isinstance(step, str) and (step in {"str", "int", "float", "bool", "dict", "list"} or "[" in step)


def problem_from_validation(error: ValidationError, loc: Loc) -> FormatProblem:
    """The first error of a ValidationError as a one-line FormatProblem naming the field path."""
    details = error.errors(include_url=False)
    if not details:
        return FormatProblem(loc, "invalid value")
    first = details[0]
    steps = [step for step in first.get("loc", ()) if not _is_type_tag(step)]
    kind = str(first.get("type", ""))
    value = first.get("input")
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if steps and (kind == "missing" or (value is None and kind.endswith("_type"))):
        where = loc
        for step in steps[:-1]:
            where = where.key(step)
        return FormatProblem(where, f"missing {steps[-1]}")
    where = loc
    for step in steps:
        where = where.key(step)
    if steps and steps[-1] == "role" and kind == "literal_error":
        return FormatProblem(where, f"unknown role {short(value)} (expected {ROLE_CHOICES})")
    if kind == "string_unicode":  # a lone surrogate, e.g. from a "\ud800" escape with no pair
        return FormatProblem(where, f"is not valid Unicode text (a lone surrogate), got {short(value)}")
    if kind.endswith("_type") or kind in {"literal_error", "string_too_short"}:
        message = f"{message}, got {short(value)}"
    return FormatProblem(where, message)


def is_one_document(text: str) -> bool:
    """The text is one JSON value (a ``.jsonl`` name on one pretty-printed document)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def first_line_number(text: str) -> int:
    """The number of the text's first line that is not blank."""
    return next((number for number, line in enumerate(text.split("\n"), start=1) if line.strip()), 1)


def first_line_is_json(text: str) -> bool:
    """The first line that is not blank is one JSON value (JSONL under a ``.json`` name)."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    try:
        json.loads(first)
    except (ValueError, RecursionError):
        return False
    return True


def json_problem(error: json.JSONDecodeError, text: str) -> str:
    """What a text json could not read has wrong, in one line that says where."""
    if error.pos >= len(text.rstrip()):
        return f"not valid JSON: the text ends early at line {error.lineno} (truncated?)"
    if error.msg.startswith("Unterminated string"):
        where = f"line {error.lineno} column {error.colno}"
        return f"not valid JSON: the text ends inside a string that starts at {where} (truncated?)"
    return f"not valid JSON at line {error.lineno} column {error.colno} ({error.msg})"
