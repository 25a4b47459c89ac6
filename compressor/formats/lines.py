"""JSONL lines: one line read in place, and the parsed values of a file's lines kept with their numbers.

Invariant: a line is read exactly as ``json.loads`` reads it alone; ``Lines`` hands out ``(line number, value)``
pairs in file order, each value with its own line's number.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from compressor.lean_sequence import LeanSequence

_NOT_JSON_SPACE = re.compile(r"[^ \t\r\n]")


#: The keys of a plain message object, in order: such an object is kept as its content alone (see ``Values``).
_PLAIN_KEYS = ("role", "content")
_ROLE_KEY, _CONTENT_KEY = _PLAIN_KEYS
#: Roles a ``Values`` names by a byte (one table per file: a hostile file cannot grow it past this).
_ROLE_CODES = 255


class Values(LeanSequence):
    """A file's top-level values (array elements or JSONL lines), lean: an object that is exactly
    ``{"role": <str>, "content": <str>}`` is kept as its content string and a role byte (~70 bytes for a short
    message, against ~170 as a dict), and made again, an equal dict, each time it is read; anything else is kept
    as it is. Read only, but for ``taking``, which hands each value out once and lets it go.
    """

    __slots__ = ("_items", "_kinds", "_roles")

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self._items: list[Any] = []
        self._kinds = bytearray()  # 0: the item is the value; k: a plain message of role _roles[k - 1]
        self._roles: list[str] = []
        for value in values:
            self.append(value)

    def append(self, value: Any) -> None:
        kind = 0
        if type(value) is dict and len(value) == 2 and tuple(value) == _PLAIN_KEYS:
            role, content = value["role"], value["content"]
            if type(role) is str and type(content) is str:
                kind = self._role_code(role)
        self._items.append(value["content"] if kind else value)
        self._kinds.append(kind)

    def _role_code(self, role: str) -> int:
        roles = self._roles
        for code, known in enumerate(roles, 1):
            if known == role:
                return code
        if len(roles) >= _ROLE_CODES:
            return 0
        roles.append(role)
        return len(roles)

    def _value(self, index: int) -> Any:
        kind = self._kinds[index]
        item = self._items[index]
        return {_ROLE_KEY: self._roles[kind - 1], _CONTENT_KEY: item} if kind else item

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._value(position) for position in range(len(self._items))[index]]
        return self._value(range(len(self._items))[index])  # range checks and wraps the index as a list would

    def __iter__(self) -> Iterator[Any]:
        if not self._roles:  # nothing is kept as a content alone: the items are the values
            return iter(self._items)
        return self._made()

    def _made(self) -> Iterator[Any]:
        roles = self._roles
        for item, kind in zip(self._items, self._kinds, strict=True):
            yield {_ROLE_KEY: roles[kind - 1], _CONTENT_KEY: item} if kind else item

    def taking(self) -> Iterator[Any]:
        """The values in order, each released as it is handed out; then the values are empty."""
        items, value = self._items, self._value
        for index in range(len(items)):
            found = value(index)
            items[index] = None
            yield found
        items.clear()
        self._kinds = bytearray()


class Lines(Sequence[tuple[int, Any]]):
    """The values of a JSONL file's lines with their line numbers, lean: no pair per line is kept.

    A pair is made when it is asked for. The numbers are kept only once a blank line has made them differ from
    the values' positions (then 8 bytes a line, in an array); a million (number, value) tuples and their ints
    took ~2x the size of a file of short lines. The values are ``Values``; ``taking`` lets each go as it is handed
    out.
    """

    __slots__ = ("_numbers", "_values")

    def __init__(self) -> None:
        self._values = Values()
        #: None while every value's line number is its position plus one (no blank line skipped so far).
        self._numbers: array[int] | None = None

    def append(self, number: int, value: Any) -> None:
        values, numbers = self._values, self._numbers
        if numbers is None and number != len(values) + 1:
            numbers = self._numbers = array("L", range(1, len(values) + 1))
        if numbers is not None:
            numbers.append(number)
        values.append(value)

    def number(self, index: int) -> int:
        """The line number of the value at ``index`` (from 0)."""
        if self._numbers is not None:
            return self._numbers[index]
        return range(1, len(self._values) + 1)[index]  # range checks and wraps the index as a list would

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> tuple[int, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, Any]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, Any] | list[tuple[int, Any]]:
        if isinstance(index, slice):
            return [self[position] for position in range(len(self))[index]]
        return self.number(index), self._values[index]

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        numbers = self._numbers
        for index, value in enumerate(self._values):
            yield (index + 1 if numbers is None else numbers[index]), value

    def taking(self) -> Iterator[tuple[int, Any]]:
        """The pairs in order, each value released as it is handed out; then the lines are empty."""
        numbers = self._numbers
        for index, value in enumerate(self._values.taking()):
            yield (index + 1 if numbers is None else numbers[index]), value
        self._numbers = None


def decode_line(decoder: json.JSONDecoder, text: str, start: int, end: int) -> Any:
    """``decoder.decode(text[start:end])``, parsed in place when the line is one well-formed value: a line
    holding one long string is not copied first (that copy took a 44 MB line from 3.5x to 5.1x its size)."""
    first = _NOT_JSON_SPACE.search(text, start, end)
    if first is not None:
        try:
            value, stop = decoder.raw_decode(text, first.start())
        except ValueError:
            pass  # the line alone below gives its own error (its column counted within the line)
        else:
            if stop <= end and _NOT_JSON_SPACE.search(text, stop, end) is None:
                return value
    return decoder.decode(text[start:end])  # the same value, or the line's own error


#: Keys whose string values repeat across a file's objects ("user", "assistant", "text"…): one copy each is kept.
_REPEATING_VALUES: frozenset[str] = frozenset({"role", "type"})
#: Longer values under those keys are kept as they are (a hostile file cannot grow the shared copies much).
_REPEATING_MAX_CHARS = 40
#: Key orders given a key table of their own; objects of further orders are plain dicts.
_SHARED_ORDERS = 256


def shared_keys_decoder() -> json.JSONDecoder:
    """A decoder whose objects share their keys across every value it parses (each line, each array element).

    An object's dict is the attribute dict of an instance of a class made for its key order: CPython keeps such a
    dict as its values alone, the keys in one table its class shares (~100 bytes for a message's two fields, not
    ~200), and it is an ordinary dict to everything that reads it (the keys are written to the dict, never set as
    attributes, so no key means anything to the class). Orders past ``_SHARED_ORDERS`` get plain dicts.

    A role's or a part type's value is shared too: a million parsed "user" strings would each cost 53 bytes.
    """
    # the plain keys are ours: a plain message ``Values`` makes again has the same key objects as the parsed ones
    values: dict[str, str] = {key: key for key in _PLAIN_KEYS}
    holders: dict[tuple[str, ...], type] = {}

    def shared(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        order = tuple(key for key, _ in pairs)
        holder = holders.get(order)
        if holder is None and len(holders) < _SHARED_ORDERS:
            holder = holders[order] = type("ParsedObject", (), {})
        parsed: dict[str, Any] = vars(holder()) if holder is not None else {}
        for key, item in pairs:
            key = values.setdefault(key, key)  # one copy of each key, for the plain dicts too
            if key in _REPEATING_VALUES and type(item) is str and len(item) <= _REPEATING_MAX_CHARS:
                item = values.setdefault(item, item)
            parsed[key] = item
        return parsed

    return json.JSONDecoder(object_pairs_hook=shared)


__all__ = ["Lines", "Values", "decode_line", "shared_keys_decoder"]
