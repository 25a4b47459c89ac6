"""What a format reader is shown: the parsed source as one object, an array or JSONL lines, and the reader type.

Invariant: a ``Shape`` is built once per source and only read; ``values`` are the top-level JSON objects in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from compressor.formats.building import indexed
from compressor.formats.problems import Loc
from compressor.messages import Conversation

Container = Literal["object", "array", "lines"]


@dataclass(frozen=True)
class Shape:
    """A parsed source as a reader sees it.

    ``container`` says how the top-level values arrived: one JSON ``object``, a JSON ``array`` (``raw`` is the
    list itself, which a reader may empty as it goes when ``consume`` is set) or JSONL ``lines``.
    """

    container: Container
    stem: str
    raw: Any = None  # the object or the array; None for lines
    lines: tuple[tuple[int, Any], ...] = ()
    consume: bool = False
    objects: list[dict[str, Any]] = field(default_factory=list)  # the top-level objects, in order

    @classmethod
    def of_object(cls, value: dict[str, Any], stem: str) -> Shape:
        return cls("object", stem, raw=value, objects=[value])

    @classmethod
    def of_array(cls, value: list[Any], stem: str, *, consume: bool) -> Shape:
        return cls("array", stem, raw=value, consume=consume, objects=[v for v in value if isinstance(v, dict)])

    @classmethod
    def of_lines(cls, lines: tuple[tuple[int, Any], ...], stem: str) -> Shape:
        return cls("lines", stem, lines=lines, objects=[value for _, value in lines])

    def located(self) -> Iterator[tuple[Loc, Any]]:
        """Each top-level value with where it is: its line, or its array index."""
        if self.container == "lines":
            return ((Loc(line=number), value) for number, value in self.lines)
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
