"""What a format reader is shown: the parsed source as one object, an array or JSONL lines, and the reader type.

Invariant: a ``Shape`` is built once per source and only read; ``values`` are the top-level JSON objects in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Literal, overload

from compressor.formats.building import indexed
from compressor.formats.problems import Loc
from compressor.messages import Conversation

Container = Literal["object", "array", "lines"]


class Objects(Sequence[dict[str, Any]]):
    """The objects among a list's values (or among the values of its ``(line, value)`` pairs), in order, read
    through the list: no second list holds them, so a reader that empties the list as it goes (``consume``)
    lets each one go once it is converted."""

    __slots__ = ("_pairs", "_values")

    def __init__(self, values: Sequence[Any], *, pairs: bool = False) -> None:
        self._values = values
        self._pairs = pairs

    def __iter__(self) -> Iterator[dict[str, Any]]:
        values: Iterator[Any] = iter(self._values)
        if self._pairs:
            values = (item[1] for item in values if item is not None)
        return (value for value in values if isinstance(value, dict))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            start, stop, step = index.start or 0, index.stop, index.step or 1
            if start >= 0 and (stop is None or stop >= 0) and step > 0:
                return list(islice(self, start, stop, step))
            return list(self)[index]
        if index >= 0:
            for found in islice(self, index, None):
                return found
            raise IndexError("object index out of range")
        return list(self)[index]


@dataclass(frozen=True)
class Shape:
    """A parsed source as a reader sees it.

    ``container`` says how the top-level values arrived: one JSON ``object``, a JSON ``array`` (``raw`` is the
    list itself) or JSONL ``lines``; when ``consume`` is set, a reader may empty the array or lines as it goes.
    """

    container: Container
    stem: str
    raw: Any = None  # the object or the array; None for lines
    lines: Sequence[tuple[int, Any]] = ()
    consume: bool = False
    objects: Sequence[dict[str, Any]] = field(default_factory=list)  # the top-level objects, in order

    @classmethod
    def of_object(cls, value: dict[str, Any], stem: str) -> Shape:
        return cls("object", stem, raw=value, objects=[value])

    @classmethod
    def of_array(cls, value: Sequence[Any], stem: str, *, consume: bool) -> Shape:
        return cls("array", stem, raw=value, consume=consume, objects=Objects(value))

    @classmethod
    def of_lines(cls, lines: Sequence[tuple[int, Any]], stem: str, *, consume: bool = False) -> Shape:
        return cls("lines", stem, lines=lines, consume=consume, objects=Objects(lines, pairs=True))

    def located(self) -> Iterator[tuple[Loc, Any]]:
        """Each top-level value with where it is: its line, or its array index."""
        if self.container == "lines":
            return ((Loc(line=item[0]), item[1]) for item in self.lines if item is not None)
        if self.container == "array":
            return indexed(self.raw, Loc())
        return iter([(Loc(), self.raw)])

    def any_has(self, key: str) -> bool:
        return any(key in value for value in self.objects)


@dataclass(frozen=True)
class Reader:
    """One input format: whether a shape is it, and how to read it. The registry walks readers in order."""

    name: str
    looks_like: Callable[[Shape], bool]
    read: Callable[[Shape], list[Conversation]]
