"""A run's messages, packed: a plain message (a role and a text, nothing else set) is held as its text, a role
byte and its count (17 bytes beside the text, against ~230 as an object), any other message as itself.

Invariant: ``pack[i] == original[i]``, fields and set fields in the same order, each time it is built; a built
plain message carries the count the pack holds for it. Nothing here writes to a message it was given.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .lean_sequence import LeanSequence
from .message_storage import COUNT_SLOT, NO_EXTRA, cached_count, is_process_counter, lean_copy

#: Roles a plain message may have, by code (0: the item is a message object, not a text).
_ROLES: tuple[str, ...] = ("", "system", "user", "assistant")
_CODES = {role: code for code, role in enumerate(_ROLES) if role}
#: The set fields of a plain message: a reader gave it a role and a content, nothing else.
_PLAIN_SET = frozenset({"role", "content"})
#: The one set-fields object every built plain message shares (nothing writes to a frozen message's).
_FIELDS_SET: set[str] = set(_PLAIN_SET)
#: No count held for a message (counts are never negative).
_NONE = -1


class MessagePack(LeanSequence):
    """The messages of one run, packed (see the module docstring); a read-only sequence, like a tuple.

    Slices are packs too (sharing the texts); ``+`` with a list or tuple gives a list.
    """

    __slots__ = ("_bare", "_counter", "_counts", "_defaults", "_items", "_model", "_roles", "_template")

    def __init__(self, messages: Iterable[BaseModel] = ()) -> None:
        self._model: type[BaseModel] | None = None
        self._items: list[Any] = []  # a plain message's text, else the message
        self._roles = bytearray()
        self._counts = array("q")  # the count of ``_counter`` for a plain message, else _NONE
        self._counter: str | None = None
        self._bare = False  # the counter is the process's: a count sits in a message's slot as a bare int
        self._defaults: dict[str, Any] = {}  # every field but role and content, with its default
        self._template: dict[str, Any] = {}  # a plain message's fields, role and content first (to be set)
        for message in messages:
            self.append(message)

    # -- building ------------------------------------------------------------------------------

    def append(self, message: BaseModel) -> None:
        code = self._plain_code(message)
        count = cached_count(message, self._counter) if code and self._counter is not None else None
        if code and count is None and getattr(message, COUNT_SLOT, None) is not None:
            code = 0  # counted by a counter the pack does not keep: as itself, so that the count stays
        self._items.append(message.__dict__["content"] if code else message)
        self._roles.append(code)
        self._counts.append(_NONE if count is None else count)

    def append_built(self, message: BaseModel) -> None:
        """Append a message a reader has just built (nothing else holds it): kept as itself, it is lean first."""
        if self._plain_code(message):
            self.append(message)
        else:
            self.append(lean_copy(message))

    def append_text(self, model: type[BaseModel], role: str, text: str) -> bool:
        """Append ``model(role=role, content=text)`` without building it, when the pack holds ``model``'s plain
        messages and ``role`` is a plain one; False (nothing appended) otherwise: the caller builds the message."""
        code = _CODES.get(role, 0)
        if not code or (
            self._model is not model and (self._model is not None or not self._take_model(model))
        ):
            return False
        self._items.append(text)
        self._roles.append(code)
        self._counts.append(_NONE)
        return True

    def extend(self, messages: Iterable[BaseModel]) -> None:
        for message in messages:
            self.append(message)

    def _plain_code(self, message: BaseModel) -> int:
        """The role code when ``message`` is plain, else 0."""
        model = type(message)
        if self._model is None and not self._take_model(model):
            return 0
        if model is not self._model:
            return 0
        if message.__pydantic_fields_set__ != _PLAIN_SET or message.__pydantic_extra__:
            return 0
        values = message.__dict__
        if type(values.get("content")) is not str:
            return 0
        for name, default in self._defaults.items():
            value = values.get(name)
            if value is not default and value != default:
                return 0
        return _CODES.get(values.get("role", ""), 0)

    def _take_model(self, model: type[BaseModel]) -> bool:
        """Pack messages of ``model`` when its first fields are role and content and every other has a default."""
        fields = model.model_fields
        if list(fields)[:2] != ["role", "content"]:
            return False
        defaults = {name: info.default for name, info in fields.items() if name not in _PLAIN_SET}
        if any(default is PydanticUndefined for default in defaults.values()):
            return False
        self._model, self._defaults = model, defaults
        self._template = {"role": None, "content": None, **defaults}
        return True

    # -- reading -------------------------------------------------------------------------------

    def _build(self, position: int) -> Any:
        code = self._roles[position]
        item = self._items[position]
        if not code:
            return item
        assert self._model is not None
        message = object.__new__(self._model)
        setattr_ = object.__setattr__
        fields = self._template.copy()
        fields["role"], fields["content"] = _ROLES[code], item
        setattr_(message, "__dict__", fields)
        setattr_(message, "__pydantic_fields_set__", _FIELDS_SET)
        setattr_(message, "__pydantic_extra__", NO_EXTRA)
        setattr_(message, "__pydantic_private__", None)
        # the slot is always set: a read of an unset one goes through pydantic's slow __getattr__
        count = self._counts[position]
        if count == _NONE:
            setattr_(message, COUNT_SLOT, None)
        else:
            setattr_(message, COUNT_SLOT, count if self._bare else {self._counter: count})
        return message

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> MessagePack: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            part = MessagePack()
            part._model, part._defaults, part._template = self._model, self._defaults, self._template
            part._keep_counts_of(self._counter)
            part._items, part._roles, part._counts = (
                self._items[index],
                self._roles[index],
                self._counts[index],
            )
            return part
        if index < 0:
            index += len(self._items)
        if not 0 <= index < len(self._items):
            raise IndexError("message index out of range")
        return self._build(index)

    def __iter__(self) -> Iterator[Any]:
        build = self._build
        for position in range(len(self._items)):
            yield build(position)

    def __reversed__(self) -> Iterator[Any]:
        build = self._build
        for position in range(len(self._items) - 1, -1, -1):
            yield build(position)

    def __add__(self, other: Sequence[Any]) -> list[Any]:
        return [*self, *other]

    def __radd__(self, other: Sequence[Any]) -> list[Any]:
        return [*other, *self]

    def __repr__(self) -> str:
        return f"MessagePack({len(self)} messages)"

    def __reduce__(self) -> tuple[Callable[..., MessagePack], tuple[Any, ...]]:
        return _unpickled, (self._model, self._items, bytes(self._roles), self._counts, self._counter)

    def _keep_counts_of(self, counter: str | None) -> None:
        self._counter = counter
        self._bare = counter is not None and is_process_counter(counter)

    # -- counts --------------------------------------------------------------------------------

    def counts(
        self, counter: str, count_many: Callable[[Sequence[Any]], list[int]], batch: int = 4096
    ) -> list[int]:
        """Each message's count under ``counter``, ``count_many`` counting ``batch`` built messages at a time (so a
        million messages are never objects at once); the counts are kept for the next read when the pack keeps
        ``counter``'s (the first counter that asks)."""
        if self._counter is None:
            self._keep_counts_of(counter)
        kept = counter == self._counter
        roles, held, size = self._roles, self._counts, len(self._items)
        build = self._build
        out: list[int] = []
        for begin in range(0, size, batch):
            end = min(begin + batch, size)
            if not kept or held[begin:end].count(_NONE) == end - begin:  # nothing held here: count them all
                counted = count_many([build(p) for p in range(begin, end)])
                if kept:
                    held[begin:end] = array("q", map(_held_count, roles[begin:end], counted))
                out.extend(counted)
                continue
            # a plain message whose count the pack holds is not built again
            wanted = [p for p in range(begin, end) if not roles[p] or held[p] == _NONE]
            found = dict(zip(wanted, count_many([build(p) for p in wanted]), strict=True))
            for position in range(begin, end):
                count = found.get(position)
                if count is None:
                    count = held[position]
                elif roles[position]:
                    held[position] = count
                out.append(count)
        return out


def _held_count(role: int, count: int) -> int:
    """What the pack holds of a count: a plain message's, not a message kept as itself (it holds its own)."""
    return count if role else _NONE


def _unpickled(
    model: type[BaseModel] | None, items: list[Any], roles: bytes, counts: array[int], counter: str | None
) -> MessagePack:
    pack = MessagePack()
    if model is not None and pack._take_model(model):
        pack._items, pack._roles, pack._counts = items, bytearray(roles), counts
        pack._keep_counts_of(counter)
        return pack
    raise ValueError(f"cannot unpickle messages of {model!r}")
